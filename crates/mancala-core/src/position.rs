//! A position of any game, with its rules, and its one-line string form.
//!
//! # Position string
//! `RULES/SOUTH-PITS/SOUTH-STORE/NORTH-PITS/NORTH-STORE/SIDE[/LAST-CAPTURER][/opening=STATE]`, for example the
//! start of Kalah(6,4): `kalah,seeds=4/4-4-4-4-4-4/0/4-4-4-4-4-4/0/s`.
//! - `RULES`: a rules string (`kalah`, `dracala`, `kalah,seeds=4,capture=empty`, ...).
//! - pits of each row from its owner's left (pit 1 first), joined by `-`; in Kauri a pit is
//!   `SEEDScCOWRIES` (`5c1`), or just `SEEDS` when it holds no cowrie.
//! - stores: seeds in each store (Kauri: captured seeds).
//! - `SIDE`: `s` or `n` for the side to move, `-` when the game is over.
//! - `LAST-CAPTURER` (`s` or `n`): only with `leftovers=last-capturer`, who last grew his store.
//! - `opening=STATE`: only with `first-move-extra-turn=false` or `pie=true`, and only while
//!   part of the opening is pending ([`crate::Opening`]): `first-move` (South's very first
//!   move is to come), `first-turn` (South's first turn goes on after an extra turn; North may
//!   swap next) or `swap` (North may swap now). Absent: nothing pending. The start of
//!   `kalah,pits=7,seeds=7,first-move-extra-turn=false,pie=true` ends in `/s/opening=first-move`.
//!
//! Parsing checks the string ([`Error::Position`] names the field and the fault), then the
//! position (seed totals, a live position that is already over, ...). Printing and parsing
//! round-trip exactly.

use core::fmt;
use core::str::FromStr;

use crate::kalah::{Cell, KalahPos};
use crate::kauri::KauriPos;
use crate::oware::OwarePos;
use crate::rules::{GameFamily, Rules};
use crate::{
    Error, Family, GameState, MoveEffect, Moves, Msg, Opening, Outcome, Setup, Side, SowingPath,
};

/// The position of a game of any preset, with its rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    rules: Rules,
    state: State,
}

/// The registry of rule families: one variant a family, each the family's own position type
/// (hot loops use these directly through [`crate::with_family!`]). A new family is a module
/// implementing [`Family`], a variant here, its arm in `with_family!` and its presets in
/// [`State::start`].
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum State {
    Kalah(KalahPos),
    /// Kalah-family games of more seeds than bytes hold ([`crate::kalah::Cell`]).
    KalahWide(KalahPos<u16>),
    Kauri(KauriPos),
    Oware(OwarePos),
}

/// Runs `$e` with `$p` bound to the family position inside a [`Position`] (`&KalahPos`,
/// `&KauriPos`, ...): generic code over [`Family`] is written once and monomorphised for
/// every family.
#[macro_export]
macro_rules! with_family {
    ($pos:expr, $p:ident => $e:expr) => {
        match $pos.state() {
            $crate::position::State::Kalah($p) => $e,
            $crate::position::State::KalahWide($p) => $e,
            $crate::position::State::Kauri($p) => $e,
            $crate::position::State::Oware($p) => $e,
        }
    };
}

macro_rules! each_mut {
    ($state:expr, $p:ident => $e:expr) => {
        match $state {
            State::Kalah($p) => State::Kalah($e),
            State::KalahWide($p) => State::KalahWide($e),
            State::Kauri($p) => State::Kauri($e),
            State::Oware($p) => State::Oware($e),
        }
    };
}

impl State {
    /// The family that plays `rules`, from a setup (`None`: the start).
    fn new(rules: &Rules, setup: Option<&Setup>) -> Result<State, Error> {
        fn make<F: Family>(rules: &Rules, setup: Option<&Setup>) -> Result<F, Error> {
            match setup {
                None => F::start(rules),
                Some(s) => F::from_setup(rules, s),
            }
        }
        Ok(match rules.preset.family() {
            GameFamily::Kauri => State::Kauri(make(rules, setup)?),
            GameFamily::Oware => State::Oware(make(rules, setup)?),
            GameFamily::Kalah if rules.total_seeds() <= <u8 as Cell>::MAX_TOTAL => {
                State::Kalah(make(rules, setup)?)
            }
            GameFamily::Kalah => State::KalahWide(make(rules, setup)?),
        })
    }
}

