//! The Kalah family: Kalah(m,n) and its options, `kalah-brazil`, `vaccean`, `cross-kalah` and
//! `dracala` (the rules as docs/rules.md states them). One position type, [`KalahPos`],
//! carries a compact copy of its rules ([`KalahRules`]) so that hot loops need nothing else.

use crate::rules::{Capture, EndCheck, Leftovers, Rules, MAX_PITS, MAX_TOTAL_SEEDS};
use crate::{Error, MoveEffect, Moves, Msg, Opening, Outcome, Side, SowingPath, MAX_MOVES, SWAP};

/// Length of the board array: `2 * MAX_PITS + 2`; a board of `m` pits uses `2m + 2` of it.
pub const BOARD_LEN: usize = 2 * MAX_PITS + 2;

/// The rules a Kalah-family position needs while playing, flattened from [`Rules`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KalahRules {
    /// Pits a side (`m`).
    pub pits: u8,
    /// `None`: no captures (`kalah-brazil` before its last stage).
    pub capture: Option<Capture>,
    /// A last seed in the mover's own store gives him another move (off in `kalah-brazil`'s basic
    /// stage).
    pub extra_turn: bool,
    /// South's very first move may earn an extra turn (`first-move-extra-turn`).
    pub first_extra: bool,
    /// North may swap seats as its first action (`pie`).
    pub pie: bool,
    /// Cross-Kalah sowing direction.
    pub cross: bool,
    /// Dracala's compulsory maximum capture and bonus-step rule.
    pub dracala: bool,
    /// Fewer seeds wins (Dracala).
    pub misere: bool,
    /// When the game ends.
    pub end: EndCheck,
    /// Who scores the seeds left on the board when the game ends.
    pub leftovers: Leftovers,
    /// A store above this many seeds ends the game (`stop-when-decided`); `u16::MAX` when off.
    pub decided_above: u16,
    /// Seeds in play.
    pub total: u16,
    /// Start layout of a row, for Dracala's first-move exception.
    pub start: [u8; MAX_PITS],
}

impl KalahRules {
    /// Flattens `rules`; errors for Kauri.
    pub fn new(rules: &Rules) -> Result<KalahRules, Error> {
        if !rules.preset.is_kalah_family() {
            return Err(Error::Rules(
                Msg::new("error.rules.not-kalah").arg("preset", rules.preset),
            ));
        }
        rules.validate()?;
        let m = rules.pits as usize;
        let mut start = [0; MAX_PITS];
        for (i, s) in start.iter_mut().enumerate().take(m) {
            *s = rules.start_seeds(i);
        }
        let total = rules.total_seeds() as u16;
        Ok(KalahRules {
            pits: rules.pits,
            capture: rules.captures().then_some(rules.capture),
            extra_turn: rules.extra_turns(),
            first_extra: rules.first_move_extra_turn,
            pie: rules.pie,
            cross: rules.preset.odd_sows_clockwise(),
            dracala: rules.preset.compulsory_capture(),
            misere: rules.misere(),
            end: rules.end,
            leftovers: rules.leftovers,
            decided_above: if rules.stop_when_decided {
                total / 2
            } else {
                u16::MAX
            },
            total,
            start,
        })
    }
}

/// The error for a position whose seeds do not add up to the rules' total.
fn seed_total_error(total: u32, rules: &KalahRules) -> Error {
    Error::Position(
        Msg::new("error.position.seed-total")
            .arg("seeds", total)
            .arg("total", rules.total),
    )
}

impl KalahRules {
    /// [`KalahRules::new`] for positions on counts of type `C`: errors where the rules' seeds
    /// do not fit it.
    pub fn for_cell<C: Cell>(rules: &Rules) -> Result<KalahRules, Error> {
        let kr = KalahRules::new(rules)?;
        if kr.total as u32 > C::MAX_TOTAL {
            return Err(Error::Rules(
                Msg::new("error.rules.too-many-seeds-for-counts")
                    .arg("total", kr.total)
                    .arg("max", C::MAX_TOTAL),
            ));
        }
        Ok(kr)
    }

    /// Whether positions carry an opening state ([`Opening`]): under `pie` or
    /// `first-move-extra-turn=false`.
    #[inline]
    pub fn has_opening(&self) -> bool {
        self.pie || !self.first_extra
    }
}

/// The count type of a [`KalahPos`] board: `u8` (the default, for games of up to
/// [`MAX_TOTAL_SEEDS`] seeds in all; every table and fast path reads these) or `u16` (larger
/// boards, such as KGP's Kalah(12,12) of 288 seeds, up to [`WIDE_MAX_SEEDS`]).
/// [`crate::Position`] picks the narrower that holds the rules' seeds; code over one type is
/// monomorphised for each.
pub trait Cell:
    Copy
    + Default
    + Eq
    + Ord
    + core::hash::Hash
    + core::fmt::Debug
    + Send
    + Sync
    + 'static
    + From<u8>
    + Into<u16>
    + Into<u32>
    + core::ops::Add<Output = Self>
    + core::ops::AddAssign
    + core::ops::Sub<Output = Self>
    + core::iter::Sum
{
    /// Most seeds in all a position of this cell type may hold.
    const MAX_TOTAL: u32;
    /// Bits that hold any count up to [`Cell::MAX_TOTAL`].
    const COUNT_BITS: u32;
    /// `v`, which is at most [`Cell::MAX_TOTAL`].
    fn from_u32(v: u32) -> Self;
    /// Pits `s..s + m` of `board` as two words with a non-zero byte for each non-empty pit,
    /// pits 1-8 then 9-12 (move generation reads their non-zero bytes).
    fn occupancy(board: &[Self; BOARD_LEN], s: usize, m: u32) -> (u64, u64);
    /// Pits `s..s + m` of `board` as one word that tells every row apart, for hashing.
    fn row_word(board: &[Self; BOARD_LEN], s: usize, m: u32) -> u128;
    /// The same position with `u8` counts, where this is that type (the endgame tables and
    /// the solver's fast path read only those).
    fn narrow(pos: &KalahPos<Self>) -> Option<&KalahPos<u8>>;
}

