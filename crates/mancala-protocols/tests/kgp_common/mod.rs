//! What the KGP tests share (over TCP, over WebSocket, and the web server's lobby): the
//! server's settings, a server on listeners and its reports, and our client over any link.

use std::net::TcpListener;
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use mancala_engine::Level;
use mancala_play::Computer;
use mancala_protocols::kgp::{
    self, run_client, ClientConfig, ClientReport, Link, Mode, ServerConfig, SessionReport,
    Transport,
};

/// The server at `level`, 2 s a position.
pub fn config(level: u8) -> ServerConfig {
    let mut cfg = ServerConfig::new(Level::new(level).unwrap());
    cfg.move_time = Duration::from_millis(2000);
    cfg
}

/// A server with `cfg` on `listeners` (on a thread); its connections' reports come to the
/// receiver.
pub fn serving(
    listeners: Vec<(TcpListener, Transport)>,
    cfg: ServerConfig,
) -> Receiver<SessionReport> {
    let (tx, rx) = mpsc::channel();
    let tx = std::sync::Mutex::new(tx);
    std::thread::spawn(move || {
        kgp::serve_all(listeners, cfg, move |r| {
            let _ = tx.lock().unwrap().send(r);
        })
    });
    rx
}

/// Our client named `name`, at `level`, through `link` to its end.
pub fn client(link: Link, name: &str, mode: Mode, level: u8) -> ClientReport {
    client_seeded(link, name, mode, level, 7)
}

/// [`client`] with its computer's `seed`.
pub fn client_seeded(link: Link, name: &str, mode: Mode, level: u8, seed: u64) -> ClientReport {
    let mut computer = Computer::new(Level::new(level).unwrap(), seed);
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
