//! What the KGP tests over TCP and over WebSocket share: the server's settings, its reports,
//! and our client over any link.

use std::sync::mpsc::Receiver;
use std::time::Duration;

use mancala_engine::Level;
use mancala_play::Computer;
use mancala_protocols::kgp::{
    run_client, ClientConfig, ClientReport, Link, Mode, ServerConfig, SessionReport,
};

/// The server at `level`, 2 s a position.
pub fn config(level: u8) -> ServerConfig {
    let mut cfg = ServerConfig::new(Level::new(level).unwrap());
    cfg.move_time = Duration::from_millis(2000);
    cfg
}

/// Our client named `name`, at `level`, through `link` to its end.
pub fn client(link: Link, name: &str, mode: Mode, level: u8) -> ClientReport {
    let mut computer = Computer::new(Level::new(level).unwrap(), 7);
    let cfg = ClientConfig {
        mode,
        name: name.into(),
        authors: Some("tests".into()),
        token: None,
        per_move: None,
    };
    run_client(
        link.reader,
        link.writer,
        &mut computer,
        &cfg,
        Box::new(std::io::sink()),
    )
    .unwrap()
}

/// The server's next connection report.
pub fn report(rx: &Receiver<SessionReport>) -> SessionReport {
    rx.recv_timeout(Duration::from_secs(60)).unwrap()
}