impl Cell for u8 {
    const MAX_TOTAL: u32 = MAX_TOTAL_SEEDS;
    const COUNT_BITS: u32 = 8;
    #[inline]
    fn from_u32(v: u32) -> u8 {
        v as u8
    }
    /// The counts themselves: pit 1 in the low byte of the first word.
    #[inline]
    fn occupancy(board: &[u8; BOARD_LEN], s: usize, m: u32) -> (u64, u64) {
        let low = u64::from_le_bytes(board[s..s + 8].try_into().unwrap());
        if m <= 8 {
            return (low & (u64::MAX >> (64 - 8 * m)), 0);
        }
        let high = u32::from_le_bytes(board[s + 8..s + 12].try_into().unwrap())
            & (u32::MAX >> (32 - 8 * (m - 8)));
        (low, high as u64)
    }
    /// A byte a pit, pit 1 lowest: rows of up to 8 pits fit the low 64 bits.
    #[inline]
    fn row_word(board: &[u8; BOARD_LEN], s: usize, m: u32) -> u128 {
        let (low, high) = Self::occupancy(board, s, m);
        low as u128 | (high as u128) << 64
    }
    #[inline]
    fn narrow(pos: &KalahPos<u8>) -> Option<&KalahPos<u8>> {
        Some(pos)
    }
}

impl Cell for u16 {
    const MAX_TOTAL: u32 = WIDE_MAX_SEEDS;
    const COUNT_BITS: u32 = 9;
    #[inline]
    fn from_u32(v: u32) -> u16 {
        v as u16
    }
    fn occupancy(board: &[u16; BOARD_LEN], s: usize, m: u32) -> (u64, u64) {
        let mut words = [0u64; 2];
        for (i, &c) in board[s..s + m as usize].iter().enumerate() {
            words[i / 8] |= u64::from(c != 0) << (8 * (i % 8));
        }
        (words[0], words[1])
    }
    /// Nine bits a pit ([`WIDE_MAX_SEEDS`] is 511), pit 1 lowest: 108 bits for 12 pits.
    fn row_word(board: &[u16; BOARD_LEN], s: usize, m: u32) -> u128 {
        board[s..s + m as usize]
            .iter()
            .enumerate()
            .fold(0, |w, (i, &c)| {
                w | (c as u128) << (Self::COUNT_BITS as usize * i)
            })
    }
    fn narrow(_: &KalahPos<u16>) -> Option<&KalahPos<u8>> {
        None
    }
}

/// Most seeds in all of a Kalah-family game (on `u16` counts, nine bits a pit in its hash
/// word); boards of at most [`MAX_TOTAL_SEEDS`] play on `u8` counts.
pub const WIDE_MAX_SEEDS: u32 = 511;

/// The high bit of each non-zero byte of `word` (no carry crosses a byte: each sum is at most
/// `0xfe`).
#[inline]
fn nonzero_bytes(word: u64) -> u64 {
    const LOW7: u64 = u64::from_le_bytes([0x7f; 8]);
    (((word & LOW7) + LOW7) | word) & !LOW7
}

/// A Kalah-family position: the board ring (see the crate docs for the index order), the side
/// to move and whether the game is over. Small and `Copy`; play by copy-make.
///
/// Equality and hashing see what the position string shows: the side to move counts only
/// while the game is live.
#[derive(Clone, Copy, Debug)]
pub struct KalahPos<C: Cell = u8> {
    board: [C; BOARD_LEN],
    to_move: Side,
    over: bool,
    /// Who last grew his store during a move (for `leftovers=last-capturer`).
    last_capturer: Option<Side>,
    /// What of the opening is pending; always [`Opening::None`] unless the rules have an
    /// opening rule ([`KalahRules::has_opening`]).
    opening: Opening,
    rules: KalahRules,
}

impl<C: Cell> PartialEq for KalahPos<C> {
    fn eq(&self, other: &Self) -> bool {
        self.board == other.board
            && self.over == other.over
            && (self.over || self.to_move == other.to_move)
            && self.last_capturer == other.last_capturer
            && self.opening == other.opening
            && self.rules == other.rules
    }
}

impl<C: Cell> Eq for KalahPos<C> {}

impl<C: Cell> core::hash::Hash for KalahPos<C> {
    fn hash<H: core::hash::Hasher>(&self, h: &mut H) {
        self.board.hash(h);
        self.over.hash(h);
        if !self.over {
            self.to_move.hash(h);
        }
        self.last_capturer.hash(h);
        self.opening.hash(h);
        self.rules.hash(h);
    }
}

impl<C: Cell> KalahPos<C> {
    /// The start position of `rules`, South to move (its first move pending where the rules
    /// have an opening rule).
    pub fn start(rules: &KalahRules) -> Self {
        let m = rules.pits as usize;
        debug_assert!(rules.total as u32 <= C::MAX_TOTAL);
        let mut board = [C::default(); BOARD_LEN];
        for (i, &s) in rules.start[..m].iter().enumerate() {
            board[i] = C::from(s);
            board[m + 1 + i] = C::from(s);
        }
        KalahPos {
            board,
            to_move: Side::South,
            over: false,
            last_capturer: None,
            opening: if rules.has_opening() {
                Opening::FirstMove
            } else {
                Opening::None
            },
            rules: *rules,
        }
    }

