//! Drawing the [`App`]: the board, the move list, the status lines, and the windows over them
//! (help, prompts, new game).

use mancala_core::Side;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};
use ratatui::Frame;

use super::anim::{Board, Loc};
use super::{App, Overlay, Player, PromptKind};

/// Width of the moves panel.
const MOVES_W: u16 = 28;
/// Width of a store box.
const STORE_W: usize = 6;

/// Inner width of a pit cell.
fn cell_w(b: &Board) -> usize {
    if b.kauri {
        5
    } else {
        4
    }
}

fn board_width(b: &Board) -> u16 {
    (2 * STORE_W + 1 + b.pits * (cell_w(b) + 1)) as u16
}

/// Lines the board block needs inside its border.
fn board_height(b: &Board) -> u16 {
    if b.kauri {
        10
    } else {
        9
    }
}

/// The keys and, for each, the key of its words in the translation files (`tui.help.*`); a
/// line without a key is a heading.
pub const HELP: &[(&str, &str)] = &[
    ("", "tui.help.play"),
    ("← →", "tui.help.choose"),
    ("Enter, Space", "tui.help.sow"),
    ("1-9", "tui.help.digit"),
    ("w", "tui.help.swap"),
    ("u", "tui.help.undo"),
    ("r", "tui.help.redo"),
    ("h", "tui.help.hint"),
    ("v", "tui.help.value"),
    ("m", "tui.help.all"),
    ("s", "tui.help.save"),
    ("o, l", "tui.help.open"),
    ("p", "tui.help.replay"),
    ("n", "tui.help.new"),
    ("f", "tui.help.flip"),
    ("Space, Esc", "tui.help.skip"),
    ("? or F1", "tui.help.help"),
    ("q, Ctrl-C", "tui.help.quit"),
    ("", "tui.help.replay-head"),
    ("← →", "tui.help.step"),
    ("↑ ↓, PgUp PgDn", "tui.help.turn"),
    ("Home, End", "tui.help.ends"),
    ("g", "tui.help.goto"),
    ("Enter", "tui.help.play-on"),
    ("Esc, p", "tui.help.back"),
    ("s, o, n, f", "tui.help.as-play"),
    ("", "tui.help.new-head"),
    ("↑ ↓, ← →", "tui.help.setup-move"),
    ("Enter, Esc", "tui.help.setup-keys"),
];

pub fn render(app: &App, f: &mut Frame) {
    let area = f.area();
    let (board, hot) = match app.frame() {
        Some(fr) => (fr.board.clone(), fr.hot),
        None => (Board::of(app.shown_position()), None),
    };
    let need_w = board_width(&board) + 2;
    let need_h = board_height(&board) + 2 + 3 + 1;
    if area.width < need_w || area.height < need_h {
        let msg = app.tf(
            "tui.too-small",
            &[
                ("w", &area.width),
                ("h", &area.height),
                ("need_w", &need_w),
                ("need_h", &need_h),
            ],
        );
        f.render_widget(Paragraph::new(msg).wrap(Wrap { trim: true }), area);
        return;
    }
    let [main, keys] = area.layout(&Layout::vertical([
        Constraint::Min(0),
        Constraint::Length(1),
    ]));
    let with_moves = area.width >= need_w + MOVES_W;
    let (left, moves_area) = if with_moves {
        let [l, r] = main.layout(&Layout::horizontal([
            Constraint::Min(need_w),
            Constraint::Length(MOVES_W),
        ]));
        (l, Some(r))
    } else {
        (main, None)
    };
    let [board_area, info] = left.layout(&Layout::vertical([
        Constraint::Length(board_height(&board) + 2),
        Constraint::Min(3),
    ]));
    render_board(app, f, board_area, &board, hot);
    render_info(app, f, info);
    if let Some(r) = moves_area {
        render_moves(app, f, r);
    }
    render_keys(app, f, keys);
    match &app.overlay {
        Some(Overlay::Help(top)) => render_help(app, f, area, *top),
        Some(Overlay::Prompt { kind, input }) => render_prompt(app, f, area, *kind, input),
        Some(Overlay::Setup(s)) => render_setup(app, f, area, s),
        Some(Overlay::Values(lines)) => render_values(app, f, area, lines),
        None => {}
    }
}

fn centered(s: &str, w: usize) -> String {
    let n = s.chars().count();
    if n >= w {
        return s.to_string();
    }
    let left = (w - n) / 2;
    format!("{}{}{}", " ".repeat(left), s, " ".repeat(w - n - left))
}

