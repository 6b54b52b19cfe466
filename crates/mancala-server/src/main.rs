//! `mancala-server`: the same server as `mancala serve`, as its own binary (used by the
//! integration tests that restart and kill the server).

use clap::Parser;

#[derive(Parser)]
#[command(
    name = "mancala-server",
    version,
    about = "Serve the mancala browser client and its API"
)]
struct Cli {
    #[command(flatten)]
    args: mancala_server::ServeArgs,
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    match mancala_server::run(cli.args) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", format!("{e:#}").replace('\n', " "));
            std::process::ExitCode::from(2)
        }
    }
}
