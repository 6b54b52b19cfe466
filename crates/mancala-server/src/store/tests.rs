use super::*;
use crate::db::{self, vals, Kind};

/// A fresh, empty PostgreSQL schema for one test: the address to give [`Store::connect`],
/// or `None` (saying so) where `MANCALA_TEST_POSTGRES` names no server.
pub(crate) fn pg_test_url(test: &str) -> Option<String> {
    let Ok(base) = std::env::var("MANCALA_TEST_POSTGRES") else {
        eprintln!("skipped on PostgreSQL ({test}): MANCALA_TEST_POSTGRES is not set");
        return None;
    };
    Some(db::fresh_schema(&base).expect("MANCALA_TEST_POSTGRES names a server"))
}

/// Each store test, on SQLite and (where a server is given) on PostgreSQL.
fn on_both(test: &str, f: impl Fn(&dyn Fn() -> Store)) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.db");
    f(&|| Store::open(&path).unwrap());
    if let Some(url) = pg_test_url(test) {
        f(&|| Store::connect(&url).unwrap());
    }
}

#[test]
fn migrates_and_round_trips() {
    on_both("migrates_and_round_trips", |open| {
        let s = open();
        let n = match s.kind() {
            Kind::Sqlite => MIGRATIONS.len(),
            Kind::Postgres => PG_MIGRATIONS.len(),
        };
        assert_eq!(s.schema_version().unwrap() as usize, n);
        round_trip(s, open);
    });
}

fn round_trip(s: Store, open: &dyn Fn() -> Store) {
    let g = GameRow {
        id: "abc".into(),
        start: "kalah/3-3-3-3-3-3/0/3-3-3-3-3-3/0/s".into(),
        created_ms: 1_765_000_000_000,
        ai: [false, true],
        bots: [false, false],
        ai_level: Some(3),
        tokens: [Some("t".into()), None],
        names: [Some("Ann".into()), None],
        invite: None,
        resigned: None,
        interrupted: false,
        seed: -9,
        between: Between::default(),
    };
    s.create_game(&g).wait().unwrap();
    let m = MoveRow {
        ply: 0,
        pit: 2,
        eval: None,
        depth: None,
        time_ms: None,
    };
    s.add_move("abc", &m, None).wait().unwrap();
    assert!(
        s.add_move("abc", &m, None).wait().is_err(),
        "a ply is stored once"
    );
    // A failed write leaves the others of its batch alone.
    let a = s.add_move("abc", &m, None);
    let b = s.add_move(
        "abc",
        &MoveRow {
            ply: 1,
            eval: Some(-4),
            depth: Some(12),
            time_ms: Some(1500),
            ..m
        },
        None,
    );
    assert!(a.wait().is_err());
    b.wait().unwrap();
    drop(s);
    let s = open();
    let (row, moves) = s.load_game("abc").unwrap().unwrap();
    assert_eq!(row, g);
    assert_eq!(moves.len(), 2);
    assert_eq!(moves[0], m);
    assert_eq!(
        (moves[1].eval, moves[1].depth, moves[1].time_ms),
        (Some(-4), Some(12), Some(1500))
    );
    s.truncate("abc", 0).wait().unwrap();
    assert!(s.load_game("abc").unwrap().unwrap().1.is_empty());
    assert!(s.load_game("nope").unwrap().is_none());
    // A seat is claimed once, with the invitation.
    assert!(
        s.claim_seat("abc", 1, "tok", Some("Bo"), 1).wait().is_err(),
        "no invitation"
    );
    s.create_game(&GameRow {
        id: "inv".into(),
        invite: Some("code".into()),
        ..g.clone()
    })
    .wait()
    .unwrap();
    s.claim_seat("inv", 1, "tok", Some("Bo"), 1).wait().unwrap();
    assert!(
        s.claim_seat("inv", 1, "tok2", None, 1).wait().is_err(),
        "taken"
    );
    s.set_resigned("inv", 1).wait().unwrap();
    let (row, _) = s.load_game("inv").unwrap().unwrap();
    assert_eq!(
        (
            row.tokens[1].as_deref(),
            row.names[1].as_deref(),
            row.resigned
        ),
        (Some("tok"), Some("Bo"), Some(1))
    );
    // A KGP bot's seat is its own kind, and its games are listed.
    let bot = GameRow {
        id: "kgp1".into(),
        created_ms: 2,
        bots: [true, false],
        tokens: [None, None],
        names: [Some("bot".into()), None],
        ..g.clone()
    };
    s.create_game(&bot).wait().unwrap();
    assert_eq!(s.load_game("kgp1").unwrap().unwrap().0, bot);
    assert_eq!(s.bot_games(10).unwrap(), vec!["kgp1".to_string()]);
    assert_eq!(s.open_bot_games().unwrap(), vec!["kgp1".to_string()]);
    s.set_interrupted("kgp1").wait().unwrap();
    assert!(s.open_bot_games().unwrap().is_empty());
    assert!(s.load_game("kgp1").unwrap().unwrap().0.interrupted);
}

