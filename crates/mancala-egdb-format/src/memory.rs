//! What the machine's memory allows, as the system reports it (Linux's `/proc`; `None`
//! elsewhere).
//!
//! Both the table build (`mancala-egdb`, which sizes its working set of levels to what is
//! available and reports its peak) and the search (`mancala-engine`, which caps its
//! transposition table at what is available) size their tables to the machine. The one reading
//! lives here because this crate is what the tables and the search share and the one both
//! depend on; the core stays pure (no I/O, builds for `wasm32-unknown-unknown`).

/// Memory the system can still give this process without swapping (`MemAvailable`), in
/// bytes, where the system says.
pub fn mem_available() -> Option<u64> {
    kib_field("/proc/meminfo", "MemAvailable:")
}

/// Peak resident memory of this process in bytes (`VmHWM`), where the system says.
pub fn peak_memory() -> Option<u64> {
    kib_field("/proc/self/status", "VmHWM:")
}

/// The value of the line of `file` that starts with `key`, given in kB, in bytes.
fn kib_field(file: &str, key: &str) -> Option<u64> {
    let text = std::fs::read_to_string(file).ok()?;
    parse_kib(&text, key)
}

/// The `key` line's first number (kB) in `text`, in bytes.
fn parse_kib(text: &str, key: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(key))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_key_line_in_kib() {
        let text = "MemTotal:       24576000 kB\nMemAvailable:   12000000 kB\n";
        assert_eq!(parse_kib(text, "MemAvailable:"), Some(12_000_000 * 1024));
        assert_eq!(parse_kib(text, "VmHWM:"), None);
        assert_eq!(parse_kib("VmHWM: lots kB", "VmHWM:"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn linux_reports_both() {
        assert!(mem_available().is_some_and(|m| m > 0));
        assert!(peak_memory().is_some_and(|m| m > 0));
    }
}