    /// Builds a position from its parts and checks it: `pits[side][i]` is pit `i` of `side`
    /// from its owner's left, `stores` by side. `to_move` is `None` for a finished game. No
    /// opening is pending ([`Self::with_opening`] sets one).
    ///
    /// Errors ([`Error::Position`]) when the seed total differs from the rules' total, or when
    /// a live position already meets the end rule, or a finished one does not.
    pub fn from_parts(
        rules: &KalahRules,
        pits: [&[C]; 2],
        stores: [C; 2],
        to_move: Option<Side>,
        last_capturer: Option<Side>,
    ) -> Result<Self, Error> {
        let m = rules.pits as usize;
        for side in Side::BOTH {
            if pits[side.index()].len() != m {
                return Err(Error::Position(
                    Msg::new("error.position.row-length")
                        .side("side", side)
                        .arg("given", pits[side.index()].len())
                        .arg("pits", m),
                ));
            }
        }
        let total: u32 = pits
            .iter()
            .flat_map(|r| r.iter())
            .chain(stores.iter())
            .map(|&s| Into::<u32>::into(s))
            .sum();
        if total != rules.total as u32 {
            return Err(seed_total_error(total, rules));
        }
        let mut board = [C::default(); BOARD_LEN];
        board[..m].copy_from_slice(pits[0]);
        board[m] = stores[0];
        board[m + 1..2 * m + 1].copy_from_slice(pits[1]);
        board[2 * m + 1] = stores[1];
        let pos = KalahPos {
            board,
            to_move: to_move.unwrap_or(Side::South),
            over: to_move.is_none(),
            last_capturer,
            opening: Opening::None,
            rules: *rules,
        };
        let decided = stores
            .iter()
            .any(|&s| Into::<u16>::into(s) > rules.decided_above);
        let row_empty = |s: Side| pos.row_seeds(s) == 0;
        let ends = decided
            || match rules.end {
                EndCheck::AnyRowEmpty => row_empty(Side::South) || row_empty(Side::North),
                EndCheck::MoverEmpty => row_empty(pos.to_move),
            };
        // A finished game: decided, or its end rule held (for whoever was to move: a finished
        // position names no side) and the leftovers rule then swept the board.
        let finished = decided
            || match rules.leftovers {
                Leftovers::NotCounted => row_empty(Side::South) || row_empty(Side::North),
                _ => pos.board_seeds() == 0,
            };
        match (pos.over, ends) {
            (false, true) => Err(Error::Position(Msg::new("error.position.kalah-over"))),
            (true, _) if !finished => Err(Error::Position(Msg::new(
                "error.position.kalah-not-finished",
            ))),
            _ => Ok(pos),
        }
    }

    /// The same position with `opening` pending, checked against the rules and the side to
    /// move: South's first move or turn needs South to move, the swap North, and either needs
    /// the rule that gives it and a live game.
    pub fn with_opening(mut self, opening: Opening) -> Result<Self, Error> {
        let r = &self.rules;
        let fault = match opening {
            Opening::None => None,
            _ if !r.has_opening() => Some("error.position.opening.no-rule"),
            _ if self.over => Some("error.position.opening.over"),
            Opening::FirstTurn | Opening::Swap if !r.pie => {
                Some("error.position.opening.needs-pie")
            }
            Opening::FirstMove | Opening::FirstTurn if self.to_move != Side::South => {
                Some("error.position.opening.south")
            }
            Opening::Swap if self.to_move != Side::North => Some("error.position.opening.north"),
            _ => None,
        };
        if let Some(why) = fault {
            return Err(Error::Position(
                Msg::new("error.position.opening")
                    .arg("opening", opening.word())
                    .sub("why", Msg::new(why)),
            ));
        }
        self.opening = opening;
        Ok(self)
    }

    /// What of the opening is pending.
    #[inline]
    pub fn opening(&self) -> Opening {
        self.opening
    }

    /// The flattened rules the position is played under.
    #[inline]
    pub fn rules(&self) -> &KalahRules {
        &self.rules
    }
    /// Pits a side (`m`).
    #[inline]
    pub fn pits(&self) -> usize {
        self.rules.pits as usize
    }
    /// The side to move (for a finished game: the side that would have moved next).
    #[inline]
    pub fn to_move(&self) -> Side {
        self.to_move
    }
    /// The game has ended: no move can be played.
    #[inline]
    pub fn is_over(&self) -> bool {
        self.over
    }
    /// Who last grew his store during a move: `None` before anyone has, and always `None` unless
    /// the rules use `leftovers=last-capturer` (the only rule that needs it).
    pub fn last_capturer(&self) -> Option<Side> {
        self.last_capturer
    }
    /// The raw ring of `2m + 2` counts.
    #[inline]
    pub fn board(&self) -> &[C] {
        &self.board[..2 * self.pits() + 2]
    }
    /// Seeds in pit `i` (0-based from the owner's left) of `side`.
    #[inline]
    pub fn pit(&self, side: Side, i: usize) -> C {
        self.board[self.row_start(side) + i]
    }
    /// Seeds in the store of `side`.
    #[inline]
    pub fn store(&self, side: Side) -> C {
        self.board[self.row_start(side) + self.pits()]
    }
    /// The row of `side`, from its owner's left.
    pub fn row(&self, side: Side) -> &[C] {
        let s = self.row_start(side);
        &self.board[s..s + self.pits()]
    }
    #[inline]
    fn row_start(&self, side: Side) -> usize {
        match side {
            Side::South => 0,
            Side::North => self.pits() + 1,
        }
    }
    /// Seeds in the row of `side`.
    pub fn row_seeds(&self, side: Side) -> u32 {
        self.row(side).iter().map(|&s| Into::<u32>::into(s)).sum()
    }
    /// Seeds in both rows.
    pub fn board_seeds(&self) -> u32 {
        self.row_seeds(Side::South) + self.row_seeds(Side::North)
    }
    /// The row of `side` as one word that tells rows apart, for hashing ([`Cell::row_word`]:
    /// a byte a pit on `u8` counts, so rows of up to 8 pits fit the low 64 bits).
    #[inline]
    pub fn row_word(&self, side: Side) -> u128 {
        C::row_word(&self.board, self.row_start(side), self.rules.pits as u32)
    }

    /// The row of `side` as two words with a non-zero byte for each non-empty pit: pits 1-8,
    /// and pits 9-12 (0 on boards of up to 8 pits, the common case, which reads one word).
    #[inline]
    fn row_words(&self, side: Side) -> (u64, u64) {
        C::occupancy(&self.board, self.row_start(side), self.rules.pits as u32)
    }

    /// The same position with `u8` counts, where it has them (see [`Cell::narrow`]).
    #[inline]
    pub fn narrow(&self) -> Option<&KalahPos<u8>> {
        C::narrow(self)
    }

    #[inline]
    fn row_is_empty(&self, side: Side) -> bool {
        self.row_words(side) == (0, 0)
    }

    /// Scores so far: the stores (after the end sweep once the game is over).
    pub fn scores(&self) -> [u16; 2] {
        [
            self.store(Side::South).into(),
            self.store(Side::North).into(),
        ]
    }

