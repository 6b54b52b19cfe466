"""The Python API of one game and of batched games."""

import copy
import json
import pickle
import random
import re
import threading
import time

import numpy as np
import pytest

import mancala


def test_moves_undo_clone_and_errors():
    g = mancala.Game("kalah,seeds=4")
    assert g.rules == "kalah,seeds=4" and g.pits == 6 and g.total_seeds == 48
    assert g.to_move == "south" and not g.is_over and g.outcome is None
    g.play(2)  # C: the last seed in the store, South moves again
    assert g.to_move == "south" and g.scores == (1, 0)
    c = g.clone()
    d = copy.deepcopy(g)
    g.play(5)
    assert g.to_move == "north" and g.moves == [2, 5]
    assert c.moves == [2] and d.position == c.position
    with pytest.raises(ValueError, match="0-based"):
        g.play(6)
    with pytest.raises(ValueError):
        g.play(-1)
    assert g.moves == [2, 5]
    assert g.undo() == 5 and g.undo() == 2 and g.undo() is None
    assert g.position == g.start == "kalah,seeds=4/4-4-4-4-4-4/0/4-4-4-4-4-4/0/s"
    with pytest.raises(ValueError, match="unknown|preset"):
        mancala.Game("kalha")
    with pytest.raises(ValueError):
        mancala.Game("kalah", position="kalah,seeds=4/4-4-4-4-4-4/0/4-4-4-4-4-4/0/s")


def test_positions_and_records_round_trip():
    p = "kalah,seeds=4/0-0-0-0-1-1/20/0-0-0-0-2-0/24/s"
    g = mancala.Game(position=p)
    assert g.position == p and str(g) == p
    rng = random.Random(3)
    g = mancala.Game("kauri")
    while not g.is_over:
        g.play(rng.choice(g.legal_moves()))
    rec = json.loads(g.record(south="me", north="you"))
    assert rec["players"] == {"south": "me", "north": "you"}
    assert rec["result"]["south"] == g.scores[0] and rec["result"]["north"] == g.scores[1]
    for fmt in ("json", "text"):
        h = mancala.Game.from_record(g.record(fmt))
        assert h.moves == g.moves and h.outcome == g.outcome
    h = pickle.loads(pickle.dumps(g))
    assert (h.start, h.moves, h.position, h.outcome) == (g.start, g.moves, g.position, g.outcome)
    p = mancala.Game(position="kalah,seeds=4/0-0-0-0-1-1/20/0-0-0-0-2-0/24/s")
    assert pickle.loads(pickle.dumps(p)).position == p.position
    with pytest.raises(ValueError):
        g.record("xml")
    with pytest.raises(ValueError):
        mancala.Game.from_record('{"rules": "kalah", "turns": [{"side": "north", "moves": [{"pit": 1}]}]}')


def test_observation_layout():
    g = mancala.Game("kalah,seeds=4")
    g.play(2)
    g.play(5)
    o = g.observation()
    assert o.dtype == np.float32 and o.shape == (g.observation_size,) == (14,)
    # North to move: his pits from his left, South's from South's left, then the stores.
    assert o.tolist() == [5, 5, 5, 5, 4, 4, 4, 4, 0, 5, 5, 0, 0, 2]
    assert g.observation("south").tolist() == [4, 4, 0, 5, 5, 0, 5, 5, 5, 5, 4, 4, 2, 0]
    k = mancala.Game("kauri")
    assert k.observation_size == 4 * k.pits + 2
    assert k.observation()[2 * k.pits + 2 :].sum() > 0  # cowries
    assert k.legal_mask().dtype == np.bool_


def test_rewards_follow_the_outcome_and_the_misere_rule():
    rng = random.Random(5)
    for rules in ("kalah", "dracala"):
        g = mancala.Game(rules)
        assert g.reward("south") == 0.0
        while not g.is_over:
            g.play(rng.choice(g.legal_moves()))
        s, n = g.scores
        sign = -1 if rules == "dracala" else 1
        assert g.reward("south", "margin") == sign * (s - n)
        assert g.reward("north", "margin") == sign * (n - s)
        win = {"south": 1.0, "north": -1.0, "draw": 0.0}[g.outcome]
        assert g.reward("south") == win and g.reward("north") == -win