/// What the board's drawing marks beyond the counts: the place a sowing is at, the cursor,
/// the last move, the hint, and the pits the side to move may not play.
struct Marks {
    hot: Option<Loc>,
    /// A live game with no sowing shown.
    live: bool,
    mover: Side,
    legal: mancala_core::Moves,
    /// A person is to move, so the cursor shows.
    human: bool,
    cursor: u8,
    /// The last move shown: its side and pit.
    last: Option<(Side, usize)>,
    /// The hint's pit, outside replay mode.
    hint: Option<u8>,
}

impl Marks {
    fn new(app: &App, hot: Option<Loc>) -> Marks {
        let pos = app.shown_position();
        let game = app.game();
        // The game, not the position alone, knows a draw by repetition.
        let over = match app.replay {
            Some(k) => pos.is_over() || (k == game.moves().len() && game.is_over()),
            None => game.is_over(),
        };
        let shown_ply = app.replay.unwrap_or(game.moves().len());
        Marks {
            hot,
            live: !over && app.frame().is_none(),
            mover: pos.to_move(),
            legal: pos.legal_moves(),
            human: app.human_to_move() && app.frame().is_none(),
            cursor: app.cursor,
            last: shown_ply
                .checked_sub(1)
                .and_then(|k| game.moves().get(k))
                .map(|mv| (mv.side, mv.pit as usize)),
            hint: app.hint.filter(|_| app.replay.is_none()),
        }
    }

    /// The style of pit `i` of `side`.
    fn pit(&self, side: Side, i: usize) -> Style {
        let mut st = Style::default();
        if self.hot == Some(Loc::Pit(side, i)) {
            return st
                .bg(Color::Green)
                .fg(Color::Black)
                .add_modifier(Modifier::BOLD);
        }
        if self.human && side == self.mover && i as u8 == self.cursor {
            return st.add_modifier(Modifier::REVERSED | Modifier::BOLD);
        }
        if self.last == Some((side, i)) {
            st = st.fg(Color::Yellow).add_modifier(Modifier::BOLD);
        } else if self.live && side == self.mover && !self.legal.contains(i as u8) {
            st = st.fg(Color::DarkGray);
        }
        if self.hint == Some(i as u8) && side == self.mover {
            st = st.fg(Color::Cyan).add_modifier(Modifier::UNDERLINED);
        }
        st
    }

    /// The style of `side`'s store.
    fn store(&self, side: Side) -> Style {
        if self.hot == Some(Loc::Store(side)) {
            Style::default()
                .bg(Color::Green)
                .fg(Color::Black)
                .add_modifier(Modifier::BOLD)
        } else {
            Style::default().add_modifier(Modifier::BOLD)
        }
    }

    /// The style of the name of pit `i` of `side`.
    fn label(&self, side: Side, i: usize) -> Style {
        if self.last == Some((side, i)) {
            Style::default().fg(Color::Yellow)
        } else {
            Style::default().fg(Color::Gray)
        }
    }
}

/// A side's line above or below the board: its player, its store, and a mark when it is to
/// move.
fn name_line<'a>(app: &App, b: &Board, side: Side, to_move: bool) -> Line<'a> {
    let mut spans = vec![Span::styled(
        format!(" {}", app.player_label(side)),
        if to_move {
            Style::default().add_modifier(Modifier::BOLD)
        } else {
            Style::default().fg(Color::Gray)
        },
    )];
    spans.push(Span::raw(
        app.tf("tui.store", &[("n", &b.stores[side.index()])]),
    ));
    if to_move {
        spans.push(Span::styled(
            app.tr("tui.to-move-mark"),
            Style::default()
                .fg(Color::Green)
                .add_modifier(Modifier::BOLD),
        ));
    }
    Line::from(spans)
}

/// A pit's text: its seeds, and its cowries where the game has them, centred in `cw`.
fn cell_text(b: &Board, side: Side, i: usize, cw: usize) -> String {
    let s = b.seeds[side.index()][i];
    let cowries = if b.kauri {
        b.cowries[side.index()][i]
    } else {
        0
    };
    let t = match cowries {
        0 => s.to_string(),
        c => format!("{s}c{c}"),
    };
    centered(&t, cw)
}

