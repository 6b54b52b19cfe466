//! The game's record saved (text, or JSON for a `.json` file) and opened, the opened game
//! shown at its end in replay mode.

use anyhow::{bail, Context, Result};
use mancala_core::{Record, Rules, Side};

use super::App;

impl App {
    fn record(&self) -> Record {
        self.session.record()
    }

    pub fn save(&mut self, path: &str) -> Result<()> {
        if path.is_empty() {
            bail!("give a file name");
        }
        let rec = self.record();
        let text = if path.ends_with(".json") {
            serde_json::to_string_pretty(&rec)? + "\n"
        } else {
            rec.to_text()?
        };
        std::fs::write(path, text).with_context(|| format!("writing {path}"))?;
        self.file = Some(path.to_string());
        Ok(())
    }

    /// Opens the record at `path`; `rules`, when given, are its rules where it names none
    /// and must be its rules where it does (as for `replay`).
    pub fn load(&mut self, path: &str, rules: Option<Rules>) -> Result<()> {
        // A record whose annotations or score disagree with its moves opens anyway (as
        // `--lenient` elsewhere), and the message says where.
        let (rec, game, note) = crate::input::load_record_noting(path, rules)?;
        let players = self.players();
        self.new_game(game, players);
        self.names = [rec.players.south.clone(), rec.players.north.clone()];
        // A loaded game opens at its end, in replay mode, so nobody moves by surprise.
        self.replay = Some(self.game().moves().len());
        self.file = Some(path.to_string());
        let who = match &self.names {
            [None, None] => String::new(),
            [s, n] => self.tf(
                "tui.msg.who",
                &[
                    ("south", &s.as_deref().unwrap_or(self.side(Side::South))),
                    ("north", &n.as_deref().unwrap_or(self.side(Side::North))),
                ],
            ),
        };
        let result = match rec.result.as_ref().and_then(|r| r.reason.clone()) {
            Some(reason) if !self.game().is_over() => {
                let s = self.game().scores();
                let score = self.tf("result.line.score", &[("south", &s[0]), ("north", &s[1])]);
                format!("{reason}, {score}")
            }
            _ => crate::board::result_line_in(self.game(), self.lang),
        };
        self.message = self.tf(
            "tui.msg.opened",
            &[
                ("path", &path),
                ("who", &who),
                ("n", &self.game().moves().len()),
                ("game", &self.game().rules().title_in(self.lang)),
                ("result", &result),
            ],
        );
        if let Some(e) = note {
            self.message += &self.tf("tui.msg.note", &[("note", &format!("{e:#}"))]);
        }
        Ok(())
    }
}
