//! Oware (Abapa): a ring of pits without stores on it, captures of 2s and 3s in the
//! opponent's row, must-feed.
//!
//! # Layout
//! As Kauri's: the `2m` pits form a ring, index `0..m` South's pits 1..m, `m..2m` North's
//! pits 1..m, each from its owner's left; counter-clockwise is index + 1. Stores hold captured
//! seeds and are never sown into.
//!
//! # Rules (options in brackets)
//! - A move lifts every seed of a non-empty own pit and sows them one a pit counter-clockwise,
//!   skipping the origin pit on later laps.
//! - If the last seed lands in the opponent's row and makes that pit 2 or 3, those seeds are
//!   captured, and so are those of the pits before it (clockwise) while they are in the
//!   opponent's row and hold 2 or 3.
//! - A capture that would take every seed of the opponent's row is a grand slam
//!   ([`GrandSlam`]: it captures nothing, it is forbidden while another move exists, or it
//!   captures all).
//! - Must-feed: when the opponent's row is empty the mover must play a move that reaches it;
//!   when none does the game ends and the mover takes the seeds of his row. A player whose
//!   row is empty on his turn (after a grand slam that captured all) cannot move: the game
//!   ends and the opponent takes the seeds of his row.
//! - The game ends as soon as a store holds more than half of the seeds (25 of 48) with
//!   `stop-when-decided` (the default); the seeds on the board then count for nobody.
//! - A position that occurs a second time ends the game ([`Repetition`] says who takes the
//!   seeds left); that rule lives in [`crate::Game`], which sees the history.

use crate::rules::{DecidedLeftovers, GrandSlam, Repetition, Rules, MAX_PITS};
use crate::{Error, MoveEffect, Moves, Msg, Outcome, Side, SowingPath};

const RING: usize = 2 * MAX_PITS;

/// An Oware position. `Copy`; play by copy-make.
///
/// A finished game's side to move is always South, so that equality and hashing see what the
/// position string shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OwarePos {
    seeds: [u8; RING],
    stores: [u8; 2],
    pits: u8,
    /// Seeds in play (board plus stores).
    total: u8,
    /// A store above this ends the game (`stop-when-decided`); 255 when off.
    decided_above: u8,
    grand_slam: GrandSlam,
    repetition: Repetition,
    /// Whether a decided store ends the game with each row going to its owner.
    decided_to_owner: bool,
    to_move: Side,
    over: bool,
}

impl OwarePos {
    /// The start: every pit holds the rules' seeds; South to move.
    pub fn start(rules: &Rules) -> Result<OwarePos, Error> {
        rules.validate()?;
        let m = rules.pits as usize;
        let mut seeds = [0; RING];
        seeds[..2 * m].fill(rules.seeds);
        let mut p = OwarePos {
            seeds,
            stores: [0, 0],
            pits: rules.pits,
            total: rules.total_seeds() as u8,
            decided_above: if rules.stop_when_decided {
                (rules.total_seeds() / 2) as u8
            } else {
                u8::MAX
            },
            grand_slam: rules.grand_slam,
            repetition: rules.repetition,
            decided_to_owner: rules.decided_leftovers == DecidedLeftovers::ToOwner,
            to_move: Side::South,
            over: false,
        };
        p.settle(Side::South);
        Ok(p)
    }

    /// Builds and checks a position from the seeds of each row (from the owner's left), the
    /// stores and the side to move (`None` for a finished game).
    ///
    /// Errors ([`Error::Position`]): seed totals that differ from the rules', a live position
    /// that is already over or a finished one that is not.
    pub fn from_parts(
        rules: &Rules,
        rows: [&[u8]; 2],
        stores: [u8; 2],
        to_move: Option<Side>,
    ) -> Result<OwarePos, Error> {
        let mut pos = OwarePos::start(rules)?;
        let m = pos.pits();
        for side in Side::BOTH {
            let row = rows[side.index()];
            if row.len() != m {
                return Err(Error::Position(
                    Msg::new("error.position.row-length")
                        .side("side", side)
                        .arg("given", row.len())
                        .arg("pits", m),
                ));
            }
            pos.seeds[side.index() * m..side.index() * m + m].copy_from_slice(row);
        }
        pos.stores = stores;
        let seeds = pos.board_seeds() + stores[0] as u32 + stores[1] as u32;
        if seeds != pos.total as u32 {
            return Err(Error::Position(
                Msg::new("error.position.seed-total")
                    .arg("seeds", seeds)
                    .arg("total", pos.total),
            ));
        }
        match to_move {
            Some(side) => {
                pos.over = false;
                let before = pos;
                pos.settle(side);
                if pos.over {
                    let why = if before.stores.iter().any(|&s| s > pos.decided_above) {
                        Msg::new("error.position.oware.decided")
                    } else if before.row_seeds(side) == 0 {
                        Msg::new("error.position.oware.no-seeds")
                            .side("side", side)
                            .side("other", side.other())
                    } else {
                        Msg::new("error.position.oware.cannot-feed")
                            .side("side", side)
                            .side("other", side.other())
                    };
                    return Err(Error::Position(
                        Msg::new("error.position.oware.over").sub("why", why),
                    ));
                }
            }
            None => {
                // Finished: the board is empty, or a store decided the game.
                let decided = stores.iter().any(|&s| s > pos.decided_above);
                if !decided && pos.board_seeds() != 0 {
                    return Err(Error::Position(Msg::new(
                        "error.position.oware.not-finished",
                    )));
                }
                pos.over = true;
                pos.to_move = Side::South;
            }
        }
        Ok(pos)
    }