fn render_board(app: &App, f: &mut Frame, area: Rect, b: &Board, hot: Option<Loc>) {
    let pos = app.shown_position();
    let m = b.pits;
    let cw = cell_w(b);
    let bottom = app.bottom;
    let top = bottom.other();
    let notation = app.notation();
    let marks = Marks::new(app, hot);
    let cols = |side: Side| -> Vec<usize> {
        if side == bottom {
            (0..m).collect()
        } else {
            (0..m).rev().collect()
        }
    };
    let pad = " ".repeat(STORE_W);
    let label_line = |side: Side| -> Line {
        let mut spans = vec![Span::raw(format!("{pad} "))];
        for i in cols(side) {
            let text = centered(&notation.move_text(side, i as u8).to_string(), cw);
            spans.push(Span::styled(text, marks.label(side, i)));
            spans.push(Span::raw(" "));
        }
        Line::from(spans)
    };
    let row_line = |side: Side, left: &str, right: &str| -> Line {
        let mut spans = vec![Span::raw(left.to_string()), Span::raw("│")];
        for i in cols(side) {
            spans.push(Span::styled(cell_text(b, side, i, cw), marks.pit(side, i)));
            spans.push(Span::raw("│"));
        }
        spans.push(Span::raw(right.to_string()));
        Line::from(spans)
    };
    let rule = |l: &str, mid: &str, r: &str| -> String {
        let seg = "─".repeat(cw);
        format!("{l}{}{r}", vec![seg; m].join(mid))
    };
    let to_move = |side: Side| marks.live && side == marks.mover;
    let bar = "─".repeat(STORE_W - 2);
    let store_num = |side: Side| format!("{:^w$}", b.stores[side.index()], w = STORE_W - 2);
    let mut lines = vec![
        name_line(app, b, top, to_move(top)),
        label_line(top),
        Line::raw(format!("{pad}{}", rule("╭", "┬", "╮"))),
        row_line(top, &format!("╭{bar}╮"), &format!("╭{bar}╮")),
        Line::from(vec![
            Span::raw("│"),
            Span::styled(store_num(top), marks.store(top)),
            Span::raw(format!("│{}│", rule("├", "┼", "┤"))),
            Span::styled(store_num(bottom), marks.store(bottom)),
            Span::raw("│"),
        ]),
        row_line(bottom, &format!("╰{bar}╯"), &format!("╰{bar}╯")),
        Line::raw(format!("{pad}{}", rule("╰", "┴", "╯"))),
        label_line(bottom),
        name_line(app, b, bottom, to_move(bottom)),
    ];
    if b.kauri {
        lines.push(Line::styled(
            app.tr("tui.cowrie-note"),
            Style::default().fg(Color::DarkGray),
        ));
    }
    // Centre the board in its block; the lines below it stay at the left edge.
    let indent = (area.width.saturating_sub(2 + board_width(b)) / 2) as usize;
    for l in lines.iter_mut().take(9) {
        l.spans.insert(0, Span::raw(" ".repeat(indent)));
    }
    let title = format!(" mancala · {} ", pos.rules().title_in(app.lang));
    let block = Block::bordered().title(title);
    f.render_widget(Paragraph::new(lines).block(block), area);
}

fn render_info(app: &App, f: &mut Frame, area: Rect) {
    let pos = app.shown_position();
    let status = if let Some(k) = app.replay {
        let len = app.game().moves().len();
        let what = match k.checked_sub(1).and_then(|i| app.game().moves().get(i)) {
            Some(mv) => app.tf(
                "tui.replay.after",
                &[
                    ("line", &app.line_of_move(k).unwrap_or(0)),
                    ("side", &app.side(mv.side)),
                    ("move", &app.notation().move_text(mv.side, mv.pit)),
                ],
            ),
            None => app.tr("tui.replay.start").to_string(),
        };
        Line::styled(
            app.tf(
                "tui.replay.status",
                &[("k", &k), ("len", &len), ("what", &what)],
            ),
            Style::default()
                .fg(Color::Magenta)
                .add_modifier(Modifier::BOLD),
        )
    } else if app.game().is_over() {
        Line::styled(
            app.tf(
                "tui.over",
                &[(
                    "result",
                    &crate::board::result_line_in(app.game(), app.lang),
                )],
            ),
            Style::default()
                .fg(Color::Green)
                .add_modifier(Modifier::BOLD),
        )
    } else {
        let side = pos.to_move();
        let who = app.player_label(side);
        let text = match (app.thinking(), app.players()[side.index()]) {
            (Some("thinking"), _) => app.tf("tui.thinking", &[("who", &who)]),
            (_, Player::Human) => app.tf(
                "tui.to-move-human",
                &[("who", &who), ("pits", &pos.pits().min(9))],
            ),
            (_, _) => app.tf("tui.to-move", &[("who", &who)]),
        };
        Line::styled(text, Style::default().add_modifier(Modifier::BOLD))
    };
    let mut lines = vec![status];
    // The last moves' events, older ones dimmer; then a message that is no move's event.
    if app.replay.is_none() {
        let n = app.events.len();
        for (i, e) in app.events.iter().enumerate() {
            let colour = if i + 1 == n {
                Color::Yellow
            } else {
                Color::Gray
            };
            lines.push(Line::styled(format!(" {e}"), Style::default().fg(colour)));
        }
    }
    if !app.message.is_empty() && (app.replay.is_some() || app.events.last() != Some(&app.message))
    {
        lines.push(Line::styled(
            format!(" {}", app.message),
            Style::default().fg(Color::Yellow),
        ));
    }
    if let Some(e) = &app.engine_line {
        lines.push(Line::styled(
            format!(" {e}"),
            Style::default().fg(Color::Cyan),
        ));
    }
    f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), area);
}

