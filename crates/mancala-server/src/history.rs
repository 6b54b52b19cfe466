//! An account's games, newest first, a page at a time, each from that player's side: the
//! result, the seeds in both stores at the end and the margin between them, how it ended.
//! Each is replayable (`#/replay/ID` in the browser, `GET /api/games/ID/replay`) and its
//! record downloadable (`GET /api/games/ID/record?format=text` or `json`).
//!
//! Pages are cut by the last game shown (a cursor), not by a count from the start, so that a
//! game finished meanwhile shifts nothing: `next` is the cursor of the following page.

use mancala_core::{Game, Position, Rules, Side};
use serde::Serialize;

use crate::db::{vals, Conn};
use crate::view::side_str;

/// Games a page holds unless asked for fewer or more.
pub const PAGE: u32 = 20;
/// Most games a page holds.
pub const MAX_PAGE: u32 = 100;

/// The seeds in each store, from one player's side.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
pub struct Seeds {
    /// The player's store.
    pub own: u16,
    /// The opponent's store.
    pub opponent: u16,
}

/// A game of a player's, from that player's side.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PlayerGame {
    /// The game's id (`/api/games/ID`, replayable at `/api/games/ID/replay`).
    pub game: String,
    /// The rule set.
    #[serde(rename = "preset")]
    pub rules: String,
    /// Rated or casual.
    pub rated: bool,
    /// The player's seat: `south` or `north`.
    pub side: &'static str,
    /// The opponent's account name; `None` while the seat is free or held by a guest.
    pub opponent: Option<String>,
    /// From the player's side: `win`, `loss` or `draw`; `None` while the game goes on.
    pub result: Option<&'static str>,
    /// How it ended: `rules` (played out) or `resignation`; `None` while it goes on.
    pub ended_by: Option<&'static str>,
    /// The seeds in the stores when it ended (at a resignation, those on the board then);
    /// `None` while it goes on, or where the stored game cannot be replayed.
    pub seeds: Option<Seeds>,
    /// `seeds.own - seeds.opponent`: positive when the player has more seeds.
    pub margin: Option<i32>,
    /// The rule set is misère: fewer seeds win, and a won game's margin is negative.
    pub fewer_seeds_win: bool,
    /// When the game was made, in milliseconds since the Unix epoch.
    pub created_ms: i64,
    /// When it ended.
    pub ended_ms: Option<i64>,
}

/// One page of a player's games.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Page {
    /// The games, newest first.
    pub games: Vec<PlayerGame>,
    /// The cursor of the next (older) page (`?before=`); `None` on the last page.
    pub next: Option<String>,
}

/// Where a page starts: after the game made at `created_ms` with id `game` (newest first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cursor {
    /// When that game was made.
    pub created_ms: i64,
    /// Its id.
    pub game: String,
}

impl Cursor {
    /// The cursor as `?before=` carries it: `MILLISECONDS.ID`.
    pub fn text(&self) -> String {
        format!("{}.{}", self.created_ms, self.game)
    }
    /// Reads [`Cursor::text`]; `None` for any other text.
    pub fn parse(s: &str) -> Option<Cursor> {
        let (ms, game) = s.split_once('.')?;
        let ok =
            !game.is_empty() && game.len() <= 64 && game.bytes().all(|b| b.is_ascii_alphanumeric());
        Some(Cursor {
            created_ms: ms.parse().ok().filter(|&v: &i64| v >= 0)?,
            game: game.to_string(),
        })
        .filter(|_| ok)
    }
}

/// The seeds in both stores at the end of the stored game `id` (South's first), whether it
/// ended by a resignation, and whether fewer seeds win; `None` where the game cannot be
/// replayed.
fn final_seeds(c: &mut dyn Conn, id: &str) -> anyhow::Result<Option<([u16; 2], bool, bool)>> {
    let Some(r) = c.query_opt("SELECT start, resigned FROM games WHERE id = $1", vals![id])? else {
        return Ok(None);
    };
    let Ok(start) = r.text(0)?.parse::<Position>() else {
        return Ok(None);
    };
    let resigned = r.opt_text(1)?.is_some();
    let mut game = Game::new(start);
    for m in c.query(
        "SELECT pit FROM moves WHERE game_id = $1 ORDER BY ply",
        vals![id],
    )? {
        if game.play(m.num(0)?).is_err() {
            return Ok(None);
        }
    }
    let misere = game.rules().misere();
    Ok(Some((game.scores(), resigned, misere)))
}

