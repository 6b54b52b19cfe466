//! [`FastGame`]: a game stepped on the fast board, for loops over many games.

use super::*;

/// A live or finished game on the fast board ([`FastRules::game`], [`FastRules::step`]): the
/// board from the side to move's view, both stores (South's first) and the side to move.
/// A finished game has no seeds on its board (the leftovers are counted in the stores as the
/// rules say, or dropped under `leftovers=not-counted`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FastGame {
    pub(super) board: Board,
    pub(super) stores: [u8; 2],
    pub(super) to_move: Side,
}

impl FastGame {
    /// The side to move (for a finished game: the side that would have moved next).
    #[inline]
    pub fn to_move(&self) -> Side {
        self.to_move
    }

    /// Whether the game has ended.
    #[inline]
    pub fn is_over(&self) -> bool {
        // A live game has seeds in both rows (or in the mover's, under `end=mover-empty`).
        self.board.seeds == 0
    }

    /// The stores, South first.
    #[inline]
    pub fn scores(&self) -> [u8; 2] {
        self.stores
    }

    /// The side to move's pits, a byte a pit from his left (pit `i` in byte `i`).
    #[inline]
    pub fn own_row(&self) -> u64 {
        self.board.cells as u64
    }

    /// The opponent's pits, a byte a pit from the opponent's left.
    #[inline]
    pub fn their_row(&self) -> u64 {
        (self.board.cells >> 64) as u64
    }

    /// The legal moves as bits: bit `i` for own pit `i` (not empty). None once over.
    #[inline]
    pub fn legal_bits(&self) -> u8 {
        // The eight low bits of the bytes gathered into one byte (bit `8i` to bit `56 + i`).
        (self.legal_bytes().wrapping_mul(0x0102_0408_1020_4080) >> 56) as u8
    }

    /// The legal moves as bytes: byte `i` is 1 where own pit `i` is not empty, else 0.
    #[inline]
    pub fn legal_bytes(&self) -> u64 {
        let w = self.own_row();
        // The high bit of each non-zero byte, moved to its low bit.
        ((((w & 0x7f7f_7f7f_7f7f_7f7f) + 0x7f7f_7f7f_7f7f_7f7f) | w) & 0x8080_8080_8080_8080) >> 7
    }

    /// The legal moves, own pits from the mover's left (as [`KalahPos::legal_moves`]).
    pub fn legal_moves(&self) -> Moves {
        let mut mv = Moves::default();
        let mut bits = self.legal_bits();
        while bits != 0 {
            mv.push(bits.trailing_zeros() as u8);
            bits &= bits - 1;
        }
        mv
    }

    /// The position of a live game under `rules` (those the game was made for). Errors for a
    /// finished game, whose board the fast path does not keep.
    pub fn position(&self, rules: &Rules) -> Result<Position, Error> {
        if self.is_over() {
            return Err(Error::GameOver);
        }
        let m = rules.pits as usize;
        let (own, theirs) = (self.own_row().to_le_bytes(), self.their_row().to_le_bytes());
        let row = |r: [u8; 8]| r[..m].iter().map(|&s| (s.into(), 0)).collect::<Vec<_>>();
        let (own, theirs) = (row(own), row(theirs));
        let rows = match self.to_move {
            Side::South => [own, theirs],
            Side::North => [theirs, own],
        };
        let setup = Setup {
            rows,
            stores: self.stores.map(u16::from),
            to_move: Some(self.to_move),
            last_capturer: None,
            opening: Opening::None,
        };
        Position::from_setup(rules, &setup)
    }
}

impl FastRules<'_> {
    /// `p` as a game to step, or `None` where the fast board cannot carry it: a finished game,
    /// one with an opening rule (`pie`, `first-move-extra-turn=false`), or one whose rules keep
    /// who captured last (which [`FastRules::new`] refuses already).
    pub fn game(&self, p: &KalahPos) -> Option<FastGame> {
        let r = p.rules();
        if p.is_over() || r.has_opening() || r.leftovers == Leftovers::LastCapturer {
            return None;
        }
        Some(FastGame {
            board: self.board(p),
            // The fast board takes positions on `u8` counts only.
            stores: p.scores().map(|s| s as u8),
            to_move: p.to_move(),
        })
    }

    /// Plays own pit `pit` of `g`, one of its legal moves ([`FastGame::legal_bits`]), as
    /// [`KalahPos::play_unchecked`] does.
    #[inline]
    pub fn step(&self, g: &mut FastGame, pit: u8) {
        #[inline(always)]
        fn go<const M: usize>(r: &FastRules, g: &mut FastGame, pit: u8) {
            r.step_pits::<M>(g, pit)
        }
        by_pits!(self.m, go(self, g, pit))
    }

    /// As [`FastRules::step`], the pit count `M` (that of these rules) a constant: for a loop
    /// over many games of one size, which then chooses its pit count once, not at each move.
    #[inline(always)]
    pub fn step_pits<const M: usize>(&self, g: &mut FastGame, pit: u8) {
        debug_assert_eq!(M, self.m, "the rules' pit count");
        debug_assert!(g.legal_bits() & (1 << pit) != 0, "pit {pit} of {g:?}");
        let before = g.board.seeds as i32;
        let (child, gain, again) = self.play::<M>(&g.board, pit as usize);
        let me = g.to_move.index();
        if child.seeds == 0 && self.leftovers == Leftovers::ToOwner {
            // Over, each row to its owner: the mover's net gain is his seeds less the
            // opponent's leftovers, and every seed of the board went to one of the two.
            g.stores[me] += ((before + gain) / 2) as u8;
            g.stores[1 - me] += ((before - gain) / 2) as u8;
        } else {
            g.stores[me] += gain as u8;
        }
        g.to_move = if again { g.to_move } else { g.to_move.other() };
        g.board = child;
    }
}