fn render_moves(app: &App, f: &mut Frame, area: Rect) {
    let at = app.replay.unwrap_or(app.game().moves().len());
    let (lines, current) = app.move_lines(at, area.width.saturating_sub(2) as usize);
    let height = area.height.saturating_sub(2) as usize;
    let focus = current.unwrap_or(lines.len().saturating_sub(1));
    let offset = (focus + 1).saturating_sub(height);
    let text: Vec<Line> = lines
        .into_iter()
        .enumerate()
        .map(|(i, l)| {
            if Some(i) == current {
                Line::styled(
                    l,
                    Style::default()
                        .fg(Color::Yellow)
                        .add_modifier(Modifier::BOLD),
                )
            } else {
                Line::raw(l)
            }
        })
        .collect();
    let block = Block::bordered().title(app.tr("tui.moves"));
    f.render_widget(
        Paragraph::new(text).block(block).scroll((offset as u16, 0)),
        area,
    );
}

/// The key bar: as many of the keys as the width holds, the most needed first (`?` lists
/// them all).
fn render_keys(app: &App, f: &mut Frame, area: Rect) {
    let keys: &[&str] = if app.replay.is_some() {
        &[
            "help", "quit", "step", "turn", "back", "play-on", "goto", "ends",
        ]
    } else {
        &[
            "help", "quit", "sow", "undo", "hint", "new", "replay", "value", "redo", "save",
            "open", "all",
        ]
    };
    let mut text = String::new();
    for k in keys.iter().map(|k| app.tr(&format!("tui.key.{k}"))) {
        if text.chars().count() + 2 + k.chars().count() > area.width as usize {
            break;
        }
        text += " ";
        text += k;
        text += " ";
    }
    f.render_widget(
        Paragraph::new(Line::styled(text, Style::default().fg(Color::DarkGray))),
        area,
    );
}

fn popup(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

/// Lines of the help window's text.
pub fn help_lines() -> usize {
    HELP.len()
}

/// The keys, scrolled down `top` lines where the terminal is too short for them all (at most
/// so far that the last line is at the bottom); the title says how to scroll.
fn render_help(app: &App, f: &mut Frame, area: Rect, top: u16) {
    let mut lines = Vec::new();
    for (k, what) in HELP.iter().map(|(k, w)| (k, app.tr(w))) {
        if k.is_empty() {
            lines.push(Line::styled(
                format!(" {what}"),
                Style::default().add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
            ));
        } else {
            lines.push(Line::from(vec![
                Span::styled(format!("  {k:<16}"), Style::default().fg(Color::Cyan)),
                Span::raw(what),
            ]));
        }
    }
    let r = popup(area, 76, lines.len() as u16 + 2);
    let shown = r.height.saturating_sub(2);
    let top = top.min((lines.len() as u16).saturating_sub(shown));
    let title = if (lines.len() as u16) > shown {
        app.tf(
            "tui.help.title-scroll",
            &[
                ("from", &(top + 1)),
                ("to", &(top + shown).min(lines.len() as u16)),
                ("n", &lines.len()),
            ],
        )
    } else {
        app.tr("tui.help.title").to_string()
    };
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines)
            .block(Block::bordered().title(title))
            .scroll((top, 0)),
        r,
    );
}

