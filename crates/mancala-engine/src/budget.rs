//! What a search may spend, as every search and proof sees it: one [`Budget`], a deadline
//! plus node and depth limits, made once where a request arrives and passed down unchanged,
//! and one stop check ([`Budget::spent`]) for the alpha-beta searches, the proofs and the
//! retrograde solver alike.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::clock::Instant;

/// What a search may spend; it stops at whichever limit comes first. Its clock is a deadline,
/// so the time a caller spends before the search (making a table, a proof tried first) counts.
/// With no limit at all, [`crate::Engine::search`] searches to depth 64 and a proof runs to
/// its end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Budget {
    /// When to stop (`None`: no time limit).
    pub deadline: Option<Instant>,
    /// Deepest iteration in plies (`None`: no depth limit).
    pub depth: Option<u32>,
    /// Nodes, all threads together (`None`: no node limit).
    pub nodes: Option<u64>,
}

impl Budget {
    /// No limit.
    pub const UNLIMITED: Budget = Budget {
        deadline: None,
        depth: None,
        nodes: None,
    };

    /// `time` from now.
    pub fn time(time: Duration) -> Budget {
        Budget::time_from(Instant::now(), time)
    }

    /// `time` from `start` (a time too far to represent is no limit in practice).
    pub fn time_from(start: Instant, time: Duration) -> Budget {
        Budget {
            deadline: Some(deadline_after(start, time)),
            ..Budget::UNLIMITED
        }
    }

    /// `time` from now where one is given, else no time limit.
    pub fn time_opt(time: Option<Duration>) -> Budget {
        time.map_or(Budget::UNLIMITED, Budget::time)
    }

    /// To `depth` plies, with no time limit.
    pub fn depth(depth: u32) -> Budget {
        Budget {
            depth: Some(depth),
            ..Budget::UNLIMITED
        }
    }

    /// This budget with a depth limit of `depth` where one is given.
    pub fn with_depth(self, depth: Option<u32>) -> Budget {
        Budget {
            depth: depth.or(self.depth),
            ..self
        }
    }

    /// The time left (`None`: no time limit; zero once past the deadline).
    pub fn left(&self) -> Option<Duration> {
        self.deadline
            .map(|d| d.saturating_duration_since(Instant::now()))
    }

    /// This budget with its deadline moved in to `num / den` of the time left now (the depth
    /// and node limits kept): a share for one part of a policy.
    pub fn share(&self, num: u32, den: u32) -> Budget {
        Budget {
            deadline: self
                .left()
                .map(|l| deadline_after(Instant::now(), l * num / den.max(1))),
            ..*self
        }
    }

    /// This budget without its depth and node limits (a proof tried within its time).
    pub fn time_only(&self) -> Budget {
        Budget {
            deadline: self.deadline,
            ..Budget::UNLIMITED
        }
    }

    /// Whether the time is up.
    pub fn expired(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// The one stop check of every search: whether `nodes` searched so far, the clock or
    /// the caller's `abort` flag (raised from another thread) ends the search.
    #[inline]
    pub fn spent(&self, nodes: u64, abort: Option<&AtomicBool>) -> bool {
        self.nodes.is_some_and(|n| nodes >= n)
            || self.expired()
            || abort.is_some_and(|a| a.load(Ordering::Relaxed))
    }
}

/// The instant `time` after `start`, or far in the future where that does not fit.
fn deadline_after(start: Instant, time: Duration) -> Instant {
    start
        .checked_add(time)
        .or_else(|| start.checked_add(Duration::from_secs(100 * 365 * 86_400)))
        .unwrap_or(start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_share_is_of_the_time_left_and_keeps_the_other_limits() {
        let b = Budget {
            nodes: Some(7),
            ..Budget::time(Duration::from_secs(100))
        }
        .with_depth(Some(3));
        let half = b.share(1, 2);
        let left = half.left().unwrap();
        assert!(left <= Duration::from_secs(50) && left > Duration::from_secs(49));
        assert_eq!((half.depth, half.nodes), (Some(3), Some(7)));
        assert_eq!(b.time_only().depth, None);
        assert!(Budget::UNLIMITED.left().is_none() && !Budget::UNLIMITED.spent(u64::MAX, None));
        assert!(Budget::time(Duration::ZERO).spent(0, None));
        assert!(Budget {
            nodes: Some(10),
            ..Budget::UNLIMITED
        }
        .spent(10, None));
        let abort = AtomicBool::new(true);
        assert!(Budget::UNLIMITED.spent(0, Some(&abort)));
        // A time too far to represent is no limit in practice, not a panic.
        assert!(!Budget::time(Duration::MAX).expired());
    }
}