def test_vecgame_matches_single_games_and_is_seeded():
    n = 64
    v = mancala.VecGame("kalah,seeds=4", n, seed=11)
    w = mancala.VecGame("kalah,seeds=4", n, seed=11)
    obs, masks = v.reset()
    assert obs.shape == (n, 14) and obs.dtype == np.float32
    assert masks.shape == (n, 6) and masks.dtype == np.bool_
    games = [mancala.Game("kalah,seeds=4") for _ in range(n)]
    finished = 0
    for _ in range(300):
        acts = v.sample_actions()
        assert (acts == w.sample_actions()).all()
        movers = v.to_move()
        obs, rew, done, masks = v.step(acts)
        w.step(acts)
        assert rew.dtype == np.float32 and done.dtype == np.bool_
        for i, g in enumerate(games):
            assert ("south", "north")[movers[i]] == g.to_move
            g.play(int(acts[i]))
            if done[i]:
                finished += 1
                assert g.is_over and rew[i] == g.reward(("south", "north")[movers[i]])
                assert tuple(v.final_scores()[i]) == g.scores
                games[i] = g = mancala.Game("kalah,seeds=4")
            else:
                assert rew[i] == 0.0
            assert (obs[i] == g.observation()).all()
            assert (masks[i] == g.legal_mask()).all()
    assert finished > 100
    assert v.positions() == w.positions()
    assert (v.observations() == w.observations()).all()


def test_vecgame_out_arrays_and_step_random():
    # Three twins from one seed: new arrays each step, `out=` arrays, and the actions drawn in
    # the step; all three play the same games.
    n = 48
    a, b, c = (mancala.VecGame("kalah,seeds=3", n, seed=5, opening=2) for _ in range(3))
    out = b.step(b.sample_actions())
    a.step(a.sample_actions())
    rout = c.step_random()
    assert rout[0].dtype == np.int64 and rout[0].shape == (n,)
    assert all((x == y).all() for x, y in zip(out, rout[1:]))
    acts = np.empty(n, np.int64)
    ended = 0
    for _ in range(200):
        want = a.sample_actions()
        assert b.sample_actions(out=acts) is acts and (acts == want).all()
        ref = a.step(want)
        got = b.step(acts, out=out)
        assert all(x is y for x, y in zip(got, out))
        r = c.step_random(out=rout)
        assert all(x is y for x, y in zip(r, rout))
        assert (rout[0] == want).all()
        for x, y, z in zip(ref, out, rout[1:]):
            assert x.dtype == y.dtype == z.dtype and (x == y).all() and (x == z).all()
        ended += int(ref[2].sum())
    assert ended > 50
    assert a.positions() == b.positions() == c.positions()
    assert (a.final_scores() == c.final_scores()).all()


@pytest.mark.parametrize("rules", ["kalah,seeds=4", "oware"])
def test_vecgame_draws_from_a_policys_logits(rules):
    # `sample_actions(logits=)` and `step_random(logits=)` draw the same moves from the same
    # seed, only legal ones whatever the illegal pits' logits, and as often as the softmax
    # over the legal moves says (checked from the start, where every pit is legal).
    n = 2048
    a, b = (mancala.VecGame(rules, n, seed=3) for _ in range(2))
    m = a.pits
    row = np.array([0.0, np.log(2), np.log(3), -np.inf, 0.0, np.log(4)], np.float32)
    counts = np.zeros(m, np.int64)
    for _ in range(5):
        got = a.sample_actions(logits=np.tile(row, (n, 1)))
        counts += np.bincount(got, minlength=m)
    want = np.array([1, 2, 3, 0, 1, 4]) / 11 * 5 * n
    sd = np.sqrt(want * (1 - want / (5 * n)))
    assert counts[3] == 0 and (np.abs(counts - want) <= 4 * sd + 1e-9).all(), (counts, want)
    a, b = (mancala.VecGame(rules, n, seed=4) for _ in range(2))
    masks = a.masks()
    for t in range(60):
        logits = np.where(masks, np.sin(np.arange(n * m).reshape(n, m) + t), 1e30)
        want = a.sample_actions(logits=logits)  # float64 is converted
        assert masks[np.arange(n), want].all()
        got = b.step_random(logits=logits.astype(np.float32))
        assert (got[0] == want).all()
        ref = a.step(want)
        assert all((x == y).all() for x, y in zip(ref, got[1:]))
        masks = got[4]


