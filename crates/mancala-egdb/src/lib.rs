//! Endgame databases for the Kalah family.
//!
//! One table per number of seeds on the board (a *level*), for every distribution of those
//! seeds over the `2m` pits, the side to move's row first (side to move normalised). An entry
//! is the value of the position for the side to move under perfect play, counting only the
//! seeds still on the board (stores do not matter):
//!
//! - leftovers `to-owner` / `last-mover`: the number `own` of the `s` seeds on the board that
//!   the side to move ends with (the opponent ends with `s - own`);
//! - leftovers `not-counted`: `D + s`, where `D` is the future net gain (own minus opponent's
//!   future store growth); the two shares need not add up to `s` there.
//!
//! Entries of positions that are not live (the end rule already holds for the side to move:
//! `any-row-empty` with a row empty, `mover-empty` with the mover's row empty) are
//! meaningless and never probed: a position with an empty row is over under `any-row-empty`,
//! and under `mover-empty` a position whose *opponent* row is empty is live and tabled.
//!
//! Tables exist for rules whose future depends on the pits alone: no `stop-when-decided`, no
//! Cross-Kalah (positions can repeat within a level), no Dracala, leftovers other than
//! `last-capturer`, not misère (the tables hold maximising play).

#![warn(missing_docs)]

pub mod book;
pub mod build;
pub mod file;
pub use mancala_egdb_format::{entry, rank, Oracle};

use mancala_core::{Capture, EndCheck, KalahPos, KalahRules, Leftovers};
use std::path::{Path, PathBuf};

pub use book::{Book, Proven};
pub use build::{build, BuildOptions, BuildReport};
pub use file::{Egdb, Table};

/// A fault in a database file: the file and what is wrong with it.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A table file that is not what it should be: short, torn, a bad header or checksum,
    /// or other rules than asked for.
    #[error("{}: {fault}", file.display())]
    File {
        /// The table file.
        file: PathBuf,
        /// What is wrong with it.
        fault: String,
    },
    /// Rules no table can serve, or a level beyond what the format can hold.
    #[error("{0}")]
    Rules(String),
    /// A level needs more memory to build than the limit allows, or allocating it failed.
    #[error("{0}")]
    Memory(String),
    /// Reading or writing a file failed.
    #[error("{}: {err}", file.display())]
    Io {
        /// The file being read or written.
        file: PathBuf,
        /// The system's error.
        err: std::io::Error,
    },
}

impl Error {
    pub(crate) fn file(file: &Path, fault: impl Into<String>) -> Error {
        Error::File {
            file: file.to_path_buf(),
            fault: fault.into(),
        }
    }
    pub(crate) fn io(file: &Path, err: std::io::Error) -> Error {
        Error::Io {
            file: file.to_path_buf(),
            err,
        }
    }
}

/// The part of the rules a table's values depend on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TableRules {
    /// Pits a row (`m`; the board has `2m`).
    pub pits: u8,
    /// `None`: no captures.
    pub capture: Option<Capture>,
    /// Whether a sowing that ends in the mover's own store gives an extra turn.
    pub extra_turn: bool,
    /// When the game is over (which row, or rows, must be empty).
    pub end: EndCheck,
    /// Who banks the seeds left on the board when the game ends.
    pub leftovers: Leftovers,
}

impl TableRules {
    /// The table rules of `r`, or why no table can serve them.
    pub fn new(r: &KalahRules) -> Result<TableRules, Error> {
        let why = if r.cross {
            Some("Cross-Kalah positions can repeat within a level")
        } else if r.dracala {
            Some("Dracala stops when decided")
        } else if r.decided_above != u16::MAX {
            Some("stop-when-decided makes values depend on the stores")
        } else if r.leftovers == Leftovers::LastCapturer {
            Some("leftovers=last-capturer makes values depend on the move history")
        } else if r.misere {
            Some("misère rules are not tabled")
        } else if 2 * r.pits as usize > 16 {
            Some("tables take at most 8 pits a row")
        } else {
            None
        };
        if let Some(why) = why {
            return Err(Error::Rules(format!(
                "no endgame tables for these rules: {why}"
            )));
        }
        Ok(TableRules {
            pits: r.pits,
            capture: r.capture,
            extra_turn: r.extra_turn,
            end: r.end,
            leftovers: r.leftovers,
        })
    }

    /// The rules part of a file name and header: `p6-standard-any-row-empty-to-owner`.
    pub fn name(&self) -> String {
        format!(
            "p{}-{}-{}-{}{}",
            self.pits,
            self.capture.map_or("no-capture", |c| c.name()),
            self.end,
            self.leftovers,
            if self.extra_turn {
                ""
            } else {
                "-no-extra-turn"
            }
        )
    }

    /// The table rules of `pits` pits whose [`TableRules::name`] is `name`.
    pub fn parse(pits: u8, name: &str) -> Option<TableRules> {
        let captures = [None]
            .into_iter()
            .chain(Capture::ALL.iter().copied().map(Some));
        for capture in captures {
            for &end in EndCheck::ALL {
                for &leftovers in Leftovers::ALL {
                    for extra_turn in [true, false] {
                        let r = TableRules {
                            pits,
                            capture,
                            extra_turn,
                            end,
                            leftovers,
                        };
                        if r.name() == name {
                            return Some(r);
                        }
                    }
                }
            }
        }
        None
    }

    /// The file of level `seeds` in `dir`.
    pub fn path(&self, dir: &Path, seeds: u32) -> PathBuf {
        dir.join(format!("kalah-{}-s{seeds}.egdb", self.name()))
    }

    /// The opening book of these rules in `dir` ([`book`]).
    pub fn book_path(&self, dir: &Path) -> PathBuf {
        dir.join(format!("kalah-{}.book", self.name()))
    }

    /// Whether the leftovers count for someone (entries are `own`), else `D + s`.
    pub fn counted(&self) -> bool {
        self.leftovers != Leftovers::NotCounted
    }

    /// Largest entry of level `seeds` in the file encoding.
    pub fn max_code(&self, seeds: u32) -> u32 {
        entry::max_code(self.counted(), seeds)
    }

    /// Bits per packed entry at level `seeds`.
    pub fn bits(&self, seeds: u32) -> u32 {
        entry::bits(self.counted(), seeds)
    }

    /// Whether a position (mover's row, opponent's row) with the mover to move is live.
    pub fn live(&self, mover_seeds: u32, opp_seeds: u32) -> bool {
        match self.end {
            EndCheck::AnyRowEmpty => mover_seeds > 0 && opp_seeds > 0,
            EndCheck::MoverEmpty => mover_seeds > 0,
        }
    }
}

/// The cells of `pos` for the tables: the mover's row, then the opponent's.
pub fn cells(pos: &KalahPos) -> ([u8; 16], usize) {
    let m = pos.pits();
    let me = pos.to_move();
    let mut c = [0u8; 16];
    c[..m].copy_from_slice(pos.row(me));
    c[m..2 * m].copy_from_slice(pos.row(me.other()));
    (c, m)
}
