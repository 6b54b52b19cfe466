"""The vector environments against references stepped game by game: the Gymnasium vector
environment against Gymnasium's own ``SyncVectorEnv`` of ``SelfPlayEnv`` (which implements
the autoreset modes itself), the Stable-Baselines3 adapter against separate ``Game``s, and
``VecGame.step``'s ``active`` and ``final_observations`` arguments."""

import pickle

import numpy as np
import pytest

import mancala

gymnasium = pytest.importorskip("gymnasium", reason="gymnasium is not installed")

from gymnasium.utils.env_checker import check_env, data_equivalence  # noqa: E402
from gymnasium.vector import AutoresetMode, SyncVectorEnv  # noqa: E402

from mancala.gym_env import SelfPlayEnv  # noqa: E402
from mancala.sb3_vec_env import MancalaVecEnv  # noqa: E402
from mancala.vector_env import MancalaVectorEnv  # noqa: E402

# Fast board (kalah), repetition rule kept (oware), cowries (kauri), leftovers left on the
# finished board (kalah-brazil), and Dracala's own rules.
RULES = ["kalah", "oware", "kauri", "kalah-brazil", "dracala"]


def legal_choice(rng, masks):
    """A legal pit of each game drawn from its mask (pit 0 where none is legal)."""
    return np.argmax(rng.random(masks.shape) * masks, axis=1)


@pytest.mark.parametrize("rules", RULES)
def test_self_play_env_passes_gymnasiums_checker(rules):
    check_env(SelfPlayEnv(rules, render_mode="ansi"), skip_render_check=False)


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
@pytest.mark.parametrize("rules", RULES)
def test_vector_env_steps_as_gymnasiums_sync_vector_env(rules, mode):
    n, reward = 6, "margin"
    ours = MancalaVectorEnv(n, rules, reward=reward, autoreset_mode=mode)
    ref = SyncVectorEnv(
        [lambda: SelfPlayEnv(rules, reward=reward) for _ in range(n)], autoreset_mode=mode
    )
    assert ours.metadata["autoreset_mode"] == ref.metadata["autoreset_mode"] == mode
    assert ours.single_observation_space == ref.single_observation_space
    assert ours.single_action_space == ref.single_action_space
    assert ours.observation_space == ref.observation_space
    assert ours.action_space == ref.action_space
    a, b = ours.reset(seed=5), ref.reset(seed=5)
    assert data_equivalence(a, b, exact=True)
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(300):
        actions = legal_choice(rng, b[-1]["action_mask"])
        a, b = ours.step(actions), ref.step(actions)
        for x, y, what in zip(a, b, ["obs", "rewards", "terminations", "truncations", "infos"]):
            assert data_equivalence(x, y, exact=True), (what, x, y)
        ended += int(b[2].sum())
    assert ended >= 5, "games ended, so the autoreset was checked"
    # The observations are those of the reference's own games, which play the rules.
    assert ours.observation_space.contains(a[0])


def test_make_vec_builds_the_rust_vector_env_and_it_pickles():
    import mancala.gym_env  # noqa: F401  (registers mancala/SelfPlay-v0)

    env = gymnasium.make_vec(
        "mancala/SelfPlay-v0", num_envs=300, vectorization_mode="vector_entry_point", rules="oware"
    )
    assert isinstance(env, MancalaVectorEnv) and env.num_envs == 300
    assert env.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    mask = env.reset(seed=2)[1]["action_mask"]
    for _ in range(50):
        mask = env.step(legal_choice(rng, mask))[-1]["action_mask"]
    copy = pickle.loads(pickle.dumps(env))
    for _ in range(80):
        actions = legal_choice(rng, mask)
        a, b = env.step(actions), copy.step(actions)
        assert data_equivalence(a, b, exact=True)
        mask = a[-1]["action_mask"]
    # Bad input: an illegal action of a live game moves nothing; the wrong shape; options.
    before = env.games.positions()
    live = np.flatnonzero(a[-1]["_to_move"])[0]
    bad = legal_choice(rng, mask)
    bad[live] = int(np.flatnonzero(mask[live] == 0)[0]) if (mask[live] == 0).any() else 99
    with pytest.raises(ValueError, match=f"game {live}"):
        env.step(bad)
    assert env.games.positions() == before
    with pytest.raises(ValueError):
        env.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError):
        env.reset(options={"reset_mask": np.ones(300, dtype=bool)})
    with pytest.raises(ValueError):
        MancalaVectorEnv(2, autoreset_mode="Disabled")


