//! The AND/OR tree of turns below the root: the short searches that order the root side's
//! turns, and the walk that combines the jobs' answers.

use std::collections::{BTreeMap, HashMap, HashSet};

use mancala_core::{Position, Side};

use super::{Job, Manifest, Progress, SplitError, GUESS_DEPTH};
use crate::{Engine, Limits};

/// What is known of a node of the tree (the root included): the answer to "is the root
/// side's final margin at least the threshold there?".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// The root side's margin there is at least the threshold (proven).
    Yes,
    /// Below the threshold (proven).
    No,
    /// Not known yet.
    Open,
}

/// Every turn of the side to move in `pos`, each position once, in the order of first
/// appearance.
pub(super) fn children(pos: &Position) -> Vec<Position> {
    let mut seen = HashSet::new();
    crate::turns(pos)
        .into_iter()
        .map(|(_, q)| q)
        .filter(|q| seen.insert(*q))
        .collect()
}

/// Refuses rules a split proof cannot combine: where positions repeat, a position's value
/// depends on the game before it, which a job does not carry; in a misère game the
/// players' choices run the other way round.
pub(super) fn check_rules(pos: &Position) -> Result<(), SplitError> {
    if pos.rules().can_repeat() {
        return Err(SplitError::Unsplittable(format!(
            "{}: positions repeat in this game, and a position's value then depends on the game before it, which a job does not carry: split proofs take games without repetition",
            pos.rules()
        )));
    }
    if pos.rules().misere() {
        return Err(SplitError::Unsplittable(format!(
            "{}: a misère game (lower is better): split proofs take games where each player wants the higher margin",
            pos.rules()
        )));
    }
    if pos.setup().opening != mancala_core::Opening::None {
        return Err(SplitError::Unsplittable(
            "a first move or swap of the opening rules is pending in this position: split proofs start after the opening".to_string(),
        ));
    }
    Ok(())
}

/// Short searches' values (`side`'s final margin) of `side`'s turns in the tree to `depth`
/// turns below `pos`, by position, into `out`.
pub(super) fn guesses(
    engine: &Engine,
    pos: &Position,
    side: Side,
    depth: u32,
    out: &mut BTreeMap<String, i32>,
    progress: &dyn Progress,
) {
    if depth == 0 || pos.is_over() {
        return;
    }
    for c in children(pos) {
        if pos.to_move() == side {
            if let std::collections::btree_map::Entry::Vacant(e) = out.entry(c.to_string()) {
                let v = if c.is_over() {
                    crate::margin(&c, side)
                } else {
                    let lim = Limits {
                        depth: Some(GUESS_DEPTH),
                        ..Limits::default()
                    };
                    engine
                        .search(&c, lim, &[])
                        .map_or(0, |r| r.eval.seen_by(side).margin)
                };
                e.insert(v);
                progress.guessing(out.len());
            }
        }
        guesses(engine, &c, side, depth - 1, out, progress);
    }
}

/// The jobs and results of a directory, and the tree's walk over them.
pub(super) struct Merge<'a> {
    pub m: &'a Manifest,
    /// Every job by (position, threshold).
    pub jobs: HashSet<(String, i32)>,
    /// The answers for each position: (holds, bound) at a threshold, any job's.
    pub answers: HashMap<String, Vec<(i32, bool, i32)>>,
    /// Positions that need a job and have none, in the order found.
    pub wanted: Vec<Position>,
    /// Statuses found without expanding, by position and depth.
    memo: HashMap<(Position, u32), Status>,
    /// Positions whose answers the current hypotheses wait for (with a job or without).
    pub needed: HashSet<String>,
}

impl<'a> Merge<'a> {
    /// The walk over the tree of `m`, with the jobs `jobs` and the answers `answers`: (the
    /// job's threshold, holds, bound) by position.
    pub fn new<'j>(
        m: &'a Manifest,
        jobs: impl Iterator<Item = &'j Job>,
        answers: HashMap<String, Vec<(i32, bool, i32)>>,
    ) -> Merge<'a> {
        Merge {
            m,
            jobs: jobs.map(|j| (j.position.clone(), j.at_least)).collect(),
            answers,
            wanted: Vec::new(),
            memo: HashMap::new(),
            needed: HashSet::new(),
        }
    }

    /// What the answers say of `pos` at the threshold.
    fn answered(&self, pos: &str) -> Status {
        let k = self.m.at_least;
        for &(_, holds, bound) in self.answers.get(pos).into_iter().flatten() {
            if holds && bound >= k {
                return Status::Yes;
            }
            if !holds && bound < k {
                return Status::No;
            }
        }
        Status::Open
    }

    /// The status of `pos`, `depth` turns below the root. With `expand`, positions the
    /// current hypotheses need and that have no job are added to `wanted`.
    pub fn status(&mut self, pos: &Position, depth: u32, expand: bool) -> Status {
        if !expand {
            if let Some(&s) = self.memo.get(&(*pos, depth)) {
                return s;
            }
        }
        let s = self.walk(pos, depth, expand);
        if !expand {
            self.memo.insert((*pos, depth), s);
        }
        s
    }

    fn walk(&mut self, pos: &Position, depth: u32, expand: bool) -> Status {
        let (side, k) = (self.m.side, self.m.at_least);
        if pos.is_over() {
            return if crate::margin(pos, side) >= k {
                Status::Yes
            } else {
                Status::No
            };
        }
        let key = pos.to_string();
        let known = self.answered(&key);
        if known != Status::Open {
            return known;
        }
        if depth >= self.m.turns {
            if expand {
                if !self.jobs.contains(&(key.clone(), k)) && !self.wanted.contains(pos) {
                    self.wanted.push(*pos);
                }
                self.needed.insert(key);
            }
            return Status::Open;
        }
        let mut kids = children(pos);
        if pos.to_move() == side {
            // One turn is enough: the best guess first; the next only once it is refuted.
            let guess = |c: &Position| self.m.guesses.get(&c.to_string()).copied();
            kids.sort_by_key(|c| std::cmp::Reverse(guess(c).unwrap_or(i32::MIN)));
            let s: Vec<Status> = kids
                .iter()
                .map(|c| self.status(c, depth + 1, false))
                .collect();
            if s.contains(&Status::Yes) {
                return Status::Yes;
            }
            let Some(first) = s.iter().position(|&x| x != Status::No) else {
                return Status::No;
            };
            if expand {
                self.status(&kids[first], depth + 1, true);
            }
            Status::Open
        } else {
            // Every turn of the opponent must keep the margin.
            let s: Vec<Status> = kids
                .iter()
                .map(|c| self.status(c, depth + 1, false))
                .collect();
            if s.contains(&Status::No) {
                return Status::No;
            }
            if s.iter().all(|&x| x == Status::Yes) {
                return Status::Yes;
            }
            if expand {
                for (c, _) in kids.iter().zip(&s).filter(|(_, &x)| x == Status::Open) {
                    self.status(c, depth + 1, true);
                }
            }
            Status::Open
        }
    }
}
