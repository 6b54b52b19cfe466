//! The file format and reading the tables.
//!
//! One file a level, `kalah-<rules>-s<seeds>.egdb`. Little-endian header:
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `MANCEGDB` |
//! | 8 | 4 | format version (1) |
//! | 12 | 1 | pits a row |
//! | 13 | 1 | reserved (0) |
//! | 14 | 2 | seeds on the board (the level) |
//! | 16 | 1 | bits per entry |
//! | 17 | 3 | reserved (0) |
//! | 20 | 4 | CRC-32 of the payload |
//! | 24 | 8 | entry count |
//! | 32 | 8 | payload length in bytes |
//! | 40 | 2 | length `L` of the rules string |
//! | 42 | L | rules string (`p6-standard-any-row-empty-to-owner`) |
//! | 42+L | | payload: entries packed little-endian, `bits` each, entry `i` at bit `i*bits`, one padding byte |
//!
//! The entries and their packing are [`mancala_egdb_format::entry`]'s.

use crate::book::{Book, Proven};
use crate::entry::{self, payload_len, PackedLevel};
use crate::rank::Binomials;
use crate::{cells, Error, Oracle, TableRules};
use mancala_core::KalahPos;
use mancala_egdb_format::PackedTables;
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// The first 8 bytes of every table file.
pub const MAGIC: &[u8; 8] = b"MANCEGDB";
/// The format version this program writes and the only one it reads.
pub const VERSION: u32 = 1;
const FIXED: usize = 42;

/// Writes the file of level `s`: its header, then `payload` (the `count` entries packed as
/// the format says). Atomically: a temporary file, then a rename. There is no `fsync`: a file
/// that a crash of the machine leaves short or torn fails its length or checksum check when
/// opened, and a resumed build rebuilds that level.
pub(crate) fn write_level(
    path: &Path,
    r: &TableRules,
    s: u32,
    count: u64,
    payload: &[u8],
) -> Result<(), Error> {
    let bits = r.bits(s);
    let plen = payload_len(count, bits);
    debug_assert_eq!(plen, payload.len() as u64);
    let name = r.name();
    let mut h = vec![0u8; FIXED + name.len()];
    h[..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&VERSION.to_le_bytes());
    h[12] = r.pits;
    h[14..16].copy_from_slice(&(s as u16).to_le_bytes());
    h[16] = bits as u8;
    h[20..24].copy_from_slice(&crc32fast::hash(payload).to_le_bytes());
    h[24..32].copy_from_slice(&count.to_le_bytes());
    h[32..40].copy_from_slice(&plen.to_le_bytes());
    h[40..42].copy_from_slice(&(name.len() as u16).to_le_bytes());
    h[42..].copy_from_slice(name.as_bytes());
    let tmp = path.with_extension("egdb.tmp");
    let write = || -> std::io::Result<()> {
        use std::io::Write;
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(&h)?;
        f.write_all(payload)?;
        std::fs::rename(&tmp, path)
    };
    write().map_err(|e| Error::io(path, e))
}

/// One level, memory-mapped and checked.
pub struct Table {
    /// The file it was opened from.
    pub path: PathBuf,
    /// The rules string of the header (`p6-standard-any-row-empty-to-owner`).
    pub rules_name: String,
    /// Pits a row.
    pub pits: u8,
    /// The level: seeds on the board in every position of this table.
    pub seeds: u32,
    /// Bits per packed entry.
    pub bits: u32,
    /// Number of entries: every distribution of `seeds` seeds over the `2 * pits` pits.
    pub count: u64,
    /// CRC-32 of the payload, as the header gives it and the payload was checked against.
    pub crc: u32,
    map: memmap2::Mmap,
    offset: usize,
}

fn u16_at(b: &[u8], o: usize) -> u16 {
    u16::from_le_bytes(b[o..o + 2].try_into().unwrap())
}
fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes(b[o..o + 4].try_into().unwrap())
}
fn u64_at(b: &[u8], o: usize) -> u64 {
    u64::from_le_bytes(b[o..o + 8].try_into().unwrap())
}

