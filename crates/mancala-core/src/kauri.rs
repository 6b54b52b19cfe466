//! Kauri (Ralf Gering, 2006, his *Kauri* page; docs/rules.md): seeds and cowries on a 2 x m board.
//!
//! # Layout
//! Pits form a ring of `2m` (stores are never sown into): index `0..m` are South's pits 1..m,
//! `m..2m` North's pits 1..m, each from its owner's left; counter-clockwise is index + 1.
//! Stores hold captured seeds only.

use crate::rules::{GameFamily, Rules, MAX_PITS};
use crate::{Error, MoveEffect, Moves, Msg, Outcome, Side, SowingPath, Take};

const RING: usize = 2 * MAX_PITS;

/// A Kauri position. `Copy`; play by copy-make.
///
/// Equality and hashing see what the position string shows: the side to move counts only
/// while the game is live (a finished game's loser at a tie is the side without a cowrie).
#[derive(Clone, Copy, Debug)]
pub struct KauriPos {
    seeds: [u8; RING],
    cowries: [u8; RING],
    stores: [u8; 2],
    pits: u8,
    /// Seeds in play (board plus stores).
    total: u8,
    /// A store above this ends the game (`stop-when-decided`); 255 when off.
    decided_above: u8,
    to_move: Side,
    over: bool,
}

impl PartialEq for KauriPos {
    fn eq(&self, other: &Self) -> bool {
        self.seeds == other.seeds
            && self.cowries == other.cowries
            && self.stores == other.stores
            && self.pits == other.pits
            && self.total == other.total
            && self.decided_above == other.decided_above
            && self.over == other.over
            && (self.over || self.to_move == other.to_move)
    }
}

impl Eq for KauriPos {}

impl core::hash::Hash for KauriPos {
    fn hash<H: core::hash::Hasher>(&self, h: &mut H) {
        self.seeds.hash(h);
        self.cowries.hash(h);
        self.stores.hash(h);
        self.pits.hash(h);
        self.total.hash(h);
        self.decided_above.hash(h);
        self.over.hash(h);
        if !self.over {
            self.to_move.hash(h);
        }
    }
}

impl KauriPos {
    /// Errors for rules that are not Kauri's.
    pub fn check_rules(rules: &Rules) -> Result<(), Error> {
        if rules.preset.family() != GameFamily::Kauri {
            return Err(Error::Rules(
                Msg::new("error.rules.not-kauri").arg("preset", rules.preset),
            ));
        }
        rules.validate()
    }

    /// The start: every pit holds `seeds` seeds and one cowrie; South to move.
    pub fn start(rules: &Rules) -> Result<KauriPos, Error> {
        Self::check_rules(rules)?;
        let m = rules.pits as usize;
        let mut seeds = [0; RING];
        let mut cowries = [0; RING];
        seeds[..2 * m].fill(rules.seeds);
        cowries[..2 * m].fill(1);
        Ok(KauriPos {
            seeds,
            cowries,
            stores: [0, 0],
            pits: rules.pits,
            total: rules.total_seeds() as u8,
            decided_above: if rules.stop_when_decided {
                (rules.total_seeds() / 2) as u8
            } else {
                u8::MAX
            },
            to_move: Side::South,
            over: false,
        })
    }

