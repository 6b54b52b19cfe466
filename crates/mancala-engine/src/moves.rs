//! Every move of a position valued, and a played move judged against the best.

use super::*;

impl Engine {
    /// The value of every legal move of `pos` for its side to move, all of one quality where
    /// that can be had within `budget`:
    ///
    /// - without a depth limit, each move is first proven ([`Engine::solve`] of the position
    ///   it leads to) within half the time limit (all the time there is, without one); when
    ///   every move is proven, those are the values;
    /// - otherwise iterative deepening values every move with a full window at each depth,
    ///   up to `budget.depth`, until the time runs out, and the last depth completed for every
    ///   move gives the values (at least depth 1, which is not timed). A move whose search
    ///   met no horizon is proven.
    ///
    /// `history` holds the game's positions before `pos` (repetition rule). Empty when the game
    /// is over.
    pub fn analyze_moves(
        &self,
        pos: &Position,
        budget: impl Into<Budget>,
        history: &[Position],
    ) -> Vec<MoveValue> {
        let budget = budget.into();
        let legal = pos.legal_moves();
        if legal.is_empty() {
            return Vec::new();
        }
        if budget.depth.is_none() {
            let proofs = budget.share(1, 2).time_only();
            let mut out = Vec::new();
            for &pit in legal.as_slice() {
                match self.prove_move(pos, pit, proofs, history) {
                    Some(eval) => out.push(MoveValue { pit, eval }),
                    None => break,
                }
            }
            if out.len() == legal.len() {
                return out;
            }
        }
        self.search_moves(pos, budget, history)
    }

    /// The value of the move `played` in `pos` and of the best move, for judging a game's
    /// moves: without a depth limit, the position's proof and the played move's within half
    /// the time limit; where either does not finish, every move searched to one depth as
    /// [`Engine::analyze_moves`] does. `None` when the game is over or `played` is illegal.
    pub fn judge_move(
        &self,
        pos: &Position,
        played: u8,
        budget: impl Into<Budget>,
        history: &[Position],
    ) -> Option<Judgement> {
        let budget = budget.into();
        if !pos.legal_moves().contains(played) {
            return None;
        }
        if budget.depth.is_none() {
            let proofs = budget.share(1, 2).time_only();
            if let Some(r) = self.solve(pos, proofs, history) {
                let best = MoveValue {
                    pit: r.best,
                    eval: r.eval,
                };
                let eval = if played == r.best {
                    Some(r.eval)
                } else {
                    self.prove_move(pos, played, proofs, history)
                };
                if let Some(eval) = eval {
                    let played = MoveValue { pit: played, eval };
                    return Some(Judgement {
                        loss: played.eval.loss_against(&best.eval),
                        played,
                        best,
                    });
                }
            }
        }
        let values = self.search_moves(pos, budget, history);
        Some(Judgement {
            played: *values.iter().find(|v| v.pit == played)?,
            best: MoveValue::best(&values)?,
            loss: MoveValue::loss(&values, played),
        })
    }

    /// The proven value of move `pit` of `pos` for its mover, if the proof finishes within
    /// `budget`.
    pub(crate) fn prove_move(
        &self,
        pos: &Position,
        pit: u8,
        budget: Budget,
        history: &[Position],
    ) -> Option<Evaluation> {
        let me = pos.to_move();
        let mut child = *pos;
        child.play(pit).ok()?;
        if child.is_over() {
            return Some(self.final_value(&child, me));
        }
        if budget.expired() {
            return None;
        }
        let mut line = history.to_vec();
        line.push(*pos);
        if let Some(n) = pos.rules().repeat_ends_at() {
            if line.iter().filter(|&&p| p == child).count() + 1 >= n {
                // The occurrence that ends the game: a draw, or the seeds left shared.
                let s = child.repetition_scores().unwrap_or([0, 0]);
                return Some(Evaluation {
                    margin: s[me.index()] as i32 - s[me.other().index()] as i32,
                    ..Evaluation::final_margin(&child, me)
                });
            }
        }
        self.solve(&child, budget, &line)
            .map(|r| r.eval.seen_by(me))
    }

