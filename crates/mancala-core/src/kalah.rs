//! The Kalah family: Kalah(m,n) and its options, `kalah-brazil`, `vaccean`, `cross-kalah` and
//! `dracala` (the rules as docs/rules.md states them). One position type, [`KalahPos`],
//! carries a compact copy of its rules ([`KalahRules`]) so that hot loops need nothing else.

use crate::rules::{Capture, EndCheck, Leftovers, Rules, MAX_PITS, MAX_TOTAL_SEEDS};
use crate::{Error, MoveEffect, Moves, Msg, Opening, Outcome, Side, SowingPath, MAX_MOVES, SWAP};

mod cell;

pub use crate::rules::WIDE_MAX_SEEDS;
use cell::nonzero_bytes;
pub use cell::Cell;

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
mod tests;
