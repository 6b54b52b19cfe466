//! Exact values of games whose positions can repeat (Cross-Kalah, Kauri, Oware), by
//! retrograde analysis of one store level at a time.
//!
//! # Why not the search
//! Under the repetition rule (the third occurrence of a position is a draw) a value depends on
//! the line that reached the position, so a transposition table that shares values across
//! lines can prove a wrong value (graph history interaction). The solver here computes `v*`,
//! the value of the game in which a line that never ends is a draw. It depends on the position
//! alone, and wherever no position of the game so far has occurred twice it is also the value
//! under the rule:
//! - a side that can force a result better than a draw can force it along a line on which
//!   every move, its own and the opponent's, brings it strictly closer (its rank in the
//!   attractor below), so no position repeats and no third occurrence is ever met;
//! - the other side can keep the result from being better by play in which a repetition only
//!   ever gives it the draw, which is no better than `v*` for the first side either.
//!
//! "Draw" here is the game ending by repetition, at the value the family gives it
//! (`SearchGame::repetition_value`: a final margin of 0 in Cross-Kalah and Kauri, the stores
//! unchanged under Oware's `repetition=split`); it must be the same on every position of a
//! level (`SearchGame::repetition_by_level`). Where the second occurrence ends the game
//! (Oware), the positions of the game so far at the root's stores (the root's included) are
//! exits at that value, since reaching one again ends the game; the values at those stores
//! then belong to this game alone and are not remembered.
//!
//! # How
//! Captured seeds never return, so a position can only repeat while the stores stay as they
//! are: the positions reachable from a position without a capture (its *level*) form a graph
//! whose every move that changes the stores or ends the game leaves it. The values of those
//! exits come first (recursively, one level up, remembered by table key); the level's own
//! values then come from one attractor per candidate threshold: a position is worth at least
//! `t` for South when South can force reaching an exit worth at least `t` (`t` above a draw),
//! or when North cannot force reaching one worth less than `t` (`t` up to a draw).

use std::collections::HashSet;

use mancala_core::Side;

use crate::game::SearchGame;

/// A solved level: its positions, their values and the ranks that make progress.
struct Level<P> {
    positions: Vec<P>,
    /// Full key to the position's index in `positions`.
    index: KeyMap<u32>,
    /// `v*` of each position for South (future net gain).
    value: Vec<i32>,
    /// The winning side's rank in the attractor that proves the value (lower: closer).
    rank: Vec<u32>,
    /// The value of a draw by repetition for South (future net gain).
    draw: i32,
}

/// The retrograde solver, with the values of every level it has solved.
pub(crate) struct Cyclic {
    /// `v*` for the side to move, by table key.
    memo: Memo,
    /// What the proof may spend: it stops at the budget's deadline or node limit.
    budget: crate::Budget,
    /// Raised from outside to stop the proof (see [`crate::Engine::abort`]).
    abort: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// Positions of the levels under way (the level being solved and those waiting on its
    /// exits' values).
    held: usize,
    /// Positions expanded.
    pub nodes: u64,
    /// Where a second occurrence ends the game: the full keys of the positions of the game so
    /// far (the root's included) at the root's stores, which end the game if reached again,
    /// and those stores. Values at those stores then depend on the game, so they are neither
    /// read from nor written to `memo`.
    ends: HashSet<u64>,
    ends_scores: Option<[u16; 2]>,
}

/// The most memory the solver's values and levels under way may take (estimated, see
/// [`Cyclic::bytes`]), 3 GiB: beyond it a proof gives up (`None`), as at a deadline.
/// Oware 4x4 (`oware,pits=4,seeds=4,repetition=split`) needs more: over 96 Mi values.
pub(crate) const MAX_BYTES: usize = 3 << 30;

/// Bytes a position of a level under way takes: the position itself, its place in the
/// level's index, its moves and predecessors (about four moves a position), and the
/// attractors' per-position arrays.
const LEVEL_BYTES: usize = 160;

/// Values by table key: `v*` for the side to move (a future net gain, within the seeds).
pub(crate) type Memo = KeyMap<i16>;

/// A hash map from 64-bit keys to small values, compact: open addressing with linear probing
/// over two arrays, keys and values (10 bytes a slot for `i16` values, 12 for `u32`, at most
/// 3/4 full), where a `HashMap<u64, i32>` takes 17 (its 16-byte entry and a control byte),
/// at most 7/8 full. Key 0 marks
/// an empty slot, so a key of 0 is stored as 1 (the keys are hashes: one more collision in
/// 2^64).
#[derive(Clone, Debug)]
pub(crate) struct KeyMap<V> {
    keys: Vec<u64>,
    values: Vec<V>,
    len: usize,
}

