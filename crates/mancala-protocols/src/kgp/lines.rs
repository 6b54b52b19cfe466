//! What KGP's client and server need of a connection: whole lines read and written, over TCP
//! (CRLF-ended lines) or WebSocket (`kgp/ws.rs`: a text message a line), so the protocol's
//! code is the same over either.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;

use super::LineError;

/// The reading half of a connection.
pub trait LineRead: Send {
    /// The next line without its line break, at most [`super::MAX_LINE`] bytes; `None` when
    /// the peer has ended the connection. `Err` says why no line can be read: a line too
    /// long, one that is not UTF-8, a frame that is not text, or the network's failure.
    fn read_line(&mut self) -> Result<Option<String>, LineError>;
}

/// The writing half of a connection.
pub trait LineWrite: Send {
    /// Sends `line` (no line break in it) at once, as one packet or message.
    fn write_line(&mut self, line: &str) -> std::io::Result<()>;

    /// Ends the connection in both directions; what fails here is of no further use.
    fn close(&mut self) {}
}

impl<R: BufRead + Send> LineRead for R {
    fn read_line(&mut self) -> Result<Option<String>, LineError> {
        super::read_line(self)
    }
}

impl<W: Write + Send> LineWrite for W {
    fn write_line(&mut self, line: &str) -> std::io::Result<()> {
        // One write a message: one packet, not one a piece of the format.
        self.write_all(format!("{line}\r\n").as_bytes())
            .and_then(|()| self.flush())
    }
}

impl LineRead for Box<dyn LineRead> {
    fn read_line(&mut self) -> Result<Option<String>, LineError> {
        (**self).read_line()
    }
}

impl LineWrite for Box<dyn LineWrite> {
    fn write_line(&mut self, line: &str) -> std::io::Result<()> {
        (**self).write_line(line)
    }

    fn close(&mut self) {
        (**self).close()
    }
}

/// A connection as its two halves (each may move to a thread of its own) and the peer's
/// address.
pub struct Link {
    /// Lines from the peer.
    pub reader: Box<dyn LineRead>,
    /// Lines to the peer.
    pub writer: Box<dyn LineWrite>,
    /// The peer's address, as shown in reports.
    pub peer: String,
}

/// TCP's writing half: closing it shuts the socket down.
struct TcpWriter(TcpStream);

impl LineWrite for TcpWriter {
    fn write_line(&mut self, line: &str) -> std::io::Result<()> {
        self.0.write_line(line)
    }

    fn close(&mut self) {
        let _ = self.0.shutdown(std::net::Shutdown::Both);
    }
}

impl Link {
    /// KGP over a TCP connection: CRLF-ended lines (LF alone read too).
    pub fn tcp(stream: TcpStream) -> std::io::Result<Link> {
        // Short messages, each awaited: no waiting to fill a packet.
        stream.set_nodelay(true)?;
        let peer = stream
            .peer_addr()
            .map_or_else(|_| "?".into(), |a| a.to_string());
        Ok(Link {
            reader: Box::new(BufReader::new(stream.try_clone()?)),
            writer: Box::new(TcpWriter(stream)),
            peer,
        })
    }
}