    /// The result, once the game is over: more seeds wins (fewer in a misère game).
    pub fn outcome(&self) -> Option<Outcome> {
        if !self.over {
            return None;
        }
        let [s, n] = self.scores();
        Some(match s.cmp(&n) {
            core::cmp::Ordering::Equal => Outcome::Draw,
            core::cmp::Ordering::Greater if !self.rules.misere => Outcome::Win(Side::South),
            core::cmp::Ordering::Less if self.rules.misere => Outcome::Win(Side::South),
            _ => Outcome::Win(Side::North),
        })
    }

    /// The start position of the rules, South to move: Dracala's first move.
    pub fn is_start(&self) -> bool {
        *self == Self::start(&self.rules)
    }

    /// Non-empty own pits, before any Dracala filter.
    #[inline]
    fn sowable(&self) -> Moves {
        if self.over {
            return Moves::default();
        }
        // One bit per non-empty pit, read lowest first: a loop of one turn a legal move
        // instead of a branch on every pit, which random boards mispredict.
        let (low, high) = self.row_words(self.to_move);
        // Filled in locals: pushing through memory stalls on reloading the length.
        let (mut buf, mut len) = ([0u8; MAX_MOVES], 0);
        let mut nz = nonzero_bytes(low);
        while nz != 0 {
            buf[len] = (nz.trailing_zeros() / 8) as u8;
            len += 1;
            nz &= nz - 1;
        }
        let mut nz = nonzero_bytes(high);
        while nz != 0 {
            buf[len] = 8 + (nz.trailing_zeros() / 8) as u8;
            len += 1;
            nz &= nz - 1;
        }
        Moves {
            buf,
            len: len as u8,
        }
    }

    /// The legal moves, own pits from the mover's left. Empty once the game is over.
    pub fn legal_moves(&self) -> Moves {
        let mut mv = self.sowable();
        if self.rules.dracala && mv.len() > 1 {
            self.dracala_filter(&mut mv);
        }
        if self.opening == Opening::Swap {
            mv.push(SWAP);
        }
        mv
    }

    /// Number of legal moves (perft's bulk count at the last ply).
    #[inline]
    pub fn count_moves(&self) -> u64 {
        if self.rules.dracala {
            return self.legal_moves().len() as u64;
        }
        if self.over {
            return 0;
        }
        let (low, high) = self.row_words(self.to_move);
        (nonzero_bytes(low).count_ones() + nonzero_bytes(high).count_ones()) as u64
            + u64::from(self.opening == Opening::Swap)
    }

    /// Dracala (docs/rules.md): keep the moves of largest store growth; then, except on the
    /// game's first move, if any ends in the own store keep only the rightmost such pit.
    fn dracala_filter(&self, mv: &mut Moves) {
        let mut gain = [0u16; MAX_PITS];
        let mut in_store = [false; MAX_PITS];
        let mut best = 0;
        for p in mv.as_slice() {
            let e = self.clone().play_unchecked(*p);
            gain[*p as usize] = e.gain;
            in_store[*p as usize] = e.in_store;
            best = best.max(e.gain);
        }
        mv.retain(|p| gain[p as usize] == best);
        if !self.is_start() {
            if let Some(&right) = mv.as_slice().iter().rev().find(|&&p| in_store[p as usize]) {
                mv.retain(|p| p == right);
            }
        }
    }

    /// Plays own pit `pit` (0-based from the mover's left) after checking it is legal.
    pub fn play(&mut self, pit: u8) -> Result<MoveEffect, Error> {
        if self.over {
            return Err(Error::GameOver);
        }
        let legal = self.legal_moves();
        if !legal.contains(pit) {
            let why = if pit == SWAP {
                if self.rules.pie {
                    Msg::new("error.move.swap-late")
                } else {
                    Msg::new("error.move.no-pie")
                }
            } else if pit as usize >= self.pits() {
                Msg::new("error.move.no-pit")
                    .arg("pit", pit as usize + 1)
                    .arg("pits", self.pits())
            } else if self.pit(self.to_move, pit as usize) == C::default() {
                Msg::new("error.move.empty")
                    .arg("pit", pit as usize + 1)
                    .side("side", self.to_move)
            } else {
                Msg::new("error.move.dracala")
                    .arg("pit", pit as usize + 1)
                    .sub(
                        "pits",
                        crate::i18n::either(
                            legal
                                .as_slice()
                                .iter()
                                .filter(|&&p| p != SWAP)
                                .map(|p| p + 1),
                        ),
                    )
            };
            return Err(Error::IllegalMove(why));
        }
        Ok(self.play_unchecked(pit))
    }

