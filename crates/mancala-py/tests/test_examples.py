"""The examples run: each for a few seconds, its output checked."""

import pathlib
import re
import subprocess
import sys

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"


def test_train_policy_trains_and_scores_against_levels_1_and_2():
    out = subprocess.run(
        [sys.executable, str(EXAMPLES / "train_policy.py"), "--seconds", "2", "--n", "256", "--games", "2"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    ).stdout
    trained = re.search(r"trained 2 s: ([\d,]+) moves in (\d+) updates", out)
    assert trained and int(trained.group(2)) >= 1, out
    assert int(trained.group(1).replace(",", "")) == int(trained.group(2)) * 64 * 256
    for level in (1, 2):
        for who in ("policy", "random"):
            m = re.search(rf"{who} against level {level}: (\d+) won, (\d+) drawn, (\d+) lost of 2; mean margin [+-]\d", out)
            assert m and sum(map(int, m.groups())) == 2, out