    /// Every move of `pos` valued by iterative deepening with a full window, to
    /// `budget.depth` (else to the end of the game) within `budget`: the last depth completed
    /// for every move (at least depth 1, which is not limited). A move whose search met no
    /// horizon is proven.
    pub(crate) fn search_moves(
        &self,
        pos: &Position,
        budget: Budget,
        history: &[Position],
    ) -> Vec<MoveValue> {
        let me = pos.to_move();
        let max_depth = budget
            .depth
            .unwrap_or(FULL_DEPTH as u32)
            .clamp(1, FULL_DEPTH as u32);
        let mut last = None;
        for depth in 1..=max_depth {
            // Depth 1 always completes: it is what the analysis falls back on.
            let lim = if depth > 1 {
                Budget {
                    depth: None,
                    ..budget
                }
            } else {
                Budget::UNLIMITED
            };
            let shared = self.shared(lim, history, full_key(pos));
            fn go<P: SearchGame>(
                shared: &Shared,
                pos: &P,
                depth: u8,
            ) -> Option<Vec<(u8, i32, bool)>> {
                let mut w = Worker::new(shared, 0);
                let r = search::move_values(&mut w, pos, depth);
                w.flush();
                r
            }
            let values = with_family!(pos, p => go(&shared, p, depth as u8));
            let Some(values) = values else { break };
            let banked = with_family!(pos, p => p.banked(me));
            let misere = pos.rules().misere();
            let ties = with_family!(pos, p => p.decided_ties());
            // As in `search_state`: no search proves a value where positions can repeat.
            let repeats = pos.rules().can_repeat();
            let all_exact = values.iter().all(|v| v.2);
            last = Some(
                values
                    .into_iter()
                    .map(|(pit, v, exact)| MoveValue {
                        pit,
                        eval: evaluation(me, banked + v, (misere, ties), exact && !repeats, depth),
                    })
                    .collect::<Vec<_>>(),
            );
            if all_exact {
                break;
            }
        }
        last.unwrap_or_default()
    }

    /// The value of a finished game for `me` as the search counts it (Kauri's tie-break win
    /// counts one seed).
    pub(crate) fn final_value(&self, pos: &Position, me: Side) -> Evaluation {
        let mut e = Evaluation::final_margin(pos, me);
        e.margin += with_family!(pos, p => p.terminal_bonus(me));
        e
    }
}

/// A move of a game judged against the best move, from [`Engine::judge_move`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Judgement {
    /// The move played and its value.
    pub played: MoveValue,
    /// The best move and its value.
    pub best: MoveValue,
    /// The seeds the move played gives away against the best (see
    /// [`Evaluation::loss_against`]); `None` where the best move's value is the less certain.
    pub loss: Option<i32>,
}

/// A move and its value for the side to move, from [`Engine::analyze_moves`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveValue {
    /// Own pit, 0-based from the mover's left.
    pub pit: u8,
    /// The value of playing it, from the mover's view: proven or a search's estimate, as its
    /// quality says.
    pub eval: Evaluation,
}

impl MoveValue {
    /// The best of `moves` (highest [`Evaluation::score`], then the better quality, then the
    /// first).
    pub fn best(moves: &[MoveValue]) -> Option<MoveValue> {
        let rank = |m: &MoveValue| {
            let q = match m.eval.quality {
                Quality::Proven => u32::MAX,
                Quality::Searched { depth } => depth,
            };
            (m.eval.score(), q)
        };
        let mut best: Option<MoveValue> = None;
        for m in moves {
            if best.is_none_or(|b| rank(m) > rank(&b)) {
                best = Some(*m);
            }
        }
        best
    }

    /// The seeds `played` gives away against the best of `moves` that is valued at least as
    /// well as it (none: no such move to compare with).
    pub fn loss(moves: &[MoveValue], played: u8) -> Option<i32> {
        let p = moves.iter().find(|m| m.pit == played)?.eval;
        moves.iter().filter_map(|m| p.loss_against(&m.eval)).max()
    }
}

/// The evaluation of `utility` (the final margin of `me` in search units: misère negated);
/// `decided_ties` as [`SearchGame::decided_ties`].
pub(crate) fn evaluation(
    me: Side,
    utility: i32,
    (misere, decided_ties): (bool, bool),
    exact: bool,
    depth: u32,
) -> Evaluation {
    Evaluation {
        side: me,
        margin: if misere { -utility } else { utility },
        lower_is_better: misere,
        decided_ties,
        quality: if exact {
            Quality::Proven
        } else {
            Quality::Searched { depth }
        },
    }
}