/// A page of the games of account `user`, in rule set `rules` only unless it is empty,
/// older than `before` where given.
pub fn page(
    c: &mut dyn Conn,
    user: i64,
    rules: &str,
    before: Option<&Cursor>,
    limit: u32,
) -> anyhow::Result<Page> {
    let (before_ms, before_id) = before.map_or((i64::MAX, String::new()), |k| {
        (k.created_ms, k.game.clone())
    });
    // Each placeholder is compared with one column's type (PostgreSQL types each once).
    let rows = c.query(
        "SELECT a.game_id, a.rules, a.rated, a.south_user, a.result, a.created_ms,
            a.ended_ms, o.name
         FROM account_games a
         LEFT JOIN users o ON o.id = CASE WHEN a.south_user = $1 THEN a.north_user
                                          ELSE a.south_user END
         WHERE (a.south_user = $1 OR a.north_user = $1) AND ($2 = '' OR a.rules = $2)
           AND (a.created_ms < $3 OR (a.created_ms = $3 AND a.game_id < $4))
         ORDER BY a.created_ms DESC, a.game_id DESC LIMIT $5",
        vals![user, rules, before_ms, before_id, limit + 1],
    )?;
    let mut games = Vec::with_capacity(rows.len());
    for r in rows.iter().take(limit as usize) {
        let side = if r.opt_int(3)? == Some(user) {
            Side::South
        } else {
            Side::North
        };
        let game = r.text(0)?;
        let result = r.opt_text(4)?.map(|w| match w.as_str() {
            "draw" => "draw",
            w if (w == "south") == (side == Side::South) => "win",
            _ => "loss",
        });
        let rules_key = r.text(1)?;
        let mut fewer_seeds_win = rules_key
            .parse::<Rules>()
            .map(|r| r.misere())
            .unwrap_or(false);
        let (mut seeds, mut ended_by) = (None, None);
        if result.is_some() {
            if let Some((s, resigned, misere)) = final_seeds(c, &game)? {
                let (own, opponent) = match side {
                    Side::South => (s[0], s[1]),
                    Side::North => (s[1], s[0]),
                };
                seeds = Some(Seeds { own, opponent });
                ended_by = Some(if resigned { "resignation" } else { "rules" });
                fewer_seeds_win = misere;
            }
        }
        games.push(PlayerGame {
            game,
            rules: rules_key,
            rated: r.int(2)? != 0,
            side: side_str(side),
            opponent: r.opt_text(7)?,
            result,
            ended_by,
            margin: seeds.map(|s| i32::from(s.own) - i32::from(s.opponent)),
            seeds,
            fewer_seeds_win,
            created_ms: r.int(5)?,
            ended_ms: r.opt_int(6)?,
        });
    }
    let next = (rows.len() > limit as usize)
        .then(|| games.last())
        .flatten()
        .map(|g| {
            Cursor {
                created_ms: g.created_ms,
                game: g.game.clone(),
            }
            .text()
        });
    Ok(Page { games, next })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn cursors_round_trip_and_refuse_other_text() {
        let k = Cursor {
            created_ms: 1_780_000_000_123,
            game: "0af3".into(),
        };
        assert_eq!(Cursor::parse(&k.text()), Some(k));
        for bad in [
            "", ".", "12", "12.", ".ab", "-1.ab", "x.ab", "12.a b", "12.a.b",
        ] {
            assert_eq!(Cursor::parse(bad), None, "{bad}");
        }
    }

    proptest! {
        /// A cursor of any text is read without a panic; one read is one [`Cursor::text`]
        /// writes.
        #[test]
        fn cursors_never_panic(s in "\\PC{0,40}") {
            if let Some(k) = Cursor::parse(&s) {
                prop_assert_eq!(Cursor::parse(&k.text()), Some(k));
            }
        }
    }
}
