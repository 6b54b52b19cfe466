"""Random-play steps a second (one step = one move of one game), not a test.

    python crates/mancala-py/bench/random_play.py [--rules kalah,seeds=4] [--seconds 3]

Measures, on the same machine in the same run:
- ``Game`` in a Python loop (legal_moves, a random choice, play; a new game when one ends);
- ``VecGame`` with 1024 games (sample_actions and step, both in Rust);
- ``VecGame`` with 1024 games and the actions chosen in numpy from the masks;
- OpenSpiel's own ``mancala`` (Kalah 6x4) in a Python loop, when ``open_spiel`` is installed,
  and this package's ``python_mancala`` OpenSpiel game.
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


def vec_sampled(rules, n, seconds):
    v = mancala.VecGame(rules, n, seed=1)

    def chunk():
        for _ in range(10):
            v.step(v.sample_actions())
        return 10 * n

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
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--n", type=int, default=1024)
    a = ap.parse_args()
    rows = [
        ("Game, Python loop", game_loop(a.rules, a.seconds)),
        (f"VecGame({a.n}), sample_actions + step", vec_sampled(a.rules, a.n, a.seconds)),
        (f"VecGame({a.n}), numpy actions from masks + step", vec_numpy(a.rules, a.n, a.seconds)),
    ]
    try:
        import pyspiel  # noqa: F401

        import mancala.openspiel_game  # noqa: F401

        spiel = openspiel_loop("mancala", {}, a.seconds)
        rows.append(("OpenSpiel mancala (C++ Kalah 6x4), Python loop", spiel))
        rows.append(
            ("OpenSpiel python_mancala, Python loop", openspiel_loop("python_mancala", {"rules": a.rules}, a.seconds))
        )
    except ImportError:
        spiel = None
        print("open_spiel is not installed: no OpenSpiel figures (pip install open-spiel==2.0.2)")
    print(f"rules {a.rules}, {a.seconds:g} s each, random legal moves")
    for name, rate in rows:
        print(f"  {name:<52} {rate:>14,.0f} steps/s")
    if spiel:
        print(f"  VecGame / OpenSpiel mancala: {rows[1][1] / spiel:.0f}x (sampled), {rows[2][1] / spiel:.0f}x (numpy); target >= 50x")


if __name__ == "__main__":
    main()
