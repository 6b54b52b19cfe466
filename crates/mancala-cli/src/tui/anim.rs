//! The board as drawn, and the frames of a sowing: one frame per piece dropped.
//!
//! The frames follow the sowing path `mancala-core` gives ([`Position::sowing_path`]: the
//! places in order, which pieces are cowries, the seeds taken as pieces fall), so no rule is
//! stated here. Captures after the sowing and the end-of-game sweep appear on the last frame,
//! which is always the position the rules core produced, so the animation can never leave a
//! wrong board behind.

use mancala_core::{Position, Side, Take, MAX_PITS};

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
    pub seeds: [[u16; MAX_PITS]; 2],
    pub cowries: [[u8; MAX_PITS]; 2],
    pub stores: [u16; 2],
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

    /// Drops one piece at `loc`, a seed or a cowrie, and then makes the path's `take` there
    /// (seeds leaving that place for a store as the piece falls).
    fn drop_piece(&mut self, loc: Loc, cowrie: bool, take: Option<&Take>) {
        let (side, i) = match loc {
            Loc::Store(s) => {
                self.stores[s.index()] += 1;
                return;
            }
            Loc::Pit(s, i) => (s, i),
        };
        if cowrie {
            self.cowries[side.index()][i] += 1;
        } else {
            self.seeds[side.index()][i] += 1;
        }
        if let Some(t) = take {
            self.seeds[side.index()][i] -= u16::from(t.seeds);
            self.stores[t.to.index()] += u16::from(t.seeds);
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
    let path = before.sowing_path(pit);
    let mut takes = path.takes.iter().peekable();
    for (k, &i) in path.places.iter().enumerate() {
        let at = loc(before.pits(), i);
        let take = takes.next_if(|t| t.step == k);
        board.drop_piece(at, k >= path.cowries_from, take);
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

    /// A Kauri sowing that hands a seed over and captures as its pieces fall: each frame
    /// shows the take the core's path gives at its step, and the sowing alone ends on the
    /// position the core's move made (no correcting frame).
    #[test]
    fn kauri_frames_take_as_pieces_fall_and_end_on_the_rules_position() {
        let before: Position = "kauri/0-0-0-0-0-1c1/29/0c10-3-0-0-0-0c1/27/s"
            .parse()
            .unwrap();
        let mut after = before;
        let e = after.play(5).unwrap();
        assert_eq!((e.handed, e.captured), (1, 3));
        let frames = sowing(&before, 5, &after);
        assert_eq!(frames.len(), 3);
        // The seed falls on North 1, which holds cowries alone: it goes to North's store.
        assert_eq!(frames[1].hot, Some(Loc::Pit(Side::North, 0)));
        assert_eq!(frames[1].board.stores, [29, 28]);
        assert_eq!(frames[1].board.seeds[1][0], 0);
        // The cowrie falls on North 2, which has none: its 3 seeds go to South's store.
        assert_eq!(frames[2].hot, Some(Loc::Pit(Side::North, 1)));
        assert_eq!(frames[2].board.stores, [32, 28]);
        assert_eq!(frames[2].board.seeds[1][1], 0);
        assert_eq!(frames[2].board.cowries[1][1], 1);
        assert_eq!(frames[2].board, Board::of(&after));
    }
}
