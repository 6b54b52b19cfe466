//! KGP over WebSocket (`ws://`, as the course tournaments' servers accept it): a text message
//! a line, no line break needed, read and written by `tungstenite` over a blocking
//! `TcpStream`. A message holding several lines is read as those lines. TLS (`wss://`) is not
//! supported.
//!
//! The handshake's socket reads (it may already hold the first frames); a second
//! `tungstenite` socket over a clone of the stream writes, so a thread can block reading while
//! another writes, as over TCP. Only the reading socket answers pings and a close; once the
//! peer's close frame is read and answered, the writing socket sends nothing more (RFC 6455:
//! no data after a close), so a server's `error` and `goodbye` after a bot closed are dropped.

use std::collections::VecDeque;
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tungstenite::protocol::{Role, WebSocketConfig};
use tungstenite::{Error, Message, WebSocket};

use super::lines::{LineRead, LineWrite, Link};
use super::{LineError, MAX_LINE};

/// At most a line and its line break a message and a frame.
fn config() -> WebSocketConfig {
    WebSocketConfig::default()
        .max_message_size(Some(MAX_LINE + 2))
        .max_frame_size(Some(MAX_LINE + 2))
}

/// The reading half: the handshake's socket, the lines of a message not yet taken, and the
/// flag it raises when the peer's close frame arrives.
struct WsReader {
    ws: WebSocket<TcpStream>,
    pending: VecDeque<String>,
    closed: Arc<AtomicBool>,
}

impl LineRead for WsReader {
    fn read_line(&mut self) -> Result<Option<String>, LineError> {
        loop {
            if let Some(l) = self.pending.pop_front() {
                return Ok(Some(l));
            }
            match self.ws.read() {
                Ok(Message::Text(t)) => {
                    let t = t.as_str();
                    let t = t.strip_suffix('\n').unwrap_or(t);
                    for l in t.split('\n') {
                        let l = l.strip_suffix('\r').unwrap_or(l);
                        if l.len() > MAX_LINE {
                            return Err(LineError::TooLong);
                        }
                        self.pending.push_back(l.to_string());
                    }
                }
                Ok(Message::Binary(b)) => return Err(LineError::Binary(b.len())),
                Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_)) => {}
                Ok(Message::Close(_)) => {
                    // Nothing more is written; the close's answer, queued by tungstenite, goes
                    // now, since this socket is read no more.
                    self.closed.store(true, Ordering::SeqCst);
                    let _ = self.ws.flush();
                    return Ok(None);
                }
                Err(Error::ConnectionClosed | Error::AlreadyClosed) => return Ok(None),
                // The peer closed the socket without a close frame: an end, as over TCP.
                Err(Error::Protocol(
                    tungstenite::error::ProtocolError::ResetWithoutClosingHandshake,
                )) => return Ok(None),
                Err(Error::Capacity(_)) => return Err(LineError::MessageTooLong),
                Err(Error::Utf8(_)) => return Err(LineError::NotUtf8),
                Err(Error::Io(e)) => return Err(LineError::Failed(e)),
                Err(e) => return Err(LineError::WebSocket(e.to_string())),
            }
        }
    }
}

/// The writing half: a socket of its own over a clone of the stream, silent once the peer
/// has closed (`closed`, raised by the reading half).
struct WsWriter {
    ws: WebSocket<TcpStream>,
    closed: Arc<AtomicBool>,
}

impl LineWrite for WsWriter {
    fn write_line(&mut self, line: &str) -> std::io::Result<()> {
        if self.closed.load(Ordering::SeqCst) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotConnected,
                "the peer closed the WebSocket",
            ));
        }
        self.ws.send(Message::text(line)).map_err(|e| match e {
            Error::Io(e) => e,
            e => std::io::Error::other(e),
        })
    }

    fn close(&mut self) {
        // After the peer's close the reading half has answered it: no second close frame.
        if !self.closed.load(Ordering::SeqCst) {
            let _ = self.ws.close(None);
            let _ = self.ws.flush();
        }
        let _ = self.ws.get_ref().shutdown(std::net::Shutdown::Both);
    }
}

