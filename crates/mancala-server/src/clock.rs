//! Clocks of games between people, kept by the server: Fischer clocks (a start time and an
//! increment each turn, `3+2`) and correspondence time (days a move, `3d`).
//!
//! A clock's whole state is stored with the game (the two sides' times and the moment they
//! were read), so it survives a restart and every server on the database reads the same.
//! The mover's clock runs from the last move (or from the moment both seats were taken);
//! a Fischer increment is added when the turn passes to the opponent, so a turn of extra
//! turns earns one increment. Before a side's first move its clock does not run: that side
//! has [`FIRST_MOVE_MS`] to make it, or the game is cancelled (real-time clocks only).
//!
//! Every time the server stores is read from the wall clock, [`now_ms`].

use crate::view::ClockView;
use mancala_core::time_control::DAY_MS;
use mancala_core::Side;
pub use mancala_core::TimeControl;

/// Time a side has for its first move of a game on a real-time clock: past it the game is
/// cancelled.
pub const FIRST_MOVE_MS: i64 = 30_000;

/// The wall clock in milliseconds since the Unix epoch (0 if the clock is set before it).
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// A game's clock: its control, both sides' times as read at `at_ms`; `at_ms` is `None`
/// until both seats are taken (nobody's time runs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    /// The time control.
    pub control: TimeControl,
    /// `[south, north]`: milliseconds left at `at_ms`.
    pub ms: [i64; 2],
    /// When `ms` was read (the last move, or when the game started), milliseconds since the
    /// Unix epoch.
    pub at_ms: Option<i64>,
}

/// What runs out next in a game: the mover's clock, or his time for a first move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deadline {
    /// The side whose time runs.
    pub side: Side,
    /// When it runs out, milliseconds since the Unix epoch.
    pub at_ms: i64,
    /// True: the side's first move (the game is cancelled at the deadline); false: his
    /// clock (he loses on time).
    pub first_move: bool,
}

impl Clock {
    /// A new game's clock, stopped until both seats are taken.
    pub fn new(control: TimeControl) -> Clock {
        Clock {
            control,
            ms: [control.start_ms(); 2],
            at_ms: None,
        }
    }

    /// What runs out next when `mover` is to move; `moved` says whether he has moved in this
    /// game before. `None` while the clock has not started.
    pub fn deadline(&self, mover: Side, moved: bool) -> Option<Deadline> {
        let at = self.at_ms?;
        let first_move = !moved && self.control.real_time();
        let left = if first_move {
            FIRST_MOVE_MS
        } else {
            self.ms[mover.index()]
        };
        Some(Deadline {
            side: mover,
            at_ms: at + left,
            first_move,
        })
    }

    /// The clock after `mover` moved at `now_ms`: his time less what the move took (unless
    /// it was his first), the increment where `turn_passes`, and a correspondence
    /// opponent's time set to a whole move's.
    pub fn after_move(&self, mover: Side, moved: bool, turn_passes: bool, now_ms: i64) -> Clock {
        let mut c = *self;
        let k = mover.index();
        match self.control {
            TimeControl::Fischer { inc_ms, .. } => {
                if moved {
                    let spent = self.at_ms.map_or(0, |at| (now_ms - at).max(0));
                    c.ms[k] = (c.ms[k] - spent).max(0);
                }
                if turn_passes {
                    c.ms[k] += inc_ms;
                }
            }
            TimeControl::Correspondence { days } => {
                c.ms = [days * DAY_MS; 2];
            }
        }
        c.at_ms = Some(now_ms);
        c
    }

    /// The clock stopped at `now_ms` when the game ends off the board with `mover` to move
    /// (`moved`: he has moved before): his time less what has passed, none left where
    /// `flagged`.
    pub fn stopped(&self, mover: Side, moved: bool, flagged: bool, now_ms: i64) -> Clock {
        let mut c = *self;
        let k = mover.index();
        if flagged {
            c.ms[k] = 0;
        } else if let (true, Some(at)) = (moved || !self.control.real_time(), self.at_ms) {
            c.ms[k] = (c.ms[k] - (now_ms - at).max(0)).max(0);
        }
        c.at_ms = self.at_ms.map(|_| now_ms);
        c
    }