    /// Builds and checks a position: `pits[side][i] = (seeds, cowries)` of pit `i` from the
    /// owner's left. `to_move` is `None` for a finished game.
    ///
    /// Errors ([`Error::Position`]): seed or cowrie totals that differ from the rules', a side to
    /// move without a cowrie (he would have passed), a live position that is already over or a
    /// finished one that is not.
    pub fn from_parts(
        rules: &Rules,
        pits: [&[(u8, u8)]; 2],
        stores: [u8; 2],
        to_move: Option<Side>,
    ) -> Result<KauriPos, Error> {
        let mut pos = KauriPos::start(rules)?;
        let m = pos.pits();
        for side in Side::BOTH {
            let row = pits[side.index()];
            if row.len() != m {
                return Err(Error::Position(
                    Msg::new("error.position.row-length")
                        .side("side", side)
                        .arg("given", row.len())
                        .arg("pits", m),
                ));
            }
            for (i, &(s, c)) in row.iter().enumerate() {
                pos.seeds[side.index() * m + i] = s;
                pos.cowries[side.index() * m + i] = c;
            }
        }
        pos.stores = stores;
        // A finished game names no side to move; the outcome of a tie reads its loser, the
        // side without a cowrie (he was to move), from `to_move`.
        pos.to_move = to_move.unwrap_or(if pos.has_cowrie(Side::North) {
            Side::South
        } else {
            Side::North
        });
        pos.over = to_move.is_none();
        let seeds = pos.board_seeds() + stores[0] as u32 + stores[1] as u32;
        if seeds != pos.total as u32 {
            return Err(Error::Position(
                Msg::new("error.position.seed-total")
                    .arg("seeds", seeds)
                    .arg("total", pos.total),
            ));
        }
        let cowries: u32 = pos.cowries[..2 * m].iter().map(|&c| c as u32).sum();
        if cowries != 2 * m as u32 {
            return Err(Error::Position(
                Msg::new("error.position.cowrie-total")
                    .arg("cowries", cowries)
                    .arg("total", 2 * m),
            ));
        }
        let decided = stores.iter().any(|&s| s > pos.decided_above);
        let no_seeds = pos.board_seeds() == 0;
        let mover_has_cowrie = pos.has_cowrie(pos.to_move);
        if pos.over {
            let ended =
                decided || (no_seeds && stores[0] != stores[1]) || (no_seeds && !mover_has_cowrie);
            if !ended {
                return Err(Error::Position(Msg::new("error.position.not-finished")));
            }
        } else {
            if decided || (no_seeds && stores[0] != stores[1]) {
                return Err(Error::Position(Msg::new("error.position.over")));
            }
            if !mover_has_cowrie {
                return Err(Error::Position(
                    Msg::new("error.position.no-cowrie").side("side", pos.to_move),
                ));
            }
        }
        Ok(pos)
    }

    /// Pits a side (`m`).
    #[inline]
    pub fn pits(&self) -> usize {
        self.pits as usize
    }
    /// The side to move; in a finished game, the side that would have moved next, which loses a
    /// tie.
    #[inline]
    pub fn to_move(&self) -> Side {
        self.to_move
    }
    /// The game has ended: no move can be played.
    #[inline]
    pub fn is_over(&self) -> bool {
        self.over
    }
    /// `(seeds, cowries)` of pit `i` (0-based from the owner's left) of `side`.
    pub fn pit(&self, side: Side, i: usize) -> (u8, u8) {
        let j = side.index() * self.pits() + i;
        (self.seeds[j], self.cowries[j])
    }
    /// The ring of seed counts and of cowrie counts (`2m` pits each, see the module docs).
    pub fn ring(&self) -> (&[u8], &[u8]) {
        let n = 2 * self.pits();
        (&self.seeds[..n], &self.cowries[..n])
    }

    /// Captured seeds of `side`.
    pub fn store(&self, side: Side) -> u8 {
        self.stores[side.index()]
    }
    /// Captured seeds by side, South first.
    pub fn scores(&self) -> [u8; 2] {
        self.stores
    }
    /// Seeds in play, on the board and in the stores; cowries are not counted.
    pub fn total_seeds(&self) -> u8 {
        self.total
    }
    /// Whether a pit of `side`'s row holds a cowrie: only a player with a cowrie can sow.
    pub fn has_cowrie(&self, side: Side) -> bool {
        let m = self.pits();
        self.cowries[side.index() * m..side.index() * m + m]
            .iter()
            .any(|&c| c > 0)
    }
    /// Seeds still on the board.
    pub fn board_seeds(&self) -> u32 {
        self.seeds[..2 * self.pits()]
            .iter()
            .map(|&s| s as u32)
            .sum()
    }

    /// More captured seeds wins; at a tie the player to move without a cowrie loses.
    pub fn outcome(&self) -> Option<Outcome> {
        if !self.over {
            return None;
        }
        let [s, n] = self.stores;
        Some(match s.cmp(&n) {
            core::cmp::Ordering::Greater => Outcome::Win(Side::South),
            core::cmp::Ordering::Less => Outcome::Win(Side::North),
            core::cmp::Ordering::Equal => Outcome::Win(self.to_move.other()),
        })
    }