def test_vecgame_logits_of_any_real_dtype_keep_their_differences():
    # float64 logits are shifted by the row's largest legal one before they are rounded to
    # float32: 1e8 and 1e8 + 2 draw as 0 and 2 do; -1e300 everywhere draws uniformly; 1e39 is
    # a finite logit, not inf; a masked entry is -inf.
    n = 20000
    v = mancala.VecGame("kalah,seeds=4", n, seed=2)
    big = np.full((n, 6), -np.inf)
    big[:, 0], big[:, 1] = 1e8, 1e8 + 2
    share = (v.sample_actions(logits=big) == 1).mean()
    assert abs(share - 1 / (1 + np.exp(-2))) < 0.02, share
    low = np.bincount(v.sample_actions(logits=np.full((n, 6), -1e300)), minlength=6) / n
    assert (np.abs(low - 1 / 6) < 0.02).all(), low
    huge = np.zeros((n, 6))
    huge[:, 2] = 1e39
    assert (v.sample_actions(logits=huge) == 2).all()
    masked = np.ma.masked_array(np.zeros((n, 6)), mask=[[True] * 5 + [False]] * n)
    assert (v.sample_actions(logits=masked) == 5).all()


def test_vecgame_refuses_bad_logits_and_moves_nothing():
    v = mancala.VecGame("kalah,seeds=4", 2, seed=1)
    before = v.positions()
    for bad, says in [
        (np.zeros((2, 5)), "shape (2, 6)"),
        (np.zeros(12), "shape (2, 6)"),
        (np.array([[0.0] * 6, [0, np.nan, 0, 0, 0, 0]]), "game 1: pit 1's logit is NaN"),
        (np.array([[np.inf] + [0.0] * 5] * 2), "game 0: pit 0's logit is inf"),
        (np.full((2, 6), -np.inf), "game 0: every legal pit's logit is -inf"),
        (np.array([["a"] * 6] * 2), "shape (2, 6)"),
    ]:
        with pytest.raises(ValueError, match=re.escape(says)):
            v.step_random(logits=bad)
        with pytest.raises(ValueError, match=re.escape(says)):
            v.sample_actions(logits=bad)
    assert v.positions() == before
    # A game that does not move: its logits are not read.
    acts = v.step_random(logits=np.array([[0.0] * 6, [np.nan] * 6]), active=np.array([True, False]))[0]
    assert acts[1] == -1 and v.positions()[1] == before[1] and v.positions()[0] != before[0]


def test_vecgame_plays_the_same_games_on_one_thread_or_shared():
    # 1000 games: steps of eight chunks, shared with the helper threads where the machine
    # has them; parallel=False steps them all on this thread.
    n = 1000
    shared = mancala.VecGame("kalah,seeds=4", n, seed=9, opening=3, parallel=True)
    alone = mancala.VecGame("kalah,seeds=4", n, seed=9, opening=3, parallel=False)
    chosen = mancala.VecGame("kalah,seeds=4", n, seed=9, opening=3)
    assert not alone.parallel and not alone.sharing
    # The default chooses step by step: it starts alone and tries the helpers after its first
    # steps, whichever it then keeps.
    assert chosen.parallel is None and not chosen.sharing
    tried = False
    for t in range(180):
        if t == 60:
            shared.parallel, alone.parallel = False, True
        if t == 120:
            shared.parallel = None
        tried |= chosen.sharing
        x, y, z = shared.step_random(), alone.step_random(), chosen.step_random()
        assert all((a == b).all() and (a == c).all() for a, b, c in zip(x, y, z))
    assert shared.positions() == alone.positions() == chosen.positions()
    assert (shared.observations() == alone.observations()).all()
    if mancala.VecGame("kalah", 1000, parallel=True).parallel:  # a machine of several cores
        assert tried, "the default never tried the helper threads"
    assert not mancala.VecGame("kalah", 255, parallel=True).sharing  # one chunk: never shared


