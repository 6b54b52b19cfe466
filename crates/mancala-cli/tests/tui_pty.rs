//! `mancala tui` in a real pseudo-terminal: a whole game against the computer driven by keys,
//! a saved record, replay, a resize, and the terminal restored after `q`, Ctrl-C and a panic.
//! The screen is read back through a vt100 parser; every wait has a deadline.
#![cfg(unix)]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nix::sys::termios::LocalFlags;
use portable_pty::{native_pty_system, Child, CommandBuilder, MasterPty, PtySize};

const ROWS: u16 = 30;
const COLS: u16 = 100;

struct Tui {
    child: Box<dyn Child + Send + Sync>,
    master: Box<dyn MasterPty + Send>,
    writer: Box<dyn Write + Send>,
    screen: Arc<Mutex<vt100::Parser>>,
    raw: Arc<Mutex<Vec<u8>>>,
}

fn nz(n: u16) -> std::num::NonZeroU16 {
    std::num::NonZeroU16::new(n).expect("not zero")
}

fn size(rows: u16, cols: u16) -> PtySize {
    PtySize {
        rows,
        cols,
        pixel_width: 0,
        pixel_height: 0,
    }
}

impl Tui {
    fn start(args: &[&str], env: &[(&str, &str)], cwd: &Path) -> Tui {
        let pair = native_pty_system()
            .openpty(size(ROWS, COLS))
            .expect("a pty");
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_mancala"));
        cmd.args(args);
        cmd.cwd(cwd);
        cmd.env("TERM", "xterm-256color");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let child = pair.slave.spawn_command(cmd).expect("spawns");
        drop(pair.slave);
        let screen = Arc::new(Mutex::new(vt100::Parser::new(nz(ROWS), nz(COLS), 0)));
        let raw = Arc::new(Mutex::new(Vec::new()));
        let mut reader = pair.master.try_clone_reader().unwrap();
        let (s, r) = (screen.clone(), raw.clone());
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                s.lock().unwrap().process(&buf[..n]);
                r.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        let writer = pair.master.take_writer().unwrap();
        Tui {
            child,
            master: pair.master,
            writer,
            screen,
            raw,
        }
    }

    fn contents(&self) -> String {
        self.screen.lock().unwrap().screen().contents()
    }

    fn wait_for(&self, needle: &str) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if self.contents().contains(needle) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!(
            "`{needle}` never appeared; the screen:\n{}",
            self.contents()
        );
    }

    fn send(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).unwrap();
        self.writer.flush().unwrap();
    }

    fn resize(&mut self, rows: u16, cols: u16) {
        self.screen
            .lock()
            .unwrap()
            .screen_mut()
            .set_size(nz(rows), nz(cols));
        self.master.resize(size(rows, cols)).unwrap();
    }

    /// Waits for the exit; returns the exit code.
    fn wait_exit(&mut self) -> u32 {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.exit_code();
            }
            if Instant::now() > deadline {
                self.child.kill().ok();
                panic!("the TUI did not exit; the screen:\n{}", self.contents());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The terminal is back to normal: line editing and echo on, the main screen shown.
    fn assert_restored(&self) {
        let t = self.master.get_termios().expect("termios of the pty");
        assert!(
            t.local_flags
                .contains(LocalFlags::ICANON | LocalFlags::ECHO),
            "raw mode left on: {:?}",
            t.local_flags
        );
        let raw = self.raw_text();
        assert!(
            raw.contains("\x1b[?1049l"),
            "never left the alternate screen"
        );
    }

    fn raw_text(&self) -> String {
        // Give the reader a moment to drain what the child wrote last.
        std::thread::sleep(Duration::from_millis(100));
        String::from_utf8_lossy(&self.raw.lock().unwrap()).into_owned()
    }
}

impl Drop for Tui {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.child.kill().ok();
        }
    }
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mancala-pty-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn plays_a_whole_game_saves_replays_resizes_and_quits() {
    let dir = temp_dir("game");
    let mut t = Tui::start(
        &[
            "tui",
            "--variant",
            "kalah",
            "--south",
            "human",
            "--north",
            "1",
            "--seed",
            "3",
            "--speed",
            "0",
        ],
        &[],
        &dir,
    );
    t.wait_for("South (you) to move");
    assert!(t.contents().contains("mancala · Kalah"));
    // Enter sows the pit under the cursor, always a legal one; the computer replies.
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut presses = 0;
    while !t.contents().contains("Game over") {
        assert!(
            Instant::now() < deadline,
            "no end after {presses} presses:\n{}",
            t.contents()
        );
        t.send(b"\r");
        presses += 1;
        std::thread::sleep(Duration::from_millis(40));
    }
    let end = t.contents();
    assert!(end.contains("wins") || end.contains("Draw"), "{end}");
    // Save under the offered name.
    t.send(b"s");
    t.wait_for("Save the record to");
    t.send(b"\r");
    t.wait_for("Saved to kalah-game.txt");
    // Replay: back to the start, one move on.
    t.send(b"p");
    t.send(b"\x1b[H");
    t.wait_for("REPLAY: move 0 of");
    t.send(b"\x1b[C");
    t.wait_for("REPLAY: move 1 of");
    t.send(b"p");
    t.wait_for("Back to the game");
    // Help screen.
    t.send(b"?");
    // The title says which keys are shown where the help must scroll.
    t.wait_for("Esc closes)");
    t.send(b"?");
    // Too small, then large again.
    t.resize(10, 30);
    t.wait_for("Enlarge it");
    t.resize(ROWS, COLS);
    t.wait_for("mancala · Kalah");
    t.send(b"q");
    assert_eq!(t.wait_exit(), 0);
    t.assert_restored();
    // The saved record replays to the same end.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mancala"))
        .args(["replay", "kalah-game.txt"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("wins") || text.contains("Draw"), "{text}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn ctrl_c_quits_and_restores_the_terminal() {
    let dir = temp_dir("ctrlc");
    let mut t = Tui::start(&["tui", "--variant", "kauri", "--speed", "0"], &[], &dir);
    t.wait_for("mancala · Kauri");
    t.send(b"\x03");
    assert_eq!(t.wait_exit(), 0);
    t.assert_restored();
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_panic_restores_the_terminal_before_reporting() {
    let dir = temp_dir("panic");
    let mut t = Tui::start(
        &["tui", "--variant", "dracala"],
        &[("MANCALA_TUI_TEST_PANIC", "1")],
        &dir,
    );
    assert_ne!(t.wait_exit(), 0);
    t.assert_restored();
    let raw = t.raw_text();
    let left = raw.find("\x1b[?1049l").unwrap();
    let message = raw
        .find("panicking on purpose")
        .expect("the panic message is shown");
    assert!(
        left < message,
        "the message came before the screen was restored"
    );
    std::fs::remove_dir_all(&dir).ok();
}