impl<V: Copy + Default> KeyMap<V> {
    pub(crate) fn new() -> KeyMap<V> {
        KeyMap {
            keys: vec![0; 16],
            values: vec![V::default(); 16],
            len: 0,
        }
    }

    /// Entries held.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Bytes of the arrays.
    fn bytes(&self) -> usize {
        self.keys.len() * (8 + std::mem::size_of::<V>())
    }

    /// Whether `more` new entries would make the map grow (double its arrays).
    fn grows_with(&self, more: usize) -> bool {
        (self.len + more) * 4 > self.keys.len() * 3
    }

    /// The slot of `key`: where it is, or the empty slot where it would go.
    fn slot(&self, key: u64) -> usize {
        let mask = self.keys.len() - 1;
        // Fibonacci hashing: the key's bits spread over the slot number.
        let mut i = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize & mask;
        while self.keys[i] != 0 && self.keys[i] != key {
            i = (i + 1) & mask;
        }
        i
    }

    pub(crate) fn get(&self, key: u64) -> Option<V> {
        let i = self.slot(key.max(1));
        (self.keys[i] != 0).then(|| self.values[i])
    }

    /// The value of `key`, or `value` stored as its value if it has none.
    pub(crate) fn get_or_insert(&mut self, key: u64, value: V) -> V {
        let key = key.max(1);
        let mut i = self.slot(key);
        if self.keys[i] != 0 {
            return self.values[i];
        }
        if self.grows_with(1) {
            self.grow();
            i = self.slot(key);
        }
        self.keys[i] = key;
        self.values[i] = value;
        self.len += 1;
        value
    }

    pub(crate) fn insert(&mut self, key: u64, value: V) {
        let key = key.max(1);
        let i = self.slot(key);
        if self.keys[i] != 0 {
            self.values[i] = value;
        } else {
            self.get_or_insert(key, value);
        }
    }

    fn grow(&mut self) {
        let n = self.keys.len() * 2;
        let keys = std::mem::replace(&mut self.keys, vec![0; n]);
        let values = std::mem::replace(&mut self.values, vec![V::default(); n]);
        for (k, v) in keys.into_iter().zip(values) {
            if k != 0 {
                let i = self.slot(k);
                self.keys[i] = k;
                self.values[i] = v;
            }
        }
    }
}

/// A move of a level's position: to another position of the level, or out of it at a value
/// (for South, future net gain from the position).
#[derive(Clone, Copy)]
enum Edge {
    Inside(u32),
    Exit(i32),
}

fn for_south(me: Side, v: i32) -> i32 {
    if me == Side::South {
        v
    } else {
        -v
    }
}

impl Cyclic {
    /// A solver that starts from the values in `memo` (of the same rules) and adds to it.
    pub(crate) fn new(
        budget: crate::Budget,
        abort: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
        memo: Memo,
    ) -> Cyclic {
        Cyclic {
            memo,
            budget,
            abort,
            held: 0,
            nodes: 0,
            ends: HashSet::new(),
            ends_scores: None,
        }
    }

    /// Makes `keys` (full keys of positions with the stores `scores`) end the game when
    /// reached, at the family's repetition value.
    pub(crate) fn with_ends(
        mut self,
        keys: impl IntoIterator<Item = u64>,
        scores: [u16; 2],
    ) -> Cyclic {
        self.ends = keys.into_iter().collect();
        self.ends_scores = Some(scores);
        self
    }

    /// Whether `p` has the stores of the positions that end the game (its value depends on
    /// the game so far).
    fn at_ends<P: SearchGame>(&self, p: &P) -> bool {
        self.ends_scores == Some(p.scores())
    }

    /// The values found so far, for the next solver of the same rules.
    pub(crate) fn into_memo(self) -> Memo {
        self.memo
    }

    /// The memory the values and the levels under way take, estimated: where the values of
    /// the positions held will make the values' map grow, its arrays before and after
    /// growing, which are both held while it grows.
    fn bytes(&self) -> usize {
        let memo = if self.memo.grows_with(self.held) {
            3 * self.memo.bytes()
        } else {
            self.memo.bytes()
        };
        memo + self.held * LEVEL_BYTES
    }

    fn remember<P: SearchGame>(&mut self, p: &P, v: i32) {
        let v = i16::try_from(v).expect("a value within the seeds");
        self.memo.insert(p.tt_key(), v);
    }

