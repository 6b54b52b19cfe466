"""Random-play steps a second (one step = one move of one game), not a test.

    python crates/mancala-py/bench/random_play.py [--rules kalah,seeds=4] [--seconds 1] [--rounds 5] [--busy 1]

Measures, on the same machine in the same run, each row once a round for ``--rounds`` rounds
(the rows interleaved, so that a change of the machine's load reaches every row alike), and
prints each row's median steps a second over the rounds with its spread (lowest-highest), and
its ratio to OpenSpiel's ``mancala`` in a Python loop measured in the same round (median and
spread of the rounds' ratios; higher is faster):

- ``Game`` in a Python loop (legal_moves, a random choice, play; a new game when one ends);
- ``VecGame`` with ``--n`` games (1024): ``step_random(out=)`` (Rust draws the actions in the
  step's own pass), ``sample_actions()`` then ``step()``, and a numpy policy (actions chosen
  in numpy from the masks, as a learner's policy chooses them, ``out=`` arrays on both sides),
  each with ``parallel=None`` (the default: the batch times its steps and shares them with its
  helper threads only while that is faster), ``parallel=True`` (always shared) and
  ``parallel=False`` (the calling thread alone);
- the numpy policy's own work with no step (what that loop could reach with a free step);
- a linear softmax policy (logits = observation @ w) on one thread, its masked draw made in
  numpy (Gumbel noise, -inf for illegal pits, argmax) then ``step(out=)``, against the same
  draw made in the step, ``step_random(logits=, out=)``;
- the vector environments on ``--n`` games with the same numpy policy (the default
  ``parallel``): ``mancala.vector_env.MancalaVectorEnv`` (Gymnasium, next-step autoreset, the
  masks read from ``infos``) and ``mancala.sb3_vec_env.MancalaVecEnv`` (Stable-Baselines3's
  contract, the masks from ``action_masks()``), when ``gymnasium`` is installed;
- OpenSpiel's own ``mancala`` (Kalah 6x4) in a Python loop, when ``open_spiel`` is installed.

The load average (``/proc/loadavg``) is printed before and after. ``--busy K`` starts K
processes that spin (a Python busy loop each) for the run and stops them after it: with K = 1
on a machine of two cores, the helper thread's core is busy, the case where sharing a step
costs more than it gives.

Build the package with ``maturin develop --release`` first: a debug build measures the
bindings unoptimised.
"""

import argparse
import random
import time

import numpy as np

import mancala


def timed(step_fn, seconds):
    """Runs ``step_fn`` (which returns the steps it made) until ``seconds`` have passed."""
    steps, start = 0, time.perf_counter()
    while True:
        steps += step_fn()
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return steps / elapsed


def game_loop(rules, seconds):
    rng = random.Random(1)
    g = mancala.Game(rules)

    def chunk():
        nonlocal g
        for _ in range(1000):
            if g.is_over:
                g = mancala.Game(rules)
            g.play(rng.choice(g.legal_moves()))
        return 1000

    return timed(chunk, seconds)


def vec_numpy_out(rules, n, seconds, parallel=None):
    v = mancala.VecGame(rules, n, seed=1, parallel=parallel)
    rng = np.random.default_rng(1)
    _, masks = v.reset()
    out = v.step(masks.argmax(axis=1))  # the arrays every later step writes
    masks = out[3]
    keys, acts = np.empty(masks.shape, np.float32), np.empty(n, np.int64)

    def chunk():
        for _ in range(10):
            rng.random(out=keys, dtype=np.float32)
            np.multiply(keys, masks, out=keys)
            v.step(keys.argmax(axis=1, out=acts), out=out)
        return 10 * n

    return timed(chunk, seconds)


