//! A game's state as its players and watchers see it, and the engine's hint to the side to
//! move.

use mancala_core::notation::Notation;
use mancala_core::{Game, Position, Side};
use mancala_engine::Evaluation;
use serde::Serialize;

use super::board::{board, move_view, side_str, turns, Board, MoveView, TurnView};
use super::result::{result, GameResult, Stop};
use super::rules::{rules_view, RulesView};

/// The state of a game everyone may see (never a token), plus `you` for the seat asking.
#[derive(Debug, Clone, Serialize)]
pub struct GameView {
    /// The game's id.
    pub id: String,
    /// Bumped on every change.
    pub version: u64,
    /// Moves played.
    pub ply: usize,
    /// The rules facts.
    pub rules: RulesView,
    /// The position now.
    pub board: Board,
    /// `"south"` or `"north"`; null once the game is over.
    pub to_move: Option<&'static str>,
    /// Whether the game is over (by the rules or a resignation).
    pub over: bool,
    /// How the game ended; null while it goes on.
    pub result: Option<GameResult>,
    /// The pits the side to move may play, 1-based; empty once over.
    pub legal: Vec<u8>,
    /// Why some pits of the side to move that hold pieces may not be played now (Dracala's
    /// compulsory capture, Kauri's cowries, Oware's feeding); null where every one may.
    pub forced: Option<&'static str>,
    /// Whether the side to move may swap (the pie rule: North's first action).
    pub swap: bool,
    /// Both seats.
    pub players: Seats<Player>,
    /// Whether one seat is the computer's.
    pub vs_computer: bool,
    /// Whether the computer is to move.
    pub thinking: bool,
    /// Whether the second seat is still free.
    pub waiting_for_opponent: bool,
    /// The turns in notation.
    pub turns: Vec<TurnView>,
    /// The last moves (at most 12), each with the position before it.
    pub recent: Vec<MoveView>,
    /// The asker's seat; null for a watcher.
    pub you: Option<&'static str>,
    /// The invitation, to a seat holder only, while the other seat is free; else null.
    pub invite: Option<String>,
    /// Games between people: the clock, a standing offer, the rematch, the opponent's
    /// absence (each absent where there is none).
    #[serde(flatten)]
    pub between: BetweenView,
}

/// What a game between people adds to its state.
#[derive(Debug, Clone, Default, Serialize)]
pub struct BetweenView {
    /// The clock; absent in an untimed game.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockView>,
    /// The offer standing; absent where none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offer: Option<OfferView>,
    /// The id of the rematch, once agreed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rematch: Option<String>,
    /// A player gone from a live timed game (no connection open): who, how long ago, and
    /// when his opponent may claim the game.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub away: Option<AwayView>,
}

/// A clock as the client shows it: each side's milliseconds when the state was made, and
/// whose time is running (the client counts it down from there).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ClockView {
    /// The time control (`3+2`: minutes and seconds more a turn; `3d`: days a move).
    pub control: String,
    /// True for a Fischer clock, false for correspondence.
    pub real_time: bool,
    /// South's time left, milliseconds.
    pub south_ms: i64,
    /// North's time left, milliseconds.
    pub north_ms: i64,
    /// `"south"` or `"north"`: whose clock runs; null before the game starts and after it
    /// ends.
    pub running: Option<&'static str>,
    /// While the running side has yet to make his first move: the milliseconds he has left
    /// for it before the game is cancelled (his clock does not run meanwhile).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_move_ms: Option<i64>,
}

/// The offer standing in a game: `{"kind": "draw", "by": "south"}`.
#[derive(Clone, Debug, Serialize)]
pub struct OfferView {
    /// `draw`, `takeback` or `rematch`.
    pub kind: &'static str,
    /// Who made it.
    pub by: &'static str,
}

/// A player gone from a live timed game: who, how long ago, when a claim opens.
#[derive(Clone, Debug, Serialize)]
pub struct AwayView {
    /// `"south"` or `"north"`: the seat whose player has no connection open.
    pub side: &'static str,
    /// How long he has been gone, milliseconds.
    pub gone_ms: i64,
    /// Milliseconds until a claim is allowed; 0: now.
    pub claim_in_ms: i64,
}

/// South's and North's seats.
#[derive(Debug, Clone, Serialize)]
pub struct Seats<P> {
    /// South's seat.
    pub south: P,
    /// North's seat.
    pub north: P,
}