    fn out_of_time(&self) -> bool {
        self.nodes & 1023 == 0 && self.past_deadline()
    }

    /// The searches' one stop check ([`crate::Budget::spent`]).
    fn past_deadline(&self) -> bool {
        self.budget.spent(self.nodes, self.abort.as_deref())
    }

    /// `v*` of `pos` for its side to move (future net gain); `None` past the deadline.
    pub(crate) fn value<P: SearchGame>(&mut self, pos: &P) -> Option<i32> {
        if !self.at_ends(pos) {
            if let Some(v) = self.memo.get(pos.tt_key()) {
                return Some(v as i32);
            }
        }
        let level = self.level(pos, false)?;
        Some(for_south(pos.to_move(), level.value[0]))
    }

    /// The value of move `mv` of `pos` for its mover (future net gain, `v*` after it); `None`
    /// past the deadline.
    pub(crate) fn move_value<P: SearchGame>(&mut self, pos: &P, mv: u8) -> Option<i32> {
        let me = pos.to_move();
        let mut c = *pos;
        c.play_unchecked(mv);
        let gain = c.banked(me) - pos.banked(me);
        if c.is_over() {
            return Some(gain + c.terminal_bonus(me));
        }
        let v = self.value(&c)?;
        Some(gain + if c.to_move() == me { v } else { -v })
    }

    /// The edges of `pos`: exits valued (recursively), moves inside the level as positions.
    /// Unless `whole`, a position of the level already valued counts as an exit at its value
    /// (which leaves the others' values as they are).
    fn edges<P: SearchGame>(
        &mut self,
        pos: &P,
        whole: bool,
        inside: &mut Vec<P>,
    ) -> Option<Vec<Edge>> {
        let me = pos.to_move();
        let mut out = Vec::new();
        for &mv in pos.legal_moves().as_slice() {
            let mut c = *pos;
            c.play_unchecked(mv);
            if !c.is_over() && c.scores() == pos.scores() {
                if self.ends.contains(&c.full_key()) {
                    out.push(Edge::Exit(for_south(me, c.repetition_value(me))));
                    continue;
                }
                let known = !whole && !self.at_ends(&c);
                match self.memo.get(c.tt_key()).filter(|_| known) {
                    Some(v) => {
                        let v = v as i32;
                        let v = if c.to_move() == me { v } else { -v };
                        out.push(Edge::Exit(for_south(me, v)));
                    }
                    None => {
                        inside.push(c);
                        out.push(Edge::Inside(u32::MAX));
                    }
                }
                continue;
            }
            let v = if c.is_over() {
                c.banked(me) - pos.banked(me) + c.terminal_bonus(me)
            } else {
                self.move_value(pos, mv)?
            };
            out.push(Edge::Exit(for_south(me, v)));
        }
        Some(out)
    }

    /// Solves the level of `pos` (which is its position 0) and remembers its values: the
    /// positions reachable from it without a capture (`whole`), or those of them not yet
    /// valued.
    fn level<P: SearchGame>(&mut self, pos: &P, whole: bool) -> Option<Level<P>> {
        let held = self.held;
        let level = self.level_held(pos, whole);
        self.held = held;
        level
    }

