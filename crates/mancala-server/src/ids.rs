//! Random ids and secrets (games' ids, seat tokens, invitations, session secrets), and the
//! comparison of a secret that a request shows with the one kept.

use crate::clock::now_ms;

/// A random lowercase hex string of `bytes` random bytes.
pub fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    if getrandom::fill(&mut buf).is_err() {
        // Never expected; fall back to the clock and the address space layout.
        let x = now_ms() as u64 ^ (&buf as *const _ as u64);
        for (i, b) in buf.iter_mut().enumerate() {
            *b = (x.rotate_left(i as u32 * 8) ^ (i as u64 * 0x9E37_79B9)) as u8;
        }
    }
    buf.iter().map(|b| format!("{b:02x}")).collect()
}

/// Compares two secrets in time independent of where they differ.
pub(crate) fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}
