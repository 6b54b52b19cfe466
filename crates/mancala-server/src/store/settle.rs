//! A game between accounts settled when it ends: its result and, for a rated game between
//! two accounts, both players' new Glicko-2 ratings ([`crate::glicko`]), written in the
//! transaction of the write that ended it (a move, a resignation, an end off the board), once.

use mancala_core::{Game, Position, Side};
use skillratings::glicko2::Glicko2Rating;

use super::rows::stop_from;
use crate::clock::now_ms;
use crate::db::{vals, Conn};
use crate::glicko::{after_game, initial};

fn load_rating(c: &mut dyn Conn, user: i64, rules: &str) -> anyhow::Result<Glicko2Rating> {
    let row = c.query_opt(
        "SELECT rating, deviation, volatility FROM ratings WHERE user_id = $1 AND rules = $2",
        vals![user, rules],
    )?;
    match row {
        Some(r) => Ok(Glicko2Rating {
            rating: r.real(0)?,
            deviation: r.real(1)?,
            volatility: r.real(2)?,
        }),
        None => Ok(initial()),
    }
}

fn save_rating(
    c: &mut dyn Conn,
    user: i64,
    rules: &str,
    game: &str,
    r: &Glicko2Rating,
    now: i64,
) -> anyhow::Result<()> {
    c.exec(
        "INSERT INTO ratings (user_id, rules, rating, deviation, volatility, games, updated_ms)
         VALUES ($1, $2, $3, $4, $5, 1, $6)
         ON CONFLICT (user_id, rules) DO UPDATE SET rating = $3, deviation = $4,
            volatility = $5, games = ratings.games + 1, updated_ms = $6",
        vals![user, rules, r.rating, r.deviation, r.volatility, now],
    )?;
    c.exec(
        "INSERT INTO rating_history (user_id, game_id, rules, rating, deviation, volatility, at_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
        vals![user, game, rules, r.rating, r.deviation, r.volatility, now],
    )
    .map(|_| ())
}

/// The winner of a stored game if it is over (`Some(None)`: a draw), `None` while it goes on
/// or where the stored game cannot be replayed.
fn stored_result(c: &mut dyn Conn, id: &str) -> anyhow::Result<Option<Option<Side>>> {
    let Some(r) = c.query_opt(
        "SELECT start, resigned, stopped FROM games WHERE id = $1",
        vals![id],
    )?
    else {
        return Ok(None);
    };
    let (start, resigned) = (r.text(0)?, r.opt_text(1)?);
    // On time, abandoned, agreed; a cancelled game is settled as void by `settle`.
    if let Some(stop) = r.opt_text(2)?.as_deref().and_then(stop_from) {
        return Ok(Some(stop.winner()).filter(|_| stop.decides()));
    }
    if let Some(r) = resigned {
        return Ok(Some(Some(if r == "south" {
            Side::North
        } else {
            Side::South
        })));
    }
    let Ok(start) = start.parse::<Position>() else {
        return Ok(None);
    };
    let mut game = Game::new(start);
    let pits = c.query(
        "SELECT pit FROM moves WHERE game_id = $1 ORDER BY ply",
        vals![id],
    )?;
    for r in pits {
        if game.play(r.num(0)?).is_err() {
            return Ok(None);
        }
    }
    Ok(game.outcome().map(|o| o.winner()))
}

/// Settles game `id` if it is a game between accounts that has just ended: writes its result
/// and, when it is rated and both seats are accounts, both players' new ratings. Runs inside
/// the transaction of the write that ended the game; a settled game is left alone.
pub fn settle(c: &mut dyn Conn, id: &str) -> anyhow::Result<()> {
    let Some(row) = c.query_opt(
        "SELECT rules, rated, south_user, north_user FROM account_games
         WHERE game_id = $1 AND result IS NULL",
        vals![id],
    )?
    else {
        return Ok(());
    };
    let (rules, rated, south, north) = (
        row.text(0)?,
        row.int(1)? != 0,
        row.opt_int(2)?,
        row.opt_int(3)?,
    );
    let Some(winner) = stored_result(c, id)? else {
        return Ok(());
    };
    let now = now_ms();
    let result = match winner {
        Some(Side::South) => "south",
        Some(Side::North) => "north",
        None => "draw",
    };
    c.exec(
        "UPDATE account_games SET result = $2, ended_ms = $3 WHERE game_id = $1",
        vals![id, result, now],
    )?;
    if let (true, Some(s), Some(n)) = (rated, south, north) {
        let (rs, rn) = (load_rating(c, s, &rules)?, load_rating(c, n, &rules)?);
        let (s2, n2) = after_game(&rs, &rn, winner);
        save_rating(c, s, &rules, id, &s2, now)?;
        save_rating(c, n, &rules, id, &n2, now)?;
    }
    Ok(())
}