impl Table {
    /// Opens and checks a table file: header, sizes, checksum; refuses anything else.
    pub fn open(path: &Path) -> Result<Table, Error> {
        let f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        if f.metadata().is_ok_and(|m| !m.is_file()) {
            return Err(Error::file(
                path,
                "not a table file (a directory or a device)",
            ));
        }
        // SAFETY: the file is only read; a concurrent writer would replace it by rename.
        let map = unsafe { memmap2::Mmap::map(&f) }.map_err(|e| Error::io(path, e))?;
        // The probes are random across the file: huge pages where the page cache has them.
        #[cfg(target_os = "linux")]
        let _ = map.advise(memmap2::Advice::HugePage);
        let b = &map[..];
        if b.len() < FIXED {
            return Err(Error::file(
                path,
                format!("truncated: {} bytes, shorter than the header", b.len()),
            ));
        }
        if &b[..8] != MAGIC {
            return Err(Error::file(path, "not an endgame table (bad magic)"));
        }
        let version = u32_at(b, 8);
        if version != VERSION {
            return Err(Error::file(
                path,
                format!("format version {version}, this program reads {VERSION}"),
            ));
        }
        let pits = b[12];
        let seeds = u16_at(b, 14) as u32;
        let bits = b[16] as u32;
        let crc = u32_at(b, 20);
        let count = u64_at(b, 24);
        let plen = u64_at(b, 32);
        let nlen = u16_at(b, 40) as usize;
        if b.len() < FIXED + nlen {
            return Err(Error::file(path, "truncated inside the header"));
        }
        let rules_name = std::str::from_utf8(&b[FIXED..FIXED + nlen])
            .map_err(|_| Error::file(path, "corrupt header: the rules string is not UTF-8"))?
            .to_string();
        if !(1..=8).contains(&bits) {
            return Err(Error::file(
                path,
                format!("corrupt header: {bits} bits an entry"),
            ));
        }
        if pits == 0 || pits > 8 {
            return Err(Error::file(path, format!("corrupt header: {pits} pits")));
        }
        let bin = Binomials::new();
        if seeds as usize + 2 * pits as usize >= crate::rank::MAX_N {
            return Err(Error::file(path, format!("corrupt header: {seeds} seeds")));
        }
        let expect = bin.count(seeds, 2 * pits as usize);
        if count != expect {
            return Err(Error::file(path, format!("corrupt header: {count} entries, a level of {seeds} seeds over {} pits has {expect}", 2 * pits)));
        }
        if plen != payload_len(count, bits) {
            return Err(Error::file(
                path,
                "corrupt header: payload length does not match the entry count",
            ));
        }
        let offset = FIXED + nlen;
        let have = (b.len() - offset) as u64;
        if have < plen {
            return Err(Error::file(
                path,
                format!("truncated: payload of {have} bytes, the header says {plen}"),
            ));
        }
        if have > plen {
            return Err(Error::file(
                path,
                format!(
                    "{} bytes of trailing garbage after the payload",
                    have - plen
                ),
            ));
        }
        if crc32fast::hash(&b[offset..]) != crc {
            return Err(Error::file(
                path,
                "checksum mismatch: the entries are corrupt",
            ));
        }
        Ok(Table {
            path: path.to_path_buf(),
            rules_name,
            pits,
            seeds,
            bits,
            count,
            crc,
            map,
            offset,
        })
    }

    /// Checks that this table is level `s` of rules `r`.
    pub fn expect(&self, r: &TableRules, s: u32) -> Result<(), Error> {
        let fault = if self.rules_name != r.name() {
            Some(format!(
                "holds rules `{}`, expected `{}`",
                self.rules_name,
                r.name()
            ))
        } else if self.seeds != s {
            Some(format!("holds level {} seeds, expected {s}", self.seeds))
        } else if self.pits != r.pits {
            Some(format!("holds {} pits, expected {}", self.pits, r.pits))
        } else if self.bits != r.bits(s) {
            Some(format!(
                "{} bits an entry, expected {}",
                self.bits,
                r.bits(s)
            ))
        } else {
            None
        };
        fault.map_or(Ok(()), |f| {
            Err(Error::file(&self.path, format!("mismatched table: {f}")))
        })
    }

    /// Checks that every entry is at most `max` (its level's largest code); the first that
    /// is not names the file, the rank and the entry. Reads every entry, on every core.
    pub fn verify_entries(&self, max: u32) -> Result<(), Error> {
        let bad = (0..self.count as usize)
            .into_par_iter()
            .with_min_len(1 << 16)
            .find_first(|&i| self.get(i as u64) as u32 > max);
        match bad.map(|i| i as u64) {
            Some(i) => Err(Error::file(
                &self.path,
                format!(
                    "corrupt entry: rank {i} holds {}, above the level's largest {max}",
                    self.get(i)
                ),
            )),
            None => Ok(()),
        }
    }

    /// The raw entry (file encoding) of rank `i`.
    #[inline]
    pub fn get(&self, i: u64) -> u8 {
        self.level().get(i)
    }

    /// The packed entries (the payload, its padding byte included).
    pub fn level(&self) -> PackedLevel<'_> {
        PackedLevel {
            entries: &self.map[self.offset..],
            bits: self.bits,
        }
    }

    /// Size of the file in bytes, header and padding included.
    pub fn file_bytes(&self) -> u64 {
        self.map.len() as u64
    }
}