    /// Own pits holding a cowrie, from the mover's left.
    pub fn legal_moves(&self) -> Moves {
        let mut mv = Moves::default();
        if self.over {
            return mv;
        }
        let m = self.pits();
        let off = self.to_move.index() * m;
        for p in 0..m {
            if self.cowries[off + p] > 0 {
                mv.push(p as u8);
            }
        }
        mv
    }

    /// Plays own pit `pit` (0-based from the mover's left), which must hold a cowrie, or says why
    /// the move is illegal; the position is unchanged on error.
    pub fn play(&mut self, pit: u8) -> Result<MoveEffect, Error> {
        if self.over {
            return Err(Error::GameOver);
        }
        if !self.legal_moves().contains(pit) {
            return Err(Error::IllegalMove(if pit as usize >= self.pits() {
                Msg::new("error.move.no-pit")
                    .arg("pit", pit as usize + 1)
                    .arg("pits", self.pits())
            } else {
                Msg::new("error.move.cowrieless")
                    .arg("pit", pit as usize + 1)
                    .side("side", self.to_move)
            }));
        }
        Ok(self.play_unchecked(pit))
    }

    /// Sows own pit `pit` (holding a cowrie): seeds first, then cowries, capturing as they
    /// fall. `fell(idx, take)` hears of every piece in order: the ring index it fell on and
    /// the seeds it made leave there for a store (a seed falling on an opponent's pit that
    /// holds cowries alone goes to his store; a cowrie falling on an opponent's pit without
    /// one takes its seeds). The one statement of the rule, for play and its sowing path.
    #[inline(always)]
    fn sow(&mut self, pit: u8, mut fell: impl FnMut(usize, Option<(u8, Side)>)) -> MoveEffect {
        let m = self.pits();
        let len = 2 * m;
        let mover = self.to_move;
        let opp = mover.other();
        let origin = mover.index() * m + pit as usize;
        let opp_lo = opp.index() * m;
        let s = self.seeds[origin] as usize;
        let c = self.cowries[origin] as usize;
        debug_assert!(c > 0 && !self.over);
        self.seeds[origin] = 0;
        self.cowries[origin] = 0;
        let mut effect = MoveEffect::default();
        let mut idx = origin;
        for k in 0..s + c {
            idx += 1;
            if idx == len {
                idx = 0;
            }
            let in_opp = idx >= opp_lo && idx < opp_lo + m;
            let mut take = None;
            if k < s {
                if in_opp && self.cowries[idx] > 0 && self.seeds[idx] == 0 {
                    self.stores[opp.index()] += 1;
                    effect.handed += 1;
                    take = Some((1, opp));
                } else {
                    self.seeds[idx] += 1;
                }
            } else {
                if in_opp && self.cowries[idx] == 0 {
                    let taken = self.seeds[idx];
                    self.stores[mover.index()] += taken;
                    effect.captured += u16::from(taken);
                    self.seeds[idx] = 0;
                    if taken > 0 {
                        take = Some((taken, mover));
                    }
                }
                self.cowries[idx] += 1;
            }
            fell(idx, take);
        }
        effect
    }

    /// Sows own pit `pit`, which must hold a cowrie: seeds first, then cowries, capturing as
    /// they fall; then decides who moves next (the opponent, unless he has no cowrie).
    pub fn play_unchecked(&mut self, pit: u8) -> MoveEffect {
        let mover = self.to_move;
        let opp = mover.other();
        let mut effect = self.sow(pit, |_, _| {});
        effect.gain = effect.captured;
        let no_seeds = self.board_seeds() == 0;
        let [a, b] = self.stores;
        if a.max(b) > self.decided_above || (no_seeds && a != b) {
            self.over = true;
            self.to_move = opp;
        } else if no_seeds {
            // A tie with no seeds left: play on with cowries; who cannot move loses.
            self.to_move = opp;
            self.over = !self.has_cowrie(opp);
        } else {
            self.to_move = if self.has_cowrie(opp) { opp } else { mover };
        }
        effect.ended = self.over;
        effect.again = self.to_move == mover && !self.over;
        effect
    }

    /// The same position with the seats swapped.
    pub fn mirrored(&self) -> KauriPos {
        let m = self.pits();
        let mut p = *self;
        for i in 0..m {
            p.seeds[i] = self.seeds[m + i];
            p.seeds[m + i] = self.seeds[i];
            p.cowries[i] = self.cowries[m + i];
            p.cowries[m + i] = self.cowries[i];
        }
        p.stores = [self.stores[1], self.stores[0]];
        p.to_move = self.to_move.other();
        p
    }
}