/// The move that ends a rated game between accounts and the ratings it gives commit
/// together: where the ratings cannot be written the move is refused too, and where they
/// can both are stored.
#[test]
fn a_final_move_and_its_ratings_commit_together() {
    use mancala_core::{Game, Position};
    on_both("a_final_move_and_its_ratings_commit_together", |open| {
        let s = open();
        let start: Position = "kalah/0-0-0-0-0-1/16/1-1-0-0-0-0/17/s".parse().unwrap();
        let pit = (0..6)
            .find(|&p| {
                let mut g = Game::new(start);
                g.play(p).is_ok() && g.outcome().is_some()
            })
            .expect("a move that ends the game");
        s.write(|c| {
            c.batch(
                "INSERT INTO users (name, name_key, password, created_ms)
                 VALUES ('a', 'a', 'x', 0), ('b', 'b', 'x', 0)",
            )
        })
        .wait()
        .unwrap();
        let users = s
            .with(|c| {
                c.query("SELECT id FROM users ORDER BY name_key", &[])?
                    .iter()
                    .map(|r| r.int(0))
                    .collect::<anyhow::Result<Vec<i64>>>()
            })
            .unwrap();
        for id in ["ends", "refused"] {
            s.create_game(&GameRow {
                id: id.into(),
                start: start.to_string(),
                created_ms: 1,
                ai: [false, false],
                bots: [false, false],
                ai_level: None,
                tokens: [Some("s".into()), Some("n".into())],
                names: [None, None],
                invite: None,
                resigned: None,
                interrupted: false,
                seed: 1,
                between: Between::default(),
            })
            .wait()
            .unwrap();
            let (s_user, n_user) = (users[0], users[1]);
            s.write(move |c| {
                c.exec(
                    "INSERT INTO account_games (game_id, rules, rated, south_user, north_user,
                        created_ms) VALUES ($1, 'kalah', 1, $2, $3, 0)",
                    vals![id, s_user, n_user],
                )
                .map(|_| ())
            })
            .wait()
            .unwrap();
        }
        let final_move = MoveRow {
            ply: 0,
            pit,
            eval: None,
            depth: None,
            time_ms: None,
        };
        let state = |id: &'static str| {
            s.with(move |c| {
                let r = c
                    .query_opt(
                        "SELECT a.result, (SELECT COUNT(*) FROM moves WHERE game_id = $1),
                            (SELECT COUNT(*) FROM ratings),
                            (SELECT COALESCE(MAX(games), 0) FROM ratings)
                         FROM account_games a WHERE a.game_id = $1",
                        vals![id],
                    )?
                    .unwrap();
                Ok((r.opt_text(0)?, r.int(1)?, (r.int(2)?, r.int(3)?)))
            })
            .unwrap()
        };
        s.add_move("ends", &final_move, None).wait().unwrap();
        let (result, moves, rated) = state("ends");
        assert!(result.is_some());
        assert_eq!((moves, rated), (1, (2, 1)), "the move and both ratings");
        s.write(|c| c.batch("DROP TABLE rating_history"))
            .wait()
            .unwrap();
        assert!(s.add_move("refused", &final_move, None).wait().is_err());
        assert_eq!(
            state("refused"),
            (None, 0, (2, 1)),
            "neither the move nor a rating"
        );
    });
}

/// The tables and columns of each schema version, as the database itself lists them.
fn columns(s: &Store) -> Vec<(String, String)> {
    s.with(|c| {
        let sql = match c.kind() {
            Kind::Sqlite => {
                "SELECT m.name, p.name FROM sqlite_master m, pragma_table_info(m.name) p
                 WHERE m.type = 'table' ORDER BY 1, 2"
            }
            Kind::Postgres => {
                "SELECT table_name::text, column_name::text FROM information_schema.columns
                 WHERE table_schema = current_schema() AND table_name <> 'mancala_schema'
                 ORDER BY 1, 2"
            }
        };
        c.query(sql, &[])?
            .iter()
            .map(|r| Ok((r.text(0)?, r.text(1)?)))
            .collect()
    })
    .unwrap()
}

#[test]
fn both_databases_make_the_same_tables_and_columns() {
    assert_eq!(MIGRATIONS.len(), PG_MIGRATIONS.len());
    let dir = tempfile::tempdir().unwrap();
    let lite = columns(&Store::open(&dir.path().join("g.db")).unwrap());
    assert!(lite.contains(&("moves".into(), "time_ms".into())));
    if let Some(url) = pg_test_url("both_databases_make_the_same_tables_and_columns") {
        assert_eq!(columns(&Store::connect(&url).unwrap()), lite);
    }
}

#[test]
fn a_newer_schema_is_refused() {
    on_both("a_newer_schema_is_refused", |open| {
        let s = open();
        s.write(|c| match c.kind() {
            Kind::Sqlite => c.batch("PRAGMA user_version = 99"),
            Kind::Postgres => c.batch("UPDATE mancala_schema SET version = 99"),
        })
        .wait()
        .unwrap();
        drop(s);
        let e = std::panic::catch_unwind(std::panic::AssertUnwindSafe(open));
        assert!(e.is_err(), "a database of schema 99 is opened");
    });
}
