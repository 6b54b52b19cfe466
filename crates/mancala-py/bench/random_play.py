"""Random-play steps a second (one step = one move of one game), not a test.

    python crates/mancala-py/bench/random_play.py [--rules kalah,seeds=4] [--seconds 2] [--rounds 3]

Measures, on the same machine in the same run, each row ``--rounds`` times in turn (rows
interleaved, so that a change of the machine's load reaches every row alike), and prints each
row's best round and its ratio to OpenSpiel's ``mancala`` in a Python loop (higher is faster):

- ``Game`` in a Python loop (legal_moves, a random choice, play; a new game when one ends);
- ``VecGame`` with ``--n`` games (1024) and the actions chosen in numpy from the masks, as a
  learner's policy chooses them: with new arrays each step, and with ``out=`` arrays on both
  sides (numpy's and ``step``'s);
- ``VecGame`` with the random actions drawn in Rust: ``step_random(out=)`` (drawn in the
  step's own pass), and ``sample_actions()`` then ``step()``;
- OpenSpiel's own ``mancala`` (Kalah 6x4) in a Python loop, when ``open_spiel`` is installed,
  and this package's ``python_mancala`` OpenSpiel game.

Build the package with ``maturin develop --release`` first: a debug build measures the
bindings unoptimised. ``VecGame`` shares its steps with its helper threads (one a core besides
the caller's); the rows marked "one thread" step with ``parallel=False``.
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


def vec_numpy(rules, n, seconds):
    v = mancala.VecGame(rules, n, seed=1)
    rng = np.random.default_rng(1)
    _, masks = v.reset()

    def chunk():
        nonlocal masks
        for _ in range(10):
            # A uniform legal move of every game: the largest random key among the legal pits.
            keys = rng.random(masks.shape) * masks
            _, _, _, masks = v.step(keys.argmax(axis=1))
        return 10 * n

    return timed(chunk, seconds)


def vec_numpy_out(rules, n, seconds, parallel=True):
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


def vec_step_random(rules, n, seconds, parallel=True):
    v = mancala.VecGame(rules, n, seed=1, parallel=parallel)
    out = v.step_random()

    def chunk():
        for _ in range(10):
            v.step_random(out=out)
        return 10 * n

    return timed(chunk, seconds)


def vec_sampled(rules, n, seconds):
    v = mancala.VecGame(rules, n, seed=1)

    def chunk():
        for _ in range(10):
            v.step(v.sample_actions())
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="kalah,seeds=4")
    ap.add_argument("--seconds", type=float, default=2.0, help="seconds a row a round")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--n", type=int, default=1024, help="games of each VecGame")
    a = ap.parse_args()
    rows = [
        ("Game, Python loop", lambda s: game_loop(a.rules, s)),
        (f"VecGame({a.n}), numpy policy from masks, step()", lambda s: vec_numpy(a.rules, a.n, s)),
        (f"VecGame({a.n}), numpy policy from masks, step(out=)", lambda s: vec_numpy_out(a.rules, a.n, s)),
        (
            f"VecGame({a.n}), numpy policy, step(out=), one thread",
            lambda s: vec_numpy_out(a.rules, a.n, s, parallel=False),
        ),
        (f"VecGame({a.n}), step_random(out=) (Rust actions)", lambda s: vec_step_random(a.rules, a.n, s)),
        (
            f"VecGame({a.n}), step_random(out=), one thread",
            lambda s: vec_step_random(a.rules, a.n, s, parallel=False),
        ),
        (f"VecGame({a.n}), sample_actions(), step()", lambda s: vec_sampled(a.rules, a.n, s)),
    ]
    try:
        import pyspiel  # noqa: F401

        import mancala.openspiel_game  # noqa: F401

        rows.append(("OpenSpiel mancala (C++ Kalah 6x4), Python loop", lambda s: openspiel_loop("mancala", {}, s)))
        rows.append(
            (
                "OpenSpiel python_mancala, Python loop",
                lambda s: openspiel_loop("python_mancala", {"rules": a.rules}, s),
            )
        )
        base = "OpenSpiel mancala (C++ Kalah 6x4), Python loop"
    except ImportError:
        base = None
        print("open_spiel is not installed: no OpenSpiel figures (pip install open-spiel==2.0.2)")
    best = {name: 0.0 for name, _ in rows}
    for _ in range(a.rounds):
        for name, fn in rows:
            best[name] = max(best[name], fn(a.seconds))
    print(
        f"rules {a.rules}, random legal moves, steps a second (higher is faster), "
        f"best of {a.rounds} rounds of {a.seconds:g} s"
    )
    print(f"  {'what':<54} {'steps/s':>14}  {'/ OpenSpiel' if base else ''}")
    for name, _ in rows:
        ratio = f"{best[name] / best[base]:>9.1f}x" if base else ""
        print(f"  {name:<54} {best[name]:>14,.0f}  {ratio}")
    if base:
        print("  target: VecGame(1024) >= 50x OpenSpiel mancala's Python loop")


if __name__ == "__main__":
    main()
