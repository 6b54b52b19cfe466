"""Trains a policy with the batched games (numpy only), then scores it against the computer's
levels 1 and 2 over seeded games.

    python crates/mancala-py/examples/train_policy.py [--rules kalah] [--seconds 180] [--games 40]

The policy is linear: a softmax over the legal pits of ``obs @ W + b``, the observation (from
the mover's view) scaled by the seeds in play. It learns by self-play with REINFORCE: one
``VecGame`` of ``--n`` games steps with the policy's sampled moves for ``--window`` steps;
each move made in a game that ended within the window is credited with that game's result for
its mover (+1 win, -1 loss, 0 draw; the reward ``VecGame`` gives the player of the last move,
negated for the other player's moves), and ``W`` and ``b`` follow the gradient of the
credited moves' log-probabilities. The policy plays both seats, so it learns against itself.

The score: ``--games`` games against each level, the policy taking South in even games and
North in odd ones, greedy (its most probable legal pit), the level's choices seeded by the
game's number; it prints wins, draws and losses and the mean final margin for the policy, and
the same for a uniformly random player as a reference.
"""

import argparse
import time

import numpy as np

import mancala


def logits(params, obs, scale):
    W, b = params
    return (obs / scale) @ W + b


def masked_softmax(z, mask):
    z = np.where(mask, z, -np.inf)
    z = z - z.max(axis=1, keepdims=True)
    p = np.exp(z)
    return p / p.sum(axis=1, keepdims=True)


def train(rules, n, window, seconds, lr, seed):
    env = mancala.VecGame(rules, n, seed=seed, reward="win")
    k, m = env.observation_size, env.pits
    scale = float(mancala.Game(rules).total_seeds)
    W, b = np.zeros((k, m)), np.zeros(m)
    obs, mask = env.reset()
    rows = np.arange(n)
    steps = rounds = 0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        O = np.empty((window, n, k), np.float32)
        P = np.empty((window, n, m))
        A = np.empty((window, n), np.int64)
        S = np.empty((window, n), np.int8)
        R = np.empty((window, n), np.float32)
        D = np.empty((window, n), bool)
        for t in range(window):
            z = logits((W, b), obs, scale)
            p = masked_softmax(z, mask)
            O[t], P[t], S[t] = obs, p, env.to_move()
            # A pit drawn from p (the softmax of z over the legal pits) and played, in the step.
            A[t], obs, R[t], D[t], mask = env.step_random(logits=z)
        # Each move's credit: the result of its game for its mover, known where the game
        # ended within the window (walking back from the end).
        outcome = np.zeros((n, 2), np.float32)
        known = np.zeros(n, bool)
        G = np.zeros((window, n), np.float32)
        V = np.zeros((window, n), bool)
        for t in reversed(range(window)):
            d = D[t]
            side = S[t].astype(np.int64)
            outcome[d, side[d]] = R[t][d]
            outcome[d, 1 - side[d]] = -R[t][d]
            known |= d
            G[t] = outcome[rows, side]
            V[t] = known
        g = (np.eye(m)[A] - P) * (G * V)[..., None]  # d log p(a) / d logits, times the credit
        x = O.reshape(-1, k) / scale
        W += lr * x.T @ g.reshape(-1, m) / n
        b += lr * g.reshape(-1, m).sum(axis=0) / n
        steps += window * n
        rounds += 1
    return (W, b), scale, steps, rounds


def play(rules, chooser, level, games):
    """Wins, draws, losses and the mean margin of ``chooser`` against ``level``."""
    lv = mancala.Level(level)
    w = d = l = 0
    margins = []
    for i in range(games):
        g = mancala.Game(rules)
        me = "south" if i % 2 == 0 else "north"
        ply = 0
        while not g.is_over:
            if g.to_move == me:
                g.play(chooser(g, i, ply))
            else:
                g.play(lv.choose(g, seed=i * 100_003 + ply))
            ply += 1
        s = g.scores
        margin = (s[0] - s[1]) if me == "south" else (s[1] - s[0])
        margins.append(margin)
        w, d, l = w + (margin > 0), d + (margin == 0), l + (margin < 0)
    return w, d, l, float(np.mean(margins))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="kalah")
    ap.add_argument("--seconds", type=float, default=180.0, help="training time")
    ap.add_argument("--n", type=int, default=1024, help="games stepped together")
    ap.add_argument("--window", type=int, default=64, help="steps a policy update")
    ap.add_argument("--lr", type=float, default=0.5)
    ap.add_argument("--games", type=int, default=40, help="games against each level")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    params, scale, steps, rounds = train(a.rules, a.n, a.window, a.seconds, a.lr, a.seed)
    print(f"trained {a.seconds:g} s: {steps:,} moves in {rounds} updates")

    def greedy(g, i, ply):
        z = logits(params, g.observation()[None], scale)[0]
        return int(np.where(g.legal_mask(), z, -np.inf).argmax())

    def uniform(g, i, ply):
        r = np.random.default_rng([a.seed, i, ply])
        return int(r.choice(g.legal_moves()))

    for level in (1, 2):
        for name, chooser in (("policy", greedy), ("random", uniform)):
            w, d, l, margin = play(a.rules, chooser, level, a.games)
            print(
                f"{name} against level {level}: {w} won, {d} drawn, {l} lost of {a.games}; "
                f"mean margin {margin:+.2f}"
            )


if __name__ == "__main__":
    main()
