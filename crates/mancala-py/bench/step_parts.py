"""Where a step of ``VecGame`` spends its time, not a test: microseconds a call for each
part of a random-play step of ``--n`` games (1024), best of ``--repeat`` timings.

    python crates/mancala-py/bench/step_parts.py [--rules kalah,seeds=4] [--n 1024]

Build with ``maturin develop --release`` first.
"""

import argparse
import timeit

import numpy as np

import mancala


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="kalah,seeds=4")
    ap.add_argument("--n", type=int, default=1024)
    ap.add_argument("--repeat", type=int, default=7)
    a = ap.parse_args()
    n = a.n
    v = mancala.VecGame(a.rules, n, seed=1)
    rng = np.random.default_rng(1)
    _, masks = v.reset()
    keys, acts = np.empty(masks.shape, np.float32), np.empty(n, np.int64)
    out = v.step(v.sample_actions())
    rout = v.step_random()

    def numpy_policy():
        return (rng.random(masks.shape) * masks).argmax(axis=1)

    def numpy_policy_out():
        rng.random(out=keys, dtype=np.float32)
        np.multiply(keys, masks, out=keys)
        return keys.argmax(axis=1, out=acts)

    parts = [
        ("a call that does nothing (VecGame.n)", lambda: v.n),
        ("numpy policy from the masks, new arrays", numpy_policy),
        ("numpy policy from the masks, out= arrays", numpy_policy_out),
        ("sample_actions()", v.sample_actions),
        ("sample_actions(out=)", lambda: v.sample_actions(out=acts)),
        ("sample_actions(out=), step(actions)", lambda: v.step(v.sample_actions(out=acts))),
        ("sample_actions(out=), step(actions, out=)", lambda: v.step(v.sample_actions(out=acts), out=out)),
        ("step_random()", v.step_random),
        ("step_random(out=)", lambda: v.step_random(out=rout)),
        ("observations()", v.observations),
        ("masks()", v.masks),
    ]
    print(f"rules {a.rules}, {n} games: microseconds a call (best of {a.repeat}; lower is faster)")
    for name, fn in parts:
        reps = 200
        best = min(timeit.repeat(fn, number=reps, repeat=a.repeat)) / reps
        print(f"  {name:<44} {best * 1e6:9.1f} us  ({best * 1e9 / n:6.1f} ns a game)")


if __name__ == "__main__":
    main()
