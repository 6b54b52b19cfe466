//! The move list beside the board: the game's turns numbered as the notation numbers them,
//! wrapped to the width of the screen, and the line that holds a ply.

use mancala_core::notation;
use mancala_core::Side;

use super::App;

impl App {
    /// The move list's line number (as the notation numbers it) of the turn holding ply `k`
    /// (1-based: the `k`-th move); `None` for the start.
    pub fn line_of_move(&self, k: usize) -> Option<usize> {
        let turns = self.game().turns();
        let first_north = usize::from(turns.first().is_some_and(|t| t.0 == Side::North));
        let mut ply = 0;
        for (i, t) in turns.iter().enumerate() {
            ply += t.1.len();
            if k >= 1 && k <= ply {
                return Some((i + first_north) / 2 + 1);
            }
        }
        None
    }

    /// The game so far, numbered as the notation writes it, one line per move number where
    /// it fits in `width` (else more, every turn whole), and the index of the (first) line
    /// holding ply `at` (the last ply played before it).
    pub fn move_lines(&self, at: usize, width: usize) -> (Vec<String>, Option<usize>) {
        let n = self.notation();
        let turns = self.game().turns();
        let mut lines = Vec::new();
        let mut current = None;
        let mut ply = 0;
        let mut k = 0;
        let mut number = 1;
        // A move pair: `  1. a        b` where both fit, else each turn on lines of its own,
        // long turns broken after a `-`, so that no turn is ever cut off.
        let push = |lines: &mut Vec<String>, number: usize, a: &str, b: Option<&str>| {
            let head = format!("{number:>3}. ");
            let room = width.saturating_sub(head.len()).max(8);
            let one = match b {
                Some(b) => format!("{a:<8} {b}"),
                None => a.to_string(),
            };
            if one.chars().count() <= room {
                lines.push(format!("{head}{one}"));
                return;
            }
            let pad = " ".repeat(head.len());
            let mut first = true;
            for t in std::iter::once(a).chain(b) {
                for piece in wrap_turn(t, room) {
                    lines.push(format!("{}{piece}", if first { &head } else { &pad }));
                    first = false;
                }
            }
        };
        if turns.first().is_some_and(|t| t.0 == Side::North) {
            ply += turns[0].1.len();
            let b = notation::turn_text(n, Side::North, &turns[0].1);
            if at >= 1 && at <= ply {
                current = Some(0);
            }
            push(&mut lines, number, "...", Some(&b));
            number += 1;
            k = 1;
        }
        while k < turns.len() {
            let first_start = ply;
            let a = notation::turn_text(n, turns[k].0, &turns[k].1);
            ply += turns[k].1.len();
            let b = turns.get(k + 1).map(|t| {
                ply += t.1.len();
                notation::turn_text(n, t.0, &t.1)
            });
            if at > first_start && at <= ply {
                current = Some(lines.len());
            }
            push(&mut lines, number, &a, b.as_deref());
            number += 1;
            k += 2;
        }
        (lines, current)
    }
}

/// A turn's text in pieces of at most `room` characters, broken after a `-` between moves
/// where one is near (else anywhere).
fn wrap_turn(t: &str, room: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest: Vec<char> = t.chars().collect();
    while rest.len() > room {
        let cut = rest[..room]
            .iter()
            .rposition(|&c| c == '-' || c == ' ')
            .map(|i| i + 1)
            .filter(|&i| i > room / 3)
            .unwrap_or(room);
        out.push(
            rest[..cut]
                .iter()
                .collect::<String>()
                .trim_end()
                .to_string(),
        );
        rest.drain(..cut);
    }
    out.push(rest.into_iter().collect());
    out
}
