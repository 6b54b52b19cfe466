//! A position of any game, with its rules, and its one-line string form.
//!
//! # Position string
//! `RULES/SOUTH-PITS/SOUTH-STORE/NORTH-PITS/NORTH-STORE/SIDE[/LAST-CAPTURER]`, for example the
//! start of Kalah(6,4): `kalah,seeds=4/4-4-4-4-4-4/0/4-4-4-4-4-4/0/s`.
//! - `RULES`: a rules string (`kalah`, `dracala`, `kalah,seeds=4,capture=empty`, ...).
//! - pits of each row from its owner's left (pit 1 first), joined by `-`; in Kauri a pit is
//!   `SEEDScCOWRIES` (`5c1`), or just `SEEDS` when it holds no cowrie.
//! - stores: seeds in each store (Kauri: captured seeds).
//! - `SIDE`: `s` or `n` for the side to move, `-` when the game is over.
//! - `LAST-CAPTURER` (`s` or `n`): only with `leftovers=last-capturer`, who last grew his store.
//!
//! Parsing checks the string ([`Error::Position`] names the field and the fault), then the
//! position (seed totals, a live position that is already over, ...). Printing and parsing
//! round-trip exactly.

use core::fmt;
use core::str::FromStr;

use crate::kalah::{KalahPos, KalahRules};
use crate::kauri::KauriPos;
use crate::rules::{Leftovers, Preset, Rules};
use crate::{Error, MoveEffect, Moves, Outcome, Side};

/// The position of a game of any preset, with its rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    rules: Rules,
    state: State,
}

/// The rule family's own position type; hot loops use these directly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum State {
    Kalah(KalahPos),
    Kauri(KauriPos),
}

macro_rules! each {
    ($self:expr, $p:ident => $e:expr) => {
        match &$self.state {
            State::Kalah($p) => $e,
            State::Kauri($p) => $e,
        }
    };
}

impl Position {
    /// The start position of `rules`, South to move.
    pub fn start(rules: &Rules) -> Result<Position, Error> {
        let state = if rules.preset.is_kalah_family() {
            State::Kalah(KalahPos::start(&KalahRules::new(rules)?))
        } else {
            State::Kauri(KauriPos::start(rules)?)
        };
        Ok(Position {
            rules: *rules,
            state,
        })
    }

    pub fn rules(&self) -> &Rules {
        &self.rules
    }
    pub fn state(&self) -> &State {
        &self.state
    }
    pub fn pits(&self) -> usize {
        self.rules.pits as usize
    }
    pub fn to_move(&self) -> Side {
        each!(self, p => p.to_move())
    }
    pub fn is_over(&self) -> bool {
        each!(self, p => p.is_over())
    }
    pub fn legal_moves(&self) -> Moves {
        each!(self, p => p.legal_moves())
    }
    /// Stores (captured seeds), after the end sweep once the game is over.
    pub fn scores(&self) -> [u8; 2] {
        each!(self, p => p.scores())
    }
    pub fn outcome(&self) -> Option<Outcome> {
        each!(self, p => p.outcome())
    }
    /// Seeds (not cowries) in pit `i` of `side`, from the owner's left.
    pub fn seeds(&self, side: Side, i: usize) -> u8 {
        match &self.state {
            State::Kalah(p) => p.pit(side, i),
            State::Kauri(p) => p.pit(side, i).0,
        }
    }
    /// Cowries in pit `i` of `side` (0 outside Kauri).
    pub fn cowries(&self, side: Side, i: usize) -> u8 {
        match &self.state {
            State::Kalah(_) => 0,
            State::Kauri(p) => p.pit(side, i).1,
        }
    }
    pub fn board_seeds(&self) -> u32 {
        each!(self, p => p.board_seeds())
    }

    /// Plays own pit `pit` (0-based from the mover's left).
    ///
    /// Errors: [`Error::GameOver`] once the game is over, [`Error::IllegalMove`] for an empty,
    /// missing or (Kauri) cowrie-less pit, or one Dracala's capture rule forbids.
    pub fn play(&mut self, pit: u8) -> Result<MoveEffect, Error> {
        match &mut self.state {
            State::Kalah(p) => p.play(pit),
            State::Kauri(p) => p.play(pit),
        }
    }

