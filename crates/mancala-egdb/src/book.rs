//! The opening book: proven values of the positions near a game's start, which hold too many
//! seeds for the endgame tables and take the solver longest.
//!
//! A book holds every position reachable from a start with at least a given number of seeds on
//! the board (`mancala egdb book`), each with its future net gain for the side to move under
//! perfect play and a best move, as the solver proved them with the tables beside it. Like a
//! table entry, an entry depends on the pits alone (stores do not matter), so one entry serves
//! every position with its pits, whatever the stores, and the key is the board as [`cells`]
//! gives it: the mover's row, then the opponent's.
//!
//! One file a rule set, `kalah-<rules>.book`. Little-endian header:
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `MANCBOOK` |
//! | 8 | 4 | format version (1) |
//! | 12 | 1 | pits a row `m` |
//! | 13 | 3 | reserved (0) |
//! | 16 | 4 | CRC-32 of the payload |
//! | 20 | 4 | entry count |
//! | 24 | 2 | length `L` of the rules string |
//! | 26 | L | rules string (`p6-standard-any-row-empty-to-owner`) |
//! | 26+L | | payload: the entries sorted by their pits, each `2m` bytes of pits (the mover's row first), the future net gain (`i8`), the best move (the mover's pit, 0-based) |

use crate::{cells, Error, TableRules};
use mancala_core::{KalahPos, Opening, Position};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The first 8 bytes of every book file.
pub const MAGIC: &[u8; 8] = b"MANCBOOK";
/// The format version this program writes and the only one it reads.
pub const VERSION: u32 = 1;
const FIXED: usize = 26;

/// A proven value: the future net gain of the side to move under perfect play, and a move
/// that keeps it (the mover's pit, 0-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Proven {
    /// Own future store growth minus the opponent's.
    pub net: i32,
    /// A best move.
    pub best: u8,
}

/// The book of one rule set, read and checked.
pub struct Book {
    /// The file it was read from.
    pub path: PathBuf,
    /// Its rules.
    pub rules: TableRules,
    entries: HashMap<[u8; 16], Proven>,
}

impl Book {
    /// An empty book of `rules`, to be filled and written to `dir`.
    pub fn new(rules: TableRules, dir: &Path) -> Book {
        Book {
            path: rules.book_path(dir),
            rules,
            entries: HashMap::new(),
        }
    }

    /// Reads and checks a book file: header, sizes, checksum, and every entry (a live
    /// position, a value within the seeds on the board and of their parity where every seed
    /// is counted, a best move on a sowable pit, the entries in order and no position twice);
    /// refuses anything else.
    pub fn open(path: &Path) -> Result<Book, Error> {
        let b = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        let bad = |f: String| {
            Error::file(
                path,
                format!("{f} (remove the file to use the tables without it; `mancala egdb book` builds it again)"),
            )
        };
        if b.len() < FIXED {
            return Err(bad(format!(
                "truncated: {} bytes, shorter than the header",
                b.len()
            )));
        }
        if &b[..8] != MAGIC {
            return Err(bad("not an opening book (bad magic)".into()));
        }
        let version = u32::from_le_bytes(b[8..12].try_into().unwrap());
        if version != VERSION {
            return Err(bad(format!(
                "format version {version}, this program reads {VERSION}"
            )));
        }
        let pits = b[12];
        let crc = u32::from_le_bytes(b[16..20].try_into().unwrap());
        let count = u32::from_le_bytes(b[20..24].try_into().unwrap()) as usize;
        let nlen = u16::from_le_bytes(b[24..26].try_into().unwrap()) as usize;
        if pits == 0 || pits > 8 {
            return Err(bad(format!("corrupt header: {pits} pits")));
        }
        if b.len() < FIXED + nlen {
            return Err(bad("truncated inside the header".into()));
        }
        let name = std::str::from_utf8(&b[FIXED..FIXED + nlen])
            .map_err(|_| bad("corrupt header: the rules string is not UTF-8".into()))?;
        let rules = TableRules::parse(pits, name).ok_or_else(|| {
            bad(format!(
                "rules `{}` unknown, or not of the {pits} pits its header gives",
                name.escape_debug()
            ))
        })?;
        if path.file_name() != rules.book_path(Path::new("")).file_name() {
            return Err(bad(format!(
                "mismatched book: its header says `{name}`, whose book is named {}",
                rules.book_path(Path::new("")).display()
            )));
        }
        let payload = &b[FIXED + nlen..];
        let size = 2 * pits as usize + 2;
        if payload.len() != count * size {
            return Err(bad(format!(
                "payload of {} bytes, the header says {count} entries of {size}",
                payload.len()
            )));
        }
        if crc32fast::hash(payload) != crc {
            return Err(bad("checksum mismatch: the entries are corrupt".into()));
        }
        let mut book = Book {
            path: path.to_path_buf(),
            rules,
            entries: HashMap::with_capacity(count),
        };
        let m = pits as usize;
        let mut last: Option<[u8; 16]> = None;
        for (i, e) in payload.chunks_exact(size).enumerate() {
            let mut key = [0u8; 16];
            key[..2 * m].copy_from_slice(&e[..2 * m]);
            if last.is_some_and(|l| l >= key) {
                return Err(bad(format!(
                    "corrupt entry {i}: out of order (the entries are sorted by their pits, each position once)"
                )));
            }
            last = Some(key);
            let p = Proven {
                net: e[2 * m] as i8 as i32,
                best: e[2 * m + 1],
            };
            if let Some(why) = book.fault(&key, p) {
                return Err(bad(format!("corrupt entry {i}: {why}")));
            }
            book.entries.insert(key, p);
        }
        Ok(book)
    }