def test_vecgame_resets_games_to_given_positions():
    v = mancala.VecGame("oware", 6, seed=3)
    for _ in range(40):
        v.step_random()
    start = mancala.Game("oware").position
    mid = v.positions()[2]
    v.reset_at([0, 5], [mid, start])
    assert v.positions()[0] == mid and v.positions()[5] == start
    obs, masks = v.reset(positions=[mid] * 6)
    assert v.positions() == [mid] * 6
    assert (obs == mancala.Game(position=mid).observation()).all()
    assert (masks == mancala.Game(position=mid).legal_mask()).all()
    before = v.positions()
    with pytest.raises(ValueError, match="game 1"):
        v.reset(positions=[mid, "kalah,seeds=4/4-4-4-4-4-4/0/4-4-4-4-4-4/0/s"] + [mid] * 4)
    with pytest.raises(ValueError, match="index 6"):
        v.reset_at([6], [mid])
    with pytest.raises(ValueError, match="positions for 6 games"):
        v.reset(positions=[mid])
    with pytest.raises(ValueError):
        v.reset_at([0], ["not a position"])
    assert v.positions() == before


@pytest.mark.parametrize("rules", ["kalah,seeds=4", "oware", "kauri", "kalah,pits=8"])
def test_vecgame_state_clone_and_pickle_continue_identically(rules):
    v = mancala.VecGame(rules, 16, seed=5, reward="margin", opening=2)
    for _ in range(70):
        v.step_random()
    copies = [
        v.clone(),
        copy.copy(v),
        copy.deepcopy(v),
        pickle.loads(pickle.dumps(v)),
        mancala.VecGame.from_state(v.get_state()),
    ]
    other = mancala.VecGame(rules, 16, seed=77)
    other.set_state(v.get_state())
    copies.append(other)
    for c in copies:
        assert c.positions() == v.positions() and c.get_state() == v.get_state()
        assert (c.final_scores() == v.final_scores()).all()
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(150):
        masks = v.masks()
        acts = (rng.random(masks.shape) * masks).argmax(axis=1)
        ref = v.step(acts)
        ended += int(ref[2].sum())
        for c in copies:
            got = c.step(acts)
            assert all((a == b).all() for a, b in zip(ref, got))
            assert (c.final_scores() == v.final_scores()).all()
    assert ended > 0
    # The generators continue too: random steps of a copy are the original's.
    last = pickle.loads(pickle.dumps(v))
    assert all((a == b).all() for a, b in zip(v.step_random(), last.step_random()))
    with pytest.raises(ValueError, match="no `opening`"):
        mancala.VecGame.from_state({"start": "kalah"})
    bad = v.get_state()
    bad["games"] = bad["games"][:-1] + [(bad["games"][0][0], [200])]
    with pytest.raises(ValueError, match="not legal"):
        mancala.VecGame.from_state(bad)


def test_level_and_gym_env_pickle():
    assert pickle.loads(pickle.dumps(mancala.Level(2))).level == 2
    assert copy.deepcopy(mancala.Level(5)).level == 5
    gym_env = pytest.importorskip("mancala.gym_env", reason="gymnasium is not installed")
    env = gym_env.MancalaEnv("kalah,seeds=3", opponent=2)
    env.reset(seed=4)
    env.step(int(np.flatnonzero(env.unwrapped.game.legal_mask())[0]))
    copies = [pickle.loads(pickle.dumps(env)), copy.deepcopy(env)]
    for _ in range(40):
        a = int(np.flatnonzero(env.game.legal_mask())[-1])
        obs, reward, done, _, _ = env.step(a)
        for c in copies:
            o, r, d, _, _ = c.step(a)
            assert (o == obs).all() and (r, d) == (reward, done)
            assert c.game.position == env.game.position
        if done:
            break
    assert done


