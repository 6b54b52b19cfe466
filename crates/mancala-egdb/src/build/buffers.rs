//! Where a level's entries live: memory on huge pages, or a scratch file mapped shared, one
//! byte an entry or packed.

use super::*;

/// A level's bytes: anonymous memory, on transparent huge pages where the kernel allows (the
/// lookups are random across gigabytes: 4 KB pages would miss the TLB on nearly every one),
/// or, when the build does not fit in memory, a scratch file mapped shared, so that the
/// kernel keeps what the sweep reads in its page cache and writes the rest back to disk.
pub(crate) struct Buf {
    map: MmapMut,
    ptr: *mut u8,
    len: usize,
}

// SAFETY: the buffer is written only through `AtomicU8`s (`cells`) while shared; `bytes` is
// used once writing is over.
unsafe impl Send for Buf {}
unsafe impl Sync for Buf {}

impl Buf {
    /// `len` bytes of `fill`, in memory, or in a scratch file in `scratch`.
    pub(crate) fn new(len: usize, fill: u8, scratch: Option<&Path>) -> std::io::Result<Buf> {
        let mut map = Buf::map(len, scratch)?;
        if fill != 0 {
            map[..len]
                .par_chunks_mut(1 << 24)
                .for_each(|c| c.fill(fill));
        }
        let ptr = map.as_mut_ptr();
        Ok(Buf { map, ptr, len })
    }

    pub(super) fn map(len: usize, scratch: Option<&Path>) -> std::io::Result<MmapMut> {
        match scratch {
            None => {
                let map = MmapMut::map_anon(len.max(1))?;
                #[cfg(target_os = "linux")]
                let _ = map.advise(memmap2::Advice::HugePage);
                Ok(map)
            }
            Some(dir) => scratch_map(dir, len.max(1)),
        }
    }

    /// A copy of `src` (a file's payload, or a level moving to a scratch file).
    pub(super) fn copy_of(src: &[u8], scratch: Option<&Path>) -> std::io::Result<Buf> {
        let mut map = Buf::map(src.len(), scratch)?;
        map[..src.len()]
            .par_chunks_mut(1 << 24)
            .zip(src.par_chunks(1 << 24))
            .for_each(|(d, s)| d.copy_from_slice(s));
        let ptr = map.as_mut_ptr();
        Ok(Buf {
            map,
            ptr,
            len: src.len(),
        })
    }

    /// Starts writing a scratch file's pages back, so that once the level is complete they
    /// are clean and the kernel can drop them instead of holding them dirty (a no-op in
    /// memory).
    pub(super) fn write_back(&self) {
        let _ = self.map.flush_async();
    }

    #[inline]
    pub(super) fn cells(&self) -> &[AtomicU8] {
        // SAFETY: AtomicU8 has the layout of u8; the mapping lives as long as `self`.
        unsafe { std::slice::from_raw_parts(self.ptr as *const AtomicU8, self.len) }
    }

    #[inline]
    pub(crate) fn bytes(&self) -> &[u8] {
        // SAFETY: as above; callers read only once no one writes.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

/// A shared mapping of a new scratch file of `len` bytes in `dir`. The file is unlinked at
/// once (the mapping keeps it), so its space comes back when the level is dropped, even if the
/// build is killed; its blocks are reserved first, so a full disk is an error here rather
/// than a fault when a page is first written.
pub(super) fn scratch_map(dir: &Path, len: usize) -> std::io::Result<MmapMut> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let path = dir.join(format!(
        ".build-scratch-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Relaxed)
    ));
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&path)?;
    let _ = std::fs::remove_file(&path);
    reserve(&file, len as u64)?;
    // SAFETY: the file is this build's alone (created new, then unlinked): nothing else
    // changes it while it is mapped.
    unsafe { MmapMut::map_mut(&file) }
}

/// Gives `file` `len` bytes with their blocks allocated.
#[cfg(target_os = "linux")]
pub(super) fn reserve(file: &std::fs::File, len: u64) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let len = libc::off_t::try_from(len).map_err(std::io::Error::other)?;
    // SAFETY: a plain call on an open descriptor.
    match unsafe { libc::posix_fallocate(file.as_raw_fd(), 0, len) } {
        0 => Ok(()),
        e => Err(std::io::Error::from_raw_os_error(e)),
    }
}

/// Gives `file` `len` bytes.
#[cfg(not(target_os = "linux"))]
pub(super) fn reserve(file: &std::fs::File, len: u64) -> std::io::Result<()> {
    file.set_len(len)
}

/// Bytes free for this user on the file system of `dir`, where the system says.
#[cfg(target_os = "linux")]
pub(super) fn disk_available(dir: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: `statvfs` fills the zeroed struct from a valid C string.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return None;
    }
    Some(st.f_bavail as u64 * st.f_frsize as u64)
}

#[cfg(not(target_os = "linux"))]
pub(super) fn disk_available(_dir: &Path) -> Option<u64> {
    None
}

