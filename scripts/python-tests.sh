#!/usr/bin/env bash
# Builds the Python package `mancala` (crates/mancala-py) into a virtual environment under
# the cargo target directory (target/, or CARGO_TARGET_DIR) and runs its pytest suite: rules against the `mancala` command, the API, the engine's
# values, and the Gymnasium, PettingZoo and (where open-spiel installs) OpenSpiel adapters.
#
# Needs Python 3.9 or later with its `venv` module (PYTHON names the interpreter; default
# python3) and access to PyPI: pip installs maturin, numpy, gymnasium, pettingzoo and pytest,
# and tries open-spiel==2.0.2 (its tests are skipped, saying so, where it does not install).
# Without a Python 3.9+ with venv the script says so and stops with an error.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
if ! "$PY" -c 'import sys, venv; sys.exit(sys.version_info < (3, 9))' 2>/dev/null; then
  echo "error: the Python tests need Python 3.9 or later with its venv module (\`$PY\`; set PYTHON)" >&2
  exit 1
fi
TARGET="${CARGO_TARGET_DIR:-$PWD/target}"
VENV="$TARGET/python-venv"
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
fi
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check -q)
echo "== Python test environment ($VENV)"
"${PIP[@]}" install "maturin>=1.9.4,<2" numpy gymnasium pettingzoo pytest
if ! "$VENV/bin/python" -c 'import pyspiel' 2>/dev/null; then
  timeout 600 "${PIP[@]}" install open-spiel==2.0.2 \
    || echo "note: open-spiel==2.0.2 did not install here: the OpenSpiel tests will be skipped"
fi

echo "== mancala (Python package): build"
# The `mancala` command the tests check the package against (cargo test built it already).
cargo build --locked -p mancala-cli
# A development build (the rules and engine crates are optimised even there, see Cargo.toml).
(cd crates/mancala-py && VIRTUAL_ENV="$VENV" "$VENV/bin/maturin" develop --locked -q)

echo "== mancala (Python package): pytest"
MANCALA_BIN="$TARGET/debug/mancala" "$VENV/bin/python" -m pytest -q -p no:cacheprovider \
  crates/mancala-py/tests "$@"