impl Position {
    /// The start position of `rules`, South to move.
    pub fn start(rules: &Rules) -> Result<Position, Error> {
        Ok(Position {
            rules: *rules,
            state: State::new(rules, None)?,
        })
    }

    /// A position of `rules` from an unvalidated [`Setup`], checked by its family.
    pub fn from_setup(rules: &Rules, setup: &Setup) -> Result<Position, Error> {
        Ok(Position {
            rules: *rules,
            state: State::new(rules, Some(setup))?,
        })
    }

    /// The position's pits, stores, side to move and extras, as [`Position::from_setup`]
    /// takes them.
    pub fn setup(&self) -> Setup {
        with_family!(self, p => p.setup())
    }

    /// The rules of the game.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }
    #[doc(hidden)]
    pub fn state(&self) -> &State {
        &self.state
    }
    /// The Kalah-family position inside where it counts in bytes (up to 240 seeds), for the
    /// code that reads only those (the endgame tables and the solver's fast path); `None` for
    /// other families and for larger Kalah-family games (ask `rules().preset` which family).
    pub fn as_kalah(&self) -> Option<&KalahPos> {
        match &self.state {
            State::Kalah(p) => Some(p),
            _ => None,
        }
    }
    /// Pits a side.
    pub fn pits(&self) -> usize {
        self.rules.pits as usize
    }
    /// The side to move (meaningless once the game is over).
    pub fn to_move(&self) -> Side {
        with_family!(self, p => p.to_move())
    }
    /// Whether the game is over (by the position; [`crate::Game`] adds repetition).
    pub fn is_over(&self) -> bool {
        with_family!(self, p => p.is_over())
    }
    /// The legal moves, own pits from the mover's left.
    pub fn legal_moves(&self) -> Moves {
        with_family!(self, p => p.legal_moves())
    }
    /// Stores (captured seeds), after the end sweep once the game is over.
    pub fn scores(&self) -> [u16; 2] {
        with_family!(self, p => GameState::scores(p))
    }
    /// How the game ended, once it is over.
    pub fn outcome(&self) -> Option<Outcome> {
        with_family!(self, p => p.outcome())
    }
    /// The stores if the game ended here by repetition; `None` where a repetition is a draw
    /// whatever the stores (Cross-Kalah, Kauri).
    pub fn repetition_scores(&self) -> Option<[u16; 2]> {
        with_family!(self, p => Family::repetition_scores(p))
    }
    /// Seeds (not cowries) in pit `i` of `side`, from the owner's left.
    pub fn seeds(&self, side: Side, i: usize) -> u16 {
        with_family!(self, p => p.pit_content(side, i).0)
    }
    /// Cowries in pit `i` of `side` (0 outside Kauri).
    pub fn cowries(&self, side: Side, i: usize) -> u8 {
        with_family!(self, p => p.pit_content(side, i).1)
    }
    /// Seeds on the board (not in the stores).
    pub fn board_seeds(&self) -> u32 {
        with_family!(self, p => p.board_seeds())
    }

    /// Plays own pit `pit` (0-based from the mover's left).
    ///
    /// Errors: [`Error::GameOver`] once the game is over, [`Error::IllegalMove`] for a move
    /// the family's rules refuse (an empty, missing or (Kauri) cowrie-less pit, one Dracala's
    /// capture rule forbids, one that does not feed in Oware, ...), saying why.
    pub fn play(&mut self, pit: u8) -> Result<MoveEffect, Error> {
        match &mut self.state {
            State::Kalah(p) => Family::play(p, pit),
            State::KalahWide(p) => Family::play(p, pit),
            State::Kauri(p) => Family::play(p, pit),
            State::Oware(p) => Family::play(p, pit),
        }
    }

