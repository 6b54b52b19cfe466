//! The wire protocols of the mancala games, over `mancala-play`'s players:
//!
//! - [`protocol`]: the line protocol of `mancala engine` (commands, answers, time management
//!   for clocks), [`engine`]: the engine's side of it over any reader and writer, and
//!   [`external`]: an engine process speaking it, as a player of matches.
//! - [`manchester`]: the Manchester Kalah protocol: its messages, an agent over any reader
//!   and writer, and a referee between two agent commands.
//! - [`kgp`]: the Kalah Game Protocol (KGP 1.x): its messages and board literal, a client
//!   that answers a server's positions with improving moves, and a server that plays its
//!   connected bots at a level.
//! - [`tournament`]: round robins between bot commands over either protocol, with standings,
//!   pairings and every game's result.

#![warn(missing_docs)]

pub mod engine;
pub mod external;
pub mod kgp;
pub mod manchester;
pub mod protocol;
pub mod tournament;

/// A line quoted in a protocol's message: its start only, control characters escaped.
pub(crate) fn shown(s: &str) -> String {
    let cut: String = s.chars().take(60).collect();
    let more = if cut.len() < s.len() { "..." } else { "" };
    format!("{}{more}", mancala_core::printable(&cut))
}

/// A `HOST:PORT` address as a command line takes it (`127.0.0.1:8080`, `localhost:2671`,
/// `[::1]:0`), checked for its form only: the host is looked up where it is bound or
/// connected to. The error says what is missing and what to write instead.
pub fn host_port(s: &str) -> Result<String, String> {
    let example = "write HOST:PORT, e.g. 127.0.0.1:8080";
    match s.rsplit_once(':') {
        None | Some((_, "")) => Err(format!("`{s}` has no port: {example}")),
        Some(("", _)) => Err(format!("`{s}` has no host: {example}")),
        Some((_, port)) if port.parse::<u16>().is_err() => {
            Err(format!("`{port}` is not a port (0 to 65535): {example}"))
        }
        Some(_) => Ok(s.into()),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn host_port_takes_a_host_and_a_port() {
        use super::host_port;
        for ok in ["127.0.0.1:8080", "localhost:0", "[::1]:2671"] {
            assert_eq!(host_port(ok).as_deref(), Ok(ok));
        }
        let form = "write HOST:PORT, e.g. 127.0.0.1:8080";
        assert_eq!(
            host_port("localhost"),
            Err(format!("`localhost` has no port: {form}"))
        );
        assert_eq!(
            host_port("localhost:"),
            Err(format!("`localhost:` has no port: {form}"))
        );
        assert_eq!(host_port(":80"), Err(format!("`:80` has no host: {form}")));
        assert_eq!(
            host_port("localhost:70000"),
            Err(format!("`70000` is not a port (0 to 65535): {form}"))
        );
    }
}