    /// Why `p` cannot be the value of the position of pits `key`, if it cannot.
    fn fault(&self, key: &[u8; 16], p: Proven) -> Option<String> {
        let m = self.rules.pits as usize;
        let mine: u32 = key[..m].iter().map(|&c| c as u32).sum();
        let theirs: u32 = key[m..2 * m].iter().map(|&c| c as u32).sum();
        let s = mine + theirs;
        if !self.rules.live(mine, theirs) {
            Some("a position whose game is over".into())
        } else if p.net.unsigned_abs() > s || (self.rules.counted() && (p.net + s as i32) % 2 != 0)
        {
            Some(format!("value {} with {s} seeds on the board", p.net))
        } else if p.best as usize >= m || key[p.best as usize] == 0 {
            Some(format!("best move {} is not a sowable pit", p.best))
        } else {
            None
        }
    }

    /// Adds (or replaces) the proven value of `pos`, which must be a position of the book's
    /// rules past the opening rule; `Err` says why it cannot be.
    pub fn insert(&mut self, pos: &KalahPos, p: Proven) -> Result<(), String> {
        if TableRules::new(pos.rules()).ok() != Some(self.rules) || pos.opening() != Opening::None {
            return Err("not a position of the book's rules past the opening".into());
        }
        let key = cells(pos).0;
        if let Some(why) = self.fault(&key, p) {
            return Err(why);
        }
        self.entries.insert(key, p);
        Ok(())
    }

    /// The proven value of `pos`, if the book holds its pits (and `pos` is of its rules).
    pub fn get(&self, pos: &KalahPos) -> Option<Proven> {
        if pos.is_over() || pos.opening() != Opening::None {
            return None;
        }
        self.entries.get(&cells(pos).0).copied()
    }

    /// The boards it holds (the mover's row first, `2m` pits of 16), in order.
    pub fn boards(&self) -> Vec<[u8; 16]> {
        let mut v: Vec<[u8; 16]> = self.entries.keys().copied().collect();
        v.sort();
        v
    }

    /// Whether the book holds the pits of `pos`.
    pub fn contains(&self, pos: &KalahPos) -> bool {
        self.entries.contains_key(&cells(pos).0)
    }

    /// Positions held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The fewest and most seeds on the board of its positions; `None` when empty.
    pub fn seeds(&self) -> Option<(u32, u32)> {
        let s = self
            .entries
            .keys()
            .map(|k| k.iter().map(|&c| c as u32).sum::<u32>());
        Some((s.clone().min()?, s.max()?))
    }

    /// Size of the file this book writes, in bytes.
    pub fn file_bytes(&self) -> u64 {
        let m = self.rules.pits as usize;
        (FIXED + self.rules.name().len() + self.entries.len() * (2 * m + 2)) as u64
    }

    /// Writes the book to its file: atomically (a temporary file, then a rename).
    pub fn write(&self) -> Result<(), Error> {
        let m = self.rules.pits as usize;
        let mut keys: Vec<&[u8; 16]> = self.entries.keys().collect();
        keys.sort();
        let mut payload = Vec::with_capacity(keys.len() * (2 * m + 2));
        for k in keys {
            let p = self.entries[k];
            payload.extend_from_slice(&k[..2 * m]);
            payload.push(p.net as i8 as u8);
            payload.push(p.best);
        }
        let name = self.rules.name();
        let mut h = vec![0u8; FIXED + name.len()];
        h[..8].copy_from_slice(MAGIC);
        h[8..12].copy_from_slice(&VERSION.to_le_bytes());
        h[12] = self.rules.pits;
        h[16..20].copy_from_slice(&crc32fast::hash(&payload).to_le_bytes());
        h[20..24].copy_from_slice(&(self.entries.len() as u32).to_le_bytes());
        h[24..26].copy_from_slice(&(name.len() as u16).to_le_bytes());
        h[26..].copy_from_slice(name.as_bytes());
        let tmp = self.path.with_extension("book.tmp");
        std::fs::write(&tmp, [h, payload].concat()).map_err(|e| Error::io(&tmp, e))?;
        std::fs::rename(&tmp, &self.path).map_err(|e| Error::io(&self.path, e))
    }
}

/// Every position reachable from `start` with at least `min_seeds` seeds on the board, past
/// the opening rule and not over, one for each distinct set of pits (the book's key), fewest
/// seeds first; `None` where there are more than `max`. Positions with a first move or swap
/// pending are passed through, not listed; games of other families have none.
pub fn reachable(start: &Position, min_seeds: u32, max: usize) -> Option<Vec<Position>> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    let mut stack = vec![*start];
    while let Some(p) = stack.pop() {
        let Some(k) = p.as_kalah() else { continue };
        if k.is_over() || k.board_seeds() < min_seeds {
            continue;
        }
        if k.opening() == Opening::None {
            if !seen.insert(cells(k).0) {
                continue;
            }
            if out.len() == max {
                return None;
            }
            out.push(p);
        }
        for &mv in p.legal_moves().as_slice() {
            let mut q = p;
            if q.play(mv).is_ok() {
                stack.push(q);
            }
        }
    }
    out.sort_by_key(|p| p.as_kalah().map(|k| (k.board_seeds(), cells(k).0)));
    Some(out)
}