    /// Plays `pit`, which must be one of [`Position::legal_moves`] of this live position, without
    /// checking it again: for callers that checked it already (a batch of games checks each
    /// action once, before any game moves). An illegal move leaves a position the rules cannot
    /// reach; [`Position::play`] is the checked move.
    #[inline]
    pub fn play_unchecked(&mut self, pit: u8) -> MoveEffect {
        match &mut self.state {
            State::Kalah(p) => p.play_unchecked(pit),
            State::KalahWide(p) => p.play_unchecked(pit),
            State::Kauri(p) => p.play_unchecked(pit),
            State::Oware(p) => p.play_unchecked(pit),
        }
    }

    /// Where sowing own pit `pit` (0-based from the mover's left) drops its pieces, in order,
    /// which are Kauri cowries, and the seeds taken as they fall (see [`SowingPath`]).
    /// Captures after the sowing and the end sweep are not part of it. For what a display
    /// animates: [`Position::play`] computes the move itself. A pit off the board has an
    /// empty path.
    pub fn sowing_path(&self, pit: u8) -> SowingPath {
        if pit as usize >= self.pits() {
            return SowingPath::default();
        }
        with_family!(self, p => p.sowing_path(pit))
    }

    /// The same position with the seats swapped.
    pub fn mirrored(&self) -> Position {
        Position {
            rules: self.rules,
            state: each_mut!(&self.state, p => p.mirrored()),
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
        let setup = self.setup();
        for side in Side::BOTH {
            let pits: Vec<String> = setup.rows[side.index()]
                .iter()
                .map(|&(s, c)| match c {
                    0 => s.to_string(),
                    c => format!("{s}c{c}"),
                })
                .collect();
            write!(f, "/{}/{}", pits.join("-"), setup.stores[side.index()])?;
        }
        match setup.to_move {
            None => f.write_str("/-")?,
            Some(s) => write!(f, "/{}", side_char(s))?,
        }
        if let Some(c) = setup.last_capturer {
            write!(f, "/{}", side_char(c))?;
        }
        if setup.opening != Opening::None {
            write!(f, "/opening={}", setup.opening.word())?;
        }
        Ok(())
    }
}

/// A side field: the side to move (`-` for none) or, with `to_move` false, the last capturer.
fn parse_side(field: &str, to_move: bool) -> Result<Option<Side>, Error> {
    match field.trim() {
        "s" | "S" | "south" => Ok(Some(Side::South)),
        "n" | "N" | "north" => Ok(Some(Side::North)),
        "-" if to_move => Ok(None),
        other => Err(Error::Position(
            Msg::new(if to_move {
                "error.position.side-to-move"
            } else {
                "error.position.last-capturer"
            })
            .arg("got", other),
        )),
    }
}

/// A count of seeds or cowries, at most `max`.
fn parse_count(text: &str, what: &Msg, max: u16) -> Result<u16, Error> {
    let t = text.trim();
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Error::Position(
            Msg::new("error.position.not-number")
                .sub("what", what.clone())
                .arg("text", t),
        ));
    }
    match t.parse::<u16>() {
        Ok(n) if n <= max => Ok(n),
        _ => Err(Error::Position(
            Msg::new("error.position.too-large")
                .sub("what", what.clone())
                .arg("text", t)
                .arg("max", max),
        )),
    }
}

