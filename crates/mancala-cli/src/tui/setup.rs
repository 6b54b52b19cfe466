//! The new-game screen: its choices made from the game now (its rules among the presets, the
//! players), and its keys.

use mancala_core::{Game, Preset, Rules};
use mancala_engine::Level;
use ratatui::crossterm::event::{KeyCode, KeyEvent};

use super::{App, Overlay, Player, Setup};

/// 0 = human, 1-8 = level: the setup screen's index of a player.
fn setup_index(p: &Player) -> usize {
    match p {
        Player::Engine(l) => l.level as usize,
        _ => 0,
    }
}

/// The player at the setup screen's index.
fn setup_player(i: usize) -> Player {
    Level::new(i as u8).map_or(Player::Human, Player::Engine)
}

impl App {
    pub(super) fn setup(&self) -> Setup {
        let current = *self.game().rules();
        let mut choices: Vec<Rules> = Preset::ALL.iter().map(|p| p.rules()).collect();
        if !choices.contains(&current) {
            choices.insert(0, current);
        }
        Setup {
            field: 0,
            choice: choices.iter().position(|r| *r == current).unwrap_or(0),
            choices,
            players: [
                setup_index(&self.players()[0]),
                setup_index(&self.players()[1]),
            ],
            discards: self.in_progress(),
            confirm: false,
        }
    }

    pub(super) fn setup_key(&mut self, mut s: Setup, k: KeyEvent) {
        let step = |v: usize, n: usize, d: i32| ((v as i32 + d).rem_euclid(n as i32)) as usize;
        match k.code {
            KeyCode::Esc => return,
            KeyCode::Up => s.field = s.field.saturating_sub(1),
            KeyCode::Down | KeyCode::Tab => s.field = (s.field + 1).min(3),
            KeyCode::Left | KeyCode::Right => {
                let d = if k.code == KeyCode::Left { -1 } else { 1 };
                match s.field {
                    0 => s.choice = step(s.choice, s.choices.len(), d),
                    1 | 2 => s.players[s.field - 1] = step(s.players[s.field - 1], 9, d),
                    _ => {}
                }
            }
            KeyCode::Enter if s.discards && !s.confirm => s.confirm = true,
            KeyCode::Enter => {
                let rules = s.choices[s.choice];
                match Game::from_rules(&rules) {
                    Ok(game) => {
                        let players = s.players.map(setup_player);
                        self.new_game(game, players);
                    }
                    Err(e) => self.message = e.text_in(self.lang),
                }
                return;
            }
            // q cancels here, as Esc does; it quits only from the game.
            KeyCode::Char('q') => return,
            _ => {}
        }
        if k.code != KeyCode::Enter {
            s.confirm = false;
        }
        self.overlay = Some(Overlay::Setup(s));
    }
}