    /// Where sowing own pit `pit` (0-based from the mover's left) drops its pieces, in order,
    /// as indices of the ring `0..m` South's pits, `m` South's store, `m+1..=2m` North's
    /// pits, `2m+1` North's store (Kauri, whose stores are never sown into, numbers its pits
    /// the same way); and the index in that list from which the pieces are Kauri cowries (the
    /// list's length in the other games). The path follows the rules' direction (Cross-Kalah
    /// sows an odd count clockwise) and skips the opponent's store; captures and the end
    /// sweep are not part of it. For what a display animates: [`Position::play`] computes
    /// the move itself. A pit off the board has an empty path.
    pub fn sowing_path(&self, pit: u8) -> (Vec<usize>, usize) {
        let m = self.pits();
        let side = self.to_move();
        let pit = pit as usize;
        if pit >= m {
            return (Vec::new(), 0);
        }
        if let State::Kauri(_) = self.state {
            let s = self.seeds(side, pit) as usize;
            let c = self.cowries(side, pit) as usize;
            let mut idx = side.index() * m + pit;
            let path = (0..s + c)
                .map(|_| {
                    idx = (idx + 1) % (2 * m);
                    if idx < m {
                        idx
                    } else {
                        idx + 1
                    }
                })
                .collect();
            return (path, s);
        }
        let len = 2 * m + 2;
        let opp_store = if side == Side::South { 2 * m + 1 } else { m };
        let n = self.seeds(side, pit) as usize;
        let step = if self.rules.preset == Preset::CrossKalah && n % 2 == 1 {
            len - 1 // clockwise
        } else {
            1
        };
        let mut idx = side.index() * (m + 1) + pit;
        let path = (0..n)
            .map(|_| {
                idx = (idx + step) % len;
                if idx == opp_store {
                    idx = (idx + step) % len;
                }
                idx
            })
            .collect();
        (path, n)
    }

    /// The same position with the seats swapped.
    pub fn mirrored(&self) -> Position {
        Position {
            rules: self.rules,
            state: match &self.state {
                State::Kalah(p) => State::Kalah(p.mirrored()),
                State::Kauri(p) => State::Kauri(p.mirrored()),
            },
        }
    }
}

fn side_char(s: Side) -> char {
    match s {
        Side::South => 's',
        Side::North => 'n',
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.rules)?;
        let m = self.pits();
        for side in Side::BOTH {
            let pits: Vec<String> = (0..m)
                .map(|i| match &self.state {
                    State::Kalah(p) => p.pit(side, i).to_string(),
                    State::Kauri(p) => match p.pit(side, i) {
                        (s, 0) => s.to_string(),
                        (s, c) => format!("{s}c{c}"),
                    },
                })
                .collect();
            write!(f, "/{}/{}", pits.join("-"), self.scores()[side.index()])?;
        }
        if self.is_over() {
            f.write_str("/-")?;
        } else {
            write!(f, "/{}", side_char(self.to_move()))?;
        }
        if let State::Kalah(p) = &self.state {
            if self.rules.leftovers == Leftovers::LastCapturer {
                if let Some(c) = p.last_capturer() {
                    write!(f, "/{}", side_char(c))?;
                }
            }
        }
        Ok(())
    }
}

fn parse_side(field: &str, what: &str) -> Result<Option<Side>, Error> {
    match field.trim() {
        "s" | "S" | "south" => Ok(Some(Side::South)),
        "n" | "N" | "north" => Ok(Some(Side::North)),
        "-" if what == "side to move" => Ok(None),
        other => Err(Error::Position(format!(
            "{what} must be `s`, `n`{}, got `{other}`",
            if what == "side to move" {
                " or `-`"
            } else {
                ""
            }
        ))),
    }
}

fn parse_count(text: &str, what: &str) -> Result<u8, Error> {
    let t = text.trim();
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Error::Position(format!("{what}: `{t}` is not a number")));
    }
    t.parse::<u8>()
        .map_err(|_| Error::Position(format!("{what}: `{t}` is more than 255")))
}