impl FromStr for Position {
    type Err = Error;
    fn from_str(s: &str) -> Result<Position, Error> {
        let mut fields: Vec<&str> = s.trim().split('/').collect();
        // The opening, where written, is the last field and names itself.
        let mut opening = Opening::None;
        if fields.len() > 6 {
            if let Some(word) = fields[fields.len() - 1].trim().strip_prefix("opening=") {
                let field = fields.len();
                opening = Opening::ALL
                    .into_iter()
                    .find(|o| o.word() == word)
                    .ok_or_else(|| {
                        Error::Position(
                            Msg::new("error.position.opening-field")
                                .arg("field", field)
                                .arg("word", word),
                        )
                    })?;
                fields.pop();
            }
        }
        if fields.len() != 6 && fields.len() != 7 {
            return Err(Error::Position(
                Msg::new(if fields.len() == 1 {
                    "error.position.fields.one"
                } else {
                    "error.position.fields.other"
                })
                .arg("n", fields.len()),
            ));
        }
        let rules: Rules = fields[0].parse().map_err(|e| match e {
            Error::Rules(m) => Error::Position(Msg::new("error.position.rules").sub("message", m)),
            e => e,
        })?;
        let m = rules.pits as usize;
        let to_move = parse_side(fields[5], true)?;
        let stores = [
            parse_count(
                fields[2],
                &Msg::new("error.position.field.south-store"),
                u16::MAX,
            )?,
            parse_count(
                fields[4],
                &Msg::new("error.position.field.north-store"),
                u16::MAX,
            )?,
        ];
        let mut rows: [Vec<(u16, u8)>; 2] = [Vec::new(), Vec::new()];
        for (k, side) in Side::BOTH.into_iter().enumerate() {
            let field = fields[1 + 2 * k];
            let what = Msg::new("error.position.field.pits")
                .arg("field", 2 + 2 * k)
                .side("side", side);
            let pits: Vec<&str> = field.split('-').collect();
            if pits.contains(&"") {
                return Err(Error::Position(
                    Msg::new("error.position.empty-pit-field")
                        .sub("what", what)
                        .arg("text", field),
                ));
            }
            if pits.len() != m {
                return Err(Error::Position(
                    Msg::new("error.position.pit-count")
                        .sub("what", what)
                        .arg("given", pits.len())
                        .arg("rules", rules)
                        .arg("pits", m),
                ));
            }
            for (i, pit) in pits.iter().enumerate() {
                let what = Msg::new("error.position.field.pit")
                    .sub("what", what.clone())
                    .arg("pit", i + 1);
                let pair = match pit.split_once(['c', 'C']) {
                    Some((s, c)) => (
                        parse_count(s, &what, u16::MAX)?,
                        parse_count(c, &what, u8::MAX.into())? as u8,
                    ),
                    None => (parse_count(pit, &what, u16::MAX)?, 0),
                };
                rows[k].push(pair);
            }
        }
        // Whether the rules use a last capturer is the family's check (`Family::from_setup`).
        let last_capturer = match fields.get(6) {
            Some(f) => parse_side(f, false)?,
            None => None,
        };
        let setup = Setup {
            rows,
            stores,
            to_move,
            last_capturer,
            opening,
        };
        Position::from_setup(&rules, &setup)
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
    use crate::Preset;

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
        assert_eq!(path(start, 2).places, [3, 4, 5, 6]);
        assert_eq!(path(start, 2).cowries_from, 4);
        // North skips South's store (ring 6) when it wraps.
        let p = "kalah,seeds=4/4-4-4-4-4-4/0/0-4-4-4-3-9/0/n";
        assert_eq!(path(p, 5).places, vec![13, 0, 1, 2, 3, 4, 5, 7, 8]);
        // A full lap and more: every place but the opponent's store, the origin included.
        let p = "kalah,pits=2,seeds=3/0-9/0/3-0/0/s";
        assert_eq!(path(p, 1).places, vec![2, 3, 4, 0, 1, 2, 3, 4, 0]);
        // Cross-Kalah: an odd count sows clockwise, an even one counter-clockwise.
        let p = "cross-kalah,seeds=3/3-3-3-3-3-3/0/3-3-3-3-3-3/0/s";
        assert_eq!(path(p, 1).places, vec![0, 12, 11]);
        let p = "cross-kalah,seeds=3/3-2-3-3-3-4/0/3-3-3-3-3-3/0/s";
        assert_eq!(path(p, 1).places, vec![2, 3]);
        // Kauri: seeds, then the cowrie, numbered as the Kalah ring (stores skipped).
        let p = Position::start(&Preset::Kauri.rules()).unwrap();
        assert_eq!(
            p.sowing_path(4),
            SowingPath {
                places: vec![5, 7, 8, 9, 10, 11],
                cowries_from: 5,
                takes: vec![],
            }
        );
        // Kauri's takes: North 1 holds cowries alone, so the seed falling there goes to
        // North's store; the cowrie falling on North 2, which has none, takes its 3 seeds.
        let p: Position = "kauri/0-0-0-0-0-1c1/29/0c10-3-0-0-0-0c1/27/s"
            .parse()
            .unwrap();
        let take = |step, seeds, to| crate::Take { step, seeds, to };
        assert_eq!(
            p.sowing_path(5),
            SowingPath {
                places: vec![7, 8],
                cowries_from: 1,
                takes: vec![take(0, 1, Side::North), take(1, 3, Side::South)],
            }
        );
        // Off the board: nothing.
        assert_eq!(p.sowing_path(6), SowingPath::default());
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
                let pieces = p.seeds(side, mv as usize) + u16::from(p.cowries(side, mv as usize));
                let path = p.sowing_path(mv);
                assert_eq!(path.places.len(), pieces as usize, "{p} {mv}");
                assert!(path.cowries_from <= path.places.len());
                assert!(path.places.iter().all(|&i| i < 2 * p.pits() + 2));
                assert!(path.takes.iter().all(|t| t.step < path.places.len()));
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
            ("kalah/3-3-3-3-3-3/999/3-3-3-3-3-3/0/s", "holds 1035 seeds"),
            (
                "kalah/3-3-3-3-3-3/99999/3-3-3-3-3-3/0/s",
                "is more than 65535",
            ),
            (
                "kauri/5-5c300-5-5-5-5/0/5-5-5-5-5-5/0/s",
                "is more than 255",
            ),
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

    #[test]
    fn the_opening_round_trips_and_its_errors_name_the_field() {
        let r: Rules = "kalah,pits=7,seeds=7,first-move-extra-turn=false,pie"
            .parse()
            .unwrap();
        let mut p = Position::start(&r).unwrap();
        let start = "kalah,pits=7,seeds=7,first-move-extra-turn=false,pie=true/7-7-7-7-7-7-7/0/7-7-7-7-7-7-7/0/s/opening=first-move";
        assert_eq!(p.to_string(), start);
        assert_eq!(start.parse::<Position>().unwrap(), p);
        p.play(0).unwrap();
        let swap = "kalah,pits=7,seeds=7,first-move-extra-turn=false,pie=true/0-8-8-8-8-8-8/1/7-7-7-7-7-7-7/0/n/opening=swap";
        assert_eq!(p.to_string(), swap);
        assert_eq!(swap.parse::<Position>().unwrap(), p);
        // Without the field nothing is pending: the same board, but North cannot swap.
        let plain = swap.strip_suffix("/opening=swap").unwrap();
        let q: Position = plain.parse().unwrap();
        assert_ne!(q, p);
        assert!(!q.legal_moves().contains(crate::SWAP));
        assert_eq!(q.to_string(), plain);
        // With a last capturer, the opening comes after it.
        let lc = "kalah,pits=2,seeds=1,leftovers=last-capturer,pie=true/1-1/0/1-1/0/s/s/opening=first-move";
        assert_eq!(lc.parse::<Position>().unwrap().to_string(), lc);
        for (text, needle) in [
            (
                "kalah,pie/3-3-3-3-3-3/0/3-3-3-3-3-3/0/s/opening=later",
                "field 7 (opening) must be opening=first-move",
            ),
            (
                "kalah,pie/3-3-3-3-3-3/0/3-3-3-3-3-3/0/s/opening=swap",
                "opening=swap is not possible here: the swap needs North to move",
            ),
            (
                "kalah/3-3-3-3-3-3/0/3-3-3-3-3-3/0/s/opening=first-move",
                "opening=first-move is not possible here: the rules have no opening rule",
            ),
            (
                "kauri/5c1-5c1-5c1-5c1-5c1-5c1/0/5c1-5c1-5c1-5c1-5c1-5c1/0/s/opening=first-move",
                "only used with first-move-extra-turn=false or pie=true",
            ),
            (
                "kalah,pie/3-3-3-3-3-3/0/3-3-3-3-3-3/0/s/opening=first-move/s",
                "`opening=...` where the rules use them), got 8 fields",
            ),
        ] {
            let e = text.parse::<Position>().unwrap_err().to_string();
            assert!(e.contains(needle), "{text}: {e}");
        }
    }
}
