//! The app's keys: in play, in replay mode, in the help and in the text prompts (save, open,
//! jump to a line); the new-game screen's are in `setup`.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::jobs::{Analysis, JobKind};
use super::{view, App, Overlay, PromptKind};
use mancala_core::Side;

impl App {
    pub fn on_key(&mut self, k: KeyEvent) {
        if k.kind == KeyEventKind::Release {
            return;
        }
        if k.modifiers.contains(KeyModifiers::CONTROL) && k.code == KeyCode::Char('c') {
            self.quit = true;
            return;
        }
        // Any key ends the sowing shown; Space and Esc do only that.
        if self.skip_anim() && matches!(k.code, KeyCode::Char(' ') | KeyCode::Esc) {
            return;
        }
        match self.overlay.take() {
            Some(Overlay::Help(top)) => {
                let top = match k.code {
                    KeyCode::Esc | KeyCode::Char('?') | KeyCode::Char('q') | KeyCode::Enter => {
                        return
                    }
                    KeyCode::Down | KeyCode::Char('j') => top.saturating_add(1),
                    KeyCode::Up | KeyCode::Char('k') => top.saturating_sub(1),
                    KeyCode::PageDown | KeyCode::Char(' ') => top.saturating_add(10),
                    KeyCode::PageUp => top.saturating_sub(10),
                    KeyCode::Home => 0,
                    KeyCode::End => u16::MAX,
                    _ => top,
                };
                // The view keeps the last line at the bottom; so does the offset here.
                self.overlay = Some(Overlay::Help(top.min(view::help_lines() as u16)));
            }
            Some(Overlay::Prompt { kind, input }) => self.prompt_key(kind, input, k),
            Some(Overlay::Setup(s)) => self.setup_key(s, k),
            // Any key closes the values; the window is a look, not a mode.
            Some(Overlay::Values(_)) => {}
            None if self.replay.is_some() => self.replay_key(k),
            None => self.play_key(k),
        }
    }

    fn play_key(&mut self, k: KeyEvent) {
        let armed = std::mem::take(&mut self.quit_armed);
        match k.code {
            KeyCode::Char('q') if armed || !self.in_progress() => self.quit = true,
            KeyCode::Char('q') => {
                self.quit_armed = true;
                self.message = self.tr("tui.msg.quit-confirm").into();
            }
            KeyCode::Char('?') | KeyCode::F(1) => self.overlay = Some(Overlay::Help(0)),
            KeyCode::Left => self.move_cursor(-1),
            KeyCode::Right => self.move_cursor(1),
            KeyCode::Enter | KeyCode::Char(' ') => {
                if self.human_to_move() {
                    let pit = self.cursor;
                    if let Err(e) = self.play(pit) {
                        self.message = self.said(&e);
                    }
                } else if self.game().is_over() {
                    self.message = self.tr("tui.msg.over-new").into();
                }
            }
            KeyCode::Char(c @ '1'..='9') => {
                let pit = c as u8 - b'1';
                if !self.human_to_move() {
                    self.message = self.tr("tui.msg.not-your-turn").into();
                } else if let Err(e) = self.play(pit) {
                    self.message = self.said(&e);
                } else {
                    self.cursor = pit;
                    self.fix_cursor();
                }
            }
            KeyCode::Char('w') => {
                // The pie rule's swap; the game says why where it is not legal.
                if !self.human_to_move() {
                    self.message = self.tr("tui.msg.not-your-turn").into();
                } else if let Err(e) = self.play(mancala_core::SWAP) {
                    self.message = self.said(&e);
                }
            }
            KeyCode::Char('u') => self.undo(),
            KeyCode::Char('r') => self.redo(),
            KeyCode::Char('h') | KeyCode::Char('v') | KeyCode::Char('m') => {
                if self.game().is_over() {
                    self.message = self.tr("tui.msg.over").into();
                } else {
                    let a = match k.code {
                        KeyCode::Char('h') => Analysis::Hint,
                        KeyCode::Char('v') => Analysis::Value,
                        _ => Analysis::Moves,
                    };
                    self.cancel_job();
                    self.engine_line = Some(self.tr("tui.msg.searching").into());
                    self.start_job(JobKind::Analysis(a));
                }
            }
            KeyCode::Char('s') => {
                self.overlay = Some(Overlay::Prompt {
                    kind: PromptKind::Save,
                    input: self
                        .file
                        .clone()
                        .unwrap_or_else(|| format!("{}-game.txt", self.game().rules().preset)),
                })
            }
            KeyCode::Char('o') | KeyCode::Char('l') => {
                self.overlay = Some(Overlay::Prompt {
                    kind: PromptKind::Load,
                    input: self.file.clone().unwrap_or_default(),
                })
            }
            KeyCode::Char('p') => {
                self.cancel_job();
                self.replay = Some(self.game().moves().len());
                self.message = self.tr("tui.msg.replay").into();
            }
            KeyCode::Char('n') => self.overlay = Some(Overlay::Setup(self.setup())),
            KeyCode::Char('f') => self.bottom = self.bottom.other(),
            KeyCode::Esc => {
                self.message.clear();
                self.engine_line = None;
            }
            _ => {}
        }
    }

