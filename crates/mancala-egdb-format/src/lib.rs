//! The format of the Kalah family's endgame tables, and the interface a search reads them
//! through.
//!
//! - [`rank`]: the combinatorial ranking that orders a level's positions (the mover's row,
//!   then the opponent's);
//! - [`entry`]: what an entry means and how a level's entries are packed, in a file's
//!   payload and in memory alike ([`PackedLevel`] reads them, [`entry::store_run`] writes
//!   them);
//! - [`memory`]: what the machine's memory allows (available, this process's peak), which
//!   the table build and the search both size their tables to;
//! - [`Oracle`]: endgame databases as a search sees them, with [`PackedTables`] for a
//!   search that reads the entries itself.
//!
//! `mancala-egdb` builds, writes and opens the tables and implements [`Oracle`];
//! `mancala-engine` probes through [`Oracle`] and ranks and unpacks with this crate, so
//! neither depends on the other.

#![warn(missing_docs)]

pub mod entry;
pub mod memory;
pub mod rank;

pub use entry::PackedLevel;

use std::sync::atomic::AtomicU32;

/// The tables of one rule set, levels `0..levels.len()`, every one present.
#[derive(Clone, Debug)]
pub struct PackedTables<'a> {
    /// Level `s` holds the positions of `s` seeds on the board, by [`rank::Binomials::rank`]
    /// of the mover's row then the opponent's.
    pub levels: Vec<PackedLevel<'a>>,
    /// Entries are the mover's share `e` of the `s` seeds on the board (future net gain
    /// `2e - s`); otherwise (`leftovers=not-counted`) they are `D + s` (net gain `e - s`).
    /// See [`entry::net`].
    pub counted: bool,
    /// Where a probe that reads an entry above its level's range (a forged file: its checksum
    /// matches) records the level plus one; the entry is then clamped into the range.
    pub fault: Option<&'a AtomicU32>,
}

/// Endgame databases as the search sees them (implemented by `mancala-egdb`).
pub trait Oracle: Sync {
    /// Most seeds on the board of any position the databases cover.
    fn max_seeds(&self) -> u32;
    /// The number of the seeds left on the board that the side to move ends with under perfect
    /// play, if the databases cover this position and its rules; `None` otherwise.
    fn kalah(&self, pos: &mancala_core::KalahPos) -> Option<u8>;
    /// The future net gain of the side to move under perfect play (his future store growth
    /// minus the opponent's), if covered. The search uses this; the default derives it from
    /// [`Oracle::kalah`] as `2 * own - seeds_on_board`, which holds when every seed on the
    /// board ends in a store. Rules whose leftovers count for nobody (`not-counted`) must
    /// override it (the two shares need not add up to the board there).
    fn net(&self, pos: &mancala_core::KalahPos) -> Option<i32> {
        let own = self.kalah(pos)? as i32;
        Some(2 * own - pos.board_seeds() as i32)
    }
    /// The tables of `rules` as packed levels, when the databases hold them from level 0 on:
    /// the solver's fast path then reads entries itself. `None` (the default): it asks
    /// [`Oracle::net`].
    fn packed(&self, _rules: &mancala_core::KalahRules) -> Option<PackedTables<'_>> {
        None
    }
    /// How many seeds on the board the databases of `rules` cover with every level from 0
    /// on (the top level plus one; 0: no table of these rules). Policies that choose between a
    /// proof and a search read it: a proof with few seeds beyond it finishes at once.
    fn tabled_seeds(&self, _rules: &mancala_core::KalahRules) -> u32 {
        0
    }
    /// The name of the databases' tables of `rules` (as `egdb info` lists them), where they
    /// hold any; `None` (the default) otherwise.
    fn tables_name(&self, _rules: &mancala_core::KalahRules) -> Option<String> {
        None
    }
    /// The first damage found in the databases' files while probing (an entry out of range),
    /// said for people; a result computed with damaged tables must not be shown.
    fn fault(&self) -> Option<String> {
        None
    }
    /// Every legal move with its future net gain for the side to move, if every move's
    /// outcome is covered (or ends the game): the move's own gain (store growth against the
    /// opponent's) plus the value of the position it leads to, added when the mover moves
    /// again (an extra turn) and subtracted when the opponent does. The best moves are those
    /// whose value is the position's [`Oracle::net`].
    fn move_values(&self, pos: &mancala_core::KalahPos) -> Option<Vec<(u8, i32)>> {
        let me = pos.to_move();
        let mut values = Vec::new();
        for &mv in pos.legal_moves().as_slice() {
            let mut q = *pos;
            q.play(mv).ok()?;
            let d = (q.store(me) as i32 - pos.store(me) as i32)
                - (q.store(me.other()) as i32 - pos.store(me.other()) as i32);
            let v = if q.is_over() {
                d
            } else if q.to_move() == me {
                d + self.net(&q)?
            } else {
                d - self.net(&q)?
            };
            values.push((mv, v));
        }
        Some(values)
    }
    /// A proven best move of `pos` and its future net gain for the side to move, if the
    /// opening book (proven values of positions near the start, beyond the tables) holds it;
    /// `None` (the default) otherwise.
    fn book(&self, _pos: &mancala_core::KalahPos) -> Option<(u8, i32)> {
        None
    }
    /// A best move by the databases (the opening book's, else the first of the best by the
    /// tables) and its future net gain for the side to move, if the book holds the position
    /// or every move's outcome is covered (or ends the game).
    fn best_move(&self, pos: &mancala_core::KalahPos) -> Option<(u8, i32)> {
        if let Some(b) = self.book(pos) {
            return Some(b);
        }
        let mut best: Option<(u8, i32)> = None;
        for (mv, v) in self.move_values(pos)? {
            if best.is_none_or(|b| v > b.1) {
                best = Some((mv, v));
            }
        }
        best
    }
}