def test_vecgame_refuses_bad_out_arrays():
    v = mancala.VecGame("kalah", 4, seed=1)
    obs, rew, done, masks = v.step(v.sample_actions())
    before = v.positions()
    acts = v.sample_actions()
    with pytest.raises(ValueError, match="observations has shape"):
        v.step(acts, out=(np.zeros((4, 3), np.float32), rew, done, masks))
    with pytest.raises(ValueError, match="masks has shape"):
        v.step(acts, out=(obs, rew, done, np.zeros((5, 6), bool)))
    with pytest.raises(ValueError, match="C-contiguous"):
        v.step(acts, out=(np.zeros((14, 4), np.float32).T, rew, done, masks))
    ro = rew.copy()
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="rewards cannot be written"):
        v.step(acts, out=(obs, ro, done, masks))
    with pytest.raises(TypeError, match="float32 observations"):
        v.step(acts, out=(obs.astype(np.float64), rew, done, masks))
    with pytest.raises(TypeError, match="int64 array of n"):
        v.sample_actions(out=np.zeros(4, np.int32))
    with pytest.raises(TypeError, match="arrays of an earlier call's result"):
        v.step(acts, out=(obs, rew, done))
    with pytest.raises(ValueError, match="actions has shape"):
        v.sample_actions(out=np.zeros(3, np.int64))
    with pytest.raises(ValueError, match="actions has shape"):
        v.step_random(out=(np.zeros(5, np.int64), obs, rew, done, masks))
    assert v.positions() == before
    v.step(acts, out=(obs, rew, done, masks))
    assert v.positions() != before


def test_vecgame_refuses_bad_actions_and_takes_lists():
    v = mancala.VecGame("kalah", 3, seed=1)
    before = v.positions()
    with pytest.raises(ValueError, match="game 2"):
        v.step(np.array([0, 1, 7]))
    with pytest.raises(ValueError):
        v.step([0, 1])
    with pytest.raises(ValueError):
        mancala.VecGame("kalah", 0)
    with pytest.raises(ValueError, match="1-d array"):
        mancala.VecGame("kalah", 1).step(0)
    with pytest.raises(ValueError, match="1-d array"):
        mancala.VecGame("kalah", 2).step([[0], [1]])
    with pytest.raises(ValueError, match="not a bool"):
        mancala.VecGame("kalah", True)
    with pytest.raises(ValueError, match="n = -1"):
        mancala.VecGame("kalah", -1)
    with pytest.raises(TypeError, match="whole number"):
        mancala.VecGame("kalah", 2.5)
    with pytest.raises(ValueError):
        mancala.VecGame("kalah", 2, reward="points")
    assert v.positions() == before
    v.step([0, 1, 2])
    v.step(np.array([0, 1, 2], dtype=np.int32)[::-1].copy() * 0 + 3)
    assert v.positions() != before


def test_vecgame_refuses_actions_that_are_not_integers():
    v = mancala.VecGame("kalah", 4, seed=1)
    before = v.positions()
    for bad in (
        np.array([2.7, 0, 0, 0]),
        np.array([True, False, True, False]),
        [0.0, 1.0, 2.0, 3.0],
    ):
        with pytest.raises(ValueError, match="integer pits"):
            v.step(bad)
    with pytest.raises(ValueError, match="out of range"):
        v.step(np.array([2**63 + 2, 1, 2, 3], np.uint64))
    with pytest.raises(ValueError, match="3 actions for 4 games"):
        v.step([0, 1, 2])
    assert v.positions() == before
    # A strided int64 array is read as the values it shows.
    v.step(np.array([[0, 9], [1, 9], [2, 9], [3, 9]], np.int64)[:, 0])
    w = mancala.VecGame("kalah", 4, seed=1)
    w.step([0, 1, 2, 3])
    assert v.positions() == w.positions()


def test_the_pie_rule_is_refused_by_masks_and_kept_by_moves():
    with pytest.raises(ValueError, match="swap is not one"):
        mancala.VecGame("kalah,pie", 3)
    g = mancala.Game("kalah,pie")
    assert g.pie_rule and not mancala.Game("kalah").pie_rule
    g.play(0)
    assert mancala.SWAP in g.legal_moves()
    with pytest.raises(ValueError, match="swap is legal here"):
        g.legal_mask()
    g.play(mancala.SWAP)
    assert g.legal_mask().sum() == len(g.legal_moves())