/// A seat of a stored game: the computer with its level, a person with his name (null
/// where none was given) and whether he has joined, or a bot connected over a protocol.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Player {
    /// The computer.
    Computer {
        /// Its level.
        level: u8,
        /// `Computer (level N)`.
        name: String,
        /// Always true.
        joined: bool,
    },
    /// A person.
    Human {
        /// The name given, or null.
        name: Option<String>,
        /// Whether the seat is taken.
        joined: bool,
    },
    /// A bot connected to the server's KGP port.
    Bot {
        /// Its `info:name`.
        name: String,
        /// The protocol it plays over: `kgp`.
        protocol: &'static str,
    },
}

/// The view of `game` that every front end answers alike (the server's stored games, the
/// browser's own): the board, the legal moves, the end (`stop`: how it ended other than by
/// its rules), the turns and the last 12 moves, each with the value `eval` gives the move
/// of that ply (the computer's), and the seats. The rest is the caller's: its `id`,
/// `version`, whether it is against the computer and thinking, the invitation and the
/// asker's seat (all empty here).
pub fn game_view(
    game: &Game,
    stop: Option<Stop>,
    eval: &dyn Fn(usize) -> Option<i32>,
    players: Seats<Player>,
) -> GameView {
    let g = game;
    let n = g.moves().len();
    let recent = (n.saturating_sub(12)..n)
        .filter_map(|k| {
            let before = g.position_at(k)?;
            let mut v = move_view(before, g.position_at(k + 1)?, &g.moves()[k], k);
            v.before = Some(board(before));
            v.eval = eval(k);
            Some(v)
        })
        .collect();
    let over = stop.is_some() || g.is_over();
    let moves = if over {
        Default::default()
    } else {
        g.legal_moves()
    };
    let legal: Vec<u8> = moves
        .as_slice()
        .iter()
        .filter(|&&p| p != mancala_core::SWAP)
        .map(|p| p + 1)
        .collect();
    let p = g.position();
    let pieces = |i: usize| p.seeds(p.to_move(), i) > 0 || p.cowries(p.to_move(), i) > 0;
    let held = (0..p.pits()).filter(|&i| pieces(i)).count();
    GameView {
        id: String::new(),
        version: 0,
        ply: n,
        rules: rules_view(g),
        board: board(p),
        to_move: (!over).then(|| side_str(g.to_move())),
        over,
        result: result(g, stop),
        forced: (!over && legal.len() < held)
            .then(|| g.rules().move_restriction())
            .flatten(),
        swap: moves.contains(mancala_core::SWAP),
        legal,
        players,
        vs_computer: false,
        thinking: false,
        waiting_for_opponent: false,
        turns: turns(g),
        recent,
        you: None,
        invite: None,
        between: BetweenView::default(),
    }
}

/// The engine's suggestion to the side to move (`GET /api/games/{id}/hint`), its value from
/// the asker's view: `value` and `score` say the same as `eval`, lifted to the top so that no
/// reader has to turn them.
#[derive(Debug, Clone, Serialize)]
pub struct Hint {
    /// The pit to play, 1-based; 0 for the pie rule's swap (`text` is then `swap`).
    pub pit: u8,
    /// The move in the game's notation.
    pub text: String,
    /// The asker's side, whose view the value is from: `"south"` or `"north"`.
    pub side: &'static str,
    /// The final seed margin the asker reaches (his seeds minus the opponent's).
    pub value: i32,
    /// The same turned so that higher is better for the asker (`-value` where fewer seeds
    /// win): positive, the asker wins by that much.
    pub score: i32,
    /// Fewer seeds win (misère): a lower `value` is better for the asker.
    pub lower_is_better: bool,
    /// The depth reached.
    pub depth: u32,
    /// Whether the value is proven.
    pub proven: bool,
    /// The value with its quality, from the asker's view.
    pub eval: Evaluation,
}

/// The hint `r` (a search or proof of `pos`) for `asker`, its value turned to his view by
/// [`Evaluation::seen_by`].
pub fn hint(pos: &Position, asker: Side, r: &mancala_engine::SearchResult) -> Hint {
    let eval = r.eval.seen_by(asker);
    Hint {
        pit: mancala_core::pit_number(r.best),
        text: Notation::for_rules(pos.rules())
            .move_text(pos.to_move(), r.best)
            .to_string(),
        side: side_str(asker),
        value: eval.margin,
        score: eval.score(),
        lower_is_better: eval.lower_is_better,
        depth: r.depth,
        proven: eval.is_proven(),
        eval,
    }
}
