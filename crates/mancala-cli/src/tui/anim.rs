//! The board as drawn, and the frames of a sowing: one frame per piece dropped.
//!
//! The frames follow the sowing rules of `mancala-core` (ring order, skipped stores, Cross-Kalah's
//! direction, Kauri's seeds-then-cowries with their captures as each piece falls). Kalah-family
//! captures and the end-of-game sweep appear on the last frame, which is always the position
//! the rules core produced, so the animation can never leave a wrong board behind.

use mancala_core::{Position, Preset, Side, MAX_PITS};

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
            kauri: pos.rules().preset == Preset::Kauri,
        };
        for side in Side::BOTH {
            for i in 0..m {
                b.seeds[side.index()][i] = pos.seeds(side, i);
                b.cowries[side.index()][i] = pos.cowries(side, i);
            }
        }
        b
    }

    fn add_seed(&mut self, loc: Loc) {
        match loc {
            Loc::Pit(s, i) => self.seeds[s.index()][i] += 1,
            Loc::Store(s) => self.stores[s.index()] += 1,
        }
    }
}

/// One picture of a sowing in progress; `hot` is where the last piece fell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    pub board: Board,
    pub hot: Option<Loc>,
}

/// The frames of `pit` sown in `before` (a legal move), ending on `after`, the position the
/// rules produced.
pub fn sowing(before: &Position, pit: u8, after: &Position) -> Vec<Frame> {
    let mover = before.to_move();
    let mut frames = if before.rules().preset == Preset::Kauri {
        kauri_frames(before, mover, pit as usize)
    } else {
        kalah_frames(before, mover, pit as usize)
    };
    let last_hot = frames.last().and_then(|f| f.hot);
    let end = Board::of(after);
    if frames.last().map(|f| &f.board) != Some(&end) {
        frames.push(Frame {
            board: end,
            hot: last_hot,
        });
    }
    frames
}

fn kalah_frames(pos: &Position, mover: Side, pit: usize) -> Vec<Frame> {
    let m = pos.pits();
    let len = 2 * m + 2;
    let loc = |i: usize| -> Loc {
        if i < m {
            Loc::Pit(Side::South, i)
        } else if i == m {
            Loc::Store(Side::South)
        } else if i < 2 * m + 1 {
            Loc::Pit(Side::North, i - m - 1)
        } else {
            Loc::Store(Side::North)
        }
    };
    let off = if mover == Side::South { 0 } else { m + 1 };
    let opp_store = if mover == Side::South { 2 * m + 1 } else { m };
    let origin = off + pit;
    let mut board = Board::of(pos);
    let n = board.seeds[mover.index()][pit] as usize;
    board.seeds[mover.index()][pit] = 0;
    let clockwise = pos.rules().preset == Preset::CrossKalah && n % 2 == 1;
    let mut frames = vec![Frame {
        board: board.clone(),
        hot: Some(loc(origin)),
    }];
    let mut idx = origin;
    for _ in 0..n {
        loop {
            idx = if clockwise {
                (idx + len - 1) % len
            } else {
                (idx + 1) % len
            };
            if idx != opp_store {
                break;
            }
        }
        board.add_seed(loc(idx));
        frames.push(Frame {
            board: board.clone(),
            hot: Some(loc(idx)),
        });
    }
    frames
}

fn kauri_frames(pos: &Position, mover: Side, pit: usize) -> Vec<Frame> {
    let m = pos.pits();
    let len = 2 * m;
    let side_of = |i: usize| if i < m { Side::South } else { Side::North };
    let opp = mover.other();
    let mut b = Board::of(pos);
    let origin = mover.index() * m + pit;
    let s = b.seeds[mover.index()][pit] as usize;
    let c = b.cowries[mover.index()][pit] as usize;
    b.seeds[mover.index()][pit] = 0;
    b.cowries[mover.index()][pit] = 0;
    let mut frames = vec![Frame {
        board: b.clone(),
        hot: Some(Loc::Pit(mover, pit)),
    }];
    let mut idx = origin;
    for k in 0..s + c {
        idx = (idx + 1) % len;
        let (side, i) = (side_of(idx), idx % m);
        let (si, sd) = (side.index(), &mut b);
        let in_opp = side == opp;
        if k < s {
            if in_opp && sd.cowries[si][i] > 0 && sd.seeds[si][i] == 0 {
                sd.stores[opp.index()] += 1;
            } else {
                sd.seeds[si][i] += 1;
            }
        } else {
            if in_opp && sd.cowries[si][i] == 0 {
                sd.stores[mover.index()] += sd.seeds[si][i];
                sd.seeds[si][i] = 0;
            }
            sd.cowries[si][i] += 1;
        }
        frames.push(Frame {
            board: b.clone(),
            hot: Some(Loc::Pit(side, i)),
        });
    }
    frames
}

#[cfg(test)]
mod tests {
    use super::*;
    use mancala_core::Game;

    /// Every sowing of many random games: the frames drop one piece at a time, conserve the
    /// pieces, and end on the rules' position.
    #[test]
    fn frames_follow_the_rules() {
        for preset in Preset::ALL {
            let mut g = Game::from_rules(&preset.rules()).unwrap();
            let mut x = 12345u64;
            for _ in 0..300 {
                if g.is_over() {
                    g = Game::from_rules(&preset.rules()).unwrap();
                }
                let before = *g.position();
                let legal = g.legal_moves();
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let pit = legal.as_slice()[(x >> 33) as usize % legal.len()];
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
                if preset == Preset::Kauri || (e.captured == 0 && !e.ended) {
                    assert_eq!(frames.len(), pieces + 1, "{preset} {before} {pit}");
                }
            }
        }
    }
}
