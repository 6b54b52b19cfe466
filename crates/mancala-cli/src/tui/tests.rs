//! The TUI on ratatui's test backend: snapshots of the main screens (`snapshots/`) and key
//! handling. The snapshots use games between two humans, so they do not change when the
//! engine does.

use std::time::{Duration, Instant};

use mancala_core::{Game, Position, Side};
use mancala_engine::{search, Level, Limits};
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;

use super::{view, App, Overlay, Player, PromptKind};

fn app(rules: &str, players: [Player; 2]) -> App {
    let game = Game::from_rules(&rules.parse().unwrap()).unwrap();
    let mut a = App::new(game, players, 42);
    a.sync = true;
    a.speed_ms = 0;
    a.analysis_limits = Limits {
        depth: Some(4),
        time: None,
        nodes: None,
    };
    // Hints search at once (a test of the proof sets its own time).
    a.hint_time = None;
    a
}

const HUMANS: [Player; 2] = [Player::Human, Player::Human];

fn computer(level: u8) -> Player {
    Player::Engine(Level::new(level).unwrap())
}

fn key(a: &mut App, code: KeyCode) {
    a.on_key(KeyEvent::new(code, KeyModifiers::NONE));
    settle(a);
}

fn keys(a: &mut App, text: &str) {
    for c in text.chars() {
        key(a, KeyCode::Char(c));
    }
}

/// Ticks until nothing is left to do now (the computer has moved, animations are over).
fn settle(a: &mut App) {
    for _ in 0..1000 {
        a.tick(Instant::now() + Duration::from_secs(3600));
        if a.anim.is_none() && !a.computer_to_move() {
            return;
        }
    }
    panic!("the app did not settle");
}

fn screen(a: &App, w: u16, h: u16) -> Terminal<TestBackend> {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| view::render(a, f)).unwrap();
    t
}

fn text(a: &App) -> String {
    screen(a, 110, 28).backend().to_string()
}

#[test]
fn snapshot_start_kalah() {
    let a = app("kalah", HUMANS);
    insta::assert_snapshot!(screen(&a, 110, 26).backend());
}

#[test]
fn snapshot_kauri_game_in_progress() {
    let mut a = app("kauri", HUMANS);
    // f D e B by number, then the cursor's neighbour to the left: a Kauri board with
    // cowries moved about.
    keys(&mut a, "6452");
    key(&mut a, KeyCode::Left);
    key(&mut a, KeyCode::Enter);
    insta::assert_snapshot!(screen(&a, 110, 26).backend());
}

#[test]
fn snapshot_help() {
    let mut a = app("kalah", HUMANS);
    key(&mut a, KeyCode::Char('?'));
    insta::assert_snapshot!(screen(&a, 100, 32).backend());
}

#[test]
fn snapshot_replay() {
    let mut a = app("dracala", HUMANS);
    for _ in 0..6 {
        key(&mut a, KeyCode::Enter);
    }
    keys(&mut a, "p");
    key(&mut a, KeyCode::Home);
    key(&mut a, KeyCode::Right);
    key(&mut a, KeyCode::Right);
    insta::assert_snapshot!(screen(&a, 100, 24).backend());
}

#[test]
fn snapshot_new_game_screen() {
    let mut a = app("kalah", HUMANS);
    keys(&mut a, "n");
    insta::assert_snapshot!(screen(&a, 100, 24).backend());
}

#[test]
fn snapshot_game_over_and_small_terminal() {
    let mut a = app("vaccean", HUMANS);
    for _ in 0..200 {
        if a.game().is_over() {
            break;
        }
        key(&mut a, KeyCode::Enter);
    }
    assert!(a.game().is_over());
    insta::assert_snapshot!("game_over", screen(&a, 90, 24).backend());
    // Too small: a message instead of a broken board; wide enough but short: no moves panel.
    insta::assert_snapshot!("too_small", screen(&a, 30, 10).backend());
    insta::assert_snapshot!("narrow", screen(&a, 50, 17).backend());
}

#[test]
fn cursor_walks_legal_pits_in_screen_order() {
    let mut a = app("kalah,seeds=4", HUMANS);
    assert_eq!(a.cursor, 0);
    key(&mut a, KeyCode::Right);
    key(&mut a, KeyCode::Right);
    assert_eq!(a.cursor, 2);
    key(&mut a, KeyCode::Left);
    assert_eq!(a.cursor, 1);
    key(&mut a, KeyCode::Left);
    key(&mut a, KeyCode::Left);
    assert_eq!(a.cursor, 0, "stops at the edge");
    // North sits on top, his pit 1 on the right: Left goes to his higher pits.
    keys(&mut a, "1");
    assert_eq!(a.game().to_move(), Side::North);
    let start = a.cursor;
    key(&mut a, KeyCode::Left);
    assert_eq!(a.cursor, start + 1);
}

