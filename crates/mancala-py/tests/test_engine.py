"""Values from the engine and the endgame tables, with the fields of the engine's
Evaluation."""

import json
import random
import subprocess

import pytest

import mancala

FIELDS = {"side", "margin", "score", "lower_is_better", "tie_break", "proven", "depth", "text"}


def test_solve_kalah_6_3_is_plus_2():
    r = mancala.solve("kalah,seeds=3/3-3-3-3-3-3/0/3-3-3-3-3-3/0/s", threads=2)
    v = r["eval"]
    assert set(v) == FIELDS
    assert (v["side"], v["margin"], v["proven"], v["depth"]) == ("south", 2, True, None)
    assert v["lower_is_better"] is False and r["value"] == 2
    g = mancala.Game("kalah")
    assert r["best_pit"] in g.legal_moves() and r["pv_pits"][0] == r["best_pit"]
    for pit in r["pv_pits"]:  # the perfect line is playable
        g.play(pit)


def test_solve_gives_the_dict_of_the_cli(cli):
    pos = "kalah,pits=3,seeds=2/2-2-2/0/2-2-2/0/s"
    r = mancala.solve(pos)
    out = subprocess.run([cli, "solve", "--position", pos, "--json"], capture_output=True, text=True, check=True)
    want = json.loads(out.stdout)
    python_only = {"best_pit", "pv_pits", "seconds"}
    assert set(r) - python_only == set(want)
    for k in want:
        if k != "nodes":  # the search's node count varies with its threads
            assert r[k] == want[k], k


@pytest.mark.slow
def test_solve_kalah_6_4_is_plus_8():
    r = mancala.solve(mancala.Game("kalah,seeds=4"), threads=2)
    assert r["value"] == 8 and r["eval"]["proven"]


def test_solve_a_misere_endgame_and_refusals():
    rng = random.Random(1)
    g = mancala.Game("dracala")
    while g.total_seeds - sum(g.scores) > 14 and not g.is_over:
        g.play(rng.choice(g.legal_moves()))
    assert not g.is_over
    v = mancala.solve(g)["eval"]
    assert v["lower_is_better"] is True and v["proven"] and v["side"] == g.to_move
    assert v["score"] == -v["margin"]
    with pytest.raises(ValueError, match="over"):
        mancala.solve("kalah,seeds=4/0-0-0-0-0-0/24/0-0-0-0-0-0/24/-")
    with pytest.raises(ValueError):
        mancala.solve("not a position")
    with pytest.raises(RuntimeError):
        mancala.solve(mancala.Game("kalah,seeds=6"), time_ms=50)
    with pytest.raises(ValueError, match="threads"):
        mancala.solve(mancala.Game("kalah"), threads=0)
    with pytest.raises(ValueError, match="threads"):
        mancala.analyze(mancala.Game("kalah"), threads=100_000)


def test_analyze_gives_values_of_every_move():
    g = mancala.Game("kalah,seeds=4")
    r = mancala.analyze(g, depth=6, all_moves=True)
    assert r["depth"] == 6 and r["value"]["depth"] == 6 and not r["value"]["proven"]
    assert set(r["value"]) == FIELDS and r["best"] in g.legal_moves()
    assert sorted(m["pit"] for m in r["moves"]) == g.legal_moves()
    best = max(m["value"]["score"] for m in r["moves"])
    assert r["value"]["score"] == best
    # Close to the end a search proves its value.
    end = mancala.analyze("kalah,seeds=4/0-0-0-0-1-1/20/0-0-0-0-2-0/24/s", time_ms=200)
    assert end["value"]["proven"] and end["value"]["margin"] == mancala.solve(end["position"])["value"]


def test_levels_choose_legal_moves():
    rng = random.Random(4)
    for rules in ("kalah", "kauri", "oware", "dracala"):
        g = mancala.Game(rules)
        for _ in range(6):
            if g.is_over:
                break
            g.play(rng.choice(g.legal_moves()))
        for n in range(1, 7):
            assert mancala.Level(n).choose(g, seed=n) in g.legal_moves()
    assert mancala.Level(5).level == 5
    for bad in (0, 9):
        with pytest.raises(ValueError):
            mancala.Level(bad)


def test_egdb_values_are_the_proofs(cli, tmp_path):
    rules = "kalah,pits=4,seeds=3"
    out = subprocess.run(
        [cli, "egdb", "build", "--variant", rules, "--max-seeds", "10", "--dir", str(tmp_path), "--quiet"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    db = mancala.Egdb(tmp_path)
    rng = random.Random(9)
    checked = 0
    while checked < 20:
        g = mancala.Game(rules)
        while not g.is_over and g.total_seeds - sum(g.scores) > 10:
            g.play(rng.choice(g.legal_moves()))
        if g.is_over:
            continue
        v = db.value(g)
        assert v is not None and set(v) == FIELDS and v["proven"] and v["side"] == g.to_move
        assert v["margin"] == mancala.solve(g)["value"]
        best = db.best_moves(g)
        assert best and set(best) <= set(g.legal_moves())
        checked += 1
    assert db.value(mancala.Game(rules)) is None  # 24 seeds: beyond the tables
    with pytest.raises(ValueError):
        db.value(mancala.Game("kauri"))
    with pytest.raises(ValueError):
        mancala.Egdb(tmp_path / "missing")


def test_egdb_refuses_a_folder_without_tables(tmp_path):
    # Every probe of an empty folder would answer None: refused, saying how to build tables.
    with pytest.raises(ValueError) as e:
        mancala.Egdb(tmp_path)
    assert str(e.value) == (
        f"no endgame tables in {tmp_path}: build them with `mancala egdb build --dir {tmp_path}`"
    )
    with pytest.raises(ValueError, match="no endgame tables in"):
        mancala.solve("kalah/1-0-0-0-0-0/17/1-0-0-0-0-0/17/s", egdb=tmp_path)


def test_solve_says_which_repetition_rule_is_proven():
    # Oware's default repetition rule (own-row) is beyond the retrograde solver: the error
    # says so and names the rule that is proven, as `mancala solve` does.
    with pytest.raises(RuntimeError) as e:
        mancala.solve(mancala.Game("oware"))
    assert "no proof under repetition=own-row" in str(e.value)
    assert str(e.value).endswith("repetition=split is proven")


def test_analyze_all_moves_spends_what_the_cli_spends():
    """``analyze(all_moves=True)`` and ``mancala analyze --all-moves`` run one policy and
    spend the same time (within 10 %) on a position no proof settles in a second."""
    import json
    import os

    pos = "kalah,seeds=6/6-6-6-6-6-6/0/6-6-6-6-6-6/0/s"
    py, cli = [], []
    for _ in range(2):  # alternated, so that a burst of load falls on both
        py.append(mancala.analyze(pos, time_ms=1000, all_moves=True)["seconds"] * 1000)
        out = subprocess.run(
            [os.environ.get("MANCALA_BIN", "mancala"), "analyze", pos, "--all-moves",
             "--time", "1s", "--threads", "1", "--json"],
            check=True, capture_output=True, text=True,
        ).stdout
        cli.append(json.loads(out)["ms"])
    assert abs(sum(py) - sum(cli)) <= 0.1 * sum(cli), (py, cli)
    assert sum(cli) >= 1800, cli
