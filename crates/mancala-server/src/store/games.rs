//! The store's reads and writes of games: a game made, its moves, its seats, its ends, what
//! passes between its players; the lists of games to resume, mark or show.

use anyhow::anyhow;

use super::database::{Pending, Store};
use super::notify::touched;
use super::rows::{kind, side_name, stop_from, stop_text, Between, GameRow, MoveRow};
use super::settle::settle;
use crate::clock::{now_ms, Clock};
use crate::db::{self, vals, Conn};
use crate::offer::Offer;
use crate::view::Stop;

/// Stores a game's clock as read at a move.
fn set_clock(c: &mut dyn Conn, id: &str, k: &Clock) -> anyhow::Result<()> {
    c.exec(
        "UPDATE games SET clock_south_ms = $2, clock_north_ms = $3, clock_at_ms = $4
         WHERE id = $1",
        vals![id, k.ms[0], k.ms[1], k.at_ms],
    )
    .map(|_| ())
}

impl Store {
    /// Queues the insertion of a new game's row.
    pub fn create_game(&self, g: &GameRow) -> Pending {
        let (g, me) = (g.clone(), self.instance.clone());
        let clock = g.between.clock;
        self.write(move |c| {
            touched(c, &me, &g.id)?;
            c.exec(
                "INSERT INTO games (id, start, created_ms, updated_ms, south_kind, north_kind,
                    ai_level, south_token, north_token, invite, resigned, seed, south_name,
                    north_name, clock, clock_south_ms, clock_north_ms, clock_at_ms)
                 VALUES ($1, $2, $3, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15,
                    $16, $17)",
                vals![
                    &g.id,
                    &g.start,
                    g.created_ms,
                    kind(g.ai[0], g.bots[0]),
                    kind(g.ai[1], g.bots[1]),
                    g.ai_level,
                    g.tokens[0].clone(),
                    g.tokens[1].clone(),
                    g.invite.clone(),
                    g.resigned.map(side_name),
                    g.seed,
                    g.names[0].clone(),
                    g.names[1].clone(),
                    clock.map(|c| c.control.to_string()),
                    clock.map(|c| c.ms[0]),
                    clock.map(|c| c.ms[1]),
                    clock.and_then(|c| c.at_ms),
                ],
            )
            .map(|_| ())
        })
    }

    /// The game and its moves in order, or `None`.
    pub fn load_game(&self, id: &str) -> anyhow::Result<Option<(GameRow, Vec<MoveRow>)>> {
        let id = id.to_string();
        self.with(move |c| {
            let Some(r) = c.query_opt(
                "SELECT id, start, created_ms, south_kind, north_kind, ai_level, south_token,
                    north_token, invite, resigned, seed, south_name, north_name, interrupted_ms,
                    clock, clock_south_ms, clock_north_ms, clock_at_ms, stopped, offer, rematch,
                    south_away_ms, north_away_ms
                 FROM games WHERE id = $1",
                vals![&id],
            )?
            else {
                return Ok(None);
            };
            let kinds = [r.text(3)?, r.text(4)?];
            let row = GameRow {
                id: r.text(0)?,
                start: r.text(1)?,
                created_ms: r.int(2)?,
                ai: kinds.clone().map(|k| k == "ai"),
                bots: kinds.map(|k| k == "kgp"),
                ai_level: r.opt_num(5)?,
                tokens: [r.opt_text(6)?, r.opt_text(7)?],
                invite: r.opt_text(8)?,
                resigned: r.opt_text(9)?.map(|s| u8::from(s == "north")),
                seed: r.int(10)?,
                names: [r.opt_text(11)?, r.opt_text(12)?],
                interrupted: r.opt_int(13)?.is_some(),
                between: Between {
                    clock: match r.opt_text(14)? {
                        Some(t) => Some(Clock {
                            control: t.parse()?,
                            ms: [
                                r.opt_int(15)?.unwrap_or(0),
                                r.opt_int(16)?.unwrap_or(0),
                            ],
                            at_ms: r.opt_int(17)?,
                        }),
                        None => None,
                    },
                    stopped: r.opt_text(18)?.as_deref().and_then(stop_from),
                    offer: r.opt_text(19)?.as_deref().and_then(Offer::from_text),
                    rematch: r.opt_text(20)?,
                    away_ms: [r.opt_int(21)?, r.opt_int(22)?],
                },
            };
            let moves = c
                .query(
                    "SELECT ply, pit, eval, depth, time_ms FROM moves WHERE game_id = $1 ORDER BY ply",
                    vals![&id],
                )?
                .iter()
                .map(|r| {
                    Ok(MoveRow {
                        ply: r.num(0)?,
                        pit: r.num(1)?,
                        eval: r.opt_num(2)?,
                        depth: r.opt_num(3)?,
                        time_ms: r.opt_int(4)?.map(|t| t.max(0) as u64),
                    })
                })
                .collect::<anyhow::Result<Vec<_>>>()?;
            Ok(Some((row, moves)))
        })
    }

    /// Appends a move; its ply must be the next one (the primary key refuses a duplicate).
    /// A timed game's clock after the move is stored with it, and a standing offer lapses.
    pub fn add_move(&self, id: &str, m: &MoveRow, clock: Option<Clock>) -> Pending {
        let (id, m, me) = (id.to_string(), *m, self.instance.clone());
        self.write(move |tx| {
            touched(tx, &me, &id)?;
            tx.exec(
                "INSERT INTO moves (game_id, ply, pit, eval, depth, time_ms, created_ms)
                 VALUES ($1, $2, $3, $4, $5, $6, $7)",
                vals![&id, m.ply, m.pit, m.eval, m.depth, m.time_ms, now_ms()],
            )?;
            tx.exec(
                "UPDATE games SET updated_ms = $2, offer = NULL WHERE id = $1",
                vals![&id, now_ms()],
            )?;
            if let Some(c) = clock {
                set_clock(tx, &id, &c)?;
            }
            // A game between accounts that this move ends is settled with it.
            settle(tx, &id)
        })
    }

    /// Deletes the moves from ply `from` on (undo).
    pub fn truncate(&self, id: &str, from: u32) -> Pending {
        let (id, me) = (id.to_string(), self.instance.clone());
        self.write(move |c| {
            touched(c, &me, &id)?;
            c.exec(
                "DELETE FROM moves WHERE game_id = $1 AND ply >= $2",
                vals![&id, from],
            )
            .map(|_| ())
        })
    }

    /// Queues the resignation of game `id` by `side` (0 South, 1 North).
    pub fn set_resigned(&self, id: &str, side: u8) -> Pending {
        let (id, me) = (id.to_string(), self.instance.clone());
        self.write(move |c| {
            touched(c, &me, &id)?;
            c.exec(
                "UPDATE games SET resigned = $2, updated_ms = $3 WHERE id = $1",
                vals![&id, side_name(side), now_ms()],
            )?;
            settle(c, &id)
        })
    }

    /// Marks game `id` as cut off by a restart ([`GameRow::interrupted`]).
    pub fn set_interrupted(&self, id: &str) -> Pending {
        let (id, me) = (id.to_string(), self.instance.clone());
        self.write(move |c| {
            touched(c, &me, &id)?;
            c.exec(
                "UPDATE games SET interrupted_ms = $2, updated_ms = $2 WHERE id = $1",
                vals![&id, now_ms()],
            )
            .map(|_| ())
        })
    }

    /// Ends game `id` off the board with `stop` (on time, abandoned, agreed, cancelled) if it
    /// has still `plies` moves and has not ended: fails where another server moved or ended
    /// it meanwhile. Settles a game between accounts.
    pub fn set_stopped(&self, id: &str, stop: Stop, plies: u32, clock: Option<Clock>) -> Pending {
        let (id, me) = (id.to_string(), self.instance.clone());
        self.write(move |c| {
            touched(c, &me, &id)?;
            let n = c.exec(
                "UPDATE games SET stopped = $2, offer = NULL, updated_ms = $3
                 WHERE id = $1 AND stopped IS NULL AND resigned IS NULL
                   AND (SELECT COUNT(*) FROM moves WHERE game_id = $1) = $4",
                vals![&id, stop_text(stop), now_ms(), plies],
            )?;
            if n != 1 {
                return Err(anyhow!("the game moved on meanwhile"));
            }
            if let Some(k) = clock {
                set_clock(c, &id, &k)?;
            }
            settle(c, &id)
        })
    }

    /// Stores the offer standing in game `id` (`None`: none) if the game still has `plies`
    /// moves; fails where it moved on.
    pub fn set_offer(&self, id: &str, offer: Option<Offer>, plies: u32) -> Pending {
        let (id, me) = (id.to_string(), self.instance.clone());
        self.write(move |c| {
            touched(c, &me, &id)?;
            let n = c.exec(
                "UPDATE games SET offer = $2, updated_ms = $3
                 WHERE id = $1 AND (SELECT COUNT(*) FROM moves WHERE game_id = $1) = $4",
                vals![&id, offer.map(|o| o.text()), now_ms(), plies],
            )?;
            if n != 1 {
                return Err(anyhow!("the game moved on meanwhile"));
            }
            Ok(())
        })
    }

    /// A takeback: deletes the moves from ply `from` on, the offer with them, and stores the
    /// clock as it now reads.
    pub fn take_back(&self, id: &str, from: u32, clock: Option<Clock>) -> Pending {
        let (id, me) = (id.to_string(), self.instance.clone());
        self.write(move |c| {
            touched(c, &me, &id)?;
            c.exec(
                "DELETE FROM moves WHERE game_id = $1 AND ply >= $2",
                vals![&id, from],
            )?;
            c.exec(
                "UPDATE games SET offer = NULL, updated_ms = $2 WHERE id = $1",
                vals![&id, now_ms()],
            )?;
            if let Some(k) = clock {
                set_clock(c, &id, &k)?;
            }
            Ok(())
        })
    }

    /// Links game `id` to its rematch `rematch` once (fails where one was linked meanwhile).
    pub fn set_rematch(&self, id: &str, rematch: &str) -> Pending {
        let (id, rematch, me) = (id.to_string(), rematch.to_string(), self.instance.clone());
        self.write(move |c| {
            touched(c, &me, &id)?;
            match c.exec(
                "UPDATE games SET rematch = $2, offer = NULL WHERE id = $1 AND rematch IS NULL",
                vals![&id, rematch],
            )? {
                1 => Ok(()),
                _ => Err(anyhow!("a rematch was agreed meanwhile")),
            }
        })
    }

    /// Stores since when seat `side`'s player has been gone (`None`: he is back).
    pub fn set_away(&self, id: &str, side: u8, since: Option<i64>) -> Pending {
        let sql = if side == 0 {
            "UPDATE games SET south_away_ms = $2 WHERE id = $1"
        } else {
            "UPDATE games SET north_away_ms = $2 WHERE id = $1"
        };
        let (id, me) = (id.to_string(), self.instance.clone());
        self.write(move |c| {
            touched(c, &me, &id)?;
            c.exec(sql, vals![&id, since]).map(|_| ())
        })
    }

    /// Gives the open seat `side` its token and name, and spends the invitation; fails where
    /// the seat was taken meanwhile (by another server on the same database).
    pub fn claim_seat(
        &self,
        id: &str,
        side: u8,
        token: &str,
        name: Option<&str>,
        now: i64,
    ) -> Pending {
        // A clock starts when the second seat is taken.
        let sql = if side == 0 {
            "UPDATE games SET south_token = $2, south_name = $3, invite = NULL, updated_ms = $4,
                clock_at_ms = CASE WHEN clock IS NULL THEN NULL ELSE CAST($4 AS BIGINT) END
             WHERE id = $1 AND invite IS NOT NULL AND south_token IS NULL"
        } else {
            "UPDATE games SET north_token = $2, north_name = $3, invite = NULL, updated_ms = $4,
                clock_at_ms = CASE WHEN clock IS NULL THEN NULL ELSE CAST($4 AS BIGINT) END
             WHERE id = $1 AND invite IS NOT NULL AND north_token IS NULL"
        };
        let (id, token, name) = (id.to_string(), token.to_string(), name.map(str::to_string));
        let me = self.instance.clone();
        self.write(move |c| {
            touched(c, &me, &id)?;
            match c.exec(sql, vals![&id, token, name, now])? {
                1 => Ok(()),
                _ => Err(anyhow!("the seat was taken meanwhile")),
            }
        })
    }

    /// Ids of the `limit` games between people (or bots) that moved last, where a move or a
    /// seat was taken since `since_ms` and nothing ended them off the board; newest first
    /// (the caller drops those over by the rules).
    pub fn live_games(&self, limit: u32, since_ms: i64) -> anyhow::Result<Vec<String>> {
        self.ids(
            "SELECT id FROM games WHERE south_kind <> 'ai' AND north_kind <> 'ai'
                AND invite IS NULL AND resigned IS NULL AND stopped IS NULL
                AND interrupted_ms IS NULL AND updated_ms > $2
             ORDER BY updated_ms DESC, id LIMIT $1",
            vec![limit.into(), since_ms.into()],
        )
    }

    /// Ids of the `limit` newest games with a KGP bot, newest first.
    pub fn bot_games(&self, limit: u32) -> anyhow::Result<Vec<String>> {
        self.ids(
            "SELECT id FROM games WHERE south_kind = 'kgp' OR north_kind = 'kgp'
             ORDER BY created_ms DESC, id LIMIT $1",
            vec![limit.into()],
        )
    }

    /// Ids of the KGP bots' games neither resigned nor already marked as interrupted, for
    /// marking those a restart cut off.
    pub fn open_bot_games(&self) -> anyhow::Result<Vec<String>> {
        self.ids(
            "SELECT id FROM games WHERE (south_kind = 'kgp' OR north_kind = 'kgp')
             AND resigned IS NULL AND interrupted_ms IS NULL",
            Vec::new(),
        )
    }

    /// Ids of games (not resigned, changed in the last week) where the computer plays, for
    /// resuming after a restart.
    pub fn ai_games(&self) -> anyhow::Result<Vec<String>> {
        let week = 7 * 24 * 3600 * 1000;
        self.ids(
            "SELECT id FROM games WHERE resigned IS NULL
             AND (south_kind = 'ai' OR north_kind = 'ai') AND updated_ms > $1
             ORDER BY updated_ms DESC LIMIT 1000",
            vec![(now_ms() - week).into()],
        )
    }

    /// The first column of a query's rows, as texts.
    fn ids(&self, sql: &'static str, params: Vec<db::Val>) -> anyhow::Result<Vec<String>> {
        self.with(move |c| c.query(sql, &params)?.iter().map(|r| r.text(0)).collect())
    }
}