impl FromStr for Position {
    type Err = Error;
    fn from_str(s: &str) -> Result<Position, Error> {
        let fields: Vec<&str> = s.trim().split('/').collect();
        if fields.len() != 6 && fields.len() != 7 {
            return Err(Error::Position(format!(
                "expected RULES/SOUTH-PITS/SOUTH-STORE/NORTH-PITS/NORTH-STORE/SIDE (6 fields separated by `/`), got {} field{}",
                fields.len(),
                if fields.len() == 1 { "" } else { "s" }
            )));
        }
        let rules: Rules = fields[0].parse().map_err(|e| match e {
            Error::Rules(m) => Error::Position(format!("field 1 (rules): {m}")),
            e => e,
        })?;
        let m = rules.pits as usize;
        let to_move = parse_side(fields[5], "side to move")?;
        let stores = [
            parse_count(fields[2], "field 3 (South's store)")?,
            parse_count(fields[4], "field 5 (North's store)")?,
        ];
        let mut rows: [Vec<(u8, u8)>; 2] = [Vec::new(), Vec::new()];
        for (k, side) in Side::BOTH.into_iter().enumerate() {
            let field = fields[1 + 2 * k];
            let what = format!("field {} ({side}'s pits)", 2 + 2 * k);
            let pits: Vec<&str> = field.split('-').collect();
            if pits.contains(&"") {
                return Err(Error::Position(format!(
                    "{what}: `{field}` has an empty field between `-`s (each pit is a count of seeds, 0 to 255; none is negative)"
                )));
            }
            if pits.len() != m {
                return Err(Error::Position(format!(
                    "{what}: {} pits given, `{}` has {m} a side",
                    pits.len(),
                    rules
                )));
            }
            for (i, pit) in pits.iter().enumerate() {
                let what = format!("{what}, pit {}", i + 1);
                let pair = if rules.preset.is_kalah_family() {
                    (parse_count(pit, &what)?, 0)
                } else {
                    match pit.split_once(['c', 'C']) {
                        Some((s, c)) => (parse_count(s, &what)?, parse_count(c, &what)?),
                        None => (parse_count(pit, &what)?, 0),
                    }
                };
                rows[k].push(pair);
            }
        }
        let state = if rules.preset.is_kalah_family() {
            let last_capturer = match fields.get(6) {
                Some(f) if rules.leftovers == Leftovers::LastCapturer => {
                    parse_side(f, "field 7 (last capturer)")?
                }
                Some(_) => {
                    return Err(Error::Position(
                        "field 7 (last capturer) is only used with leftovers=last-capturer".into(),
                    ))
                }
                None => None,
            };
            let kr = KalahRules::new(&rules)?;
            let seeds: [Vec<u8>; 2] = [
                rows[0].iter().map(|p| p.0).collect(),
                rows[1].iter().map(|p| p.0).collect(),
            ];
            State::Kalah(KalahPos::from_parts(
                &kr,
                [&seeds[0], &seeds[1]],
                stores,
                to_move,
                last_capturer,
            )?)
        } else {
            if fields.len() == 7 {
                return Err(Error::Position("Kauri positions have 6 fields".into()));
            }
            State::Kauri(KauriPos::from_parts(
                &rules,
                [&rows[0], &rows[1]],
                stores,
                to_move,
            )?)
        };
        Ok(Position { rules, state })
    }
}

impl serde::Serialize for Position {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Position {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_strings() {
        let p = Position::start(&"kalah,seeds=4".parse().unwrap()).unwrap();
        assert_eq!(p.to_string(), "kalah,seeds=4/4-4-4-4-4-4/0/4-4-4-4-4-4/0/s");
        let p = Position::start(&"kauri".parse().unwrap()).unwrap();
        assert_eq!(
            p.to_string(),
            "kauri/5c1-5c1-5c1-5c1-5c1-5c1/0/5c1-5c1-5c1-5c1-5c1-5c1/0/s"
        );
        for preset in crate::Preset::ALL {
            let p = Position::start(&preset.rules()).unwrap();
            assert_eq!(p.to_string().parse::<Position>().unwrap(), p);
        }
    }

