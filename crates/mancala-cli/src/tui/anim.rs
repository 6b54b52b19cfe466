//! The board as drawn, and the frames of a sowing: one frame per piece dropped.
//!
//! The frames follow the sowing rules of `mancala-core` (ring order, skipped stores, Cross-Kalah's
//! direction, Kauri's seeds-then-cowries with their captures as each piece falls). Kalah-family
//! captures and the end-of-game sweep appear on the last frame, which is always the position
//! the rules core produced, so the animation can never leave a wrong board behind.

use mancala_core::{Position, Side, MAX_PITS};

/// A place on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loc {
    Pit(Side, usize),
    Store(Side),
}

/// What the board view draws: counts of every pit and store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    pub pits: usize,
    pub seeds: [[u8; MAX_PITS]; 2],
    pub cowries: [[u8; MAX_PITS]; 2],
    pub stores: [u8; 2],
    pub kauri: bool,
}

impl Board {
    pub fn of(pos: &Position) -> Board {
        let m = pos.pits();
        let mut b = Board {
            pits: m,
            seeds: [[0; MAX_PITS]; 2],
            cowries: [[0; MAX_PITS]; 2],
            stores: pos.scores(),
            kauri: pos.rules().has_cowries(),
        };
        for side in Side::BOTH {
            for i in 0..m {
                b.seeds[side.index()][i] = pos.seeds(side, i);
                b.cowries[side.index()][i] = pos.cowries(side, i);
            }
        }
        b
    }

    /// Drops one piece at `loc`, sown by `mover`: a seed, or in Kauri a seed or a cowrie with
    /// the captures it makes as it falls (a seed falling on an opponent's pit that holds only
    /// cowries goes to the opponent; a cowrie falling where the opponent has none takes the
    /// seeds there).
    fn drop_piece(&mut self, loc: Loc, mover: Side, cowrie: bool) {
        let (side, i) = match loc {
            Loc::Store(s) => {
                self.stores[s.index()] += 1;
                return;
            }
            Loc::Pit(s, i) => (s, i),
        };
        let in_opp = side != mover;
        let (seeds, cowries) = (
            &mut self.seeds[side.index()][i],
            &mut self.cowries[side.index()][i],
        );
        if !self.kauri {
            *seeds += 1;
        } else if !cowrie {
            if in_opp && *cowries > 0 && *seeds == 0 {
                self.stores[side.index()] += 1;
            } else {
                *seeds += 1;
            }
        } else {
            if in_opp && *cowries == 0 {
                self.stores[mover.index()] += *seeds;
                *seeds = 0;
            }
            *cowries += 1;
        }
    }
}

/// The place of ring index `i` on a board of `m` pits a side (the ring of
/// [`Position::sowing_path`]).
fn loc(m: usize, i: usize) -> Loc {
    if i < m {
        Loc::Pit(Side::South, i)
    } else if i == m {
        Loc::Store(Side::South)
    } else if i <= 2 * m {
        Loc::Pit(Side::North, i - m - 1)
    } else {
        Loc::Store(Side::North)
    }
}

/// One picture of a sowing in progress; `hot` is where the last piece fell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    pub board: Board,
    pub hot: Option<Loc>,
}

/// The frames of `pit` sown in `before` (a legal move), ending on `after`, the position the
/// rules produced. A move off the board (the pie rule's swap) sows nothing: one frame, the
/// position after it.
pub fn sowing(before: &Position, pit: u8, after: &Position) -> Vec<Frame> {
    if pit as usize >= before.pits() {
        return vec![Frame {
            board: Board::of(after),
            hot: None,
        }];
    }
    let mover = before.to_move();
    let origin = Loc::Pit(mover, pit as usize);
    let mut board = Board::of(before);
    board.seeds[mover.index()][pit as usize] = 0;
    board.cowries[mover.index()][pit as usize] = 0;
    let mut frames = vec![Frame {
        board: board.clone(),
        hot: Some(origin),
    }];
    let (path, cowries_from) = before.sowing_path(pit);
    for (k, &i) in path.iter().enumerate() {
        let at = loc(before.pits(), i);
        board.drop_piece(at, mover, k >= cowries_from);
        frames.push(Frame {
            board: board.clone(),
            hot: Some(at),
        });
    }
    let end = Board::of(after);
    if board != end {
        frames.push(Frame {
            board: end,
            hot: frames.last().and_then(|f| f.hot),
        });
    }
    frames
}

#[cfg(test)]
mod tests {
    use super::*;
    use mancala_core::{Game, Preset};

    /// Every sowing of many random games: the frames drop one piece at a time, conserve the
    /// pieces, and end on the rules' position.
    #[test]
    fn frames_follow_the_rules() {
        for preset in Preset::ALL {
            let mut g = Game::from_rules(&preset.rules()).unwrap();
            let mut rng = mancala_play::Rng::new(12345);
            for _ in 0..300 {
                if g.is_over() {
                    g = Game::from_rules(&preset.rules()).unwrap();
                }
                let before = *g.position();
                let legal = g.legal_moves();
                let pit = rng.pick(legal.as_slice());
                let e = g.play(pit).unwrap();
                let after = *g.position();
                let frames = sowing(&before, pit, &after);
                assert_eq!(frames.last().unwrap().board, Board::of(&after));
                let total = |b: &Board| -> u32 {
                    b.stores.iter().map(|&x| x as u32).sum::<u32>()
                        + b.seeds.iter().flatten().map(|&x| x as u32).sum::<u32>()
                };
                // Seeds only come out of the hand: totals on the board grow one frame to the
                // next, never past the total.
                let all = total(&Board::of(&before));
                for w in frames.windows(2) {
                    assert!(total(&w[0].board) <= total(&w[1].board), "{preset}");
                    assert!(total(&w[1].board) <= all, "{preset}");
                }
                // Without a Kalah capture or an end sweep, the sowing alone reaches the
                // rules' position: no correcting frame was needed.
                let pieces = before.seeds(before.to_move(), pit as usize) as usize
                    + before.cowries(before.to_move(), pit as usize) as usize;
                if preset.rules().has_cowries() || (e.captured == 0 && !e.ended) {
                    assert_eq!(frames.len(), pieces + 1, "{preset} {before} {pit}");
                }
            }
        }
    }
}