    /// Pits a side.
    #[inline]
    pub fn pits(&self) -> usize {
        self.pits as usize
    }
    /// The side to move (South once the game is over).
    #[inline]
    pub fn to_move(&self) -> Side {
        self.to_move
    }
    /// Whether the game is over.
    #[inline]
    pub fn is_over(&self) -> bool {
        self.over
    }
    /// Seeds in pit `i` (0-based from the owner's left) of `side`.
    #[inline]
    pub fn pit(&self, side: Side, i: usize) -> u8 {
        self.seeds[side.index() * self.pits() + i]
    }
    /// The ring of `2m` seed counts (see the module docs).
    pub fn ring(&self) -> &[u8] {
        &self.seeds[..2 * self.pits()]
    }
    /// Captured seeds of `side` (after the end sweep once the game is over).
    #[inline]
    pub fn store(&self, side: Side) -> u8 {
        self.stores[side.index()]
    }
    /// Both stores, South first.
    #[inline]
    pub fn scores(&self) -> [u8; 2] {
        self.stores
    }
    /// The rules' grand slam option.
    pub fn grand_slam(&self) -> GrandSlam {
        self.grand_slam
    }
    /// Who takes the seeds left when a position repeats.
    pub fn repetition(&self) -> Repetition {
        self.repetition
    }
    /// Seeds in `side`'s row.
    #[inline]
    pub fn row_seeds(&self, side: Side) -> u32 {
        let m = self.pits();
        self.seeds[side.index() * m..side.index() * m + m]
            .iter()
            .map(|&s| s as u32)
            .sum()
    }
    /// Seeds still on the board.
    #[inline]
    pub fn board_seeds(&self) -> u32 {
        self.ring().iter().map(|&s| s as u32).sum()
    }

    /// More captured seeds wins; equal is a draw.
    pub fn outcome(&self) -> Option<Outcome> {
        if !self.over {
            return None;
        }
        let [s, n] = self.stores;
        Some(match s.cmp(&n) {
            core::cmp::Ordering::Greater => Outcome::Win(Side::South),
            core::cmp::Ordering::Less => Outcome::Win(Side::North),
            core::cmp::Ordering::Equal => Outcome::Draw,
        })
    }

    /// The stores if the game ended now by a repeated position: the seeds left shared
    /// ([`Repetition::Split`]: half each, an odd seed to nobody) or taken by their row's owner.
    pub fn repetition_scores(&self) -> [u8; 2] {
        let [s, n] = self.stores;
        match self.repetition {
            Repetition::Split => {
                let half = (self.board_seeds() / 2) as u8;
                [s + half, n + half]
            }
            Repetition::OwnRow => [
                s + self.row_seeds(Side::South) as u8,
                n + self.row_seeds(Side::North) as u8,
            ],
        }
    }

    /// Own pit `pit` of the mover reaches the opponent's row.
    #[inline]
    fn feeds(&self, pit: usize) -> bool {
        self.seeds[self.to_move.index() * self.pits() + pit] as usize >= self.pits() - pit
    }

    /// The legal moves: non-empty own pits; only those that reach the opponent's row when it
    /// is empty; under `grand-slam=forbidden` not one that captures the whole opposing row,
    /// unless every move does.
    pub fn legal_moves(&self) -> Moves {
        let mut mv = Moves::default();
        if self.over {
            return mv;
        }
        let m = self.pits();
        let off = self.to_move.index() * m;
        let starving = self.row_seeds(self.to_move.other()) == 0;
        for p in 0..m {
            if self.seeds[off + p] > 0 && (!starving || self.feeds(p)) {
                mv.push(p as u8);
            }
        }
        if self.grand_slam == GrandSlam::Forbidden {
            let mut allowed = mv;
            allowed.retain(|p| !self.sow(p).3);
            if !allowed.is_empty() {
                return allowed;
            }
        }
        mv
    }