#[test]
fn number_keys_sow_and_illegal_moves_are_refused() {
    let mut a = app("kalah", HUMANS);
    keys(&mut a, "4");
    assert_eq!(a.game().moves().len(), 1);
    assert!(a.message.contains("South sowed D"), "{}", a.message);
    // The last of D's 3 seeds falls in the store: South moves again.
    assert_eq!(a.game().to_move(), Side::South);
    keys(&mut a, "4");
    assert_eq!(a.game().moves().len(), 1, "pit D is empty now");
    assert!(a.message.contains("illegal"), "{}", a.message);
    keys(&mut a, "9");
    assert_eq!(a.game().moves().len(), 1);
}

#[test]
fn undo_and_redo_against_the_computer() {
    let mut a = app("kalah", [Player::Human, computer(2)]);
    key(&mut a, KeyCode::Char('1'));
    let played = a.game().moves().len();
    assert!(played >= 2, "the computer replied");
    assert_eq!(a.game().to_move(), Side::South);
    let after = *a.game().position();
    keys(&mut a, "u");
    assert_eq!(a.game().moves().len(), 0, "back to South's decision");
    assert_eq!(a.session.redo_len(), played);
    keys(&mut a, "r");
    assert_eq!(*a.game().position(), after);
    assert!(!a.session.can_redo());
    // Undo, then a different move: the redo list is dropped.
    keys(&mut a, "u");
    keys(&mut a, "2");
    assert!(!a.session.can_redo());
    keys(&mut a, "uuuu");
    assert!(a.message.contains("Nothing to undo"));
}

/// Undo after an extra turn takes back one sowing, as `play` and the server do: South sows D
/// (an extra turn) and A, the computer answers, and undo leaves South after D, to move.
#[test]
fn undo_after_an_extra_turn_takes_back_one_sowing() {
    let mut a = app("kalah", [Player::Human, computer(1)]);
    keys(&mut a, "41");
    assert!(a.game().moves().len() > 2, "the computer replied");
    keys(&mut a, "u");
    assert_eq!(
        a.game().position().to_string(),
        "kalah/3-3-3-0-4-4/1/3-3-3-3-3-3/0/s"
    );
    assert_eq!(a.game().to_move(), Side::South);
}

#[test]
fn undo_between_two_people_takes_back_one_move() {
    let mut a = app("kalah", HUMANS);
    keys(&mut a, "14");
    assert_eq!(a.game().moves().len(), 2);
    keys(&mut a, "u");
    assert_eq!(a.game().moves().len(), 1);
    assert_eq!(a.game().to_move(), Side::North);
    keys(&mut a, "r");
    assert_eq!(a.game().moves().len(), 2);
}

#[test]
fn replay_steps_jumps_and_plays_on() {
    let mut a = app("kauri", HUMANS);
    keys(&mut a, "64524");
    let all = a.game().moves().len();
    keys(&mut a, "p");
    assert_eq!(a.replay, Some(all));
    key(&mut a, KeyCode::Home);
    assert_eq!(a.replay, Some(0));
    assert_eq!(a.shown_position(), a.game().start());
    key(&mut a, KeyCode::Right);
    key(&mut a, KeyCode::Right);
    assert_eq!(a.replay, Some(2));
    key(&mut a, KeyCode::Left);
    assert_eq!(a.replay, Some(1));
    key(&mut a, KeyCode::End);
    assert_eq!(a.replay, Some(all));
    // Move number 2 starts after two turns.
    keys(&mut a, "g2");
    key(&mut a, KeyCode::Enter);
    assert_eq!(a.replay, Some(2));
    assert!(text(&a).contains("REPLAY: move 2 of 5"));
    // Keys that would play do nothing in replay mode.
    keys(&mut a, "1");
    assert_eq!(a.game().moves().len(), all);
    key(&mut a, KeyCode::Enter);
    assert_eq!(a.replay, None);
    assert_eq!(a.game().moves().len(), 2);
    assert_eq!(a.session.redo_len(), all - 2);
    keys(&mut a, "rrr");
    assert_eq!(a.game().moves().len(), all);
}

