//! What the search needs of a rule family beyond [`GameState`]: keys, bounds and evaluation.
//!
//! # Values
//! The search values a position by the **future net gain** of the side to move: the final seed
//! margin it will reach minus the store difference it already has (misère: both negated). A
//! position's value thus depends only on what is still on the board, so positions that differ
//! only in their stores share transposition-table entries (unless a rule reads the stores:
//! `stop-when-decided`, Dracala, Kauri), and the value lies within plus or minus the seeds left
//! on the board.

use mancala_core::kalah::Cell;
use mancala_core::{
    GameState, KalahPos, KauriPos, Leftovers, Opening, Outcome, OwarePos, Repetition, Side,
};

/// Weights of the leaf evaluation, in sixteenths of a seed per unit (see [`SearchGame::eval`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Weights {
    /// Seeds in the mover's row minus seeds in the opponent's row.
    pub row: i32,
    /// Moves that end in the mover's store (an extra turn) now.
    pub extra: i32,
    /// Kauri: cowries in the mover's row minus the opponent's.
    pub cowries: i32,
}

impl Default for Weights {
    fn default() -> Weights {
        // Tuned by self-play at fixed depth (`examples/tune.rs`, docs/analysis.md):
        // an eighth of a seed per seed of row advantage, a seed and a half per extra-turn move
        // (together they beat the former 4 and 8 by 25 to 95 Elo in `kalah,seeds=4`, `kalah`
        // and `kalah-brazil` at depths 6 and 8), and four seeds per cowrie of advantage in
        // Kauri (the former half seed lost by some 170 Elo at depth 6).
        Weights {
            row: 2,
            extra: 24,
            cowries: 64,
        }
    }
}