def test_vecgame_steps_only_the_active_games_and_keeps_final_observations():
    n = 64
    vec = mancala.VecGame("kalah-brazil", n=n, seed=3)
    games = [mancala.Game("kalah-brazil") for _ in range(n)]
    finals = np.full((n, vec.observation_size), -1.0, dtype=np.float32)
    rng = np.random.default_rng(7)
    masks = vec.masks()
    ended = 0
    for _ in range(200):
        active = rng.random(n) < 0.5
        actions = legal_choice(rng, masks)
        actions[~active] = 77  # not checked: those games do not move
        before = finals.copy()
        obs, rewards, dones, masks = vec.step(actions, active=active, final_observations=finals)
        for i, g in enumerate(games):
            if not active[i]:
                assert not dones[i] and rewards[i] == 0
            else:
                mover = g.to_move
                g.play(int(actions[i]))
                assert dones[i] == g.is_over
                if g.is_over:
                    ended += 1
                    assert rewards[i] == g.reward(mover)
                    # The finished board, seeds left on it and all, as the mover sees it.
                    assert (finals[i] == g.observation(mover)).all()
                    games[i] = g = mancala.Game("kalah-brazil")
            if not (active[i] and dones[i]):
                assert (finals[i] == before[i]).all()
            assert (obs[i] == g.observation()).all()
            assert (masks[i] == g.legal_mask()).all()
    assert ended > 10
    # Drawn actions: the games that do not move draw nothing (-1).
    active = np.zeros(n, dtype=bool)
    active[::2] = True
    acts = vec.step_random(active=active)[0]
    assert (acts[1::2] == -1).all() and (acts[::2] >= 0).all()
    with pytest.raises(ValueError, match="active"):
        vec.step(actions, active=np.ones(n + 1, dtype=bool))
    with pytest.raises(TypeError, match="active"):
        vec.step(actions, active=[True] * n)
    with pytest.raises(ValueError, match="final_observations"):
        vec.step(actions, active=active, final_observations=np.zeros((n, 3), dtype=np.float32))
    out = vec.step_random()[1:]
    with pytest.raises(ValueError, match="final_observations"):
        vec.step(vec.sample_actions(), out=out, final_observations=out[0])


@pytest.mark.parametrize("rules", ["kalah", "oware"])
def test_sb3_adapter_against_separate_games(rules):
    n = 300  # shared with helper threads where that pays
    env = MancalaVecEnv(n, rules, reward="margin", seed=11)
    assert env.num_envs == n and env.action_space.n == env.games.pits
    obs = env.reset()
    games = [mancala.Game(rules) for _ in range(n)]
    assert all((obs[i] == g.observation()).all() for i, g in enumerate(games))
    rng = np.random.default_rng(2)
    ended = 0
    for _ in range(120):
        masks = np.stack(env.env_method("action_masks"))
        assert (masks == env.action_masks()).all()
        actions = legal_choice(rng, masks)
        env.step_async(actions)
        obs, rewards, dones, infos = env.step_wait()
        assert len(infos) == n and rewards.shape == dones.shape == (n,)
        for i, g in enumerate(games):
            mover = g.to_move
            g.play(int(actions[i]))
            assert dones[i] == g.is_over
            if g.is_over:
                ended += 1
                assert rewards[i] == g.reward(mover, "margin")
                assert (infos[i]["terminal_observation"] == g.observation(mover)).all()
                assert infos[i]["TimeLimit.truncated"] is False
                games[i] = g = mancala.Game(rules)
            else:
                assert rewards[i] == 0 and infos[i] == {}
            assert (obs[i] == g.observation()).all()
    assert ended > 100
    assert env.get_attr("render_mode") == [None] * n
    assert env.get_attr("pits", indices=[0, 2]) == [env.games.pits] * 2
    assert env.env_is_wrapped(object, indices=3) == [False]
    with pytest.raises(AttributeError):
        env.get_attr("nothing")
    with pytest.raises(AttributeError):
        env.set_attr("rules", "oware")
    with pytest.raises(AttributeError):
        env.env_method("reset")
    # A seed gives the same games again.
    env.seed(4)
    first = env.reset()
    env.step(np.zeros(n, dtype=np.int64) + legal_choice(rng, env.action_masks()))
    env.seed(4)
    assert (env.reset() == first).all()
    env.close()