/// Every legal move's value, one line a move (wrapped where the terminal is narrow).
fn render_values(app: &App, f: &mut Frame, area: Rect, lines: &[String]) {
    let text: Vec<Line> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let style = if i == 0 {
                Style::default()
                    .fg(Color::Cyan)
                    .add_modifier(Modifier::BOLD)
            } else {
                Style::default()
            };
            Line::styled(format!(" {l}"), style)
        })
        .collect();
    let w = lines
        .iter()
        .map(|l| l.chars().count() as u16 + 3)
        .max()
        .unwrap_or(0)
        .max(44);
    let r = popup(area, w, lines.len() as u16 + 2);
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(text)
            .block(Block::bordered().title(app.tr("tui.values.title")))
            .wrap(Wrap { trim: false }),
        r,
    );
}

fn render_prompt(app: &App, f: &mut Frame, area: Rect, kind: PromptKind, input: &str) {
    let title = app.tr(match kind {
        PromptKind::Save => "tui.prompt.save",
        PromptKind::Overwrite => return render_overwrite(app, f, area, input),
        PromptKind::Load => "tui.prompt.load",
        PromptKind::Jump => "tui.prompt.jump",
    });
    let r = popup(area, 60, 3);
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(Line::from(vec![
            Span::raw(format!(" {input}")),
            Span::styled(" ", Style::default().add_modifier(Modifier::REVERSED)),
        ]))
        .block(Block::bordered().title(title)),
        r,
    );
}

/// "Replace `path`?", asked before a save overwrites a file.
fn render_overwrite(app: &App, f: &mut Frame, area: Rect, path: &str) {
    let r = popup(area, 60, 4);
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(vec![
            Line::from(app.tf("tui.overwrite.exists", &[("path", &path)])),
            Line::from(app.tr("tui.overwrite.keys")),
        ])
        .block(Block::bordered().title(app.tr("tui.overwrite.title"))),
        r,
    );
}

/// `text` in lines of at most `width` characters, broken between words.
fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for w in text.split_whitespace() {
        let last = lines.last_mut().expect("one line");
        if !last.is_empty() && last.chars().count() + 1 + w.chars().count() > width {
            lines.push(w.to_string());
        } else {
            if !last.is_empty() {
                last.push(' ');
            }
            last.push_str(w);
        }
    }
    lines
}

fn render_setup(app: &App, f: &mut Frame, area: Rect, s: &super::Setup) {
    let player = |i: usize| match i {
        0 => app.tr("tui.human").to_string(),
        l => app.tf("tui.computer-level", &[("level", &l)]),
    };
    let rules = &s.choices[s.choice];
    let rows = [
        (app.tr("tui.setup.game"), rules.title_in(app.lang)),
        (app.tr("tui.setup.south"), player(s.players[0])),
        (app.tr("tui.setup.north"), player(s.players[1])),
    ];
    let mut lines = Vec::new();
    for (i, (k, v)) in rows.iter().enumerate() {
        let st = if s.field == i {
            Style::default().add_modifier(Modifier::REVERSED)
        } else {
            Style::default()
        };
        lines.push(Line::from(vec![
            Span::raw(format!("  {k:<15}")),
            Span::styled(format!("◀ {v} ▶"), st),
        ]));
    }
    let summary = rules.preset.summary_in(app.lang);
    // Wrapped here, so that the window is as tall as its lines and Start stays in it.
    for l in wrap_words(summary, 58) {
        lines.push(Line::styled(
            format!("  {l}"),
            Style::default().fg(Color::DarkGray),
        ));
    }
    lines.push(Line::raw(""));
    if s.confirm {
        lines.push(Line::styled(
            app.tr("tui.setup.confirm"),
            Style::default()
                .fg(Color::Yellow)
                .add_modifier(Modifier::BOLD),
        ));
    } else if s.discards {
        lines.push(Line::styled(
            app.tr("tui.setup.discards"),
            Style::default().fg(Color::DarkGray),
        ));
    }
    let st = if s.field == 3 {
        Style::default().add_modifier(Modifier::REVERSED | Modifier::BOLD)
    } else {
        Style::default().add_modifier(Modifier::BOLD)
    };
    lines.push(Line::from(vec![
        Span::raw("  "),
        Span::styled(app.tr("tui.setup.start"), st),
    ]));
    // Lines the window's width (62 inside) wraps take more rows.
    let rows: usize = lines.iter().map(|l| l.width().max(1).div_ceil(62)).sum();
    let r = popup(area, 64, rows as u16 + 2);
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(Block::bordered().title(app.tr("tui.setup.title"))),
        r,
    );
}