    /// Plays own pit `pit` (0-based from the mover's left), or says why it is illegal.
    pub fn play(&mut self, pit: u8) -> Result<MoveEffect, Error> {
        if self.over {
            return Err(Error::GameOver);
        }
        if !self.legal_moves().contains(pit) {
            let m = self.pits();
            return Err(Error::IllegalMove(if pit as usize >= m {
                Msg::new("error.move.no-pit")
                    .arg("pit", pit as usize + 1)
                    .arg("pits", m)
            } else if self.pit(self.to_move, pit as usize) == 0 {
                Msg::new("error.move.empty")
                    .arg("pit", pit as usize + 1)
                    .side("side", self.to_move)
            } else if self.row_seeds(self.to_move.other()) == 0 {
                Msg::new("error.move.must-feed")
                    .arg("pit", pit as usize + 1)
                    .side("side", self.to_move.other())
            } else {
                Msg::new("error.move.grand-slam")
                    .arg("pit", pit as usize + 1)
                    .side("side", self.to_move.other())
            }));
        }
        Ok(self.play_unchecked(pit))
    }

    /// The position after sowing `pit` (before any capture), the pit its last seed fell
    /// in, the seeds its capture takes and whether that capture would empty the opponent's
    /// row (a grand slam).
    #[inline]
    fn sow(&self, pit: u8) -> (OwarePos, usize, u8, bool) {
        let m = self.pits();
        let len = 2 * m;
        let mut p = *self;
        let mover = self.to_move;
        let origin = mover.index() * m + pit as usize;
        let n = p.seeds[origin] as usize;
        p.seeds[origin] = 0;
        // Full laps over the other `len - 1` pits, then the rest one by one.
        let laps = (n / (len - 1)) as u8;
        let rest = n % (len - 1);
        if laps > 0 {
            for (i, s) in p.seeds[..len].iter_mut().enumerate() {
                if i != origin {
                    *s += laps;
                }
            }
        }
        let mut last = origin;
        let mut k = 0;
        while k < rest {
            last = if last + 1 == len { 0 } else { last + 1 };
            if last != origin {
                p.seeds[last] += 1;
                k += 1;
            }
        }
        if rest == 0 {
            // The last seed closed a lap: it fell in the pit before the origin.
            last = if origin == 0 { len - 1 } else { origin - 1 };
        }
        let opp_lo = mover.other().index() * m;
        let in_opp = |i: usize| i >= opp_lo && i < opp_lo + m;
        let mut taken = 0u8;
        let mut i = last;
        while in_opp(i) && matches!(p.seeds[i], 2 | 3) {
            taken += p.seeds[i];
            if i == opp_lo {
                break;
            }
            i -= 1;
        }
        let slam = taken > 0 && taken as u32 == p.row_seeds(mover.other());
        (p, last, taken, slam)
    }

    /// Sows own pit `pit` (a legal move): captures, the grand slam rule, then the end rules.
    pub fn play_unchecked(&mut self, pit: u8) -> MoveEffect {
        let mover = self.to_move;
        let (mut next, last, taken, slam) = self.sow(pit);
        let mut effect = MoveEffect::default();
        if taken > 0 && (!slam || self.grand_slam == GrandSlam::CaptureAll) {
            // The run of 2s and 3s backwards from the last pit, as `sow` counted it.
            let mut left = taken;
            let mut i = last;
            while left > 0 {
                left -= next.seeds[i];
                next.seeds[i] = 0;
                i = i.wrapping_sub(1);
            }
            next.stores[mover.index()] += taken;
            effect.captured = taken.into();
            effect.gain = taken.into();
        }
        *self = next;
        self.settle(mover.other());
        effect.ended = self.over;
        effect
    }

    /// Gives the move to `side` and applies the end rules: a decided store, a player who
    /// cannot move, a mover who cannot feed.
    fn settle(&mut self, side: Side) {
        self.to_move = side;
        let m = self.pits();
        let [a, b] = self.stores;
        if a.max(b) > self.decided_above {
            if self.decided_to_owner {
                for s in Side::BOTH {
                    self.stores[s.index()] += self.row_seeds(s) as u8;
                }
                self.clear_board();
            }
            self.finish();
            return;
        }
        let own = self.row_seeds(side);
        let theirs = self.row_seeds(side.other());
        if own == 0 && theirs == 0 {
            self.finish();
        } else if own == 0 {
            // Cannot move: the opponent takes the seeds of his row.
            self.stores[side.other().index()] += theirs as u8;
            self.clear_board();
            self.finish();
        } else if theirs == 0 && !(0..m).any(|p| self.feeds(p)) {
            // Cannot feed: the mover takes the seeds of his row.
            self.stores[side.index()] += own as u8;
            self.clear_board();
            self.finish();
        }
    }