    /// Plays own pit `pit`, which must be a non-empty own pit of a live game (Dracala's filter
    /// is not checked), or [`SWAP`] where North may swap. The hot path of perft and search.
    #[inline]
    pub fn play_unchecked(&mut self, pit: u8) -> MoveEffect {
        if pit == SWAP {
            debug_assert_eq!(self.opening, Opening::Swap);
            // The rows and stores exchange and South moves: exactly the mirror image. The
            // swap sows nothing, so its effect is empty (gain 0).
            *self = self.mirrored();
            return MoveEffect::default();
        }
        let m = self.pits();
        let len = 2 * m + 2;
        let side = self.to_move;
        let off = self.row_start(side);
        let own_store = off + m;
        let opp_store = if side == Side::South { 2 * m + 1 } else { m };
        let origin = off + pit as usize;
        let mut n = Into::<u32>::into(self.board[origin]) as usize;
        debug_assert!(n > 0 && !self.over);
        self.board[origin] = C::default();
        let store_before = self.board[own_store];
        let clockwise = self.rules.cross && n % 2 == 1;
        let ring = len - 1;
        if n >= ring {
            let laps = C::from_u32((n / ring) as u32);
            for (i, b) in self.board[..len].iter_mut().enumerate() {
                if i != opp_store {
                    *b += laps;
                }
            }
            n %= ring;
        }
        let mut idx = origin;
        if !clockwise {
            if idx + n < opp_store || (idx > opp_store && idx + n < len) {
                // No wrap and no skip: one straight run.
                for b in &mut self.board[idx + 1..=idx + n] {
                    *b += C::from(1);
                }
                idx += n;
            } else {
                for _ in 0..n {
                    idx += 1;
                    if idx == len {
                        idx = 0;
                    }
                    if idx == opp_store {
                        idx += 1;
                        if idx == len {
                            idx = 0;
                        }
                    }
                    self.board[idx] += C::from(1);
                }
            }
        } else {
            for _ in 0..n {
                idx = if idx == 0 { len - 1 } else { idx - 1 };
                if idx == opp_store {
                    idx = if idx == 0 { len - 1 } else { idx - 1 };
                }
                self.board[idx] += C::from(1);
            }
        }
        let mut effect = MoveEffect::default();
        if idx == own_store {
            effect.in_store = true;
        } else if idx >= off && idx < own_store && self.board[idx] == C::from(1) {
            if let Some(capture) = self.rules.capture {
                let opp = 2 * m - idx;
                let o = self.board[opp];
                let taken = capture.taken(o);
                if taken > C::default() {
                    self.board[opp] = C::default();
                    if capture.takes_last_seed() {
                        self.board[idx] = C::default();
                    }
                    self.board[own_store] += taken;
                    effect.captured = taken.into();
                }
            }
        }
        effect.gain = (self.board[own_store] - store_before).into();
        // Tracked only where it matters (and is printed): equal boards are equal positions.
        if effect.gain > 0 && self.rules.leftovers == Leftovers::LastCapturer {
            self.last_capturer = Some(side);
        }
        // `first-move-extra-turn=false`: South's very first move never earns one.
        let earns = self.rules.first_extra || self.opening != Opening::FirstMove;
        let next = if effect.in_store && self.rules.extra_turn && earns {
            side
        } else {
            side.other()
        };
        if Into::<u16>::into(self.board[own_store]) > self.rules.decided_above {
            self.over = true;
        } else {
            let ends = match self.rules.end {
                EndCheck::AnyRowEmpty => {
                    self.row_is_empty(Side::South) || self.row_is_empty(Side::North)
                }
                EndCheck::MoverEmpty => self.row_is_empty(next),
            };
            if ends {
                self.over = true;
                self.sweep(side);
            }
        }
        self.to_move = next;
        if self.opening != Opening::None {
            // South's first turn goes on or hands North the swap; North's sowing (instead of
            // the swap) ends the opening.
            self.opening = match (side, next) {
                _ if self.over || !self.rules.pie => Opening::None,
                (Side::South, Side::South) => Opening::FirstTurn,
                (Side::South, Side::North) => Opening::Swap,
                (Side::North, _) => Opening::None,
            };
        }
        effect.ended = self.over;
        effect.again = next == side && !self.over;
        effect
    }

    /// Moves the seeds left on the board as the leftovers rule says; `mover` made the last move.
    fn sweep(&mut self, mover: Side) {
        let m = self.pits();
        let to = match self.rules.leftovers {
            Leftovers::NotCounted => return,
            Leftovers::ToOwner => None,
            Leftovers::LastMover => Some(mover),
            Leftovers::LastCapturer => self.last_capturer,
        };
        for side in Side::BOTH {
            let s = self.row_start(side);
            let seeds: C = self.board[s..s + m].iter().copied().sum();
            self.board[s..s + m].fill(C::default());
            let dest = self.row_start(to.unwrap_or(side)) + m;
            self.board[dest] += seeds;
        }
    }

    /// The same position with the seats swapped (South's row and store become North's). No
    /// opening is pending in it (the opening names South's first move and North's swap).
    pub fn mirrored(&self) -> Self {
        let m = self.pits();
        let mut board = [C::default(); BOARD_LEN];
        board[..m + 1].copy_from_slice(&self.board[m + 1..2 * m + 2]);
        board[m + 1..2 * m + 2].copy_from_slice(&self.board[..m + 1]);
        KalahPos {
            board,
            to_move: self.to_move.other(),
            over: self.over,
            last_capturer: self.last_capturer.map(Side::other),
            opening: Opening::None,
            rules: self.rules,
        }
    }
}

impl<C: Cell> crate::Family for KalahPos<C> {
    fn start(rules: &Rules) -> Result<Self, Error> {
        Ok(Self::start(&KalahRules::for_cell::<C>(rules)?))
    }

    fn from_setup(rules: &Rules, setup: &crate::Setup) -> Result<Self, Error> {
        let kr = KalahRules::for_cell::<C>(rules)?;
        if kr.leftovers != Leftovers::LastCapturer {
            setup.no_last_capturer()?;
        }
        let [south, north] = setup.seed_rows()?;
        // A count past the cell type's range makes a wrong total: say so before narrowing.
        let total: u32 = south
            .iter()
            .chain(&north)
            .chain(&setup.stores)
            .map(|&s| s as u32)
            .sum();
        if total != kr.total as u32 {
            return Err(seed_total_error(total, &kr));
        }
        let cells = |row: &[u16]| {
            row.iter()
                .map(|&s| C::from_u32(s.into()))
                .collect::<Vec<C>>()
        };
        Self::from_parts(
            &kr,
            [&cells(&south), &cells(&north)],
            setup.stores.map(|s| C::from_u32(s.into())),
            setup.to_move,
            setup.last_capturer,
        )?
        .with_opening(setup.opening)
    }

    fn setup(&self) -> crate::Setup {
        crate::Setup {
            rows: Side::BOTH.map(|s| self.row(s).iter().map(|&x| (x.into(), 0)).collect()),
            stores: self.scores(),
            to_move: (!self.is_over()).then_some(self.to_move()),
            last_capturer: match self.rules.leftovers {
                Leftovers::LastCapturer => self.last_capturer,
                _ => None,
            },
            opening: self.opening,
        }
    }

    fn pit_content(&self, side: Side, i: usize) -> (u16, u8) {
        (self.pit(side, i).into(), 0)
    }

    fn board_seeds(&self) -> u32 {
        Self::board_seeds(self)
    }

    fn play(&mut self, pit: u8) -> Result<MoveEffect, Error> {
        Self::play(self, pit)
    }

    fn mirrored(&self) -> Self {
        Self::mirrored(self)
    }