#[inline]
fn fmix(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// A row word of up to 16 pits in 64 bits: unchanged for rows of up to 8 pits (`fmix(0)` is 0).
#[inline]
fn fold(word: u128) -> u64 {
    word as u64 ^ fmix((word >> 64) as u64)
}

/// Table key of a Kalah-family position from the mover's row word `a`, the opponent's `b` and
/// what else the rules read (`extra`); shared by [`KalahPos`] and the solver's fast path.
#[inline]
pub(crate) fn row_key(a: u64, b: u64, extra: u64) -> u64 {
    fmix(a ^ fmix(b.wrapping_add(extra.wrapping_mul(0x9e37_79b9_7f4a_7c15))))
}

/// Where positions repeat, the side to move goes into the table key: a position and its
/// mirror (the same from the mover's view) otherwise share an entry, and a cycle through the
/// two is never searched to its repetition, each taking the other's shallower value.
#[inline]
fn side_salt(me: Side) -> u64 {
    (me as u64 + 1) << 56
}

/// A game as the search sees it: table keys, bounds, a leaf evaluation and the rules that
/// change how values are read. Values are future net gain for the side to move, in seeds.
pub trait SearchGame: GameState + Send + Sync {
    /// Hash of everything the rest of the game depends on, seen from the side to move.
    fn tt_key(&self) -> u64;
    /// Hash of the whole position including stores and side (for the repetition rule).
    fn full_key(&self) -> u64;
    /// No line changes the future net gain by more than this.
    fn gain_bound(&self) -> i32;
    /// Estimate of the future net gain for the side to move, in seeds (leaf evaluation).
    fn eval(&self, w: &Weights) -> i32;
    /// Fewer seeds win (Dracala's misère): the search maximises the opposite of the margin.
    fn misere(&self) -> bool;
    /// Positions can repeat (Cross-Kalah, Kauri, Oware), so the repetition rule applies and a value
    /// may depend on the line that reached the position.
    fn can_repeat(&self) -> bool;
    /// Extra value of a finished game for `me` beyond its margin (Kauri's tie-break win).
    fn terminal_bonus(&self, _me: Side) -> i32 {
        0
    }
    /// Whether a margin of one seed stands for equal seeds and a tie decided by the rules
    /// ([`SearchGame::terminal_bonus`]): Kauri with an even count of seeds, where no game ends
    /// one seed apart.
    fn decided_ties(&self) -> bool {
        false
    }
    /// The future net gain for the side to move from the endgame databases, where they cover
    /// this position and these rules.
    fn probe(&self, _oracle: &dyn crate::Oracle) -> Option<i32> {
        None
    }
    /// The occurrence of a position that ends the game by repetition (see
    /// [`mancala_core::Rules::repeat_ends_at`]).
    fn repeat_ends_at(&self) -> usize {
        3
    }
    /// The future net gain for `me` of the game ending here by repetition: a draw (final
    /// margin 0) unless the family says otherwise.
    fn repetition_value(&self, me: Side) -> i32 {
        -self.banked(me)
    }
    /// Whether [`SearchGame::repetition_value`] is the same for every position with these
    /// stores, as the retrograde solver (`cyclic.rs`) needs to prove values.
    fn repetition_by_level(&self) -> bool {
        true
    }
    /// Store difference already banked by `me` (misère: negated).
    fn banked(&self, me: Side) -> i32 {
        let s = self.scores();
        let d = s[me.index()] as i32 - s[me.other().index()] as i32;
        if self.misere() {
            -d
        } else {
            d
        }
    }
}

impl<C: Cell> SearchGame for KalahPos<C> {
    #[inline]
    fn tt_key(&self) -> u64 {
        let me = self.to_move();
        let a = fold(self.row_word(me));
        let b = fold(self.row_word(me.other()));
        let r = self.rules();
        // Both stores, in `2 * C::COUNT_BITS` bits (16 on `u8` counts), where a value reads them.
        let (bits, stores) = (C::COUNT_BITS, stores_word(self, me));
        let mut extra = 0;
        // A draw by repetition (Cross-Kalah) ends at a margin of 0, whatever the stores: its
        // future net gain reads them.
        if r.decided_above != u16::MAX || r.cross {
            extra = stores;
        }
        if r.cross {
            // See `side_salt`.
            extra |= side_salt(me);
        }
        if r.leftovers == Leftovers::LastCapturer {
            extra |= match self.last_capturer() {
                None => 1,
                Some(s) if s == me => 2,
                Some(_) => 3,
            } << (2 * bits);
        }
        // A pending opening changes the moves (the swap) or their turns (no extra turn on
        // the first move); under the pie rule a value there reads the stores, which a swap
        // exchanges.
        if self.opening() != Opening::None {
            extra |= (self.opening() as u64) << (2 * bits + 4) | stores;
        }
        row_key(a, b, extra)
    }

    fn full_key(&self) -> u64 {
        let extra = stores_word(self, Side::South) | (self.to_move() as u64) << (2 * C::COUNT_BITS);
        fmix(
            fold(self.row_word(Side::South))
                ^ fmix(fold(self.row_word(Side::North)) ^ fmix(extra.wrapping_add(1))),
        )
    }

    #[inline]
    fn gain_bound(&self) -> i32 {
        if self.opening() != Opening::None && self.rules().pie {
            // A swap to come exchanges the stores: the final margin is within the seeds in
            // play, the store difference already banked aside.
            let [s, n] = self.scores();
            return self.rules().total as i32 + (s as i32 - n as i32).abs();
        }
        self.board_seeds() as i32
    }

    #[inline]
    fn eval(&self, w: &Weights) -> i32 {
        let me = self.to_move();
        let mut v = w.row * (self.row_seeds(me) as i32 - self.row_seeds(me.other()) as i32);
        if w.extra != 0 {
            let m = self.pits();
            let extras = (0..m)
                .filter(|&i| Into::<u32>::into(self.pit(me, i)) as usize == m - i)
                .count() as i32;
            v += w.extra * extras;
        }
        let v = v / 16;
        if self.misere() {
            -v
        } else {
            v
        }
    }

    #[inline]
    fn misere(&self) -> bool {
        self.rules().misere
    }

    fn can_repeat(&self) -> bool {
        self.rules().cross
    }

    #[inline]
    fn probe(&self, oracle: &dyn crate::Oracle) -> Option<i32> {
        let s = self.board_seeds();
        // The tables know no opening: a first move or a swap pending is searched.
        if s > oracle.max_seeds() || self.opening() != Opening::None {
            return None;
        }
        // The mover's future store growth minus the opponent's (see `Oracle::net`).
        let v = oracle.net(self.narrow()?)?;
        Some(if self.misere() { -v } else { v })
    }
}

/// The stores of a Kalah-family position, `me`'s in the low [`Cell::COUNT_BITS`] bits.
#[inline]
fn stores_word<C: Cell>(p: &KalahPos<C>, me: Side) -> u64 {
    let store = |s: Side| Into::<u32>::into(p.store(s)) as u64;
    store(me) | store(me.other()) << C::COUNT_BITS
}

impl SearchGame for KauriPos {
    fn tt_key(&self) -> u64 {
        let me = self.to_move();
        let m = self.pits();
        let (seeds, cowries) = self.ring();
        // The stores go above the bits the pits are mixed into (they once shared them, and
        // positions with other stores and other pits collided).
        let mut h = fmix(
            (self.store(me) as u64) << 32 | (self.store(me.other()) as u64) << 40 | side_salt(me),
        );
        for k in 0..2 * m {
            // Mover's row first.
            let i = (k + me.index() * m) % (2 * m);
            h = fmix(
                h ^ ((seeds[i] as u64) << 8 | cowries[i] as u64).wrapping_add(k as u64 * 0x1_0000),
            );
        }
        h
    }

    fn full_key(&self) -> u64 {
        let (seeds, cowries) = self.ring();
        let s = self.scores();
        let mut h = fmix((s[0] as u64) << 32 | (s[1] as u64) << 40 | (self.to_move() as u64) << 48);
        for i in 0..seeds.len() {
            h = fmix(
                h ^ ((seeds[i] as u64) << 8 | cowries[i] as u64).wrapping_add(i as u64 * 0x1_0000),
            );
        }
        h
    }

    fn gain_bound(&self) -> i32 {
        self.board_seeds() as i32 + 1
    }

    fn eval(&self, w: &Weights) -> i32 {
        let me = self.to_move();
        let m = self.pits();
        let mut own = 0i32;
        for i in 0..m {
            own += self.pit(me, i).1 as i32 - self.pit(me.other(), i).1 as i32;
        }
        w.cowries * own / 16
    }

    fn misere(&self) -> bool {
        false
    }

    fn can_repeat(&self) -> bool {
        true
    }

    fn decided_ties(&self) -> bool {
        // Every seed ends in a store, or a store passes half of them: with an even count two
        // final stores are never one seed apart.
        self.total_seeds().is_multiple_of(2)
    }

    fn terminal_bonus(&self, me: Side) -> i32 {
        let s = self.scores();
        if s[0] != s[1] {
            return 0;
        }
        match self.outcome() {
            Some(Outcome::Win(w)) if w == me => 1,
            Some(Outcome::Win(_)) => -1,
            _ => 0,
        }
    }
}

impl SearchGame for OwarePos {
    fn tt_key(&self) -> u64 {
        let me = self.to_move();
        let m = self.pits();
        let ring = self.ring();
        let mut h = fmix(
            (self.store(me) as u64) << 32 | (self.store(me.other()) as u64) << 40 | side_salt(me),
        );
        for k in 0..2 * m {
            let i = (k + me.index() * m) % (2 * m);
            h = fmix(h ^ (ring[i] as u64).wrapping_add(k as u64 * 0x1_0000));
        }
        h
    }

    fn full_key(&self) -> u64 {
        let s = self.scores();
        let mut h = fmix((s[0] as u64) << 32 | (s[1] as u64) << 40 | (self.to_move() as u64) << 48);
        for (i, &x) in self.ring().iter().enumerate() {
            h = fmix(h ^ (x as u64).wrapping_add(i as u64 * 0x1_0000));
        }
        h
    }

    fn gain_bound(&self) -> i32 {
        self.board_seeds() as i32
    }

    /// Seeds in the mover's row against the opponent's: they are what the end of the game
    /// (a player who cannot feed, a repetition) gives back.
    fn eval(&self, w: &Weights) -> i32 {
        let me = self.to_move();
        w.row * (self.row_seeds(me) as i32 - self.row_seeds(me.other()) as i32) / 16
    }

    fn misere(&self) -> bool {
        false
    }

    fn can_repeat(&self) -> bool {
        true
    }

    fn repeat_ends_at(&self) -> usize {
        2
    }

    fn repetition_value(&self, me: Side) -> i32 {
        match self.repetition() {
            Repetition::Split => 0,
            Repetition::OwnRow => self.row_seeds(me) as i32 - self.row_seeds(me.other()) as i32,
        }
    }

    fn repetition_by_level(&self) -> bool {
        self.repetition() == Repetition::Split
    }
}
