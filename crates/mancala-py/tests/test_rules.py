"""The package plays the rules of the Rust core: random games of every preset replayed by the
``mancala`` command, perft counts against its own, and standard Kalah against an independent
implementation written here."""

import json
import random
import subprocess

import pytest

import mancala

# Every preset, and the rule options that change how a game runs.
RULES = [
    "kalah",
    "kalah,seeds=4",
    "kalah,pits=4,seeds=5",
    "kalah,capture=empty",
    "kalah,capture=opposite-only",
    "kalah,end=mover-empty",
    "kalah,leftovers=not-counted",
    "kalah,leftovers=last-mover",
    "kalah,leftovers=last-capturer",
    "kalah,stop-when-decided",
    "kalah-brazil",
    "kalah-brazil,stage=basic",
    "kalah-brazil,stage=extra-turn",
    "vaccean",
    "cross-kalah",
    "dracala",
    "kauri",
    "oware",
    "oware,repetition=split,grand-slam=forbidden",
    # Boards beyond 8 pits, up to the core's 12.
    "kalah,pits=12,seeds=10",
    "cross-kalah,pits=10,seeds=2",
    "kauri,pits=12,seeds=3",
    "oware,pits=11,seeds=4",
]


def test_every_preset_is_covered():
    assert {r.split(",")[0] for r in RULES} == set(mancala.presets())


def random_game(rules: str, rng: random.Random, max_plies: int = 3000) -> mancala.Game:
    g = mancala.Game(rules)
    while not g.is_over and len(g.moves) < max_plies:
        legal = g.legal_moves()
        assert legal, g.position
        assert list(g.legal_mask().nonzero()[0]) == legal
        g.play(rng.choice(legal))
    return g


@pytest.mark.parametrize("rules", RULES)
def test_random_games_replay_in_the_cli(rules, cli, tmp_path):
    rng = random.Random(rules)
    for k in range(3):
        g = random_game(rules, rng)
        assert g.is_over, f"{rules}: game {k} unfinished after {len(g.moves)} plies"
        path = tmp_path / f"{k}.json"
        path.write_text(g.record())
        # The CLI replays every move, checks each turn's side and the record's claimed result.
        out = subprocess.run([cli, "replay", str(path)], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        s, n = g.scores
        assert f"South {s} : North {n}" in out.stdout
        winner = {"south": "South wins", "north": "North wins", "draw": "draw"}[g.outcome]
        assert winner.lower() in out.stdout.lower()
        # And back: the text record, parsed by the package, gives the same game.
        again = mancala.Game.from_record(g.record("text"))
        assert again.position == g.position and again.moves == g.moves


def perft(g: mancala.Game, depth: int) -> int:
    if depth == 0 or g.is_over:
        return 1
    total = 0
    for pit in g.legal_moves():
        before = g.position
        g.play(pit)
        total += perft(g, depth - 1)
        assert g.undo() == pit
        assert g.position == before
    return total


@pytest.mark.parametrize("rules", RULES)
def test_perft_agrees_with_the_cli(rules, cli):
    rng = random.Random(7)
    g = mancala.Game(rules)
    starts = [g.position]
    # Two positions further on, from random plies.
    for plies in (6, 15):
        h = mancala.Game(rules)
        for _ in range(plies):
            if h.is_over:
                break
            h.play(rng.choice(h.legal_moves()))
        if not h.is_over:
            starts.append(h.position)
    for p in starts:
        out = subprocess.run(
            [cli, "perft", "--position", p, "--depth", "3", "--json"],
            capture_output=True,
            text=True,
        )
        assert out.returncode == 0, out.stderr
        counts = json.loads(out.stdout)["counts"]
        mine = [perft(mancala.Game(position=p), d) for d in (1, 2, 3)]
        assert mine == counts, p


class ReferenceKalah:
    """Kalah written from its rules, independently of the Rust core: ``m`` pits a side,
    sowing counter-clockwise past the opponent's store, an extra turn for a last seed in the own
    store, a capture for a last seed in an own empty pit facing seeds (standard), the game over
    when a row is empty, each side's leftovers to its owner."""

    def __init__(self, m: int, n: int):
        self.m = m
        # Ring: 0..m South's pits, m South's store, m+1..2m North's pits, 2m+1 North's store.
        self.ring = [n] * m + [0] + [n] * m + [0]
        self.south = True
        self.over = False

    def play(self, pit: int) -> None:
        m, ring = self.m, self.ring
        base, store, skip = (0, m, 2 * m + 1) if self.south else (m + 1, 2 * m + 1, m)
        i = base + pit
        seeds, ring[i] = ring[i], 0
        assert seeds > 0
        while seeds:
            i = (i + 1) % (2 * m + 2)
            if i != skip:
                ring[i] += 1
                seeds -= 1
        own = range(base, base + m)
        again = i == store
        if i in own and ring[i] == 1:
            opposite = 2 * m - i
            if ring[opposite] > 0:
                ring[store] += ring[opposite] + 1
                ring[i] = ring[opposite] = 0
        if sum(ring[0:m]) == 0 or sum(ring[m + 1 : 2 * m + 1]) == 0:
            ring[m] += sum(ring[0:m])
            ring[2 * m + 1] += sum(ring[m + 1 : 2 * m + 1])
            for k in list(range(0, m)) + list(range(m + 1, 2 * m + 1)):
                ring[k] = 0
            self.over = True
        elif not again:
            self.south = not self.south

    def board(self) -> str:
        m, r = self.m, self.ring
        side = "-" if self.over else ("s" if self.south else "n")
        row = lambda a, b: "-".join(str(x) for x in r[a:b])
        return f"{row(0, m)}/{r[m]}/{row(m + 1, 2 * m + 1)}/{r[2 * m + 1]}/{side}"


@pytest.mark.parametrize("m,n", [(6, 3), (6, 4), (4, 5), (6, 6), (9, 2), (10, 10), (12, 1), (12, 10), (12, 12), (8, 20)])
def test_kalah_agrees_with_an_independent_implementation(m, n):
    rng = random.Random(m * 100 + n)
    for _ in range(40):
        g = mancala.Game(f"kalah,pits={m},seeds={n}")
        ref = ReferenceKalah(m, n)
        while not g.is_over:
            assert g.position.split("/", 1)[1] == ref.board()
            legal = [p for p in range(m) if ref.ring[(0 if ref.south else m + 1) + p] > 0]
            assert g.legal_moves() == legal
            assert g.to_move == ("south" if ref.south else "north")
            pit = rng.choice(legal)
            g.play(pit)
            ref.play(pit)
        assert ref.over and g.position.split("/", 1)[1] == ref.board()
        assert g.scores == (ref.ring[m], ref.ring[2 * m + 1])
