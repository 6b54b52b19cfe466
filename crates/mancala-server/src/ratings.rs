//! Games between accounts, and Glicko-2 ratings (the `skillratings` crate) per rule set.
//!
//! A game created by an account is recorded in `account_games` with its rule set and whether
//! it is rated. When a move or a resignation ends it, [`settle`] runs in the same database
//! transaction as that move or resignation: it writes the result and, for a rated game
//! between two accounts, both players' new ratings, once (a settled game is never settled
//! again). Each game is its own rating period, as on most game sites.
//!
//! The rule set a rating belongs to is the game's rules string: a preset's name (`kalah`,
//! `oware`) for its standard rules, with the options that differ from them otherwise
//! (`kalah,seeds=4`), so that one rating never mixes two games.

use mancala_core::{Rules, Side};
use serde::Serialize;

use crate::accounts::User;
use crate::clock::now_ms;
use crate::db::{vals, Row};
use crate::history::{self, PlayerGame};
use crate::store::{Pending, Store};

pub use crate::glicko::{after_game, config, initial};
pub use crate::store::settle;

/// A rating is provisional while its deviation is above this.
pub const PROVISIONAL_DEVIATION: f64 = 110.0;

/// The key ratings are kept by for `rules`: its rules string.
pub fn rules_key(rules: &Rules) -> String {
    rules.to_string()
}

/// Queues the record of a new game between accounts: `user` holds `side`.
pub fn add_account_game(
    store: &Store,
    game: &str,
    rules: &str,
    rated: bool,
    side: Side,
    user: i64,
) -> Pending {
    let (game, rules) = (game.to_string(), rules.to_string());
    let sql = if side == Side::South {
        "INSERT INTO account_games (game_id, rules, rated, south_user, created_ms)
         VALUES ($1, $2, $3, $4, $5)"
    } else {
        "INSERT INTO account_games (game_id, rules, rated, north_user, created_ms)
         VALUES ($1, $2, $3, $4, $5)"
    };
    store.write(move |c| {
        c.exec(sql, vals![game, rules, rated, user, now_ms()])
            .map(|_| ())
    })
}

/// Queues giving `side` of an account game to `user`.
pub fn seat_account(store: &Store, game: &str, side: Side, user: i64) -> Pending {
    let game = game.to_string();
    let sql = if side == Side::South {
        "UPDATE account_games SET south_user = $2 WHERE game_id = $1"
    } else {
        "UPDATE account_games SET north_user = $2 WHERE game_id = $1"
    };
    store.write(move |c| c.exec(sql, vals![game, user]).map(|_| ()))
}

/// A game between accounts as stored: whether it is rated and who holds each seat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccountGame {
    /// Rated (ratings change at its end) or casual.
    pub rated: bool,
    /// `[south, north]`: the account holding each seat; `None` while free or held by a guest.
    pub users: [Option<i64>; 2],
    /// `[south, north]`: each seat's token.
    pub tokens: [Option<String>; 2],
}

/// The game `id` if it is a game between accounts.
pub fn account_game(store: &Store, id: &str) -> anyhow::Result<Option<AccountGame>> {
    let id = id.to_string();
    store.with(move |c| {
        c.query_opt(
            "SELECT a.rated, a.south_user, a.north_user, g.south_token, g.north_token
             FROM account_games a JOIN games g ON g.id = a.game_id WHERE a.game_id = $1",
            vals![id],
        )?
        .map(|r| {
            Ok(AccountGame {
                rated: r.int(0)? != 0,
                users: [r.opt_int(1)?, r.opt_int(2)?],
                tokens: [r.opt_text(3)?, r.opt_text(4)?],
            })
        })
        .transpose()
    })
}

/// A rating as a row answers it from column `k` on: rating, deviation, volatility, games.
fn rating_view(rules: String, r: &Row, k: usize) -> anyhow::Result<RatingView> {
    let deviation = r.real(k + 1)?;
    Ok(RatingView {
        rules,
        rating: r.real(k)?,
        deviation,
        volatility: r.real(k + 2)?,
        games: r.num(k + 3)?,
        provisional: deviation > PROVISIONAL_DEVIATION,
    })
}