#[test]
fn save_and_open_records() {
    let dir = std::env::temp_dir().join(format!("mancala-tui-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["g.txt", "g.json"] {
        let path = dir.join(name).to_string_lossy().into_owned();
        let mut a = app("dracala", HUMANS);
        for _ in 0..7 {
            key(&mut a, KeyCode::Enter);
        }
        let pos = *a.game().position();
        keys(&mut a, "s");
        assert!(matches!(a.overlay, Some(Overlay::Prompt { .. })));
        // Replace the offered name.
        for _ in 0..40 {
            key(&mut a, KeyCode::Backspace);
        }
        keys(&mut a, &path);
        key(&mut a, KeyCode::Enter);
        assert!(a.message.starts_with("Saved"), "{}", a.message);
        let mut b = app("kalah", HUMANS);
        keys(&mut b, "o");
        keys(&mut b, &path);
        key(&mut b, KeyCode::Enter);
        assert_eq!(*b.game().position(), pos, "{}", b.message);
        assert_eq!(b.replay, Some(7), "opens in replay mode at the end");
        keys(&mut b, "o/nonexistent/file");
        key(&mut b, KeyCode::Enter);
        assert!(b.message.starts_with("Could not open"), "{}", b.message);
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A record whose annotation disagrees with its moves (the source's own slip) opens, with a
/// note saying where, as `--lenient` does elsewhere.
#[test]
fn a_record_with_a_wrong_annotation_opens_with_a_note() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/records/kauri-sandler-gering-1.txt"
    );
    let mut a = app("kalah", HUMANS);
    a.load(path, None).unwrap();
    assert!(
        a.message.contains("Note:") && a.message.contains("the record gives"),
        "{}",
        a.message
    );
    assert!(a.game().is_over(), "{}", a.message);
    assert_eq!(a.game().position().scores(), [8, 31]);
}

#[test]
fn saving_over_an_existing_file_asks_first() {
    let dir = std::env::temp_dir().join(format!("mancala-tui-overwrite-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("old.txt").to_string_lossy().into_owned();
    std::fs::write(&path, "keep me").unwrap();
    let mut a = app("kalah", HUMANS);
    key(&mut a, KeyCode::Enter);
    // The file opened is offered as the name: Enter must not replace it unasked.
    a.file = Some(path.clone());
    keys(&mut a, "s");
    key(&mut a, KeyCode::Enter);
    let asking = Some(Overlay::Prompt {
        kind: PromptKind::Overwrite,
        input: path.clone(),
    });
    assert_eq!(a.overlay, asking);
    // The snapshot shows the path as `PATH`, padded to keep the frame.
    let asked = format!("{path} exists.");
    let shown = format!("{:<1$}", "PATH exists.", asked.chars().count());
    insta::assert_snapshot!(
        "overwrite",
        screen(&a, 100, 24)
            .backend()
            .to_string()
            .replace(&asked, &shown)
    );
    // Other keys leave the question open; Esc answers no.
    keys(&mut a, "x");
    assert_eq!(a.overlay, asking);
    key(&mut a, KeyCode::Esc);
    assert_eq!(a.overlay, None);
    assert!(a.message.starts_with("Not saved"), "{}", a.message);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "keep me");
    // n: back to the name, to change it.
    keys(&mut a, "s");
    key(&mut a, KeyCode::Enter);
    keys(&mut a, "n");
    assert_eq!(
        a.overlay,
        Some(Overlay::Prompt {
            kind: PromptKind::Save,
            input: path.clone()
        })
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "keep me");
    // y: replaced.
    key(&mut a, KeyCode::Enter);
    keys(&mut a, "y");
    assert_eq!(a.overlay, None);
    assert!(a.message.starts_with("Saved"), "{}", a.message);
    assert!(std::fs::read_to_string(&path)
        .unwrap()
        .contains("[Variant \"kalah\"]"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn hint_and_value_use_the_engine() {
    let mut a = app("kalah,seeds=4", HUMANS);
    keys(&mut a, "h");
    let want = search(a.game().position(), a.analysis_limits, &[]).unwrap();
    assert_eq!(a.cursor, want.best);
    assert_eq!(a.hint, Some(want.best));
    let line = a.engine_line.clone().unwrap();
    assert!(line.starts_with("Hint: sow "), "{line}");
    assert!(
        line.contains(&format!("{:+} for South", want.eval.margin)),
        "{line}"
    );
    keys(&mut a, "v");
    assert!(a.engine_line.as_deref().unwrap().contains("Line: "));
    // Playing a move clears it.
    key(&mut a, KeyCode::Enter);
    assert!(a.engine_line.is_none());
    // Where the proof finishes, the hint is the best move: E, proven +2.
    let mut a = app("kalah", HUMANS);
    // A proof within half of the hint's time.
    a.hint_time = Some(Duration::from_secs(240));
    keys(&mut a, "h");
    assert_eq!(a.hint, Some(4));
    let line = a.engine_line.clone().unwrap();
    assert!(
        line.contains("+2 for South (South wins by 2), proven"),
        "{line}"
    );
}

#[test]
fn a_misere_hint_says_fewer_seeds_win() {
    // Dracala: the hint's value is South's margin with its outcome in words, never a bare
    // margin read as if more were better.
    let mut a = app("dracala", HUMANS);
    keys(&mut a, "h");
    let want = search(a.game().position(), a.analysis_limits, &[]).unwrap();
    let line = a.engine_line.clone().unwrap();
    // The outcome in words (`South loses by 2`), then the misère note.
    let words = want.eval.outcome_text().replace(" (fewer seeds win)", "");
    assert!(line.contains(&words), "{line}");
    assert!(line.contains("fewer seeds win"), "{line}");
}

#[test]
fn sowing_animation_runs_and_is_skippable() {
    let mut a = app("kalah,seeds=4", HUMANS);
    a.speed_ms = 50;
    a.on_key(KeyEvent::new(KeyCode::Char('1'), KeyModifiers::NONE));
    let frames = a.anim.as_ref().unwrap().frames.len();
    assert_eq!(frames, 5, "the emptied pit, then four seeds");
    // The first frame shows pit A empty and B untouched.
    let f0 = a.frame().unwrap();
    assert_eq!(f0.board.seeds[0][0], 0);
    assert_eq!(f0.board.seeds[0][1], 4);
    a.tick(Instant::now() + Duration::from_millis(120));
    assert!(a.anim.as_ref().unwrap().idx >= 2);
    // Space skips the rest and does nothing else.
    let before = a.game().moves().len();
    a.on_key(KeyEvent::new(KeyCode::Char(' '), KeyModifiers::NONE));
    assert!(a.anim.is_none());
    assert_eq!(a.game().moves().len(), before);
    // Time alone ends an animation too.
    a.on_key(KeyEvent::new(KeyCode::Char('2'), KeyModifiers::NONE));
    assert!(a.anim.is_some());
    a.tick(Instant::now() + Duration::from_secs(10));
    assert!(a.anim.is_none());
}

#[test]
fn quit_help_and_ctrl_c() {
    let mut a = app("kalah", HUMANS);
    keys(&mut a, "?");
    assert_eq!(a.overlay, Some(Overlay::Help(0)));
    keys(&mut a, "q");
    assert_eq!(a.overlay, None, "q closes the help first");
    assert!(!a.quit);
    a.on_key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
    assert!(a.quit);
    let mut b = app("kalah", HUMANS);
    keys(&mut b, "q");
    assert!(b.quit);
}

#[test]
fn help_lists_every_key_the_app_handles() {
    let help: String = view::HELP
        .iter()
        .map(|(k, _)| *k)
        .collect::<Vec<_>>()
        .join(" ");
    for k in [
        "←", "Enter", "1-9", "u", "r", "h", "v", "s", "o", "p", "n", "f", "Esc", "?", "F1", "q",
        "Ctrl-C", "↑", "PgUp", "Home", "End", "g",
    ] {
        assert!(help.contains(k), "help lacks {k}");
    }
}

#[test]
fn new_game_screen_changes_game_and_players() {
    let mut a = app("kalah", HUMANS);
    keys(&mut a, "n");
    key(&mut a, KeyCode::Right); // kalah -> kalah-brazil
    key(&mut a, KeyCode::Down);
    key(&mut a, KeyCode::Down);
    key(&mut a, KeyCode::Right); // North: human -> level 1
    key(&mut a, KeyCode::Enter);
    assert_eq!(a.overlay, None);
    assert_eq!(a.game().rules().preset, mancala_core::Preset::KalahBrazil);
    assert_eq!(a.players(), [Player::Human, computer(1)]);
    // Esc leaves the screen without a new game.
    key(&mut a, KeyCode::Enter);
    let moves = a.game().moves().len();
    keys(&mut a, "n");
    key(&mut a, KeyCode::Esc);
    assert_eq!(a.game().moves().len(), moves);
}

#[test]
fn every_preset_plays_to_the_end_against_the_computer() {
    for preset in mancala_core::Preset::ALL {
        let game = Game::new(Position::start(&preset.rules()).unwrap());
        let mut a = App::new(game, [Player::Human, computer(1)], 5);
        a.sync = true;
        a.speed_ms = 0;
        settle(&mut a);
        for _ in 0..2000 {
            if a.game().is_over() {
                break;
            }
            key(&mut a, KeyCode::Enter);
        }
        assert!(a.game().is_over(), "{preset}");
        assert!(text(&a).contains("Game over"), "{preset}");
    }
}

#[test]
fn the_human_playing_north_sits_at_the_bottom() {
    let mut a = app("kalah", [computer(1), Player::Human]);
    assert_eq!(a.bottom, Side::North);
    settle(&mut a);
    assert_eq!(a.game().to_move(), Side::North, "the computer opened");
    keys(&mut a, "f");
    assert_eq!(a.bottom, Side::South);
}

/// Column of the first cell on row `y` whose symbol is `s`.
fn find_x(t: &Terminal<TestBackend>, y: u16, s: &str) -> u16 {
    let buf = t.backend().buffer();
    (0..buf.area.width)
        .find(|&x| buf[(x, y)].symbol() == s)
        .unwrap_or_else(|| panic!("`{s}` not on row {y}"))
}

#[test]
fn highlights_last_move_cursor_and_sowing() {
    use ratatui::style::{Color, Modifier};
    // Rows of the board block: 2 top labels, 4 top pits, 5 stores, 6 bottom pits, 8 labels.
    let mut a = app("kalah,seeds=4", HUMANS);
    keys(&mut a, "1");
    let t = screen(&a, 110, 26);
    let buf = t.backend().buffer();
    let x = find_x(&t, 8, "A");
    assert_eq!(buf[(x, 8)].fg, Color::Yellow, "label of the last move");
    assert_eq!(buf[(x, 6)].fg, Color::Yellow, "pit of the last move");
    // North to move: his cursor pit is drawn reversed, under its letter.
    let cursor_letter = a.notation().move_text(Side::North, a.cursor).to_string();
    let x = find_x(&t, 2, &cursor_letter);
    assert!(buf[(x, 4)].modifier.contains(Modifier::REVERSED));
    // The top row is North's, pit a at the right: b is to the left of a.
    assert!(find_x(&t, 2, "b") < find_x(&t, 2, "a"));
    // A sowing in progress: the pit the last seed fell in is green.
    a.speed_ms = 50;
    a.on_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
    a.tick(Instant::now() + Duration::from_millis(60));
    let t = screen(&a, 110, 26);
    let buf = t.backend().buffer();
    let green = (0..buf.area.width)
        .flat_map(|x| (0..buf.area.height).map(move |y| (x, y)))
        .filter(|&p| buf[p].bg == Color::Green)
        .count();
    assert!(green > 0, "no pit lit during the sowing");
}

/// The shortest line of moves from `g` to a draw by repetition, within `depth` moves.
fn line_to_repetition(g: &mut Game, depth: usize) -> Option<Vec<u8>> {
    if g.ended_by_repetition() {
        return Some(Vec::new());
    }
    if g.is_over() || depth == 0 {
        return None;
    }
    for pit in g.legal_moves().as_slice().to_vec() {
        g.play(pit).unwrap();
        let found = line_to_repetition(g, depth - 1);
        g.undo();
        if let Some(mut line) = found {
            line.insert(0, pit);
            return Some(line);
        }
    }
    None
}

#[test]
fn a_draw_by_repetition_shows_nobody_to_move() {
    // Equal stores and no seeds left: Kauri goes on with the cowries, which can circle until
    // a position occurs a third time, a draw.
    let start: Position = "kauri,pits=2,seeds=1/0c2-0/2/0c2-0/2/s".parse().unwrap();
    let line = (1..14)
        .find_map(|d| line_to_repetition(&mut Game::new(start), d))
        .expect("a repetition");
    let mut a = App::new(Game::new(start), HUMANS, 42);
    a.sync = true;
    a.speed_ms = 0;
    for pit in line {
        keys(&mut a, &(pit + 1).to_string());
    }
    assert!(a.game().ended_by_repetition(), "{}", a.game().position());
    assert!(!a.game().position().is_over());
    let t = text(&a);
    assert!(t.contains("Game over"), "{t}");
    assert!(!t.contains("to move"), "{t}");
}

#[test]
fn help_and_key_bar_are_readable_at_80x24() {
    let mut a = app("kalah", HUMANS);
    let bar = screen(&a, 80, 24).backend().to_string();
    let last = bar.lines().last().unwrap().to_string();
    assert!(last.contains("? help") && last.contains("h hint"), "{last}");
    // Every key on the bar is whole: it ends with a key and its word, not a cut one.
    assert!(
        last.trim_matches('"')
            .trim_end()
            .ends_with(char::is_alphabetic),
        "{last}"
    );
    keys(&mut a, "?");
    let t = screen(&a, 80, 24).backend().to_string();
    assert!(t.contains("Keys 1-22 of "), "{t}");
    assert!(t.contains("choose a pit of the side to move"), "{t}");
    assert!(!t.contains("start, cancel"), "{t}");
    key(&mut a, KeyCode::End);
    let t = screen(&a, 80, 24).backend().to_string();
    assert!(t.contains("start, cancel"), "the last key is reached:\n{t}");
    assert!(!t.contains("choose a pit of the side to move"), "{t}");
    key(&mut a, KeyCode::Home);
    assert_eq!(a.overlay, Some(Overlay::Help(0)));
    key(&mut a, KeyCode::Esc);
    assert_eq!(a.overlay, None);
}

#[test]
fn long_turns_are_whole_in_the_move_list() {
    // Kauri's record ends with South sowing three times while North passes: d-a-f (+34).
    let text = include_str!("../../../../examples/records/kauri-gering-van-patten.txt");
    let game = mancala_core::Record::parse(text, None)
        .unwrap()
        .replay()
        .unwrap();
    let mut a = App::new(game, HUMANS, 42);
    a.sync = true;
    let t = screen(&a, 80, 24).backend().to_string();
    assert!(t.contains("d-a-f (+34)"), "{t}");
    // A turn too long for the panel goes on lines of its own, broken after a move.
    let (lines, _) = a.move_lines(a.game().moves().len(), 12);
    assert!(lines.iter().all(|l| l.chars().count() <= 12), "{lines:?}");
    assert_eq!(
        lines[lines.len() - 2..],
        ["  7. d-a-f", "     (+34)"],
        "{lines:?}"
    );
    // At the panel's width the turn and its reply share a line where both fit.
    let (lines, _) = a.move_lines(a.game().moves().len(), 26);
    assert_eq!(lines[2], "  3. b        C (+2)");
}

#[test]
fn the_event_log_keeps_a_players_move_when_the_computer_answers() {
    // Kalah(6,3): South's D ends in his store (again), then A; the computer answers.
    let mut a = app("kalah", [Player::Human, computer(1)]);
    keys(&mut a, "4");
    keys(&mut a, "1");
    settle(&mut a);
    assert_eq!(a.game().moves().len(), 3, "{}", a.game().position());
    let t = screen(&a, 80, 24).backend().to_string();
    assert!(
        t.contains("South sowed D. Last seed in the store: again."),
        "{t}"
    );
    assert!(t.contains("South sowed A."), "{t}");
    assert!(t.contains("North sowed"), "{t}");
}

#[test]
fn a_game_in_progress_is_not_discarded_without_asking() {
    let mut a = app("kalah", HUMANS);
    keys(&mut a, "1");
    // The new-game window: q cancels it (it does not quit), Start is in view, and starting
    // over a game in progress takes a second Enter.
    keys(&mut a, "n");
    assert!(screen(&a, 80, 24)
        .backend()
        .to_string()
        .contains("[ Start ]"));
    keys(&mut a, "q");
    assert!(a.overlay.is_none() && !a.quit);
    keys(&mut a, "n");
    key(&mut a, KeyCode::Enter);
    assert!(matches!(a.overlay, Some(Overlay::Setup(_))));
    assert!(screen(&a, 80, 24)
        .backend()
        .to_string()
        .contains("Enter again discards"));
    assert_eq!(a.game().moves().len(), 1);
    key(&mut a, KeyCode::Enter);
    assert!(a.overlay.is_none());
    assert_eq!(a.game().moves().len(), 0);
    // q over a game in progress asks first; any other key forgets it.
    keys(&mut a, "1q");
    assert!(!a.quit && a.message.starts_with("q again quits"));
    key(&mut a, KeyCode::Left);
    keys(&mut a, "q");
    assert!(!a.quit);
    keys(&mut a, "q");
    assert!(a.quit);
}

#[test]
fn an_opened_record_shows_its_players_and_result() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/records/kauri-gering-van-patten.txt"
    );
    let mut a = app("kalah", HUMANS);
    a.load(path, None).unwrap();
    let t = screen(&a, 110, 28).backend().to_string();
    assert!(t.contains("South: Ralf Gering"), "{t}");
    assert!(t.contains("North: Gregory K. van Patten"), "{t}");
    assert!(
        a.message.contains("Ralf Gering v Gregory K. van Patten")
            && a.message.contains("South wins"),
        "{}",
        a.message
    );
}

#[test]
fn a_kauri_tie_won_by_the_cowries_says_so() {
    // Equal stores, no seeds: the cowries circle until a side cannot move; South, with perfect
    // play, wins the tie (see `solve`'s test of this position).
    let start: Position = "kauri,pits=2,seeds=1/0c2-0/2/0c2-0/2/s".parse().unwrap();
    let mut g = Game::new(start);
    while !g.is_over() {
        let r = search(
            g.position(),
            Limits {
                depth: Some(12),
                time: None,
                nodes: None,
            },
            g.history(),
        )
        .unwrap();
        g.play(r.best).unwrap();
    }
    assert!(!g.ended_by_repetition(), "{}", g.position());
    let line = crate::board::result_line_in(&g, mancala_core::i18n::Lang::En);
    assert_eq!(
        line,
        "South wins on equal seeds by the cowrie rule. South 2 : North 2"
    );
}

/// `w` swaps under the pie rule, only where the swap is legal, and says why elsewhere.
#[test]
fn w_swaps_under_the_pie_rule() {
    let mut a = app(
        "kalah,pits=7,seeds=7,first-move-extra-turn=false,pie",
        HUMANS,
    );
    keys(&mut a, "w");
    assert_eq!(a.game().moves().len(), 0);
    assert!(
        a.message.contains("a swap is only North's first action"),
        "{}",
        a.message
    );
    keys(&mut a, "1");
    assert_eq!(
        a.game().to_move(),
        Side::North,
        "no extra turn on the first move"
    );
    let before = *a.game().position();
    keys(&mut a, "w");
    assert_eq!(*a.game().position(), before.mirrored());
    assert_eq!(a.game().to_move(), Side::South);
    assert!(a.message.contains("North swapped"), "{}", a.message);
    assert!(
        a.game().legal_moves().contains(a.cursor),
        "the cursor is on a pit"
    );
    // Undo takes the swap back like any move.
    keys(&mut a, "u");
    assert_eq!(*a.game().position(), before);
}

/// The final margin of `me` with perfect play from `p`, by plain minimax (no engine code).
fn minimax(p: &Position, me: Side) -> i32 {
    if p.is_over() {
        let s = p.scores();
        return s[me.index()] as i32 - s[me.other().index()] as i32;
    }
    let mover = p.to_move();
    let good = |m: i32| {
        let m = if mover == me { m } else { -m };
        if p.rules().misere() {
            -m
        } else {
            m
        }
    };
    p.legal_moves()
        .as_slice()
        .iter()
        .map(|&pit| {
            let mut c = *p;
            c.play(pit).unwrap();
            minimax(&c, me)
        })
        .max_by_key(|&m| good(m))
        .unwrap()
}

#[test]
fn m_shows_every_moves_value_at_80x24() {
    // A Kalah endgame, North to move: every move proven at once, as minimax values it.
    let pos: Position = "kalah/1-0-2-0-0-1/14/0-3-0-1-0-2/12/n".parse().unwrap();
    let mut a = App::new(Game::new(pos), HUMANS, 42);
    a.sync = true;
    a.speed_ms = 0;
    keys(&mut a, "m");
    let Some(Overlay::Values(lines)) = a.overlay.clone() else {
        panic!("no values shown: {:?}", a.overlay);
    };
    let n = a.notation();
    let mut want: Vec<(i32, String)> = pos
        .legal_moves()
        .as_slice()
        .iter()
        .map(|&pit| {
            let mut c = pos;
            c.play(pit).unwrap();
            let m = minimax(&c, Side::North);
            (
                -m,
                format!("{}  {m:+} for North", n.move_text(Side::North, pit)),
            )
        })
        .collect();
    want.sort();
    assert_eq!(lines.len(), want.len());
    for (line, (_, start)) in lines.iter().zip(&want) {
        assert!(line.starts_with(start.as_str()), "{line} / {start}");
        assert!(line.contains(", proven"), "{line}");
    }
    // The best move is the hint; the others say what they give away.
    assert!(!lines[0].contains("gives away"));
    assert!(lines[1].contains("gives away 4"), "{}", lines[1]);
    let t = screen(&a, 80, 24).backend().to_string();
    assert!(t.contains("Every move's value, best first"), "{t}");
    for l in &lines {
        assert!(t.contains(l.as_str()), "{l} not whole at 80x24:\n{t}");
    }
    // Any key closes it.
    key(&mut a, KeyCode::Char('x'));
    assert!(a.overlay.is_none());

    // Dracala, fewer seeds win: the lowest margin comes first, and says so.
    let pos: Position = "dracala/3-2-0-0-1-0/31/0-0-0-3-0-0/32/s".parse().unwrap();
    let mut a = App::new(Game::new(pos), HUMANS, 42);
    a.sync = true;
    a.speed_ms = 0;
    keys(&mut a, "m");
    let Some(Overlay::Values(lines)) = a.overlay.clone() else {
        panic!("no values shown");
    };
    assert!(
        lines[0].contains("-10 for South (South wins by 10"),
        "{lines:?}"
    );
    assert!(lines[0].contains("fewer seeds win"), "{lines:?}");
    assert!(lines[1].contains("gives away 3"), "{lines:?}");
    let t = screen(&a, 80, 24).backend().to_string();
    for l in &lines {
        assert!(t.contains(l.as_str()), "{l} not whole at 80x24:\n{t}");
    }
}

/// At 80x24 in Spanish: the board, the status, the events, the key bar, the help window and
/// the new-game window speak Spanish, and no English phrase of them is left.
#[test]
fn spanish_at_80x24() {
    let mut a = app("kalah", [Player::Human, computer(1)]);
    a.set_lang(mancala_core::i18n::Lang::Es);
    let start = screen(&a, 80, 24).backend().to_string();
    for want in [
        "Sur (usted)",
        "Norte (ordenador, nivel 1)",
        "granero 0",
        "Mueve Sur (usted)",
        "? ayuda",
        "q salir",
        "Movimientos",
    ] {
        assert!(start.contains(want), "{want} missing:\n{start}");
    }
    assert!(start.contains("Pulse ? para"), "{start}");
    keys(&mut a, "3");
    let played = screen(&a, 80, 24).backend().to_string();
    assert!(played.contains("Sur sembró C."), "{played}");
    key(&mut a, KeyCode::Char('?'));
    let help = screen(&a, 80, 24).backend().to_string();
    for want in ["Teclas", "sembrar el agujero elegido", "Jugar"] {
        assert!(help.contains(want), "{want} missing:\n{help}");
    }
    key(&mut a, KeyCode::Esc);
    key(&mut a, KeyCode::Char('n'));
    let setup = screen(&a, 80, 24).backend().to_string();
    for want in [
        "Nueva partida",
        "Juego",
        "Sur (primero)",
        "[ Empezar ]",
        "semillas",
    ] {
        assert!(setup.contains(want), "{want} missing:\n{setup}");
    }
    for screen in [&start, &played, &help, &setup] {
        for english in [
            "to move", "store", "help", "quit", "South", "North", "seeds", "Start",
        ] {
            assert!(
                !screen.contains(english),
                "`{english}` left in English:\n{screen}"
            );
        }
    }
}
/// The help window's lines (76 wide: a key column of 18) and the Kauri legend under the
/// board fit whole in every language, as the English ones do.
#[test]
fn help_and_legend_fit_in_every_language() {
    use mancala_core::i18n::{text, Lang};
    for lang in Lang::ALL {
        for (_, key) in view::HELP {
            let w = text(lang, key).chars().count();
            assert!(w <= 56, "{lang} {key}: {w} characters");
        }
        let legend = text(lang, "tui.cowrie-note").chars().count();
        assert!(
            legend <= text(Lang::En, "tui.cowrie-note").chars().count(),
            "{lang}"
        );
    }
}

/// An illegal move is refused in the player's language, naming the pit.
#[test]
fn an_illegal_move_is_refused_in_portuguese() {
    let mut a = app("kalah", [Player::Human, Player::Human]);
    a.set_lang(mancala_core::i18n::Lang::Pt);
    // Kalah(6,3): pit 4's last seed falls in the store, so South moves again, from an empty
    // pit 4.
    keys(&mut a, "44");
    assert_eq!(a.message, "jogada ilegal: a casa 4 do Sul está vazia");
    let t = screen(&a, 80, 24).backend().to_string();
    assert!(
        t.contains("jogada ilegal: a casa 4 do Sul está vazia"),
        "{t}"
    );
}