def test_vecgame_from_a_position():
    p = "kalah,seeds=4/0-0-0-0-1-1/20/0-0-0-0-2-0/24/s"
    v = mancala.VecGame(position=p, n=2)
    assert v.positions() == [p, p] and v.rules == "kalah,seeds=4"
    assert mancala.VecGame("kalah,seeds=4", 2, position=p).positions() == [p, p]
    with pytest.raises(ValueError):
        mancala.VecGame("kauri", 2, position=p)
    with pytest.raises(ValueError, match="over"):
        mancala.VecGame(position="kalah,seeds=4/0-0-0-0-0-0/24/0-0-0-0-0-0/24/-")


def test_openings_vary_the_starts():
    v = mancala.VecGame("oware", 32, seed=2, opening=6, reward="margin")
    starts = set(v.positions())
    assert len(starts) > 10
    v.reset(seed=2)
    assert set(v.positions()) == starts


@pytest.mark.parametrize("work", ["step", "analyze"])
def test_rust_work_releases_the_gil(work):
    # While another thread steps a large batch or searches, this thread keeps running Python:
    # with the GIL held it would stand still for the whole call.
    v = mancala.VecGame("kalah", 1 << 20, seed=1) if work == "step" else None
    acts = v.sample_actions() if v is not None else None
    spans = []
    started = threading.Event()

    def run():
        started.set()
        t0 = time.perf_counter()
        if v is not None:
            v.step(acts)
        else:
            mancala.analyze(mancala.Game("kalah,seeds=6"), time_ms=600)
        spans.append((t0, time.perf_counter()))

    t = threading.Thread(target=run)
    t.start()
    started.wait()
    stamps = []
    while t.is_alive():
        stamps.append(time.perf_counter())
    t.join()
    (t0, t1), = spans
    inside = [x for x in stamps if t0 <= x <= t1]
    gaps = [b - a for a, b in zip([t0] + inside, inside + [t1])]
    if t1 - t0 < 0.05:
        pytest.skip(f"the call took {t1 - t0:.3f} s: too short to tell on this machine")
    assert max(gaps) < 0.5 * (t1 - t0), (max(gaps), t1 - t0)


def test_the_readme_training_loop_runs():
    from conftest import REPO

    text = (REPO / "README.md").read_text()
    start = text.index("    import numpy as np, mancala\n")
    block = text[start : text.index("\n\n", start)]
    lines = [line[4:] for line in block.splitlines()]
    assert len(lines) == 9
    code = "\n".join(lines).replace("range(10_000)", "range(50)")
    scope: dict = {}
    exec(compile(code, "README.md", "exec"), scope)
    assert scope["W"].shape == (14, 6) and np.abs(scope["W"]).sum() > 0


def test_a_pit_is_never_a_bool():
    # A bool is an int to Python: True is refused, not played as pit 1.
    g = mancala.Game()
    for pit in (True, False):
        with pytest.raises(TypeError, match="not a bool"):
            g.play(pit)
    with pytest.raises(TypeError, match="whole pit number"):
        g.play(1.0)
    assert g.position == mancala.Game().position
    g.play(1)
    assert g.undo() == 1


def test_vecgame_signature_says_one_game_by_default():
    import inspect

    assert inspect.signature(mancala.VecGame).parameters["n"].default == 1
    assert mancala.VecGame().n == 1


def test_a_position_string_given_as_rules_is_said_to_be_one():
    p = "kalah,capture=empty/0-0-1-2-0-0/10/0-0-0-1-0-0/22/s"
    with pytest.raises(ValueError) as e:
        mancala.Game(p)
    assert str(e.value) == (
        f"rules `{p}`: this is a position string: use Game(position=...) "
        "(VecGame(position=...) for a batch)"
    )
    with pytest.raises(ValueError, match="this is a position string"):
        mancala.VecGame(p, n=2)
    assert mancala.Game(position=p).position == p