    fn replay_key(&mut self, k: KeyEvent) {
        let len = self.game().moves().len();
        let Some(at) = self.replay else { return };
        match k.code {
            KeyCode::Char('q') => self.quit = true,
            KeyCode::Char('?') | KeyCode::F(1) => self.overlay = Some(Overlay::Help(0)),
            KeyCode::Left => self.replay = Some(at.saturating_sub(1)),
            KeyCode::Right => self.replay = Some((at + 1).min(len)),
            KeyCode::Up | KeyCode::PageUp => self.replay = Some(self.turn_start_before(at)),
            KeyCode::Down | KeyCode::PageDown => self.replay = Some(self.turn_end_after(at)),
            KeyCode::Home => self.replay = Some(0),
            KeyCode::End => self.replay = Some(len),
            KeyCode::Char('g') | KeyCode::Char('j') => {
                self.overlay = Some(Overlay::Prompt {
                    kind: PromptKind::Jump,
                    input: String::new(),
                })
            }
            KeyCode::Enter => {
                self.session.back_to(at);
                self.replay = None;
                self.message = if self.session.can_redo() {
                    let n = self.session.redo_len();
                    self.tf("tui.msg.play-on", &[("at", &at), ("n", &n)])
                } else {
                    self.tr("tui.msg.back").into()
                };
                self.fix_cursor();
            }
            KeyCode::Esc | KeyCode::Char('p') => {
                self.replay = None;
                self.message = self.tr("tui.msg.back").into();
            }
            // Save, open, new game and turning the board work here too.
            KeyCode::Char('s' | 'o' | 'l' | 'n' | 'f') => self.play_key(k),
            _ => {}
        }
    }

    /// Ply boundaries of the turns: the plies at which each turn starts, and the end.
    fn turn_bounds(&self) -> Vec<usize> {
        let mut b = vec![0];
        let mut k = 0;
        for (_, moves) in self.game().turns() {
            k += moves.len();
            b.push(k);
        }
        b
    }

    fn turn_start_before(&self, at: usize) -> usize {
        self.turn_bounds()
            .into_iter()
            .rev()
            .find(|&b| b < at)
            .unwrap_or(0)
    }

    fn turn_end_after(&self, at: usize) -> usize {
        self.turn_bounds()
            .into_iter()
            .find(|&b| b > at)
            .unwrap_or(self.game().moves().len())
    }

    fn prompt_key(&mut self, kind: PromptKind, mut input: String, k: KeyEvent) {
        if kind == PromptKind::Overwrite {
            return self.overwrite_key(input, k);
        }
        match k.code {
            KeyCode::Esc => return,
            KeyCode::Enter => {
                let text = input.trim().to_string();
                match kind {
                    PromptKind::Save if std::path::Path::new(&text).exists() => {
                        self.overlay = Some(Overlay::Prompt {
                            kind: PromptKind::Overwrite,
                            input: text,
                        })
                    }
                    PromptKind::Save | PromptKind::Overwrite => self.save_message(&text),
                    PromptKind::Load => match self.load(&text, None) {
                        Ok(()) => {}
                        Err(e) => {
                            self.message =
                                self.tf("tui.msg.open-failed", &[("error", &self.said(&e))])
                        }
                    },
                    PromptKind::Jump => match text.parse::<usize>() {
                        Ok(n) if n >= 1 => {
                            // Line n of the move list: the first player's turn there.
                            let b = self.turn_bounds();
                            let first_north =
                                self.game().turns().first().map(|t| t.0) == Some(Side::North);
                            let turn = (2 * (n - 1)).saturating_sub(first_north as usize);
                            let at = b.get(turn).copied().unwrap_or(self.game().moves().len());
                            self.replay = Some(at);
                        }
                        _ => self.message = self.tf("tui.msg.no-line", &[("text", &text)]),
                    },
                }
                return;
            }
            KeyCode::Backspace => {
                input.pop();
            }
            KeyCode::Char(c) if !k.modifiers.contains(KeyModifiers::CONTROL) => input.push(c),
            _ => {}
        }
        self.overlay = Some(Overlay::Prompt { kind, input });
    }

    /// The answer to "replace `path`?".
    fn overwrite_key(&mut self, path: String, k: KeyEvent) {
        match k.code {
            KeyCode::Char('y' | 'Y') => self.save_message(&path),
            KeyCode::Char('n' | 'N') => {
                self.overlay = Some(Overlay::Prompt {
                    kind: PromptKind::Save,
                    input: path,
                })
            }
            KeyCode::Esc => self.message = self.tf("tui.msg.unchanged", &[("path", &path)]),
            _ => {
                self.overlay = Some(Overlay::Prompt {
                    kind: PromptKind::Overwrite,
                    input: path,
                })
            }
        }
    }

    /// Saves to `path` and says how it went.
    fn save_message(&mut self, path: &str) {
        self.message = match self.save(path) {
            Ok(()) => self.tf("play.saved", &[("path", &path)]),
            Err(e) => self.tf("play.save-failed", &[("error", &format!("{e:#}"))]),
        };
    }
}
