//! A proof's progress on standard error, for `solve` and the split proofs' jobs.

use std::time::Duration;

/// How far a proof has come, on standard error: a spinner's line on a terminal, else (a log
/// of a proof that takes hours) a line every [`ProofProgress::EVERY`].
pub(crate) struct ProofProgress {
    bar: indicatif::ProgressBar,
    terminal: bool,
    /// When the next line is due, for a log.
    next: std::sync::Mutex<Duration>,
}

impl ProofProgress {
    const EVERY: Duration = Duration::from_secs(600);

    pub(crate) fn new() -> ProofProgress {
        use std::io::IsTerminal;
        ProofProgress {
            bar: indicatif::ProgressBar::new_spinner(),
            terminal: std::io::stderr().is_terminal(),
            next: std::sync::Mutex::new(Self::EVERY),
        }
    }

    /// Shows `what` is being proven, with `p`'s nodes and time.
    pub(crate) fn show(&self, what: &str, p: &mancala_engine::SolveProgress) {
        let line = format!(
            "proving: {what}; {:.1} M nodes in {:.0} s",
            p.nodes as f64 / 1e6,
            p.elapsed.as_secs_f64()
        );
        if self.terminal {
            self.bar.set_message(line);
            self.bar.tick();
            return;
        }
        let mut next = self.next.lock().unwrap_or_else(|e| e.into_inner());
        if p.elapsed >= *next {
            eprintln!("{line}");
            *next = p.elapsed + Self::EVERY;
        }
    }

    pub(crate) fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