/// Entries packed as in a file's payload, read as `D + s` (see [`entry`]).
#[derive(Clone, Copy)]
pub(crate) struct Entries<'a> {
    pub(super) level: PackedLevel<'a>,
    /// [`entry::shift`]: 1 where the code is `own = (D + s) / 2`, else 0.
    pub(super) shift: u32,
}

impl Entries<'_> {
    pub(super) const NONE: Entries<'static> = Entries {
        level: PackedLevel {
            entries: &[],
            bits: 1,
        },
        shift: 0,
    };

    /// `D + s` of rank `i`.
    #[inline(always)]
    pub(super) fn get(&self, i: u64) -> u8 {
        self.level.get(i) << self.shift
    }

    #[inline(always)]
    pub(super) fn prefetch(&self, i: u64) {
        self.level.prefetch(i);
    }
}

/// A level's entries packed in anonymous memory, as a file's payload.
pub(crate) struct Packed {
    pub(super) buf: Buf,
    pub(super) bits: u32,
    pub(super) shift: u32,
}

impl Packed {
    pub(super) fn new(
        r: &TableRules,
        s: u32,
        count: u64,
        scratch: Option<&Path>,
    ) -> std::io::Result<Packed> {
        let bits = r.bits(s);
        Ok(Packed {
            buf: Buf::new(payload_len(count, bits) as usize, 0, scratch)?,
            bits,
            shift: entry::shift(r.counted()),
        })
    }

    /// The same entries in a scratch file in `dir`.
    pub(super) fn spill(&self, dir: &Path) -> std::io::Result<Packed> {
        let buf = Buf::copy_of(self.buf.bytes(), Some(dir))?;
        buf.write_back();
        Ok(Packed {
            buf,
            bits: self.bits,
            shift: self.shift,
        })
    }

    pub(super) fn entries(&self) -> Entries<'_> {
        Entries {
            level: PackedLevel {
                entries: self.buf.bytes(),
                bits: self.bits,
            },
            shift: self.shift,
        }
    }

    /// Stores `vals` (`D + s` each) as the entries from rank `start` on. Runs stored at once
    /// from several threads must not overlap: the bytes two runs share are or-ed in.
    pub(super) fn store_run(&self, start: u64, vals: &[u8]) {
        let codes = vals.iter().map(|&v| v >> self.shift);
        entry::store_run(self.buf.cells(), self.bits, start, codes);
    }
}

/// Where the block of each row starts among the positions of `s` seeds:
/// `heads[p][rank of x among the rows of p seeds]`.
pub(super) fn heads(m: usize, b: &Binomials, s: u32) -> Vec<Vec<u64>> {
    let k = 2 * m;
    (0..=s)
        .into_par_iter()
        .map(|p| {
            let mut xy = [0u8; 16];
            xy[m - 1] = p as u8;
            xy[k - 1] = (s - p) as u8;
            (0..b.count(p, m))
                .map(|_| {
                    let h = b.rank(&xy, k, s);
                    next(&mut xy[..m], m);
                    h
                })
                .collect()
        })
        .collect()
}

/// Fills `dst` with the other copy of a level of `s` seeds, read through `src`:
/// `dst[head(a) + rank(b)] = src[head(b) + rank(a)]` for every pair of rows `(a, b)`; the
/// level by rank from its transposed copy, or the reverse. Blocked by 16 rows `a`, so that
/// `src` is read 16 neighbouring entries at a time and `dst` written in runs.
pub(super) fn transpose_into(
    dst: &Packed,
    heads: &[Vec<u64>],
    s: u32,
    src: &(dyn Fn(u64) -> u8 + Sync),
) {
    const ROWS: usize = 16;
    let items: Vec<(usize, usize)> = (0..=s as usize)
        .flat_map(|p| (0..heads[p].len()).step_by(ROWS).map(move |a| (p, a)))
        .collect();
    items.par_iter().for_each_init(Vec::new, |buf, &(p, a0)| {
        let (ha, hb) = (&heads[p], &heads[s as usize - p]);
        let (n, rows) = (hb.len(), ROWS.min(heads[p].len() - a0));
        buf.clear();
        buf.resize(rows * n, 0u8);
        for (rb, &h) in hb.iter().enumerate() {
            for k in 0..rows {
                buf[k * n + rb] = src(h + (a0 + k) as u64);
            }
        }
        for k in 0..rows {
            dst.store_run(ha[a0 + k], &buf[k * n..(k + 1) * n]);
        }
    });
}

/// Packs level `s` (`D + s` a byte, in `v`'s order).
pub(super) fn pack(
    r: &TableRules,
    s: u32,
    v: &[u8],
    scratch: Option<&Path>,
) -> std::io::Result<Packed> {
    let p = Packed::new(r, s, v.len() as u64, scratch)?;
    const RUN: usize = 1 << 20;
    v.par_chunks(RUN)
        .enumerate()
        .for_each(|(i, c)| p.store_run((i * RUN) as u64, c));
    Ok(p)
}
