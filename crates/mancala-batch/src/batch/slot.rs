//! One game of a batch ([`Slot`]): on the engine's fast board where its rules allow, else a
//! position played copy-make or a [`Game`]; and the draw of a legal move from a game's
//! generator, the same on each.

use mancala_core::rng::Rng;
use mancala_core::{Game, KalahRules, Moves, Outcome, Position, Rules, Side, MAX_PITS};
use mancala_engine::fast::{FastGame, FastRules};

use super::draw::{draw_softmax, legal_of_bits};
use super::observe::{
    fast_mask, fast_observation, write_moves, write_observation, write_observation_for,
};

/// The rules of a batch stepped on the engine's fast board (no endgame tables).
pub(super) struct Fast {
    kalah: KalahRules,
    pub(super) rules: FastRules<'static>,
    /// The start, a game on the fast board.
    pub(super) start: FastGame,
}

impl Fast {
    /// The fast path for games from `start`, or `None` where its rules need the generic one
    /// (see the [batch's docs](super)).
    pub(super) fn new(start: &Position) -> Option<Fast> {
        if start.rules().can_repeat() || start.is_over() {
            return None;
        }
        let p = start.as_kalah()?;
        let rules = FastRules::new(p.rules(), None)?;
        let start = rules.game(p)?;
        Some(Fast {
            kalah: *p.rules(),
            rules,
            start,
        })
    }
}

impl Clone for Fast {
    fn clone(&self) -> Fast {
        Fast {
            kalah: self.kalah,
            rules: FastRules::new(&self.kalah, None).expect("rules of the fast path"),
            start: self.start,
        }
    }
}

impl std::fmt::Debug for Fast {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fast").field("kalah", &self.kalah).finish()
    }
}

/// A game of a batch: on the engine's fast board where the rules allow, else a position
/// played copy-make where no position can repeat, else a [`Game`], which keeps the positions
/// for the repetition rule.
#[derive(Clone, Debug)]
pub(super) enum Play {
    Fast(FastGame),
    Plain(Position),
    Kept(Game),
}

/// One game of a batch and its legal moves, read once a move: a step checks the actions,
/// writes the masks and samples the next actions from them. (A game on the fast board reads
/// its moves from the board's bits instead; `legal` stays empty.)
#[derive(Clone, Debug)]
pub(super) struct Slot {
    pub(super) play: Play,
    pub(super) legal: Moves,
}

/// The `k`-th (from 0) set bit of `bits`: the `k`-th legal move, as `Moves::as_slice()[k]`.
/// A table (2 KiB): clearing `k` low bits in a loop mispredicted its exit on random `k`.
#[inline]
pub(super) fn nth_bit(bits: u8, k: usize) -> u8 {
    static NTH: [[u8; 8]; 256] = {
        let mut t = [[0u8; 8]; 256];
        let mut b = 0;
        while b < 256 {
            let (mut k, mut i) = (0, 0);
            while i < 8 {
                if b >> i & 1 != 0 {
                    t[b][k] = i as u8;
                    k += 1;
                }
                i += 1;
            }
            b += 1;
        }
        t
    };
    NTH[bits as usize][k & 7]
}

/// `rng.below(n)` for `n` of 1 to 8 (the same draw and number), by Lemire's remainder of a
/// multiplication instead of a division by a variable (a tenth of the step loop's samples in
/// `perf` before).
#[inline]
pub(super) fn below_small(rng: &mut Rng, n: u32) -> usize {
    /// `M[n]`: the 128-bit reciprocal `2^128 / n`, rounded up (0 for `n` of 0 and 1, where
    /// the product is then 0, as `x % 1`).
    const M: [u128; 9] = {
        let mut t = [0u128; 9];
        let mut n = 2;
        while n < 9 {
            t[n] = u128::MAX / n as u128 + 1;
            n += 1;
        }
        t
    };
    debug_assert!((1..=8).contains(&n));
    let x = rng.next_u64();
    let low = M[n as usize].wrapping_mul(x as u128);
    // The high 128 bits of `low * n` (the remainder, below `n`).
    let (hi, lo) = ((low >> 64) as u64 as u128, low as u64 as u128);
    ((hi * n as u128 + ((lo * n as u128) >> 64)) >> 64) as usize
}

/// The outcome of a finished game of the fast path (never misère): more seeds wins.
pub(super) fn fast_outcome(s: [u8; 2]) -> Outcome {
    match s[0].cmp(&s[1]) {
        std::cmp::Ordering::Equal => Outcome::Draw,
        std::cmp::Ordering::Greater => Outcome::Win(Side::South),
        std::cmp::Ordering::Less => Outcome::Win(Side::North),
    }
}