/// All the tables of a directory, by rules; an [`Oracle`] for the search.
pub struct Egdb {
    /// The directory the tables were read from.
    pub dir: PathBuf,
    /// Each rule set present and its tables by level (a probe compares rules, allocating and
    /// hashing nothing).
    sets: Vec<(TableRules, Vec<Option<Table>>)>,
    /// Per set: the level (plus one) of an entry read above its level's range, 0 if none.
    faults: Vec<AtomicU32>,
    /// The opening books (`*.book`), one a rule set at most.
    books: Vec<Book>,
    max_seeds: u32,
    bin: Binomials,
}

impl Egdb {
    /// Opens every `*.egdb` file in `dir`, and every opening book (`*.book`); any bad file
    /// refuses the whole directory.
    pub fn open(dir: &Path) -> Result<Egdb, Error> {
        let mut tables: HashMap<String, Vec<Option<Table>>> = HashMap::new();
        let rd = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
        let mut all: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        all.sort();
        let is = |p: &PathBuf, ext: &str| p.extension().is_some_and(|e| e == ext);
        let books = all
            .iter()
            .filter(|p| is(p, "book"))
            .map(|p| Book::open(p))
            .collect::<Result<Vec<_>, _>>()?;
        let paths: Vec<PathBuf> = all.into_iter().filter(|p| is(p, "egdb")).collect();
        let mut max_seeds = 0;
        for p in paths {
            let t = Table::open(&p)?;
            let s = t.seeds as usize;
            let v = tables.entry(t.rules_name.clone()).or_default();
            if v.len() <= s {
                v.resize_with(s + 1, || None);
            }
            if let Some(old) = &v[s] {
                return Err(Error::file(
                    &p,
                    format!(
                        "a second table of level {s} (also in {})",
                        old.path.display()
                    ),
                ));
            }
            max_seeds = max_seeds.max(t.seeds);
            v[s] = Some(t);
        }
        let mut sets = Vec::new();
        for (name, levels) in tables {
            let t = levels.iter().flatten().next().expect("a table");
            let Some(r) = TableRules::parse(t.pits, &name) else {
                return Err(Error::file(&t.path, format!("unknown rules `{name}`")));
            };
            // Every header agrees with its rules and level (pits, bits: the sizes the
            // probes index by), and every file is named as the build names it.
            for (s, t) in levels.iter().enumerate() {
                let Some(t) = t else { continue };
                t.expect(&r, s as u32)?;
                if t.path.file_name() != r.path(dir, s as u32).file_name() {
                    return Err(Error::file(
                        &t.path,
                        format!(
                            "mismatched table: its header says level {s} of `{name}`, \
                             whose file is named {}",
                            r.path(Path::new(""), s as u32).display()
                        ),
                    ));
                }
            }
            sets.push((r, levels));
        }
        Ok(Egdb {
            dir: dir.to_path_buf(),
            faults: sets.iter().map(|_| AtomicU32::new(0)).collect(),
            sets,
            books,
            max_seeds,
            bin: Binomials::new(),
        })
    }

    /// Every table, by rules name and level.
    pub fn tables(&self) -> impl Iterator<Item = &Table> {
        let mut v: Vec<&Table> = self
            .sets
            .iter()
            .flat_map(|s| s.1.iter().flatten())
            .collect();
        v.sort_by(|a, b| (&a.rules_name, a.seeds).cmp(&(&b.rules_name, b.seeds)));
        v.into_iter()
    }

    fn lookup(&self, pos: &KalahPos) -> Option<(TableRules, u32, u8)> {
        // The tables hold positions past the opening (no first move or swap pending); they
        // serve the opening rules' games from there on.
        if pos.is_over() || pos.opening() != mancala_core::Opening::None {
            return None;
        }
        let r = TableRules::new(pos.rules()).ok()?;
        let s = pos.board_seeds();
        let levels = &self.levels(&r)?;
        let t = levels.get(s as usize)?.as_ref()?;
        let (c, m) = cells(pos);
        let mine: u32 = c[..m].iter().map(|&x| x as u32).sum();
        if !r.live(mine, s - mine) {
            return None;
        }
        let code = t.get(self.bin.rank(&c, 2 * m, s));
        // A forged entry (its checksum matching) is not read as a value, and is reported.
        if code as u32 > r.max_code(s) {
            if let Some(i) = self.sets.iter().position(|k| k.0 == r) {
                self.faults[i].store(s + 1, Relaxed);
            }
            return None;
        }
        Some((r, s, code))
    }