    fn clear_board(&mut self) {
        self.seeds = [0; RING];
    }

    fn finish(&mut self) {
        self.over = true;
        self.to_move = Side::South;
    }

    /// The same position with the seats swapped.
    pub fn mirrored(&self) -> OwarePos {
        let m = self.pits();
        let mut p = *self;
        for i in 0..m {
            p.seeds[i] = self.seeds[m + i];
            p.seeds[m + i] = self.seeds[i];
        }
        p.stores = [self.stores[1], self.stores[0]];
        if !self.over {
            p.to_move = self.to_move.other();
        }
        p
    }
}

impl crate::Family for OwarePos {
    fn start(rules: &Rules) -> Result<OwarePos, Error> {
        OwarePos::start(rules)
    }

    fn from_setup(rules: &Rules, setup: &crate::Setup) -> Result<OwarePos, Error> {
        setup.no_last_capturer()?;
        setup.no_opening(rules)?;
        setup.seed_rows()?;
        let (rows, stores) = setup.narrow(rules.total_seeds())?;
        let [south, north] = rows.map(|r| r.into_iter().map(|(s, _)| s).collect::<Vec<u8>>());
        OwarePos::from_parts(rules, [&south, &north], stores, setup.to_move)
    }

    fn setup(&self) -> crate::Setup {
        let m = self.pits();
        crate::Setup {
            rows: Side::BOTH.map(|s| (0..m).map(|i| (self.pit(s, i).into(), 0)).collect()),
            stores: self.scores().map(u16::from),
            to_move: (!self.is_over()).then_some(self.to_move()),
            last_capturer: None,
            opening: crate::Opening::None,
        }
    }

    fn pit_content(&self, side: Side, i: usize) -> (u16, u8) {
        (self.pit(side, i).into(), 0)
    }

    fn board_seeds(&self) -> u32 {
        OwarePos::board_seeds(self)
    }

    fn play(&mut self, pit: u8) -> Result<MoveEffect, Error> {
        OwarePos::play(self, pit)
    }

    fn mirrored(&self) -> OwarePos {
        OwarePos::mirrored(self)
    }

    /// The origin is skipped on later laps.
    fn sowing_path(&self, pit: u8) -> SowingPath {
        let m = self.pits();
        let side = self.to_move();
        let n = self.pit(side, pit as usize) as usize;
        let origin = side.index() * m + pit as usize;
        SowingPath {
            places: crate::storeless_path(m, origin, n, true),
            cowries_from: n,
            takes: Vec::new(),
        }
    }

    fn repetition_scores(&self) -> Option<[u16; 2]> {
        Some(OwarePos::repetition_scores(self).map(u16::from))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Game, Position};

