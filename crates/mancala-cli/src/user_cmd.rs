//! `mancala user`: accounts of the web site (`mancala serve`), for the person running it.
//!
//! The password is never a command-line argument (it would stay in the shell's history and
//! show in the process list): it is asked for at the terminal, without echo and twice, or
//! read as the first line of standard input when that is not a terminal.

use std::io::{BufRead, IsTerminal};
use std::path::PathBuf;

use clap::{Args, Subcommand};
use mancala_server::accounts::{check_password, user_command, UserAction};

/// `mancala user ACTION NAME`.
#[derive(Args)]
pub struct UserArgs {
    #[command(subcommand)]
    action: Action,
}

#[derive(Subcommand)]
enum Action {
    /// Make an account (its password asked for, or read from standard input).
    Add(Target),
    /// Give an account a new password (asked for, or read from standard input); its
    /// sessions end.
    ResetPassword(Target),
    /// Disable an account: it can no longer log in and its sessions end; its games and
    /// ratings stay.
    Disable(Target),
}

#[derive(Args)]
struct Target {
    /// The account's name (2 to 24 letters, digits, `_` or `-`; any case finds it).
    name: String,
    /// The server's database, a SQLite file or a PostgreSQL address (`mancala serve --db`;
    /// default: the same as `serve`'s).
    #[arg(long)]
    db: Option<PathBuf>,
}

/// The password: asked twice at a terminal, else the first line of standard input.
fn read_password(name: &str) -> anyhow::Result<String> {
    if std::io::stdin().is_terminal() {
        let first = rpassword::prompt_password(format!("password for {name}: "))?;
        check_password(&first)?;
        let again = rpassword::prompt_password("the same password again: ")?;
        if again != first {
            anyhow::bail!("the two passwords differ");
        }
        return Ok(first);
    }
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    let password = line.strip_suffix('\n').unwrap_or(&line);
    let password = password.strip_suffix('\r').unwrap_or(password);
    if password.is_empty() {
        anyhow::bail!("no password: write it as the first line of standard input");
    }
    Ok(password.to_string())
}

/// Runs `mancala user`.
pub fn run(a: UserArgs) -> anyhow::Result<()> {
    let (action, target) = match a.action {
        Action::Add(t) => (UserAction::Add, t),
        Action::ResetPassword(t) => (UserAction::ResetPassword, t),
        Action::Disable(t) => (UserAction::Disable, t),
    };
    let (store, _) = mancala_server::open_store(&mancala_server::ServeArgs {
        db: target.db.clone(),
        ..Default::default()
    })?;
    let password = match action {
        UserAction::Disable => None,
        _ => Some(read_password(&target.name)?),
    };
    let line = user_command(&store, action, &target.name, password.as_deref())?;
    println!("{line}");
    Ok(())
}