impl Slot {
    /// A game from `start`, on the fast board when `fast` is given.
    pub(super) fn new(start: Position, fast: Option<&Fast>) -> Slot {
        let play = if let Some(f) = fast {
            let p = start.as_kalah().expect("a Kalah-family start");
            Play::Fast(f.rules.game(p).expect("a start of the fast path"))
        } else if start.rules().can_repeat() {
            Play::Kept(Game::new(start))
        } else {
            Play::Plain(start)
        };
        let mut s = Slot {
            play,
            legal: Moves::default(),
        };
        s.legal = s.read_legal();
        s
    }
    pub(super) fn read_legal(&self) -> Moves {
        match &self.play {
            Play::Fast(_) => Moves::default(),
            Play::Plain(p) => p.legal_moves(),
            Play::Kept(g) => g.legal_moves(),
        }
    }
    /// The position now (`rules`: the batch's).
    pub(super) fn position(&self, rules: &Rules) -> Position {
        match &self.play {
            Play::Fast(g) => g.position(rules).expect("a live game"),
            Play::Plain(p) => *p,
            Play::Kept(g) => *g.position(),
        }
    }
    pub(super) fn to_move(&self) -> Side {
        match &self.play {
            Play::Fast(g) => g.to_move(),
            Play::Plain(p) => p.to_move(),
            Play::Kept(g) => g.to_move(),
        }
    }
    pub(super) fn legal_moves(&self) -> Moves {
        match &self.play {
            Play::Fast(g) => g.legal_moves(),
            _ => self.legal,
        }
    }
    /// Whether `pit` is a legal move (read from the board's bits on the fast board, which
    /// keeps no list of moves).
    #[inline]
    pub(super) fn allows(&self, pit: i64) -> bool {
        match &self.play {
            Play::Fast(g) => (0..8).contains(&pit) && g.legal_bits() >> pit & 1 != 0,
            _ => (0..=255).contains(&pit) && self.legal.contains(pit as u8),
        }
    }

    /// A legal move drawn uniformly from `rng` (one draw, as `rng.pick` of the moves).
    #[inline]
    pub(super) fn pick(&self, rng: &mut Rng) -> u8 {
        match &self.play {
            Play::Fast(g) => {
                let bits = g.legal_bits();
                nth_bit(bits, below_small(rng, bits.count_ones()))
            }
            _ => rng.pick(self.legal.as_slice()),
        }
    }
    /// The legal moves, own pits from the mover's left (the pie rule's swap left out).
    pub(super) fn legal_pits(&self) -> impl Iterator<Item = u8> + Clone + '_ {
        let bits = match &self.play {
            Play::Fast(g) => g.legal_bits(),
            _ => 0,
        };
        let fast = legal_of_bits(bits.into());
        let slow = match &self.play {
            Play::Fast(_) => &[][..],
            _ => self.legal.as_slice(),
        };
        fast.chain(slow.iter().copied().filter(|&p| p != mancala_core::SWAP))
    }

    /// A legal move drawn from the softmax of `logits` ([`draw_softmax`]).
    #[inline]
    pub(super) fn draw(&self, logits: &[f32], rng: &mut Rng) -> u8 {
        let legal = self.legal_pits().fold(0u16, |b, p| b | 1 << p);
        draw_softmax::<{ MAX_PITS }>(legal, logits, rng)
    }
    pub(super) fn is_over(&self) -> bool {
        match &self.play {
            Play::Fast(g) => g.is_over(),
            Play::Plain(p) => p.is_over(),
            Play::Kept(g) => g.is_over(),
        }
    }
    /// Plays `pit`, one of the slot's legal moves (checked by the caller), and reads the next
    /// legal moves. `fast`: the batch's fast rules (given where the slot is on the fast board).
    pub(super) fn play(&mut self, pit: u8, fast: Option<&Fast>) {
        debug_assert!(self.legal_moves().contains(pit));
        match &mut self.play {
            Play::Fast(g) => {
                fast.expect("the fast rules").rules.step(g, pit);
                return;
            }
            Play::Plain(p) => {
                p.play_unchecked(pit);
            }
            // The game checks the move again; it also keeps the positions for repetitions.
            Play::Kept(g) => {
                g.play(pit).expect("a legal move");
            }
        }
        self.legal = self.read_legal();
    }
    pub(super) fn result(&self) -> (Option<Outcome>, [u16; 2]) {
        match &self.play {
            Play::Fast(g) => (
                g.is_over().then(|| fast_outcome(g.scores())),
                g.scores().map(u16::from),
            ),
            Play::Plain(p) => (p.outcome(), p.scores()),
            Play::Kept(g) => (g.outcome(), g.scores()),
        }
    }
    /// Writes the observation of the game (see the [batch's docs](super)) into `out`.
    pub(super) fn write_observation(&self, m: usize, out: &mut [f32]) {
        match &self.play {
            Play::Fast(g) => fast_observation(g, m, out),
            Play::Plain(p) => write_observation(p, out),
            Play::Kept(g) => write_observation(g.position(), out),
        }
    }
    /// Writes the observation of the game (on the generic path) from `me`'s view into
    /// `out`.
    pub(super) fn write_observation_for(&self, me: Side, out: &mut [f32]) {
        match &self.play {
            Play::Fast(_) => unreachable!("the fast board's final observations: step_fast_with"),
            Play::Plain(p) => write_observation_for(p, me, out),
            Play::Kept(g) => write_observation_for(g.position(), me, out),
        }
    }
    /// Writes the legal moves as a mask of the `m` pits.
    pub(super) fn write_mask(&self, out: &mut [bool]) {
        match &self.play {
            Play::Fast(g) => fast_mask(g.legal_bytes(), out),
            _ => write_moves(&self.legal, out),
        }
    }
}