def numpy_alone(rules, n, seconds):
    """The numpy policy's own work (draw, mask, argmax) on one game's masks, with no step: the
    most that loop could reach with a step that took no time."""
    v = mancala.VecGame(rules, n, seed=1, parallel=False)
    rng = np.random.default_rng(1)
    masks = v.masks()
    keys, acts = np.empty(masks.shape, np.float32), np.empty(n, np.int64)

    def chunk():
        for _ in range(10):
            rng.random(out=keys, dtype=np.float32)
            np.multiply(keys, masks, out=keys)
            keys.argmax(axis=1, out=acts)
        return 10 * n

    return timed(chunk, seconds)


def linear_policy(rules, n, seed=1):
    """A batch and a linear softmax policy's weights (logits = observation @ w)."""
    v = mancala.VecGame(rules, n, seed=seed, parallel=False)
    w = np.random.default_rng(seed).standard_normal((v.observation_size, v.pits)).astype(np.float32) * 0.1
    return v, w


def linear_numpy_draw(rules, n, seconds):
    """A linear softmax policy whose masked draw is made in numpy (Gumbel noise, illegal pits
    set to -inf, argmax), then `step(out=)`."""
    v, w = linear_policy(rules, n)
    rng = np.random.default_rng(1)
    out = v.step(v.sample_actions())
    logits, u = np.empty((n, v.pits), np.float32), np.empty((n, v.pits), np.float32)
    acts, never = np.empty(n, np.int64), np.float32(-np.inf)

    def chunk():
        for _ in range(10):
            np.matmul(out[0], w, out=logits)
            # A draw of 0 gives the pit no chance (log 0 = -inf); numpy would warn of it.
            rng.random(out=u, dtype=np.float32)
            np.maximum(u, np.float32(1e-30), out=u)
            np.log(u, out=u)
            np.negative(u, out=u)
            np.log(u, out=u)
            np.subtract(logits, u, out=logits)
            np.copyto(logits, never, where=~out[3])
            v.step(logits.argmax(axis=1, out=acts), out=out)
        return 10 * n

    return timed(chunk, seconds)


def linear_step_draw(rules, n, seconds):
    """The same policy, its draw made in the step: `step_random(logits=, out=)`."""
    v, w = linear_policy(rules, n)
    out = v.step_random()
    logits = np.empty((n, v.pits), np.float32)

    def chunk():
        for _ in range(10):
            np.matmul(out[1], w, out=logits)
            v.step_random(out=out, logits=logits)
        return 10 * n

    return timed(chunk, seconds)


def vec_step_random(rules, n, seconds, parallel=None):
    v = mancala.VecGame(rules, n, seed=1, parallel=parallel)
    out = v.step_random()

    def chunk():
        for _ in range(10):
            v.step_random(out=out)
        return 10 * n

    return timed(chunk, seconds)


def vec_sampled(rules, n, seconds, parallel=None):
    v = mancala.VecGame(rules, n, seed=1, parallel=parallel)

    def chunk():
        for _ in range(10):
            v.step(v.sample_actions())
        return 10 * n

    return timed(chunk, seconds)


def gymnasium_vector(rules, n, seconds):
    from mancala.vector_env import MancalaVectorEnv

    env = MancalaVectorEnv(n, rules)
    rng = np.random.default_rng(1)
    masks = env.reset(seed=1)[1]["action_mask"]
    keys = np.empty(masks.shape, np.float32)

    def chunk():
        nonlocal masks
        for _ in range(10):
            rng.random(out=keys, dtype=np.float32)
            masks = env.step((keys * masks).argmax(axis=1))[4]["action_mask"]
        return 10 * n

    return timed(chunk, seconds)


def sb3_vector(rules, n, seconds):
    from mancala.sb3_vec_env import MancalaVecEnv

    env = MancalaVecEnv(n, rules, seed=1)
    rng = np.random.default_rng(1)
    env.reset()
    keys = np.empty((n, env.games.pits), np.float32)

    def chunk():
        for _ in range(10):
            rng.random(out=keys, dtype=np.float32)
            env.step_async((keys * env.action_masks()).argmax(axis=1))
            env.step_wait()
        return 10 * n

    return timed(chunk, seconds)