    /// The first table whose probes (by [`Egdb::net`], [`Egdb::own`] or the solver) read an
    /// entry above its level's range: a forged file whose checksum matches. Results computed
    /// with it are wrong; `egdb info --verify-entries` checks every entry.
    pub fn fault(&self) -> Option<Error> {
        self.sets.iter().zip(&self.faults).find_map(|((_, levels), f)| {
            let s = f.load(Relaxed).checked_sub(1)?;
            let t = levels.get(s as usize)?.as_ref()?;
            Some(Error::file(
                &t.path,
                format!(
                    "holds entries above level {s}'s range (its checksum matches: a forged or miswritten file); `mancala egdb info --verify-entries` finds them"
                ),
            ))
        })
    }

    /// Checks that every entry of every table lies within its level's range (the checksum
    /// only shows the file is as written). Reads every entry: seconds for tables of
    /// billions of positions. The first fault names the file, the rank and the entry.
    pub fn verify_entries(&self) -> Result<(), Error> {
        for (r, levels) in &self.sets {
            for (s, t) in levels.iter().enumerate() {
                if let Some(t) = t {
                    t.verify_entries(r.max_code(s as u32))?;
                }
            }
        }
        Ok(())
    }

    fn levels(&self, r: &TableRules) -> Option<&[Option<Table>]> {
        Some(&self.sets.iter().find(|k| k.0 == *r)?.1)
    }

    /// The highest level `s` such that levels `0..=s` of `r` are all present.
    pub fn complete_to(&self, r: &TableRules) -> Option<u32> {
        let levels = self.levels(r)?;
        let n = levels.iter().take_while(|t| t.is_some()).count();
        (n > 0).then(|| n as u32 - 1)
    }

    /// The future net gain of the side to move (own minus the opponent's future store
    /// growth) under perfect play, if tabled or in the opening book.
    pub fn net(&self, pos: &KalahPos) -> Option<i32> {
        match self.lookup(pos) {
            Some((r, s, code)) => Some(entry::net(r.counted(), s, code)),
            None => self.book(pos).map(|p| p.net),
        }
    }

    /// Whether a table (not the opening book) holds `pos`.
    pub fn tables_hold(&self, pos: &KalahPos) -> bool {
        self.lookup(pos).is_some()
    }

    /// The opening book of `rules`, if the directory holds one.
    pub fn book_of(&self, rules: &TableRules) -> Option<&Book> {
        self.books.iter().find(|b| b.rules == *rules)
    }

    /// Every opening book of the directory.
    pub fn books(&self) -> &[Book] {
        &self.books
    }

    /// The opening book's proven value of `pos`, if it holds the position.
    pub fn book(&self, pos: &KalahPos) -> Option<Proven> {
        if self.books.is_empty() {
            return None;
        }
        let r = TableRules::new(pos.rules()).ok()?;
        self.book_of(&r)?.get(pos)
    }

    /// The seeds of the board the side to move ends with (leftovers counted only).
    pub fn own(&self, pos: &KalahPos) -> Option<u8> {
        if let Some((r, _, code)) = self.lookup(pos) {
            return r.counted().then_some(code);
        }
        let counted = TableRules::new(pos.rules()).ok()?.counted();
        let net = self.book(pos)?.net;
        counted.then(|| ((net + pos.board_seeds() as i32) / 2) as u8)
    }
}

impl Oracle for Egdb {
    fn max_seeds(&self) -> u32 {
        self.max_seeds
    }
    fn tabled_seeds(&self, rules: &mancala_core::KalahRules) -> u32 {
        TableRules::new(rules)
            .ok()
            .and_then(|r| self.complete_to(&r))
            .map_or(0, |top| top + 1)
    }
    fn fault(&self) -> Option<String> {
        Egdb::fault(self).map(|e| e.to_string())
    }
    fn tables_name(&self, rules: &mancala_core::KalahRules) -> Option<String> {
        let r = TableRules::new(rules).ok()?;
        self.complete_to(&r).map(|_| r.name())
    }
    fn packed(&self, rules: &mancala_core::KalahRules) -> Option<PackedTables<'_>> {
        let r = TableRules::new(rules).ok()?;
        let levels = self.levels(&r).unwrap_or(&[]);
        Some(PackedTables {
            levels: levels
                .iter()
                .map_while(|t| t.as_ref())
                .map(Table::level)
                .collect(),
            counted: r.counted(),
            fault: self
                .sets
                .iter()
                .position(|k| k.0 == r)
                .map(|i| &self.faults[i]),
        })
    }
    fn kalah(&self, pos: &KalahPos) -> Option<u8> {
        self.own(pos)
    }
    fn net(&self, pos: &KalahPos) -> Option<i32> {
        Egdb::net(self, pos)
    }
    fn book(&self, pos: &KalahPos) -> Option<(u8, i32)> {
        Egdb::book(self, pos).map(|p| (p.best, p.net))
    }
}