    #[test]
    fn sowing_paths_follow_the_rules() {
        let path = |s: &str, pit| s.parse::<Position>().unwrap().sowing_path(pit);
        // Kalah(6,4): South pit 3 (4 seeds) sows pits 4, 5, 6 and the store.
        let start = "kalah,seeds=4/4-4-4-4-4-4/0/4-4-4-4-4-4/0/s";
        assert_eq!(path(start, 2), (vec![3, 4, 5, 6], 4));
        // North skips South's store (ring 6) when it wraps.
        let p = "kalah,seeds=4/4-4-4-4-4-4/0/0-4-4-4-3-9/0/n";
        assert_eq!(path(p, 5).0, vec![13, 0, 1, 2, 3, 4, 5, 7, 8]);
        // A full lap and more: every place but the opponent's store, the origin included.
        let p = "kalah,pits=2,seeds=3/0-9/0/3-0/0/s";
        assert_eq!(path(p, 1).0, vec![2, 3, 4, 0, 1, 2, 3, 4, 0]);
        // Cross-Kalah: an odd count sows clockwise, an even one counter-clockwise.
        let p = "cross-kalah,seeds=3/3-3-3-3-3-3/0/3-3-3-3-3-3/0/s";
        assert_eq!(path(p, 1).0, vec![0, 12, 11]);
        let p = "cross-kalah,seeds=3/3-2-3-3-3-4/0/3-3-3-3-3-3/0/s";
        assert_eq!(path(p, 1).0, vec![2, 3]);
        // Kauri: seeds, then the cowrie, numbered as the Kalah ring (stores skipped).
        let p = Position::start(&Preset::Kauri.rules()).unwrap();
        assert_eq!(p.sowing_path(4), (vec![5, 7, 8, 9, 10, 11], 5));
        // Off the board: nothing.
        assert_eq!(p.sowing_path(6), (vec![], 0));
        // Every legal move of a few games drops as many pieces as its pit holds.
        for preset in Preset::ALL {
            let mut p = Position::start(&preset.rules()).unwrap();
            for k in 0..40 {
                if p.is_over() {
                    break;
                }
                let moves = p.legal_moves();
                let mv = moves.as_slice()[k % moves.len()];
                let side = p.to_move();
                let pieces = p.seeds(side, mv as usize) + p.cowries(side, mv as usize);
                let (path, cowries_from) = p.sowing_path(mv);
                assert_eq!(path.len(), pieces as usize, "{p} {mv}");
                assert!(cowries_from <= path.len());
                assert!(path.iter().all(|&i| i < 2 * p.pits() + 2));
                p.play(mv).unwrap();
            }
        }
    }

    #[test]
    fn bad_strings_name_the_fault() {
        let cases = [
            ("", "6 fields"),
            ("kalah/3-3-3-3-3-3/0/3-3-3-3-3-3/0", "6 fields"),
            ("chess/3-3-3-3-3-3/0/3-3-3-3-3-3/0/s", "field 1"),
            ("kalah/3-3-3-3-3/0/3-3-3-3-3-3/0/s", "field 2"),
            ("kalah/3-3-x-3-3-3/0/3-3-3-3-3-3/0/s", "pit 3"),
            ("kalah/3-3-3-3-3-3/0/3-3-3-3-3-3/0/w", "side to move"),
            ("kalah/3-3-3-3-3-3/1/3-3-3-3-3-3/0/s", "37 seeds"),
            ("kalah/0-0-0-0-0-0/18/3-3-3-3-3-3/0/s", "already over"),
            ("kalah/3-3-3-3-3-3/0/3-3-3-3-3-3/0/-", "marked finished"),
            ("kalah/3-3-3-3-3-3/999/3-3-3-3-3-3/0/s", "more than 255"),
            (
                "kauri/5c1-5c1-5c1-5c1-5c1-5c1/0/5c1-5c1-5c1-5c1-5c1-5c2/0/s",
                "13 cowries",
            ),
            (
                "kauri/5-5c2-5c1-5c1-5c1-5c1/0/5c1-5c1-5c1-5c1-5c1-5c1/0/s",
                "",
            ),
            (
                "kauri/5-5-5-5-5-5/0/5c2-5c2-5c2-5c2-5c2-5c2/0/s",
                "no cowrie",
            ),
        ];
        for (text, needle) in cases {
            match text.parse::<Position>() {
                Err(e) => assert!(e.to_string().contains(needle), "{text}: {e}"),
                Ok(p) if needle.is_empty() => assert_eq!(p.to_string(), text),
                Ok(p) => panic!("{text} parsed as {p}"),
            }
        }
    }
}
