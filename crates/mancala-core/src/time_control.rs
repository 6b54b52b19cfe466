//! Time controls: how much time the players of a game have, as a site and a record write
//! them. Fischer clocks (`3+2`: three minutes for the game, two seconds more after each turn)
//! and correspondence time (`3d`: three days a move).

use std::fmt;
use std::str::FromStr;

use crate::{Error, Msg};

/// A day, in milliseconds.
pub const DAY_MS: i64 = 86_400_000;

/// How much time the players have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeControl {
    /// Fischer: `base_ms` for the game, `inc_ms` more after each turn.
    Fischer {
        /// The time each side starts with, in milliseconds.
        base_ms: i64,
        /// Added to the mover's time when his turn ends.
        inc_ms: i64,
    },
    /// Correspondence: `days` for each move.
    Correspondence {
        /// Days a move (1 to 14).
        days: i64,
    },
}

impl FromStr for TimeControl {
    type Err = Error;

    /// `MINUTES+SECONDS` (minutes 0.05 to 180, seconds 0 to 60) or `DAYSd` (1 to 14).
    fn from_str(s: &str) -> Result<TimeControl, Error> {
        let bad = || {
            Error::Clock(
                Msg::new("error.time-control").arg("got", s.chars().take(40).collect::<String>()),
            )
        };
        let t = s.trim();
        if let Some(d) = t.strip_suffix('d') {
            let days: i64 = d.parse().map_err(|_| bad())?;
            return (1..=14)
                .contains(&days)
                .then_some(TimeControl::Correspondence { days })
                .ok_or_else(bad);
        }
        let (m, i) = t.split_once('+').ok_or_else(bad)?;
        let minutes: f64 = m.parse().map_err(|_| bad())?;
        let inc: i64 = i.parse().map_err(|_| bad())?;
        if !(0.05..=180.0).contains(&minutes) || !(0..=60).contains(&inc) {
            return Err(bad());
        }
        Ok(TimeControl::Fischer {
            base_ms: (minutes * 60_000.0).round() as i64,
            inc_ms: inc * 1000,
        })
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            TimeControl::Fischer { base_ms, inc_ms } => {
                let minutes = base_ms as f64 / 60_000.0;
                write!(f, "{}+{}", trim(minutes), inc_ms / 1000)
            }
            TimeControl::Correspondence { days } => write!(f, "{days}d"),
        }
    }
}

/// `3` for 3.0, `0.05` for 0.05: six decimals at most, enough to read back the same
/// milliseconds.
fn trim(x: f64) -> String {
    let s = format!("{x:.6}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

impl TimeControl {
    /// Each side's time at the start of the game (a correspondence game: one move's).
    pub fn start_ms(self) -> i64 {
        match self {
            TimeControl::Fischer { base_ms, .. } => base_ms,
            TimeControl::Correspondence { days } => days * DAY_MS,
        }
    }

    /// Whether it is a real-time clock (the first-move rule holds, an absent player can be
    /// claimed against).
    pub fn real_time(self) -> bool {
        matches!(self, TimeControl::Fischer { .. })
    }
}

/// Written as its text (`"3+2"`, `"3d"`), as a record's `time_control` holds it.
impl serde::Serialize for TimeControl {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Read from its text, refused with the reason where it is no time control.
impl<'de> serde::Deserialize<'de> for TimeControl {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<TimeControl, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_read_back_and_bad_ones_say_the_form() {
        for (text, control) in [
            (
                "3+2",
                TimeControl::Fischer {
                    base_ms: 180_000,
                    inc_ms: 2_000,
                },
            ),
            (
                "0.05+0",
                TimeControl::Fischer {
                    base_ms: 3_000,
                    inc_ms: 0,
                },
            ),
            ("3d", TimeControl::Correspondence { days: 3 }),
        ] {
            let t: TimeControl = text.parse().unwrap();
            assert_eq!(t, control);
            assert_eq!(t.to_string(), text);
            let json = serde_json::to_string(&t).unwrap();
            assert_eq!(json, format!("\"{text}\""));
            assert_eq!(serde_json::from_str::<TimeControl>(&json).unwrap(), t);
        }
        for bad in [
            "", "abc", "-3+2", "3 + 2x", "0+0", "181+0", "3+61", "nan+2", "0d", "15d", "3\"+2",
        ] {
            let e = bad.parse::<TimeControl>().unwrap_err().to_string();
            assert!(
                e.starts_with("time control: a clock is MINUTES+SECONDS"),
                "{bad}: {e}"
            );
        }
        assert!(serde_json::from_str::<TimeControl>("3").is_err());
    }
}