    /// [`Cyclic::level`], counting its positions in `held` as they are found.
    fn level_held<P: SearchGame>(&mut self, pos: &P, whole: bool) -> Option<Level<P>> {
        let mut positions = vec![*pos];
        let mut index = KeyMap::new();
        index.insert(pos.full_key(), 0u32);
        self.held += 1;
        // The moves of position `k` are `edges[edge_start[k]..edge_start[k + 1]]`.
        let mut edges: Vec<Edge> = Vec::new();
        let mut edge_start: Vec<u32> = vec![0];
        let mut i = 0;
        while i < positions.len() {
            self.nodes += 1;
            if self.out_of_time() || self.bytes() > MAX_BYTES {
                return None;
            }
            let p = positions[i];
            let mut inside = Vec::new();
            let e = self.edges(&p, whole, &mut inside)?;
            let mut next = inside.into_iter();
            for mut edge in e {
                if let Edge::Inside(to) = &mut edge {
                    let c = next.next().expect("one position per inside move");
                    let n = positions.len() as u32;
                    *to = index.get_or_insert(c.full_key(), n);
                    if *to == n {
                        positions.push(c);
                        self.held += 1;
                    }
                }
                edges.push(edge);
            }
            edge_start.push(u32::try_from(edges.len()).expect("under 2^32 moves a level"));
            i += 1;
        }
        let n = positions.len();
        let south: Vec<bool> = positions
            .iter()
            .map(|p| p.to_move() == Side::South)
            .collect();
        let draw = pos.repetition_value(Side::South);
        let mut inner = vec![0u32; n];
        let (mut best_exit, mut worst_exit) = (vec![None; n], vec![None; n]);
        let mut thresholds = vec![draw];
        let moves = |k: usize| &edges[edge_start[k] as usize..edge_start[k + 1] as usize];
        for k in 0..n {
            for edge in moves(k) {
                match *edge {
                    Edge::Inside(_) => inner[k] += 1,
                    Edge::Exit(v) => {
                        thresholds.push(v);
                        best_exit[k] = Some(best_exit[k].map_or(v, |b: i32| b.max(v)));
                        worst_exit[k] = Some(worst_exit[k].map_or(v, |w: i32| w.min(v)));
                    }
                }
            }
        }
        let preds = Preds::new(n, (0..n).map(|k| (k, moves(k))));
        drop(edges);
        drop(edge_start);
        thresholds.sort_unstable();
        thresholds.dedup();
        let mut value = vec![thresholds[0]; n];
        let mut rank = vec![u32::MAX; n];
        let north: Vec<bool> = south.iter().map(|s| !s).collect();
        let mut inside = vec![false; n];
        for &t in &thresholds {
            if self.past_deadline() {
                return None;
            }
            if t > draw {
                // South forces an exit worth at least t: those in the attractor are worth it.
                let can = |k: usize| best_exit[k].is_some_and(|b| b >= t);
                let all = |k: usize| worst_exit[k].is_none_or(|w| w >= t);
                for (order, k) in attractor(&south, &preds, &inner, can, all)
                    .into_iter()
                    .enumerate()
                {
                    value[k as usize] = t;
                    rank[k as usize] = order as u32;
                }
            } else {
                // North forces an exit worth less than t: all others are worth at least t.
                let can = |k: usize| worst_exit[k].is_some_and(|w| w < t);
                let all = |k: usize| best_exit[k].is_none_or(|b| b < t);
                let caught = attractor(&north, &preds, &inner, can, all);
                inside.fill(false);
                for (order, &k) in caught.iter().enumerate() {
                    inside[k as usize] = true;
                    // The first threshold that catches a position is the one above its value:
                    // North's rank there makes progress.
                    if rank[k as usize] == u32::MAX {
                        rank[k as usize] = order as u32;
                    }
                }
                for k in 0..n {
                    if !inside[k] {
                        value[k] = t;
                    }
                }
            }
        }
        if !self.at_ends(pos) {
            for (p, &v) in positions.iter().zip(&value) {
                self.remember(p, for_south(p.to_move(), v));
            }
        }
        Some(Level {
            positions,
            index,
            value,
            rank,
            draw,
        })
    }

    /// The move of position `k` of `level` that keeps its value `v*` under the repetition
    /// rule, given that no position of the game so far has occurred twice: for the side
    /// whose value is better than a draw, one that makes progress toward it (so no position
    /// repeats). `None` past the deadline.
    fn best_in<P: SearchGame>(&mut self, level: &Level<P>, k: usize) -> Option<u8> {
        let pos = level.positions[k];
        let me = pos.to_move();
        let v = level.value[k];
        let winning = if me == Side::South {
            v > level.draw
        } else {
            v < level.draw
        };
        let mut fallback = None;
        for &mv in pos.legal_moves().as_slice() {
            let mut c = pos;
            c.play_unchecked(mv);
            let inside =
                (!c.is_over() && c.scores() == pos.scores() && !self.ends.contains(&c.full_key()))
                    .then(|| {
                        level
                            .index
                            .get(c.full_key())
                            .expect("a position of the level") as usize
                    });
            let mv_value = match inside {
                Some(i) => level.value[i],
                // Back to a position of the game so far: the game ends there.
                None if !c.is_over() && self.ends.contains(&c.full_key()) => {
                    for_south(me, c.repetition_value(me))
                }
                None => for_south(me, self.move_value(&pos, mv)?),
            };
            if mv_value != v {
                continue;
            }
            match inside {
                None => return Some(mv),
                Some(i) if !winning || level.rank[i] < level.rank[k] => return Some(mv),
                Some(_) => fallback = fallback.or(Some(mv)),
            }
        }
        // Not reached when the values are right: a winning side always has a move that
        // makes progress.
        fallback
    }

