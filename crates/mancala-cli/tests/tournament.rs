//! `mancala tournament` on both protocols: level 1, a random and a greedy agent and a command
//! that only misbehaves, two games a pairing.

use std::process::Command;

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_mancala");

fn tournament(args: &[&str]) -> (String, String, Option<i32>) {
    let out = Command::new(BIN)
        .arg("tournament")
        .args(args)
        .output()
        .expect("runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

fn n(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

/// Checks that the standings and pairings add up over the games and returns the report's
/// standings by name.
fn check_totals(r: &Value, entrants: u64, games_a_pairing: u64) -> Vec<(String, Value)> {
    let games = r["games"].as_array().unwrap();
    let pairings = entrants * (entrants - 1) / 2;
    assert_eq!(games.len() as u64, pairings * games_a_pairing);
    let standings = r["standings"].as_array().unwrap();
    assert_eq!(standings.len() as u64, entrants);
    let sum = |key: &str| standings.iter().map(|s| n(&s[key])).sum::<u64>();
    // Every game counted twice, once for each entrant.
    assert_eq!(sum("games"), 2 * games.len() as u64);
    assert_eq!(sum("wins"), sum("losses"));
    let draws = games.iter().filter(|g| g["winner"].is_null()).count() as u64;
    assert_eq!(sum("draws"), 2 * draws);
    assert_eq!(sum("wins") + draws, games.len() as u64);
    let points: f64 = standings
        .iter()
        .map(|s| s["points"].as_f64().unwrap())
        .sum();
    assert_eq!(points, games.len() as f64);
    let margin: i64 = standings
        .iter()
        .map(|s| s["margin"].as_i64().unwrap())
        .sum();
    assert_eq!(margin, 0);
    for s in standings {
        assert_eq!(
            n(&s["wins"]) + n(&s["draws"]) + n(&s["losses"]),
            n(&s["games"])
        );
        assert_eq!(n(&s["games"]), (entrants - 1) * games_a_pairing, "{s}");
    }
    // Best first.
    let pts: Vec<f64> = standings
        .iter()
        .map(|s| s["points"].as_f64().unwrap())
        .collect();
    assert!(pts.windows(2).all(|w| w[0] >= w[1]), "{pts:?}");
    let pairs = r["pairings"].as_array().unwrap();
    assert_eq!(pairs.len() as u64, pairings);
    for p in pairs {
        assert_eq!(
            n(&p["wins"][0]) + n(&p["wins"][1]) + n(&p["draws"]),
            games_a_pairing,
            "{p}"
        );
    }
    // Seats alternate within a pairing.
    for pair in games.chunks(games_a_pairing as usize) {
        assert_eq!(pair[0]["seats"][0], pair[1]["seats"][1]);
        assert_eq!(pair[0]["seats"][1], pair[1]["seats"][0]);
    }
    standings
        .iter()
        .map(|s| (s["name"].as_str().unwrap().to_string(), s.clone()))
        .collect()
}

fn by_name<'a>(standings: &'a [(String, Value)], name: &str) -> &'a Value {
    &standings.iter().find(|(n, _)| n == name).unwrap().1
}

/// The games between two named entrants.
fn between<'a>(r: &'a Value, a: &str, b: &str) -> Vec<&'a Value> {
    let names: Vec<&str> = r["entrants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    let idx = |s: &str| names.iter().position(|n| *n == s).unwrap() as u64;
    let (a, b) = (idx(a), idx(b));
    r["games"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| {
            let s = [n(&g["seats"][0]), n(&g["seats"][1])];
            s == [a, b] || s == [b, a]
        })
        .collect()
}

