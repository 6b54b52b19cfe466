"""The adapters pass their libraries' own checkers: Gymnasium's env checker, PettingZoo's API
test, OpenSpiel's random simulation test (when OpenSpiel is installed)."""

import importlib.util
import random
import re

import numpy as np
import pytest

import mancala

gymnasium = pytest.importorskip("gymnasium", reason="gymnasium is not installed")


@pytest.mark.parametrize("rules", ["kalah", "kauri", "oware", "dracala", "cross-kalah"])
def test_gymnasium_env_checker(rules):
    from gymnasium.utils.env_checker import check_env

    from mancala.gym_env import MancalaEnv

    check_env(MancalaEnv(rules, opponent="random", seat="random"), skip_render_check=False)
    env = gymnasium.make("mancala/Mancala-v0", rules=rules, opponent=2, render_mode="ansi")
    check_env(env.unwrapped, skip_render_check=False)


def test_gymnasium_episodes_against_a_level_and_a_callable():
    from mancala.gym_env import MancalaEnv

    env = MancalaEnv("kalah,seeds=4", opponent=lambda g: g.legal_moves()[0], seat="north", reward="margin")
    obs, info = env.reset(seed=3)
    # South (the callable) moved first: North sees his own row first.
    assert env.game.to_move == "north" and len(env.game.moves) >= 1
    assert (obs == env.game.observation("north")).all()
    total, done = 0.0, False
    while not done:
        action = int(np.flatnonzero(info["action_mask"])[-1])
        obs, reward, done, truncated, info = env.step(action)
        total += reward
    s = env.game.scores
    assert total == s[1] - s[0] and not truncated
    # An illegal action (an empty pit) ends the episode with the penalty.
    env = MancalaEnv("kalah", opponent=1)
    env.reset(seed=0)
    env.game = mancala.Game(position="kalah/0-3-3-3-3-3/2/3-3-3-3-3-4/0/s")
    obs, reward, done, _, info = env.step(0)
    assert (reward, done, info.get("illegal")) == (-1.0, True, True)
    with pytest.raises(ValueError):
        MancalaEnv("kalah", opponent="nobody")


pettingzoo = pytest.importorskip("pettingzoo", reason="pettingzoo is not installed")


@pytest.mark.parametrize("rules", ["kalah", "kauri", "oware", "dracala", "kalah-brazil"])
def test_pettingzoo_api_test(rules):
    from pettingzoo.test import api_test

    from mancala.pettingzoo_env import env

    api_test(env(rules=rules), num_cycles=200)


def test_pettingzoo_game_to_the_end():
    from mancala.pettingzoo_env import MancalaAEC

    e = MancalaAEC("kalah,seeds=4", reward="margin")
    e.reset(seed=1)
    rng = np.random.default_rng(1)
    final = {}
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        if term or trunc:
            final[agent] = reward
            e.step(None)
            continue
        assert agent == e.game.to_move
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    s = e.game.scores
    assert e.game.is_over
    assert final == {"south": s[0] - s[1], "north": s[1] - s[0]}


@pytest.mark.skipif(
    importlib.util.find_spec("pyspiel") is None,
    reason="open_spiel is not installed (pip install open-spiel==2.0.2): OpenSpiel adapter not tested",
)
@pytest.mark.parametrize("rules", ["kalah,seeds=4", "kauri", "oware", "dracala;seeds:5"])
def test_openspiel_conformance(rules):
    import pyspiel

    # `import mancala` registered the game.
    assert "python_mancala" in pyspiel.registered_names()
    game = pyspiel.load_game("python_mancala", {"rules": rules})
    plain = rules.replace(";", ",").replace(":", "=")
    assert game.num_distinct_actions() == mancala.Game(plain).pits
    # The game string holds the rules in OpenSpiel's form and loads the same game.
    again = pyspiel.load_game(str(game))
    assert again.get_parameters() == game.get_parameters()
    pyspiel.random_sim_test(game, num_sims=20, serialize=True, verbose=False)
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[-1])
    g = state.game
    assert state.returns() == [g.reward("south"), g.reward("north")]
    assert sum(state.returns()) == 0


def test_adapters_refuse_the_pie_rule_and_non_integer_actions():
    from mancala import pettingzoo_env
    from mancala.gym_env import MancalaEnv

    with pytest.raises(ValueError, match="swap is not one"):
        MancalaEnv("kalah,pie", opponent="random")
    with pytest.raises(ValueError, match="opponent"):
        MancalaEnv("kalah", opponent=True)
    with pytest.raises(ValueError, match="swap is not one"):
        pettingzoo_env.env(rules="kalah,pie")
    env = MancalaEnv("kalah,seeds=4", opponent="random")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="an integer 0-5"):
        env.step(2.9)
    # An illegal action ends the episode: the next step needs a reset.
    _, reward, terminated, _, info = env.step(99)
    assert terminated and info["illegal"] and reward == -1.0
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    env.reset(seed=0)
    env.step(int(env._info()["action_mask"].argmax()))
    e = pettingzoo_env.env(rules="kalah,seeds=1")
    e.reset()
    while e.agents:
        agent = e.agent_selection
        if e.terminations[agent]:
            e.step(None)
        else:
            e.step(int(np.flatnonzero(e.observe(agent)["action_mask"])[0]))
    with pytest.raises(RuntimeError, match="every agent is done"):
        e.step(0)