    /// The clock as it shows at `now_ms`: the running side's time less what has passed.
    pub fn view(&self, mover: Option<Side>, moved: bool, now_ms: i64) -> ClockView {
        let mut ms = self.ms;
        let running = mover.filter(|_| self.at_ms.is_some());
        let mut first_move_ms = None;
        if let (Some(side), Some(d)) = (running, running.and_then(|s| self.deadline(s, moved))) {
            let left = (d.at_ms - now_ms).max(0);
            if d.first_move {
                first_move_ms = Some(left);
            } else {
                ms[side.index()] = left;
            }
        }
        ClockView {
            control: self.control.to_string(),
            real_time: self.control.real_time(),
            south_ms: ms[0],
            north_ms: ms[1],
            running: running.map(crate::view::side_str),
            first_move_ms,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_read_and_print() {
        for (text, control) in [
            (
                "3+2",
                TimeControl::Fischer {
                    base_ms: 180_000,
                    inc_ms: 2000,
                },
            ),
            (
                "0.05+0",
                TimeControl::Fischer {
                    base_ms: 3000,
                    inc_ms: 0,
                },
            ),
            ("7d", TimeControl::Correspondence { days: 7 }),
        ] {
            let c: TimeControl = text.parse().unwrap();
            assert_eq!(c, control);
            assert_eq!(c.to_string(), text);
        }
        for bad in [
            "", "3", "3+", "+2", "0+0", "181+0", "3+61", "0d", "15d", "x+1", "3+-1", "NaN+0",
        ] {
            assert!(bad.parse::<TimeControl>().is_err(), "{bad}");
        }
    }

    /// 3+2: South's first move is free (30 s to make it); North's too; then each move costs
    /// its time, and a turn's end earns the increment once, however many extra turns.
    #[test]
    fn fischer_time_runs_for_the_mover_only() {
        let mut c = Clock::new("3+2".parse().unwrap());
        assert_eq!(c.deadline(Side::South, false), None);
        c.at_ms = Some(1000);
        let d = c.deadline(Side::South, false).unwrap();
        assert!(d.first_move && d.at_ms == 1000 + FIRST_MOVE_MS);
        // South's first move after 10 s: his clock did not run; the turn passes, +2 s.
        c = c.after_move(Side::South, false, true, 11_000);
        assert_eq!(c.ms, [182_000, 180_000]);
        // North's first move 5 s later, an extra turn: no increment yet.
        c = c.after_move(Side::North, false, false, 16_000);
        assert_eq!(c.ms, [182_000, 180_000]);
        let d = c.deadline(Side::North, true).unwrap();
        assert_eq!((d.at_ms, d.first_move), (196_000, false));
        // North's second move of the turn, 4 s later: 4 s spent, +2 s as the turn passes.
        c = c.after_move(Side::North, true, true, 20_000);
        assert_eq!(c.ms, [182_000, 178_000]);
        let stopped = c.stopped(Side::South, true, false, 50_000);
        assert_eq!(stopped.ms, [152_000, 178_000]);
        assert_eq!(c.stopped(Side::South, true, true, 50_000).ms, [0, 178_000]);
        let v = c.view(Some(Side::South), true, 50_000);
        assert_eq!(
            (v.south_ms, v.north_ms, v.running),
            (152_000, 178_000, Some("south"))
        );
        assert_eq!(c.view(Some(Side::South), true, 1_000_000).south_ms, 0);
    }

    proptest::proptest! {
        /// Any text reads as a time control or is refused, never a panic; what reads prints
        /// back to a text that reads the same.
        #[test]
        fn any_text_reads_or_is_refused(text in "\\PC{0,12}|[0-9.]{1,6}\\+[0-9]{1,3}|[0-9]{1,2}\\.[0-9]{1,6}\\+[0-9]{1,2}|[0-9]{1,3}d") {
            if let Ok(c) = text.parse::<TimeControl>() {
                proptest::prop_assert_eq!(c.to_string().parse::<TimeControl>().unwrap(), c);
                proptest::prop_assert!(c.start_ms() > 0);
            }
        }

        /// Whatever the moves' times, a Fischer clock never goes below nothing, and a
        /// stopped clock never reads more than the running one did.
        #[test]
        fn clocks_stay_within_their_bounds(gaps in proptest::collection::vec(0i64..400_000, 1..30)) {
            let mut c = Clock::new("3+2".parse().unwrap());
            c.at_ms = Some(0);
            let mut now = 0;
            for (k, gap) in gaps.iter().enumerate() {
                now += gap;
                let side = if k % 2 == 0 { Side::South } else { Side::North };
                let stopped = c.stopped(side, k >= 2, false, now);
                proptest::prop_assert!(stopped.ms[side.index()] <= c.ms[side.index()]);
                c = c.after_move(side, k >= 2, true, now);
                proptest::prop_assert!(c.ms.iter().all(|&m| m >= 0));
            }
        }
    }

    #[test]
    fn correspondence_gives_each_move_its_days() {
        let mut c = Clock::new("1d".parse().unwrap());
        c.at_ms = Some(0);
        let d = c.deadline(Side::South, false).unwrap();
        assert_eq!((d.at_ms, d.first_move), (DAY_MS, false));
        c = c.after_move(Side::South, false, true, DAY_MS - 5);
        assert_eq!(
            c.deadline(Side::North, false).unwrap().at_ms,
            2 * DAY_MS - 5
        );
    }
}