impl crate::Family for KauriPos {
    fn start(rules: &Rules) -> Result<KauriPos, Error> {
        KauriPos::start(rules)
    }

    fn from_setup(rules: &Rules, setup: &crate::Setup) -> Result<KauriPos, Error> {
        setup.no_last_capturer()?;
        setup.no_opening(rules)?;
        let (rows, stores) = setup.narrow(rules.total_seeds())?;
        KauriPos::from_parts(rules, [&rows[0], &rows[1]], stores, setup.to_move)
    }

    fn setup(&self) -> crate::Setup {
        let m = self.pits();
        crate::Setup {
            rows: Side::BOTH.map(|s| {
                (0..m)
                    .map(|i| {
                        let (seeds, cowries) = self.pit(s, i);
                        (seeds.into(), cowries)
                    })
                    .collect()
            }),
            stores: self.scores().map(u16::from),
            to_move: (!self.is_over()).then_some(self.to_move()),
            last_capturer: None,
            opening: crate::Opening::None,
        }
    }

    fn pit_content(&self, side: Side, i: usize) -> (u16, u8) {
        let (seeds, cowries) = self.pit(side, i);
        (seeds.into(), cowries)
    }

    fn board_seeds(&self) -> u32 {
        KauriPos::board_seeds(self)
    }

    fn play(&mut self, pit: u8) -> Result<MoveEffect, Error> {
        KauriPos::play(self, pit)
    }

    fn mirrored(&self) -> KauriPos {
        KauriPos::mirrored(self)
    }

    /// Seeds first, then cowries, the origin not skipped, with the captures as they fall:
    /// the sowing of [`KauriPos::play_unchecked`] itself, on a copy.
    fn sowing_path(&self, pit: u8) -> SowingPath {
        let m = self.pits();
        let (s, c) = self.pit(self.to_move(), pit as usize);
        let mut path = SowingPath {
            places: Vec::with_capacity((s + c) as usize),
            cowries_from: s as usize,
            takes: Vec::new(),
        };
        let mut copy = *self;
        copy.sow(pit, |idx, take| {
            if let Some((seeds, to)) = take {
                let step = path.places.len();
                path.takes.push(Take { step, seeds, to });
            }
            path.places.push(crate::ring_place(m, idx));
        });
        path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_then_cowries() {
        let rules: Rules = "kauri".parse().unwrap();
        let mut p = KauriPos::start(&rules).unwrap();
        // f: 5 seeds into North pits 1-5, then the cowrie into North 6, which has a cowrie
        // already: no capture.
        let e = p.play(5).unwrap();
        assert_eq!(e, MoveEffect::default());
        assert_eq!(p.pit(Side::North, 0), (6, 1));
        assert_eq!(p.pit(Side::North, 5), (5, 2));
        assert_eq!(p.pit(Side::South, 5), (0, 0));
        assert_eq!(p.to_move(), Side::North);
        // North 6 (5 seeds, 2 cowries): seeds into South 1-5, cowries into South 6 (no cowrie
        // there: a direct capture of nothing) and North 1.
        let e = p.play(5).unwrap();
        assert_eq!(e.captured, 0);
        assert_eq!(p.pit(Side::South, 0), (6, 1));
        assert_eq!(p.pit(Side::South, 5), (0, 1));
        assert_eq!(p.pit(Side::North, 0), (6, 2));
        assert_eq!(p.to_move(), Side::South);
    }

    #[test]
    fn a_seed_into_a_cowrie_only_pit_goes_to_its_owner() {
        let rules: Rules = "kauri".parse().unwrap();
        let mut north = [(5, 1); 6];
        north[0] = (0, 1);
        let south = [(5, 1), (5, 1), (5, 1), (5, 1), (5, 1), (1, 1)];
        let p = KauriPos::from_parts(&rules, [&south, &north], [4, 5], Some(Side::South));
        let mut p = p.unwrap();
        let e = p.play(5).unwrap();
        assert_eq!(e.handed, 1);
        assert_eq!(p.store(Side::North), 6);
        // The cowrie follows into North pit 2, which holds a cowrie: nothing taken.
        assert_eq!(p.pit(Side::North, 1), (5, 2));
    }
}