@pytest.mark.skipif(
    importlib.util.find_spec("pyspiel") is None,
    reason="open_spiel is not installed (pip install open-spiel==2.0.2): OpenSpiel adapter not tested",
)
def test_openspiel_default_is_stated_kalah_6_4_and_kalah_means_6_3():
    import pyspiel

    # `kalah` alone is Kalah(6,3) in this package, the adapter's included; the adapter's
    # default is written out as Kalah(6,4), OpenSpiel's own `mancala`.
    assert mancala.Game("kalah").total_seeds == 36
    default = pyspiel.load_game("python_mancala")
    assert default.get_parameters() == {"rules": "kalah;seeds:4"}
    assert default.new_initial_state().game.total_seeds == 48
    assert pyspiel.load_game("python_mancala", {"rules": "kalah"}).new_initial_state().game.total_seeds == 36
    theirs = str(pyspiel.load_game("mancala").new_initial_state()).splitlines()
    assert sum(int(x) for row in theirs[:3] for x in row.split("-") if x.isdigit()) == 48


def _rows_and_stores(text):
    """South's and North's seeds (store plus own row) in OpenSpiel's `mancala` state string."""
    lines = text.splitlines()
    north_row = [int(x) for x in lines[0].split("-") if x]
    south_row = [int(x) for x in lines[2].split("-") if x]
    stores = lines[1].split("-")
    return int(stores[-1]) + sum(south_row), int(stores[0]) + sum(north_row)


@pytest.mark.skipif(
    importlib.util.find_spec("pyspiel") is None,
    reason="open_spiel is not installed (pip install open-spiel==2.0.2): no lockstep test against it",
)
def test_kalah_6_4_plays_in_lockstep_with_openspiel_mancala():
    import pyspiel

    # OpenSpiel's `mancala` is `kalah,seeds=4`: the same legal moves at every ply of 300
    # random games, the same ends, and the same final margin (OpenSpiel leaves the last seeds
    # in their rows and counts them for their owners; the game here sweeps them to the stores).
    game = pyspiel.load_game("mancala")
    rng = random.Random(1)
    for i in range(300):
        g, s = mancala.Game("kalah,seeds=4"), game.new_initial_state()
        while not g.is_over:
            offset = 1 if g.to_move == "south" else 8
            assert s.current_player() == ("south", "north").index(g.to_move)
            assert s.legal_actions() == [p + offset for p in g.legal_moves()], (i, g.position)
            pit = rng.choice(g.legal_moves())
            g.play(pit)
            s.apply_action(pit + offset)
        assert s.is_terminal(), (i, g.position)
        south, north = _rows_and_stores(str(s))
        assert (south, north) == g.scores, (i, g.position, str(s))
        assert s.returns() == [g.reward("south"), g.reward("north")]


def _oware_scores(state):
    """Player 0's and player 1's scores in OpenSpiel's `oware` state string."""
    found = dict(re.findall(r"Player (\d) score = (\d+)", str(state)))
    return int(found["0"]), int(found["1"])


@pytest.mark.skipif(
    importlib.util.find_spec("pyspiel") is None,
    reason="open_spiel is not installed (pip install open-spiel==2.0.2): no lockstep test against it",
)
def test_oware_plays_in_lockstep_with_openspiel_oware_with_its_scoring():
    import pyspiel

    from mancala.openspiel_game import OPENSPIEL_RULES

    # The adapter's game with OpenSpiel's scoring against OpenSpiel's `oware`: the same legal
    # moves at every ply of 300 random games, the same ends, and the same final scores.
    # The package's own `oware` plays the same moves and winners but leaves the seeds on the
    # board to nobody when a store passes 24, so its margins differ in most games.
    theirs = pyspiel.load_game("oware")
    ours = pyspiel.load_game("python_mancala", {"rules": OPENSPIEL_RULES["oware"]})
    assert ours.new_initial_state().game.rules == "oware,decided-leftovers=to-owner"
    rng = random.Random(2)
    plain_differs = 0
    for i in range(300):
        s, o = theirs.new_initial_state(), ours.new_initial_state()
        plain = mancala.Game("oware")
        while not o.is_terminal():
            assert s.current_player() == o.current_player(), (i, str(o))
            assert s.legal_actions() == o.legal_actions(), (i, str(o))
            pit = rng.choice(o.legal_actions())
            s.apply_action(pit)
            o.apply_action(pit)
            plain.play(pit)
        assert s.is_terminal() and plain.is_over, (i, str(o))
        assert _oware_scores(s) == o.game.scores, (i, str(o), str(s))
        assert s.returns() == o.returns() == [plain.reward("south"), plain.reward("north")]
        plain_differs += plain.scores != o.game.scores
    assert plain_differs > 150, plain_differs