    /// Follows the rules' direction (Cross-Kalah sows an odd count clockwise), skips the
    /// opponent's store and not the origin.
    fn sowing_path(&self, pit: u8) -> SowingPath {
        let m = self.pits();
        let side = self.to_move();
        let len = 2 * m + 2;
        let opp_store = if side == Side::South { 2 * m + 1 } else { m };
        let n = Into::<u32>::into(self.pit(side, pit as usize)) as usize;
        let step = if self.rules.cross && n % 2 == 1 {
            len - 1 // clockwise
        } else {
            1
        };
        let mut idx = side.index() * (m + 1) + pit as usize;
        let places = (0..n)
            .map(|_| {
                idx = (idx + step) % len;
                if idx == opp_store {
                    idx = (idx + step) % len;
                }
                idx
            })
            .collect();
        SowingPath {
            places,
            cowries_from: n,
            takes: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(s: &str) -> KalahRules {
        KalahRules::new(&s.parse().unwrap()).unwrap()
    }

    fn pos(r: &str, south: &[u8], ss: u8, north: &[u8], ns: u8, side: Side) -> KalahPos {
        KalahPos::<u8>::from_parts(&rules(r), [south, north], [ss, ns], Some(side), None).unwrap()
    }

    /// Plays `pos` on `u16` counts beside the same position on `u8` counts, by seeded random
    /// moves to the end: every move, effect and position agrees.
    fn wide_agrees(text: &str, seed: u64) {
        let r = rules(text);
        let (mut narrow, mut wide) = (KalahPos::<u8>::start(&r), KalahPos::<u16>::start(&r));
        let mut x = seed;
        while !narrow.is_over() {
            let moves = narrow.legal_moves();
            assert_eq!(moves, wide.legal_moves(), "{text}");
            assert_eq!(narrow.count_moves(), wide.count_moves(), "{text}");
            x = crate::rng::mix(x);
            let mv = moves.as_slice()[(x % moves.len() as u64) as usize];
            assert_eq!(narrow.play(mv), wide.play(mv), "{text}");
            let widened: Vec<u16> = narrow.board().iter().map(|&c| c.into()).collect();
            assert_eq!(widened, wide.board(), "{text}");
            assert_eq!(
                narrow.row_word(Side::South) == 0,
                wide.row_word(Side::South) == 0
            );
            assert_eq!(
                (narrow.to_move(), narrow.opening(), narrow.last_capturer()),
                (wide.to_move(), wide.opening(), wide.last_capturer())
            );
        }
        assert!(wide.is_over());
        assert_eq!(narrow.outcome(), wide.outcome(), "{text}");
    }

    #[test]
    fn u16_counts_play_as_u8_counts_do() {
        for (k, text) in [
            "kalah",
            "kalah,seeds=6,capture=empty,stop-when-decided",
            "kalah,pits=12,seeds=3,leftovers=last-capturer,pie",
            "kalah,pits=7,seeds=7,first-move-extra-turn=false,pie",
            "kalah,pits=1,seeds=20,capture=opposite-only",
            "kalah-brazil,stage=basic",
            "vaccean,end=mover-empty,leftovers=last-mover",
            "cross-kalah,pits=5,seeds=5",
            "dracala,pits=9,seeds=4",
        ]
        .into_iter()
        .enumerate()
        {
            for g in 0..20 {
                wide_agrees(text, (k * 100 + g) as u64);
            }
        }
    }

    #[test]
    fn a_pit_of_more_than_255_seeds_sows_and_sweeps() {
        let r = rules("kalah,pits=12,seeds=12");
        let mut south = [0u16; 12];
        south[0] = 260;
        let north = [1u16; 12];
        let p = KalahPos::<u16>::from_parts(&r, [&south, &north], [10, 6], Some(Side::South), None)
            .unwrap();
        // One seed at a time round the ring of 25 places (North's store skipped): 10 laps
        // and 10 more seeds, the last in South's pit 11.
        let mut want = p.board().to_vec();
        want[0] = 0;
        let mut idx = 0;
        for _ in 0..260 {
            idx = (idx + 1) % 26;
            if idx == 25 {
                idx = 0;
            }
            want[idx] += 1;
        }
        assert_eq!(idx, 10);
        let mut q = p;
        let e = q.play(0).unwrap();
        assert_eq!(q.board(), want);
        assert_eq!((e.gain, e.in_store, e.again), (10, false, false));
        assert_eq!(q.scores(), [20, 6]);
        // A store past 255: North's row is swept to it when South's last seed empties his row.
        let mut south = [0u16; 12];
        south[11] = 1;
        let mut north = [0u16; 12];
        north[0] = 262;
        let mut p =
            KalahPos::<u16>::from_parts(&r, [&south, &north], [10, 15], Some(Side::South), None)
                .unwrap();
        let e = p.play(11).unwrap();
        assert!(e.ended && p.is_over());
        assert_eq!(p.scores(), [11, 277]);
        assert_eq!(p.outcome(), Some(Outcome::Win(Side::North)));
        // Bytes cannot hold these rules.
        let e = KalahRules::for_cell::<u8>(&"kalah,pits=12,seeds=12".parse().unwrap());
        assert!(e.unwrap_err().to_string().contains("288"));
    }

    #[test]
    fn thirteen_seeds_lap_into_the_emptied_origin_and_capture() {
        // Edge case 1: 13 seeds from South pit 1 come back to pit 1, now holding 1: a capture.
        let mut p = pos(
            "kalah,seeds=4",
            &[13, 1, 0, 0, 0, 2],
            10,
            &[4, 4, 4, 4, 4, 2],
            0,
            Side::South,
        );
        let e = p.play(0).unwrap();
        // The origin pit received 1 seed; North pit 6 (index 12) faced it with 2 + 1 = 3 seeds.
        assert_eq!(e.captured, 4);
        assert_eq!(p.pit(Side::South, 0), 0);
        assert_eq!(p.pit(Side::North, 5), 0);
        assert_eq!(p.store(Side::South), 10 + 1 + 4);
        assert_eq!(
            p.store(Side::North),
            0,
            "the opponent's store never receives a seed"
        );
        assert_eq!(p.to_move(), Side::North);
    }

    #[test]
    fn sowing_skips_the_opponents_store_from_both_seats() {
        // Edge case 2: 10 seeds from South pit 6 go store, North 1-6, South 1-3.
        let mut p = pos(
            "kalah,seeds=4",
            &[4, 4, 4, 4, 0, 10],
            0,
            &[4, 4, 4, 4, 4, 2],
            0,
            Side::South,
        );
        p.play(5).unwrap();
        assert_eq!(p.row(Side::North), [5, 5, 5, 5, 5, 3]);
        assert_eq!(p.row(Side::South), [5, 5, 5, 4, 0, 0]);
        assert_eq!(p.scores(), [1, 0]);
        // North: 16 seeds from North pit 6: 13 one lap, then 3 more: store, South 1, 2.
        let mut p = pos(
            "kalah,seeds=4",
            &[4, 4, 4, 4, 2, 2],
            0,
            &[4, 4, 4, 4, 2, 10],
            0,
            Side::North,
        );
        let mut q = p.mirrored();
        p.play(5).unwrap();
        q.play(5).unwrap();
        assert_eq!(p, q.mirrored(), "mirrored moves give mirrored positions");
        // 16 seeds from North pit 6: one lap of 13 (South's store skipped), then North's store,
        // South pits 1 and 2.
        let mut p = pos(
            "kalah,seeds=4",
            &[4, 4, 4, 4, 4, 4],
            0,
            &[4, 0, 0, 0, 4, 16],
            0,
            Side::North,
        );
        p.play(5).unwrap();
        assert_eq!(p.store(Side::South), 0);
        assert_eq!(p.store(Side::North), 2);
        assert_eq!(p.row(Side::South), [6, 6, 5, 5, 5, 5]);
        assert_eq!(p.row(Side::North), [5, 1, 1, 1, 5, 1]);
    }

    #[test]
    fn capture_rules_with_an_empty_opposite_pit() {
        // Edge case 3: South pit 1 (1 seed) lands in empty pit 2; North pit 5 opposite is empty.
        for (r, store, pit2) in [
            ("kalah,seeds=4", 0, 1),
            ("kalah,seeds=4,capture=empty", 1, 0),
            ("kalah,seeds=4,capture=opposite-only", 0, 1),
        ] {
            let mut p = pos(
                r,
                &[1, 0, 4, 4, 4, 4],
                0,
                &[4, 5, 6, 3, 0, 13],
                0,
                Side::South,
            );
            p.play(0).unwrap();
            assert_eq!(p.store(Side::South), store, "{r}");
            assert_eq!(p.pit(Side::South, 1), pit2, "{r}");
        }
        // With seeds opposite: standard takes 1 + 3, opposite-only takes 3 and leaves the seed.
        for (r, store, pit2) in [
            ("kalah,seeds=4", 4, 0),
            ("kalah,seeds=4,capture=empty", 4, 0),
            ("kalah,seeds=4,capture=opposite-only", 3, 1),
        ] {
            let mut p = pos(
                r,
                &[1, 0, 4, 4, 4, 4],
                0,
                &[4, 5, 6, 0, 3, 13],
                0,
                Side::South,
            );
            let e = p.play(0).unwrap();
            assert_eq!(p.store(Side::South), store, "{r}");
            assert_eq!(p.pit(Side::South, 1), pit2, "{r}");
            assert!(!e.again, "a capture never gives an extra turn");
        }
    }

    #[test]
    fn extra_turns_chain_and_end_the_game_when_the_row_empties() {
        // Edge case 4: pit 6 (1 seed) then pit 5 (2 seeds): two extra turns in a row.
        let mut p = pos(
            "kalah,seeds=4",
            &[4, 4, 4, 4, 2, 1],
            0,
            &[4, 4, 4, 4, 4, 9],
            0,
            Side::South,
        );
        assert!(p.play(5).unwrap().again);
        assert!(p.play(4).unwrap().again);
        assert_eq!(p.to_move(), Side::South);
        // Edge case 6: last seed in the store with the own row now empty: the game ends.
        let mut p = pos(
            "kalah,seeds=4",
            &[0, 0, 0, 0, 0, 1],
            20,
            &[4, 4, 4, 4, 4, 7],
            0,
            Side::South,
        );
        let e = p.play(5).unwrap();
        assert!(e.in_store && e.ended && !e.again);
        assert!(p.is_over());
        assert_eq!(p.scores(), [21, 27]);
        assert_eq!(p.outcome(), Some(Outcome::Win(Side::North)));
        assert!(p.legal_moves().is_empty());
        assert_eq!(p.play(0), Err(Error::GameOver), "edge case 8");
    }

    #[test]
    fn leftovers_rules() {
        let cases = [
            ("kalah,seeds=4", [21, 27], 0),
            ("kalah,seeds=4,leftovers=not-counted", [21, 0], 27),
            ("kalah,seeds=4,leftovers=last-mover", [48, 0], 0),
        ];
        for (r, scores, left) in cases {
            let mut p = pos(
                r,
                &[0, 0, 0, 0, 0, 1],
                20,
                &[4, 4, 4, 4, 4, 7],
                0,
                Side::South,
            );
            p.play(5).unwrap();
            assert_eq!(p.scores(), scores, "{r}");
            assert_eq!(p.board_seeds(), left, "{r}");
        }
    }

    #[test]
    fn cross_kalah_sows_odd_pits_clockwise() {
        let r = rules("cross-kalah");
        let mut p = KalahPos::<u8>::start(&r);
        // 6 seeds (even) from South pit 1: counter-clockwise into pits 2-6 and the store.
        assert!(p.play(0).unwrap().in_store);
        assert_eq!(p.row(Side::South), [0, 7, 7, 7, 7, 7]);
        // 7 seeds (odd) from South pit 2: clockwise into pit 1, skip North's store, North 6..1.
        let e = p.play(1).unwrap();
        assert_eq!(p.row(Side::South), [1, 0, 7, 7, 7, 7]);
        assert_eq!(p.row(Side::North), [7, 7, 7, 7, 7, 7]);
        assert_eq!(p.scores(), [1, 0]);
        assert!(!e.again);
        // North pit 1 (7, odd) clockwise: South's store is skipped, then South pits 6..1 and
        // North's own store: an extra turn.
        let mut q = p;
        assert!(q.play(0).unwrap().again);
        assert_eq!(q.row(Side::South), [2, 1, 8, 8, 8, 8]);
        assert_eq!(q.store(Side::North), 1);
        assert_eq!(q.scores()[0], 1);
    }

    #[test]
    fn brazil_stages() {
        let basic = rules("kalah-brazil,stage=basic");
        let mut p = KalahPos::<u8>::start(&basic);
        assert_eq!(p.row(Side::South), [3, 3, 4, 4, 3, 3]);
        // Pit 3 (4 seeds) ends in the store: no extra turn at the basic stage.
        let e = p.play(2).unwrap();
        assert!(e.in_store && !e.again);
        assert_eq!(p.to_move(), Side::North);
        let full = rules("kalah-brazil");
        let mut p = KalahPos::<u8>::start(&full);
        assert!(p.play(2).unwrap().again);
    }

    #[test]
    fn mover_empty_end_check() {
        // South empties his row with a move that does not end the game for North's turn.
        let r = "kalah-brazil";
        let mut p = pos(
            r,
            &[0, 0, 0, 0, 0, 2],
            10,
            &[3, 3, 4, 4, 3, 3],
            8,
            Side::South,
        );
        p.play(5).unwrap();
        assert!(!p.is_over(), "North can still move");
        assert_eq!(p.to_move(), Side::North);
        // North plays pit 1 (4 seeds): lands North pit 5; South still empty and to move: over.
        p.play(0).unwrap();
        assert!(p.is_over());
        assert_eq!(
            p.store(Side::North),
            8,
            "leftovers not counted in kalah-brazil"
        );
    }

    #[test]
    fn count_moves_matches_legal_moves() {
        let p = pos(
            "kalah,seeds=4",
            &[0, 3, 0, 1, 0, 20],
            0,
            &[4, 0, 0, 0, 0, 0],
            20,
            Side::South,
        );
        assert_eq!(p.count_moves(), 3);
        assert_eq!(p.legal_moves().as_slice(), [1, 3, 5]);
        let r = rules("kalah,pits=8,seeds=3");
        let p = KalahPos::<u8>::start(&r);
        assert_eq!(p.count_moves(), 8);
    }

    #[test]
    fn first_move_extra_turn_false_passes_the_turn_once() {
        // Kalah(7,7): South pit 1's 7 seeds end in South's store.
        for (r, again) in [
            ("kalah,pits=7,seeds=7", true),
            ("kalah,pits=7,seeds=7,first-move-extra-turn=false", false),
        ] {
            let mut p = KalahPos::<u8>::start(&rules(r));
            let e = p.play(0).unwrap();
            assert!(e.in_store, "{r}");
            assert_eq!(e.again, again, "{r}");
            assert_eq!(p.opening(), Opening::None, "{r}: no swap without pie");
        }
        // Later moves into the store earn their extra turn as usual: North's pit 1 too.
        let mut p =
            KalahPos::<u8>::start(&rules("kalah,pits=7,seeds=7,first-move-extra-turn=false"));
        p.play(0).unwrap();
        assert_eq!(p.to_move(), Side::North);
        assert_eq!(p.row(Side::North), [7; 7]);
        assert!(
            p.play(0).unwrap().again,
            "North's pit 1 (7 seeds) ends in its store"
        );
    }

    #[test]
    fn the_swap_mirrors_the_board_and_passes_the_turn() {
        let r = rules("kalah,pits=7,seeds=7,first-move-extra-turn=false,pie");
        let mut p = KalahPos::<u8>::start(&r);
        assert_eq!(p.opening(), Opening::FirstMove);
        assert!(!p.legal_moves().contains(SWAP), "South cannot swap");
        assert_eq!(
            p.play(SWAP).unwrap_err(),
            Error::IllegalMove(Msg::new("error.move.swap-late"))
        );
        p.play(0).unwrap();
        assert_eq!(p.opening(), Opening::Swap);
        assert_eq!(p.legal_moves().as_slice(), [0, 1, 2, 3, 4, 5, 6, SWAP]);
        assert_eq!(p.count_moves(), 8);
        let before = p;
        let e = p.play(SWAP).unwrap();
        assert_eq!(e, MoveEffect::default());
        // North now holds the row and store South built; South has North's untouched row.
        assert_eq!(p.to_move(), Side::South);
        assert_eq!(p.row(Side::North), [0, 8, 8, 8, 8, 8, 8]);
        assert_eq!(p.scores(), [0, 1]);
        assert_eq!(p.row(Side::South), [7; 7]);
        assert_eq!(p.opening(), Opening::None);
        assert_eq!(p, before.mirrored());
        assert!(!p.legal_moves().contains(SWAP), "one swap a game");
        // Or North sows instead, and the swap is gone for good.
        let mut q = before;
        q.play(1).unwrap();
        assert_eq!(q.opening(), Opening::None);
        assert!(!q.legal_moves().contains(SWAP));
        // Without the pie rule there is no swap.
        let mut k = KalahPos::<u8>::start(&rules("kalah,pits=7,seeds=7"));
        k.play(1).unwrap();
        assert_eq!(
            k.play(SWAP).unwrap_err(),
            Error::IllegalMove(Msg::new("error.move.no-pie"))
        );
    }

    #[test]
    fn with_pie_and_extra_turns_the_swap_waits_for_norths_turn() {
        // Kalah(6,4), pie: South's pit 3 ends in the store and South moves on (first turn).
        let mut p = KalahPos::<u8>::start(&rules("kalah,seeds=4,pie"));
        assert!(p.play(2).unwrap().again);
        assert_eq!(p.opening(), Opening::FirstTurn);
        assert!(!p.legal_moves().contains(SWAP));
        p.play(0).unwrap();
        assert_eq!(p.to_move(), Side::North);
        assert_eq!(p.opening(), Opening::Swap);
        assert!(p.legal_moves().contains(SWAP));
    }

    #[test]
    fn opening_states_are_checked() {
        let r = rules("kalah,pits=7,seeds=7,first-move-extra-turn=false");
        let start = KalahPos::<u8>::start(&r);
        assert_eq!(start.opening(), Opening::FirstMove);
        let fault = |p: KalahPos, o: Opening| p.with_opening(o).unwrap_err().to_string();
        assert!(fault(start, Opening::Swap).contains("it needs pie=true"));
        let plain = KalahPos::<u8>::start(&rules("kalah"));
        assert_eq!(plain.opening(), Opening::None);
        assert!(fault(plain, Opening::FirstMove).contains("the rules have no opening rule"));
        let pie = KalahPos::<u8>::start(&rules("kalah,pie"));
        assert!(fault(pie, Opening::Swap).contains("the swap needs North to move"));
        assert!(fault(pie.mirrored(), Opening::FirstMove).contains("needs South to move"));
    }
}