#[test]
fn a_manchester_tournament_adds_up_and_garbage_loses() {
    let dir = env!("CARGO_TARGET_TMPDIR");
    let agent = |name: &str, args: &str| {
        format!("{name}={BIN} agent manchester {args} --log {dir}/tournament-{name}.log")
    };
    let entrants = [
        agent("level1", "--level 1"),
        agent("random", "--player random --seed {seed}"),
        agent("greedy", "--player greedy"),
        "garbage=echo garbage; cat >/dev/null".to_string(),
    ];
    let mut args = vec!["--protocol", "manchester", "--games", "2", "--json"];
    args.extend(entrants.iter().map(String::as_str));
    let (out, err, code) = tournament(&args);
    assert_eq!(code, Some(0), "{out} {err}");
    let r: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(r["protocol"], "manchester");
    let st = check_totals(&r, 4, 2);
    let g = by_name(&st, "garbage");
    assert_eq!((n(&g["losses"]), n(&g["faults"])), (6, 6), "{g}");
    for game in between(&r, "garbage", "level1") {
        let fault = game["fault"].as_str().unwrap();
        assert!(
            fault.contains("`garbage`"),
            "the reason quotes what it sent: {fault}"
        );
    }
    // Games by the rules end with all 98 seeds in the stores, none a fault.
    for game in between(&r, "greedy", "random") {
        assert!(game["fault"].is_null(), "{game}");
        assert_eq!(n(&game["scores"][0]) + n(&game["scores"][1]), 98, "{game}");
        assert!(n(&game["moves"][0]) > 5, "{game}");
    }
    // Greedy (entrant 2) takes both games from the seeded random agent.
    let greedy_won = between(&r, "greedy", "random")
        .iter()
        .filter(|g| g["winner"] == 2)
        .count();
    assert_eq!(greedy_won, 2);
    // `winner` is an entrant, `scores` are by seat: the winner's seat holds the larger store.
    for game in between(&r, "greedy", "random") {
        let k = game["seats"]
            .as_array()
            .unwrap()
            .iter()
            .position(|e| *e == game["winner"])
            .unwrap();
        assert!(n(&game["scores"][k]) > n(&game["scores"][1 - k]), "{game}");
    }

    // The tables: one line an entrant and one a pairing.
    let (text, err, code) = tournament(&[
        "--protocol",
        "manchester",
        "--games",
        "2",
        &entrants[2],
        &entrants[3],
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        text.contains("Manchester Kalah, 2 games a pairing, seed 1"),
        "{text}"
    );
    let row = text
        .lines()
        .find(|l| l.split_whitespace().nth(1) == Some("garbage"))
        .unwrap();
    assert!(row.contains("0-0-2"), "{row}");
    assert!(
        text.contains("greedy 2 : 0 garbage (wins 2-0, draws 0"),
        "{text}"
    );
    assert!(
        text.contains("garbage: malformed message: `garbage` is not MOVE;k or SWAP"),
        "{text}"
    );
}

#[test]
fn a_kgp_tournament_adds_up_and_faults_lose() {
    let agent = |name: &str, args: &str| format!("{name}={BIN} agent kgp --server {{addr}} {args}");
    // Connects, reads the greeting, then sends garbage instead of `mode`.
    let tcp_garbage = "liar=bash -c 'A={addr}; exec 3<>/dev/tcp/${A%:*}/${A#*:}; \
        read -u 3 greeting; echo garbage >&3; cat <&3 >/dev/null'";
    let entrants = [
        agent("level1", "--level 1"),
        agent("random", "--player random --seed {seed}"),
        agent("greedy", "--player greedy"),
        "mute=echo garbage".to_string(),
        tcp_garbage.to_string(),
    ];
    let mut args = vec![
        "--protocol",
        "kgp",
        "--games",
        "2",
        "--pits",
        "4",
        "--seeds",
        "3",
        "--json",
    ];
    args.extend(entrants.iter().map(String::as_str));
    let (out, err, code) = tournament(&args);
    assert_eq!(code, Some(0), "{out} {err}");
    let r: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(r["protocol"], "kgp");
    let st = check_totals(&r, 5, 2);
    assert!(r["seed"].is_u64() && r["games"][0]["seed"].is_u64(), "{r}");
    for game in between(&r, "mute", "greedy") {
        assert_eq!(
            game["fault"], "it exited (exit status: 0) without connecting",
            "{game}"
        );
    }
    for game in between(&r, "liar", "random") {
        assert_eq!(game["fault"], "`garbage` before `mode`", "{game}");
    }
    for name in ["mute", "liar"] {
        let s = by_name(&st, name);
        // Each loses to the three agents; between themselves the South one is at fault
        // first (the North command is never started), so each takes one of those two.
        assert_eq!((n(&s["wins"]), n(&s["faults"])), (1, 7), "{s}");
    }
    for game in between(&r, "greedy", "level1") {
        assert!(game["fault"].is_null(), "{game}");
        assert!(
            n(&game["moves"][0]) > 0 && n(&game["moves"][1]) > 0,
            "{game}"
        );
        // Kalah(4,3): 24 seeds; stop-when-decided leaves the board's to nobody.
        assert!(
            n(&game["scores"][0]) + n(&game["scores"][1]) <= 24,
            "{game}"
        );
        assert!(!game["winner"].is_null() || game["scores"][0] == game["scores"][1]);
    }
}

/// An option of the other protocol is refused, not silently ignored.
#[test]
fn the_other_protocols_options_are_refused() {
    let (_, err, code) = tournament(&["--protocol", "manchester", "--pits", "4", "a=x", "b=y"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("--move-time, --pits and --seeds are KGP's"),
        "{err}"
    );
    let (_, err, code) = tournament(&["--protocol", "kgp", "--game-time", "60s", "a=x", "b=y"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--game-time is Manchester Kalah's"), "{err}");
}

/// `--help` says which of a game's JSON fields are entrants and which are by seat.
#[test]
fn the_help_says_what_the_json_fields_index() {
    let out = std::process::Command::new(BIN)
        .args(["tournament", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        help.contains("`seats`, `winner` and `faulty` are entrants (indices into `entrants`, from 0); `scores`, `moves` and `avg_ms` are by seat"),
        "{help}"
    );
}

/// A `tournament --bots N --json` on a free local port (4 pits, 3 seeds, `games` a pairing),
/// whose bots are started one at a time, each after the one before it has connected.
struct Connected {
    t: std::process::Child,
    err: std::io::BufReader<std::process::ChildStderr>,
    addr: String,
    n: usize,
    joined: usize,
}

impl Connected {
    fn start(n: usize, games: usize) -> Connected {
        use std::io::BufRead;
        use std::process::Stdio;
        let (bots, games) = (n.to_string(), games.to_string());
        let mut t = Command::new(BIN)
            .args(["tournament", "--protocol", "kgp", "--bots", &bots])
            .args([
                "--listen",
                "127.0.0.1:0",
                "--wait",
                "60s",
                "--games",
                &games,
            ])
            .args(["--pits", "4", "--seeds", "3", "--json"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut err = std::io::BufReader::new(t.stderr.take().unwrap());
        let mut line = String::new();
        err.read_line(&mut line).unwrap();
        let addr = line
            .split(" at ")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .unwrap_or_else(|| panic!("no address in: {line}"))
            .to_string();
        Connected {
            t,
            err,
            addr,
            n,
            joined: 0,
        }
    }

    /// A bash script that connects to the tournament, reads the greeting, sends `lines`
    /// (each ended by a line break), then reads on, running `on` as a `case` of each line.
    fn script(&self, lines: &[&str], on: &str) -> String {
        let a = &self.addr;
        let sent: String = lines.iter().map(|l| format!("echo '{l}' >&3; ")).collect();
        format!(
            "A={a}; exec 3<>/dev/tcp/${{A%:*}}/${{A#*:}}; read -u 3 greeting; {sent}\
             while read -u 3 l; do case \"$l\" in {on};; esac; done"
        )
    }

    /// Starts `cmd` (bash), its standard output piped, and waits until it has connected.
    fn bot(&mut self, cmd: &str) -> std::process::Child {
        use std::io::BufRead;
        let child = Command::new("bash")
            .args(["-c", cmd])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        self.joined += 1;
        let want = format!("{} of {} connected", self.joined, self.n);
        let mut l = String::new();
        while !l.starts_with(&want) {
            l.clear();
            assert!(
                self.err.read_line(&mut l).unwrap() > 0,
                "the tournament ended early"
            );
        }
        child
    }

    /// The report, once the tournament has ended (successfully).
    fn report(self) -> Value {
        let out = self.t.wait_with_output().unwrap();
        assert!(out.status.success());
        let text = String::from_utf8_lossy(&out.stdout);
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
    }
}

fn names(r: &Value) -> Vec<&str> {
    r["entrants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect()
}

/// `--bots N`: the first N bots that connect play the round robin, each over one connection
/// for all its games, named by their `info:name`; a bot that quits loses its game then and
/// the games it had left; too few bots in time is an error.
#[test]
fn a_kgp_tournament_between_bots_that_connect_to_it() {
    let mut c = Connected::start(3, 2);
    let addr = c.addr.clone();
    // One at a time, so that they come in this order.
    let bots = [
        c.bot(&format!(
            "{BIN} agent kgp --server {addr} --level 1 --name L1"
        )),
        c.bot(&format!(
            "{BIN} agent kgp --server {addr} --player greedy --name greedy"
        )),
        // Asks for freeplay and names itself, then quits when first asked for a move.
        c.bot(&c.script(
            &["set info:name quitter", "mode freeplay"],
            "*state*) exit 0",
        )),
    ];
    let r = c.report();
    for (k, b) in bots.into_iter().enumerate() {
        let said = b.wait_with_output().unwrap();
        // The two that stayed were told goodbye before the tournament ended.
        if k < 2 {
            let said = String::from_utf8_lossy(&said.stdout);
            assert!(said.contains("the server said goodbye"), "{said}");
        }
    }
    let st = check_totals(&r, 3, 2);
    assert_eq!(names(&r), ["L1", "greedy", "quitter"]);
    let q = by_name(&st, "quitter");
    assert_eq!((n(&q["losses"]), n(&q["faults"])), (4, 4), "{q}");
    let faults: Vec<&str> = between(&r, "quitter", "L1")
        .into_iter()
        .chain(between(&r, "quitter", "greedy"))
        .map(|g| g["fault"].as_str().unwrap())
        .collect();
    // It quits in its first game (3); the next may start before the lobby has seen it leave.
    let left = "it left the tournament before this game (the bot closed the connection)";
    let closed = "the bot closed the connection";
    assert_eq!(faults[0], closed, "{faults:?}");
    assert!(
        faults.iter().all(|f| *f == left || *f == closed),
        "{faults:?}"
    );
    assert!(
        faults.iter().filter(|f| **f == left).count() >= 2,
        "{faults:?}"
    );
    for game in between(&r, "L1", "greedy") {
        assert!(game["fault"].is_null(), "{game}");
        assert!(
            n(&game["moves"][0]) > 0 && n(&game["moves"][1]) > 0,
            "{game}"
        );
    }

    // Nobody comes: an error once the wait is over.
    let (_, err, code) = tournament(&[
        "--protocol",
        "kgp",
        "--bots",
        "2",
        "--listen",
        "127.0.0.1:0",
        "--wait",
        "1s",
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("error: 0 of 2 bots connected within 1 s"),
        "{err}"
    );
    // Manchester agents are commands.
    let (_, err, code) = tournament(&["--protocol", "manchester", "--bots", "2"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--bots is KGP's"), "{err}");
    // Options of --bots are refused without it, and --seed with it.
    for args in [["--listen", "127.0.0.1:0"], ["--wait", "5s"]] {
        let (_, err, code) =
            tournament(&[&["--protocol", "kgp", "a=x", "b=y"][..], &args].concat());
        assert_eq!(code, Some(2), "{err}");
        assert!(err.contains("--bots"), "{err}");
    }
    // Neither entrants nor --bots: what to give, not clap's list of missing arguments.
    for args in [&["--protocol", "kgp"][..], &["--protocol", "manchester"]] {
        let (_, err, code) = tournament(args);
        assert_eq!(code, Some(2), "{err}");
        assert!(
            err.contains("no entrants: give two or more NAME=CMD"),
            "{err}"
        );
    }
    let (_, err, code) = tournament(&["--protocol", "kgp", "--bots", "2", "--seed", "3"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--seed") && err.contains("--bots"), "{err}");
}

/// Two connected bots that both quit: each loses to the bot that stayed, and their own game,
/// which neither came to, is lost by both (no winner, no points, a fault each). A bot with
/// no name and one that calls itself by the other's fallback name are told apart; a bot
/// that comes too late is told the tournament is full.
#[test]
fn a_game_whose_two_bots_have_both_left_is_lost_by_both() {
    let mut c = Connected::start(3, 1);
    let addr = c.addr.clone();
    // The second quitter quits only once `go` exists, so the tournament is still under way
    // when a fourth bot comes, too late.
    let go = format!("{}/late-bot-go", env!("CARGO_TARGET_TMPDIR"));
    let _ = std::fs::remove_file(&go);
    let bots = [
        c.bot(&format!(
            "{BIN} agent kgp --server {addr} --level 1 --name L1"
        )),
        c.bot(&c.script(&["mode freeplay"], "*state*) exit 0")),
        c.bot(&c.script(
            &["set info:name \"bot 2\"", "mode freeplay"],
            &format!("*state*) until [ -e {go} ]; do sleep 0.05; done; exit 0"),
        )),
    ];
    // A fourth bot is turned away at once, told why.
    let late = Command::new(BIN)
        .args(["agent", "kgp", "--server", &addr, "--level", "1"])
        .output()
        .unwrap();
    std::fs::write(&go, "").unwrap();
    let late_err = String::from_utf8_lossy(&late.stderr);
    assert_eq!(late.status.code(), Some(2), "{late_err}");
    assert!(
        late_err.contains("error: the server sent no position: the tournament is full"),
        "{late_err}"
    );
    let r = c.report();
    for mut b in bots {
        assert!(b.wait().is_ok());
    }
    assert_eq!(names(&r), ["L1", "bot 2 #2", "bot 2 #3"]);
    // Connected bots are given no seed, and none is reported.
    assert!(
        r.get("seed").is_none() && r["games"][0].get("seed").is_none(),
        "{r}"
    );
    let games = r["games"].as_array().unwrap();
    assert_eq!(games.len(), 3);
    for g in &games[..2] {
        assert_eq!(g["winner"], 0, "{g}");
        assert!(g.get("both_faulty").is_none(), "{g}");
    }
    let last = &games[2];
    assert!(last["winner"].is_null(), "{last}");
    assert_eq!(last["both_faulty"], true, "{last}");
    assert_eq!(
        last["fault"],
        "both left the tournament before this game: South (the bot closed the connection), \
         North (the bot closed the connection)"
    );
    let st: Vec<(u64, u64, u64, u64, f64)> = r["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let c = |k: &str| n(&s[k]);
            (
                c("wins"),
                c("draws"),
                c("losses"),
                c("faults"),
                s["points"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        st,
        [(2, 0, 0, 0, 2.0), (0, 0, 2, 2, 0.0), (0, 0, 2, 2, 0.0)]
    );
    let p = &r["pairings"][2];
    assert_eq!(
        (&p["wins"], &p["draws"]),
        (&serde_json::json!([0, 0]), &serde_json::json!(0))
    );
}

/// A bot thrown out for garbage while its opponent is on move, the opponent then cut off: both
/// were at fault, so both lose the game; neither is credited a win.
#[test]
fn a_game_both_bots_broke_is_lost_by_both() {
    let mut c = Connected::start(2, 1);
    // South, on move first, quits half a second into its first position; North sends
    // garbage as soon as the game begins, while South thinks.
    let bots = [
        c.bot(&c.script(
            &["set info:name late", "mode freeplay"],
            "*state*) sleep 0.5; exit 0",
        )),
        c.bot(&c.script(
            &["set info:name rude", "mode freeplay"],
            "*game:id*) echo hello >&3",
        )),
    ];
    let r = c.report();
    for mut b in bots {
        assert!(b.wait().is_ok());
    }
    let g = &r["games"][0];
    assert!(g["winner"].is_null(), "{g}");
    assert_eq!(g["both_faulty"], true, "{g}");
    let fault = g["fault"].as_str().unwrap();
    assert!(
        fault.starts_with(
            "the bot closed the connection; its opponent had left: `hello` out of turn"
        ),
        "{fault}"
    );
    for s in r["standings"].as_array().unwrap() {
        assert_eq!((n(&s["losses"]), n(&s["faults"])), (1, 1), "{s}");
        assert_eq!(s["points"].as_f64(), Some(0.0), "{s}");
    }
}

/// An entrant whose command does not exist is named as one that cannot start, and a
/// tournament in which no game could be played for that exits 2 saying so.
#[test]
fn an_entrant_that_cannot_start_is_named_and_no_games_exit_2() {
    let dir = env!("CARGO_TARGET_TMPDIR");
    let ours = format!("ours={BIN} agent manchester --level 1 --log {dir}/t-missing.log");
    let why = "cannot start `no-such-command-xyz`: not found (`sh -c` exited with status 127)";
    let (out, err, code) = tournament(&[
        "--protocol",
        "manchester",
        &ours,
        "missing=no-such-command-xyz",
    ]);
    assert_eq!(code, Some(2), "{out} {err}");
    for game in ["game 1: ours (South) ", "game 2: missing (South) "] {
        let line = out.lines().find(|l| l.starts_with(game)).expect(game);
        assert!(
            line.ends_with(&format!("ours wins; missing: {why}")),
            "{line}"
        );
    }
    assert_eq!(
        err.trim(),
        format!("error: no game could be played: missing: {why}")
    );
    // Between agents that start, one missing entrant leaves the others' games played.
    let (out, err, code) = tournament(&[
        "--protocol",
        "manchester",
        "--games",
        "1",
        "--json",
        &ours,
        &format!("greedy={BIN} agent manchester --player greedy --log {dir}/t-missing2.log"),
        "missing=no-such-command-xyz",
    ]);
    assert_eq!(code, Some(0), "{out} {err}");
    let r: Value = serde_json::from_str(&out).unwrap();
    let faults: Vec<&str> = r["games"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|g| g["fault"].as_str())
        .collect();
    assert_eq!(faults, [why, why], "{out}");
}