/// The two halves over `stream`, whose handshake `ws` made.
fn link(ws: WebSocket<TcpStream>, role: Role, peer: String) -> std::io::Result<Link> {
    let stream = ws.get_ref();
    stream.set_read_timeout(None)?;
    stream.set_nodelay(true)?;
    let writer = WebSocket::from_raw_socket(stream.try_clone()?, role, Some(config()));
    let closed = Arc::new(AtomicBool::new(false));
    Ok(Link {
        reader: Box::new(WsReader {
            ws,
            pending: VecDeque::new(),
            closed: closed.clone(),
        }),
        writer: Box::new(WsWriter { ws: writer, closed }),
        peer,
    })
}

/// Why a WebSocket connection could not be made ([`accept`], [`connect`]).
#[derive(Debug, thiserror::Error)]
pub enum WsError {
    /// The network failed (accepting a bot).
    #[error("the connection failed: {0}")]
    Failed(#[from] std::io::Error),
    /// A bot that did not open with a WebSocket handshake (the library's reason).
    #[error("no WebSocket handshake (this port speaks KGP over ws:// only): {0}")]
    NoHandshake(String),
    /// Connecting to `url` failed.
    #[error("{url}: {why}")]
    Connect {
        /// The address asked for.
        url: String,
        /// Why.
        why: ConnectError,
    },
}

/// Why connecting to a `ws://` address failed ([`connect`]).
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// A `wss://` address.
    #[error("TLS (wss://) is not supported; use ws:// or HOST:PORT over TCP")]
    Tls,
    /// An address of another scheme.
    #[error("a WebSocket address starts with ws://")]
    NotWs,
    /// No host in the address.
    #[error("no HOST[:PORT] after ws://")]
    NoHost,
    /// A host name that resolves to no address.
    #[error("the host has no address")]
    NoAddress,
    /// The network failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The server did not complete the handshake (the library's reason).
    #[error("the WebSocket handshake failed: {0}")]
    Handshake(String),
}

/// Accepts a WebSocket bot on `stream`: the HTTP upgrade, any path, within `timeout`.
pub fn accept(stream: TcpStream, timeout: Duration) -> Result<Link, WsError> {
    let peer = stream
        .peer_addr()
        .map_or_else(|_| "?".into(), |a| a.to_string());
    stream
        .set_read_timeout(Some(timeout))
        .and_then(|()| stream.set_write_timeout(Some(timeout)))?;
    let ws = tungstenite::accept_with_config(stream, Some(config()))
        .map_err(|e| WsError::NoHandshake(e.to_string()))?;
    Ok(link(ws, Role::Server, peer)?)
}

/// Connects to the KGP server at `url` (`ws://HOST[:PORT]/PATH`, port 80 by default), the
/// connection and handshake within `timeout`.
pub fn connect(url: &str, timeout: Duration) -> Result<Link, WsError> {
    connect_to(url, timeout).map_err(|why| WsError::Connect {
        url: url.to_string(),
        why,
    })
}

fn connect_to(url: &str, timeout: Duration) -> Result<Link, ConnectError> {
    if url.starts_with("wss://") {
        return Err(ConnectError::Tls);
    }
    let Some(rest) = url.strip_prefix("ws://") else {
        return Err(ConnectError::NotWs);
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    if authority.is_empty() || authority.contains('@') {
        return Err(ConnectError::NoHost);
    }
    let host_port = if authority.rsplit_once(':').is_some_and(|(h, p)| {
        !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) && !h.ends_with(':')
    }) {
        authority.to_string()
    } else {
        format!("{authority}:80")
    };
    let mut last = ConnectError::NoAddress;
    let mut stream = None;
    for a in host_port.to_socket_addrs()? {
        match TcpStream::connect_timeout(&a, timeout) {
            Ok(s) => {
                stream = Some(s);
                break;
            }
            Err(e) => last = e.into(),
        }
    }
    let stream = stream.ok_or(last)?;
    let peer = stream
        .peer_addr()
        .map_or_else(|_| host_port.clone(), |a| a.to_string());
    stream
        .set_read_timeout(Some(timeout))
        .and_then(|()| stream.set_write_timeout(Some(timeout)))?;
    let (ws, _) = tungstenite::client::client_with_config(url, stream, Some(config()))
        .map_err(|e| ConnectError::Handshake(e.to_string()))?;
    Ok(link(ws, Role::Client, peer)?)
}