/// One player's rating in one rule set, as answered.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RatingView {
    /// The rule set (a rules string such as `kalah` or `kalah,seeds=4`).
    #[serde(rename = "preset")]
    pub rules: String,
    /// The Glicko-2 rating: higher is better.
    pub rating: f64,
    /// The rating deviation: the uncertainty of the rating (lower is surer).
    pub deviation: f64,
    /// The volatility.
    pub volatility: f64,
    /// Rated games played in this rule set.
    pub games: u32,
    /// The deviation is above [`PROVISIONAL_DEVIATION`]: the rating is not settled yet.
    pub provisional: bool,
}

/// A row of the leaderboard.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Standing {
    /// 1 for the highest rating.
    pub rank: u32,
    /// The account's name (text: a client shows it as text, never as markup).
    pub name: String,
    /// Rating, deviation, games and the provisional mark.
    #[serde(flatten)]
    pub rating: RatingView,
}

/// The leaderboard of a rule set: the `limit` best ratings of accounts not disabled, highest
/// first.
pub fn leaderboard(store: &Store, rules: &str, limit: u32) -> anyhow::Result<Vec<Standing>> {
    let rules = rules.to_string();
    store.with(move |c| {
        c.query(
            "SELECT u.name, r.rating, r.deviation, r.volatility, r.games FROM ratings r
             JOIN users u ON u.id = r.user_id
             WHERE r.rules = $1 AND u.disabled_ms IS NULL
             ORDER BY r.rating DESC, u.name_key LIMIT $2",
            vals![&rules, limit],
        )?
        .iter()
        .enumerate()
        .map(|(k, r)| {
            Ok(Standing {
                rank: k as u32 + 1,
                name: r.text(0)?,
                rating: rating_view(rules.clone(), r, 1)?,
            })
        })
        .collect()
    })
}

/// A point of a player's rating history.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct HistoryPoint {
    /// The rule set.
    #[serde(rename = "preset")]
    pub rules: String,
    /// The game that moved the rating.
    pub game: String,
    /// The rating after it.
    pub rating: f64,
    /// The deviation after it.
    pub deviation: f64,
    /// When, in milliseconds since the Unix epoch.
    pub at_ms: i64,
}

/// A player's profile: ratings, history and games, `rules` filtering the last two.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Profile {
    /// The name as its owner wrote it (text, never markup).
    pub name: String,
    /// When the account was made.
    pub created_ms: i64,
    /// Ratings are higher-is-better numbers from this player's side.
    pub higher_is_better: bool,
    /// The deviation above which a rating is marked provisional.
    pub provisional_above: f64,
    /// The ratings, one a rule set played rated.
    pub ratings: Vec<RatingView>,
    /// The rating after each rated game, oldest first.
    pub history: Vec<HistoryPoint>,
    /// The newest games (a page of [`history::PAGE`]), newest first.
    pub games: Vec<PlayerGame>,
    /// The cursor of the next page of games (`GET /api/users/NAME/games?before=`); `None`
    /// when there are no more.
    pub games_next: Option<String>,
}

/// The profile of `user` (its id and name), filtered to `rules` when given.
pub fn profile(store: &Store, user: &User, rules: Option<&str>) -> anyhow::Result<Profile> {
    let (id, rules) = (user.id, rules.map(str::to_string));
    let (name, created_ms) = (user.name.clone(), user.created_ms);
    store.with(move |c| {
        let ratings = c
            .query(
                "SELECT rules, rating, deviation, volatility, games FROM ratings
                 WHERE user_id = $1 ORDER BY games DESC, rules",
                vals![id],
            )?
            .iter()
            .map(|r| rating_view(r.text(0)?, r, 1))
            .collect::<anyhow::Result<Vec<_>>>()?;
        // `$2` is compared with a text column only (PostgreSQL types each placeholder once).
        let history = c
            .query(
                "SELECT rules, game_id, rating, deviation, at_ms FROM rating_history
                 WHERE user_id = $1 AND ($2 = '' OR rules = $2) ORDER BY at_ms, game_id",
                vals![id, rules.clone().unwrap_or_default()],
            )?
            .iter()
            .map(|r| {
                Ok(HistoryPoint {
                    rules: r.text(0)?,
                    game: r.text(1)?,
                    rating: r.real(2)?,
                    deviation: r.real(3)?,
                    at_ms: r.int(4)?,
                })
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        let games = history::page(c, id, &rules.unwrap_or_default(), None, history::PAGE)?;
        Ok(Profile {
            name,
            created_ms,
            higher_is_better: true,
            provisional_above: PROVISIONAL_DEVIATION,
            ratings,
            history,
            games: games.games,
            games_next: games.next,
        })
    })
}
