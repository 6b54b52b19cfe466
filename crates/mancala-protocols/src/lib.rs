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
pub fn host_port(s: &str) -> Result<String, AddressError> {
    match s.rsplit_once(':') {
        None | Some((_, "")) => Err(AddressError::NoPort(s.into())),
        Some(("", _)) => Err(AddressError::NoHost(s.into())),
        Some((_, port)) if port.parse::<u16>().is_err() => Err(AddressError::NotAPort(port.into())),
        Some(_) => Ok(s.into()),
    }
}

/// Why a command line's `HOST:PORT` address is refused ([`host_port`]); each message ends
/// with the form to write instead.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AddressError {
    /// The address (given) has no port after its last `:`.
    #[error("`{0}` has no port: write HOST:PORT, e.g. 127.0.0.1:8080")]
    NoPort(String),
    /// The address (given) has nothing before its port.
    #[error("`{0}` has no host: write HOST:PORT, e.g. 127.0.0.1:8080")]
    NoHost(String),
    /// The text after the last `:` (given) is not a number 0 to 65535.
    #[error("`{0}` is not a port (0 to 65535): write HOST:PORT, e.g. 127.0.0.1:8080")]
    NotAPort(String),
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
            host_port("localhost").map_err(|e| e.to_string()),
            Err(format!("`localhost` has no port: {form}"))
        );
        assert_eq!(
            host_port("localhost:").map_err(|e| e.to_string()),
            Err(format!("`localhost:` has no port: {form}"))
        );
        assert_eq!(
            host_port(":80").map_err(|e| e.to_string()),
            Err(format!("`:80` has no host: {form}"))
        );
        assert_eq!(
            host_port("localhost:70000").map_err(|e| e.to_string()),
            Err(format!("`70000` is not a port (0 to 65535): {form}"))
        );
    }
}