    fn pos(s: &str) -> Position {
        s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn the_first_move_sows_into_the_opponents_row() {
        let mut p = Position::start(&"oware".parse().unwrap()).unwrap();
        assert_eq!(p.to_string(), "oware/4-4-4-4-4-4/0/4-4-4-4-4-4/0/s");
        let e = p.play(5).unwrap();
        assert_eq!(e, MoveEffect::default());
        assert_eq!(p.to_string(), "oware/4-4-4-4-4-0/0/5-5-5-5-4-4/0/n");
    }

    #[test]
    fn captures_of_2s_and_3s_chain_backwards() {
        // F's three seeds make North's first pits 2, 2, 3: all seven are taken.
        let mut p = pos("oware,stop-when-decided=false/0-0-0-0-0-3/14/1-1-2-4-4-4/15/s");
        let e = p.play(5).unwrap();
        assert_eq!(e.captured, 7);
        assert_eq!(
            p.to_string(),
            "oware,stop-when-decided=false/0-0-0-0-0-0/21/0-0-0-4-4-4/15/n"
        );
        // South's row is empty: North must feed it, with a pit whose seeds reach it.
        assert_eq!(p.legal_moves().as_slice(), &[3, 4, 5]);
        let mut q = pos("oware,stop-when-decided=false/0-0-0-0-0-0/26/2-1-0-2-2-0/15/n");
        assert_eq!(q.legal_moves().as_slice(), &[4]);
        let e = q.play(0).unwrap_err().to_string();
        assert!(e.contains("a move that feeds him must be played"), "{e}");
    }

    #[test]
    fn the_grand_slam_options() {
        let s = "/1-0-0-0-0-3/20/1-1-2-0-0-0/20/s";
        // Abapa: the move is played and captures nothing.
        let mut p = pos(&format!("oware,stop-when-decided=false{s}"));
        assert_eq!(p.legal_moves().as_slice(), &[0, 5]);
        assert_eq!(p.play(5).unwrap().captured, 0);
        assert_eq!(
            p.to_string(),
            "oware,stop-when-decided=false/1-0-0-0-0-0/20/2-2-3-0-0-0/20/n"
        );
        // Forbidden while another move exists.
        let p = pos(&format!(
            "oware,stop-when-decided=false,grand-slam=forbidden{s}"
        ));
        assert_eq!(p.legal_moves().as_slice(), &[0]);
        let mut q = p;
        assert!(q.play(5).unwrap_err().to_string().contains("grand slam"));
        // Captures all: North cannot move, South takes the seed left in his row.
        let mut p = pos(&format!(
            "oware,stop-when-decided=false,grand-slam=capture-all{s}"
        ));
        let e = p.play(5).unwrap();
        assert_eq!((e.captured, e.ended), (7, true));
        assert_eq!(p.scores(), [28, 20]);
        assert_eq!(p.outcome(), Some(Outcome::Win(Side::South)));
    }

    #[test]
    fn a_decided_store_leaves_the_board_to_nobody_or_to_the_owners() {
        // F's three seeds make North's first pits 2, 2, 3: seven taken, South's store passes
        // 24 and the game ends with North's 12 seeds on the board.
        let s = "/0-0-0-0-0-3/20/1-1-2-4-4-4/9/s";
        for (option, scores, board) in [
            ("", [27, 9], 12),
            (",decided-leftovers=not-counted", [27, 9], 12),
            (",decided-leftovers=to-owner", [27, 21], 0),
        ] {
            let mut p = pos(&format!("oware{option}{s}"));
            let e = p.play(5).unwrap();
            assert_eq!((e.captured, e.ended), (7, true), "{option}");
            assert_eq!(p.scores(), scores, "{option}");
            assert_eq!(p.board_seeds(), board, "{option}");
            assert_eq!(p.outcome(), Some(Outcome::Win(Side::South)), "{option}");
            // The finished position reads back as it is written.
            assert_eq!(pos(&p.to_string()), p, "{option}");
        }
    }

    #[test]
    fn a_lap_skips_the_origin() {
        let p = pos("oware,stop-when-decided=false/12-1-1-1-1-1/12/1-1-1-1-1-1/13/s");
        assert_eq!(
            p.sowing_path(0).places,
            [1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 1]
        );
        let mut q = p;
        assert_eq!(q.play(0).unwrap().captured, 0);
        assert_eq!(
            q.to_string(),
            "oware,stop-when-decided=false/0-3-2-2-2-2/12/2-2-2-2-2-2/13/n"
        );
    }

    #[test]
    fn a_mover_who_cannot_feed_takes_his_row() {
        // South to move, North's row empty, and A's one seed cannot reach it: over.
        let e = "oware,stop-when-decided=false/1-0-0-0-0-0/23/0-0-0-0-0-0/24/s"
            .parse::<Position>()
            .unwrap_err();
        assert!(e.to_string().contains("already over"), "{e}");
        // The move that brings it about: North's last seed leaves South unable to feed.
        let mut p = pos("oware,stop-when-decided=false/1-0-0-0-0-0/23/0-0-0-0-0-1/23/n");
        let e = p.play(5).unwrap();
        assert!(e.ended);
        // North's seed went to South's pit A (2 seeds: captured? a grand slam, nothing);
        // South then holds 2 seeds in A, which cannot reach North: he takes them.
        assert_eq!(p.scores(), [25, 23]);
    }

    #[test]
    fn a_repeated_position_ends_the_game() {
        // One pit a side: the seeds go round, every capture being a grand slam.
        for (rules, scores, outcome) in [
            ("oware,pits=1,seeds=1", [0, 2], Outcome::Win(Side::North)),
            (
                "oware,pits=1,seeds=1,repetition=split",
                [1, 1],
                Outcome::Draw,
            ),
        ] {
            let mut g = Game::from_rules(&rules.parse().unwrap()).unwrap();
            for _ in 0..3 {
                g.play(0).unwrap();
            }
            assert!(g.ended_by_repetition(), "{rules}");
            assert_eq!(g.repetition_reason(), Some("repeated position"));
            assert_eq!(g.scores(), scores, "{rules}");
            assert_eq!(g.outcome(), Some(outcome), "{rules}");
        }
    }
}
