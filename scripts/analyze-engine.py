#!/usr/bin/env python3
"""The engine protocol (docs/protocols.md) answered by one `mancala analyze` process a
move: the way of playing that `mancala engine` replaces, kept to measure against it.

    mancala match --a-cmd "mancala engine" \
        --b-cmd "python3 scripts/analyze-engine.py OLD-MANCALA --threads 1" --movetime 100ms

Takes `position POSITION-STRING` (no moves: `mancala match` sends the current position in
games whose positions cannot repeat), `go movetime MS` (other limits: 1000 ms), `isready`,
`newgame`, `quit`. Arguments after the binary are passed to `analyze`.
"""
import json
import subprocess
import sys


def say(line):
    print(line, flush=True)


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: analyze-engine.py MANCALA [ANALYZE-ARGS ...]")
    mancala, extra = sys.argv[1], sys.argv[2:]
    pos = None
    for line in sys.stdin:
        w = line.split()
        if not w:
            continue
        if w[0] == "isready":
            say("readyok")
        elif w[0] == "newgame":
            pos = None
        elif w[0] == "quit":
            return
        elif w[0] == "position":
            if len(w) == 2 and "/" in w[1]:
                pos = w[1]
            else:
                pos = None
                say("info string error this engine takes a position string without moves")
        elif w[0] == "go":
            if pos is None:
                say("info string error no position")
                continue
            ms = "1000"
            if "movetime" in w and w.index("movetime") + 1 < len(w):
                ms = w[w.index("movetime") + 1]
            out = subprocess.run(
                [mancala, "analyze", pos, "--time", ms + "ms", "--json"] + extra,
                capture_output=True,
                text=True,
            )
            try:
                say("bestmove " + json.loads(out.stdout)["best"])
            except (ValueError, KeyError):
                say("info string error " + out.stderr.strip().replace("\n", " "))
        else:
            say("info string error unknown command " + w[0])


if __name__ == "__main__":
    main()