def openspiel_loop(name, params, seconds):
    import pyspiel

    game = pyspiel.load_game(name, params)
    rng = random.Random(1)
    state = game.new_initial_state()

    def chunk():
        nonlocal state
        for _ in range(1000):
            if state.is_terminal():
                state = game.new_initial_state()
            state.apply_action(rng.choice(state.legal_actions()))
        return 1000

    return timed(chunk, seconds)


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "unknown"


def spin():
    while True:
        pass


def median(xs):
    xs = sorted(xs)
    k = len(xs) // 2
    return xs[k] if len(xs) % 2 else (xs[k - 1] + xs[k]) / 2


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="kalah,seeds=4")
    ap.add_argument("--seconds", type=float, default=1.0, help="seconds a row a round")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--n", type=int, default=1024, help="games of each VecGame")
    ap.add_argument("--busy", type=int, default=0, help="busy-loop processes for the run")
    a = ap.parse_args()
    ways = [("parallel=None", None), ("parallel=True", True), ("parallel=False", False)]
    rows = [("Game, Python loop", lambda s: game_loop(a.rules, s))]
    for what, fn in [
        ("step_random(out=)", vec_step_random),
        ("sample_actions(), step()", vec_sampled),
        ("numpy policy, step(out=)", vec_numpy_out),
    ]:
        for way, p in ways:
            rows.append((f"VecGame({a.n}) {what}, {way}", lambda s, fn=fn, p=p: fn(a.rules, a.n, s, p)))
    rows.append((f"VecGame({a.n}) numpy policy's own work alone (no step)", lambda s: numpy_alone(a.rules, a.n, s)))
    rows.append((f"VecGame({a.n}) linear softmax, draw in numpy, step(out=), parallel=False", lambda s: linear_numpy_draw(a.rules, a.n, s)))
    rows.append((f"VecGame({a.n}) linear softmax, step_random(logits=, out=), parallel=False", lambda s: linear_step_draw(a.rules, a.n, s)))
    try:
        import gymnasium  # noqa: F401

        rows.append((f"MancalaVectorEnv({a.n}) numpy policy", lambda s: gymnasium_vector(a.rules, a.n, s)))
        rows.append((f"MancalaVecEnv({a.n}) (SB3) numpy policy", lambda s: sb3_vector(a.rules, a.n, s)))
    except ImportError:
        print("gymnasium is not installed: no vector environment figures")
    base = "OpenSpiel mancala (C++ Kalah 6x4), Python loop"
    try:
        import pyspiel  # noqa: F401

        rows.append((base, lambda s: openspiel_loop("mancala", {}, s)))
    except ImportError:
        base = None
        print("open_spiel is not installed: no OpenSpiel figures (pip install open-spiel==2.0.2)")
    import multiprocessing

    spinners = [multiprocessing.Process(target=spin, daemon=True) for _ in range(a.busy)]
    for p in spinners:
        p.start()
    try:
        before = loadavg()
        got = {name: [] for name, _ in rows}
        for _ in range(a.rounds):
            for name, fn in rows:
                got[name].append(fn(a.seconds))
        after = loadavg()
    finally:
        for p in spinners:
            p.terminate()
            p.join()
    print(
        f"rules {a.rules}, random legal moves, steps a second (higher is faster): median "
        f"(lowest-highest) of {a.rounds} rounds of {a.seconds:g} s, rows interleaved; "
        f"{a.busy} busy-loop processes; load average {before} before, {after} after"
    )
    print(f"  {'what':<56} {'M steps/s':>20}  {'/ OpenSpiel (same round)' if base else ''}")
    for name, _ in rows:
        xs = got[name]
        line = f"  {name:<56} {median(xs) / 1e6:>7.2f} ({min(xs) / 1e6:.2f}-{max(xs) / 1e6:.2f})"
        if base:
            r = [x / b for x, b in zip(xs, got[base])]
            line += f"  {median(r):>6.1f}x ({min(r):.1f}-{max(r):.1f})"
        print(line)


if __name__ == "__main__":
    main()