    /// The best line from `pos`, at most `max` moves, until a position repeats.
    pub(crate) fn line<P: SearchGame>(&mut self, pos: &P, max: usize) -> Option<Vec<u8>> {
        let mut line = Vec::new();
        let mut p = *pos;
        let mut seen: Vec<u64> = self.ends.iter().copied().collect();
        seen.push(p.full_key());
        // One whole level serves every position of the line within it (its ranks compare).
        let mut level: Option<Level<P>> = None;
        while line.len() < max && !p.is_over() {
            let k = match level.as_ref().and_then(|l| l.index.get(p.full_key())) {
                Some(k) => k as usize,
                None => {
                    level = Some(self.level(&p, true)?);
                    0
                }
            };
            let mv = self.best_in(level.as_ref()?, k)?;
            line.push(mv);
            p.play_unchecked(mv);
            let key = p.full_key();
            if seen.contains(&key) {
                break;
            }
            seen.push(key);
        }
        Some(line)
    }
}

/// The positions from which `player` (by position: whether it moves there) can force reaching
/// a good exit, in the order they join (each joins with a move to an earlier one or a good
/// exit; where the opponent moves, with every move so). `can(k)`: position `k` has a good exit;
/// `all(k)`: every exit of `k` is good.
fn attractor(
    player: &[bool],
    preds: &Preds,
    inner: &[u32],
    can: impl Fn(usize) -> bool,
    all: impl Fn(usize) -> bool,
) -> Vec<u32> {
    let n = player.len();
    let mut left = inner.to_vec();
    let mut joined = vec![false; n];
    let mut order = Vec::new();
    for k in 0..n {
        if (player[k] && can(k)) || (!player[k] && all(k) && inner[k] == 0) {
            joined[k] = true;
            order.push(k as u32);
        }
    }
    let mut i = 0;
    while i < order.len() {
        let x = order[i] as usize;
        i += 1;
        for &p in preds.of(x) {
            let p = p as usize;
            if joined[p] {
                continue;
            }
            if player[p] {
                joined[p] = true;
                order.push(p as u32);
            } else {
                left[p] -= 1;
                if left[p] == 0 && all(p) {
                    joined[p] = true;
                    order.push(p as u32);
                }
            }
        }
    }
    order
}

/// The predecessors of a level's positions inside the level, in one array: those of `k` are
/// `list[start[k]..start[k + 1]]`, in the order of the positions they come from.
struct Preds {
    start: Vec<u32>,
    list: Vec<u32>,
}

impl Preds {
    /// From every position's moves.
    fn new<'a>(n: usize, moves: impl Iterator<Item = (usize, &'a [Edge])> + Clone) -> Preds {
        let mut start = vec![0u32; n + 1];
        for (_, e) in moves.clone() {
            for edge in e {
                if let Edge::Inside(to) = *edge {
                    start[to as usize + 1] += 1;
                }
            }
        }
        for k in 0..n {
            start[k + 1] += start[k];
        }
        let mut list = vec![0u32; start[n] as usize];
        let mut fill = start.clone();
        for (k, e) in moves {
            for edge in e {
                if let Edge::Inside(to) = *edge {
                    list[fill[to as usize] as usize] = k as u32;
                    fill[to as usize] += 1;
                }
            }
        }
        Preds { start, list }
    }

    fn of(&self, k: usize) -> &[u32] {
        &self.list[self.start[k] as usize..self.start[k + 1] as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_map_keeps_every_entry_through_growth() {
        let mut m: KeyMap<u32> = KeyMap::new();
        let key = |i: u64| i.wrapping_mul(0xD1B5_4A32_D192_ED03) ^ (i << 7);
        for i in 0..10_000u64 {
            assert_eq!(m.get_or_insert(key(i), i as u32), i as u32);
        }
        // A key already there keeps its value.
        assert_eq!(m.get_or_insert(key(5), 99), 5);
        assert_eq!(m.len(), 10_000);
        assert!((0..10_000u64).all(|i| m.get(key(i)) == Some(i as u32)));
        assert_eq!(m.get(key(10_000)), None);
        // Growth keeps the table at most 3/4 full.
        assert_eq!(m.keys.len(), 16_384);
        assert!(!m.grows_with(2_288) && m.grows_with(2_289));
        m.insert(key(7), 70);
        assert_eq!((m.get(key(7)), m.len()), (Some(70), 10_000));
        // Key 0 is kept (as 1).
        m.insert(0, 3);
        assert_eq!(m.get(0), Some(3));
    }
}
