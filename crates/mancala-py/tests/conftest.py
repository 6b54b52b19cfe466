"""Shared fixtures: the ``mancala`` command (the Rust core's own front end) to check the package
against, and the opt-in for slow tests."""

import os
import pathlib
import shutil

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]


def pytest_addoption(parser):
    parser.addoption("--slow", action="store_true", help="also run the slow tests (Kalah(6,4) proof)")


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: takes tens of seconds; run with --slow or MANCALA_SLOW=1")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--slow") or os.environ.get("MANCALA_SLOW") == "1":
        return
    skip = pytest.mark.skip(reason="slow: run with --slow or MANCALA_SLOW=1")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def cli() -> str:
    """Path of the ``mancala`` binary: $MANCALA_BIN, target/{debug,release}/mancala, or PATH."""
    candidates = [os.environ.get("MANCALA_BIN")]
    candidates += [str(REPO / "target" / p / "mancala") for p in ("debug", "release")]
    candidates.append(shutil.which("mancala"))
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    pytest.skip("no `mancala` binary: build it with `cargo build -p mancala-cli` or set MANCALA_BIN")
