#!/usr/bin/env bash
# Runs every test of the project on a fresh machine: formatting, lints and documentation
# (warnings denied), builds, unit and integration tests, the server's tests again on
# PostgreSQL (scripts/postgres.sh installs and starts it, and stops it at the end), the long
# cases (perft to depth 12), the documentation's runnable examples (scripts/docs-check.sh,
# against the debug build), a WASM build of the rules, the engine and the browser's engine
# (scripts/wasm-build.sh) where the target can be installed, the browser tests, the Python
# package's tests, and (with FUZZ_SECONDS set) a short run of the fuzz targets (FUZZ_TARGETS,
# default all; .ci/run runs the protocol-line and split-file targets for 10 s each). Each
# stage's heading gives the minutes since the start.
set -euo pipefail
cd "$(dirname "$0")/.."
stage() { printf '== %s  [%d:%02d]\n' "$1" $((SECONDS / 60)) $((SECONDS % 60)); }

stage "format, lints and documentation (warnings denied)"
for c in rustfmt clippy; do
  rustup component list --installed 2>/dev/null | grep -q "^$c" \
    || timeout 300 rustup component add "$c" >/dev/null 2>&1 \
    || echo "note: the $c component could not be installed here"
done
if cargo fmt --version >/dev/null 2>&1; then cargo fmt --all --check; else echo "skipped: cargo fmt"; fi
if cargo clippy --version >/dev/null 2>&1; then
  cargo clippy --workspace --all-targets --locked -- -D warnings
else
  echo "skipped: cargo clippy"
fi
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked

stage "cargo test (workspace)"
cargo test --workspace --locked

# The stages below run what that build made, not `cargo test -p` or `cargo build -p`: those
# resolve the dependencies' features for one package, not the workspace, and so rebuild them
# (about two minutes a time on two cores). The `mancala` command is the one the CLI's tests ran.
target_dir="${CARGO_TARGET_DIR:-$PWD/target}"
export MANCALA_BIN="$target_dir/debug/mancala"
executables="$target_dir/test-executables.jsonl"
cargo test --workspace --locked --no-run --message-format=json >"$executables"
# run_tests PACKAGE [NAME [ARGS...]]: the test executables of crates/PACKAGE (those of its
# test target NAME only, the library's being named as the crate, `mancala_core`), each run in
# the package's folder as cargo runs them.
run_tests() {
  local package=$1 name=${2:-} exe ran=0
  shift $(( $# < 2 ? $# : 2 ))
  for exe in $(grep -F "/crates/$package#" "$executables" \
      | sed -n 's/.*"executable":"\([^"]*\/deps\/[^"/]*\)".*/\1/p' | sort -u); do
    if [ -z "$name" ] || [[ "$(basename "$exe")" == "$name"-* ]]; then
      (cd "crates/$package" && "$exe" "$@")
      ran=1
    fi
  done
  if [ "$ran" = 0 ]; then echo "error: no test executable of $package ${name}" >&2; return 1; fi
}

stage "the server's tests on PostgreSQL (scripts/postgres.sh: Debian's postgresql)"
if pg_url=$(bash scripts/postgres.sh start | tail -1) && [ -n "$pg_url" ]; then
  trap 'bash scripts/postgres.sh stop' EXIT
  MANCALA_TEST_STORE=postgres MANCALA_TEST_POSTGRES="$pg_url" run_tests mancala-server
else
  echo "skipped: PostgreSQL could not be started here (the server's tests ran on SQLite only)"
fi

stage "long cases (perft of Kalah(6,4) to depth 12, brute force on 4 pits x 3 seeds)"
run_tests mancala-core cases --ignored
run_tests mancala-engine mancala_engine brute_force_on_4_pits --ignored

stage "docs examples (the debug build: its rules and engine are optimised)"
bash scripts/docs-check.sh

stage "the browser's engine for wasm32-unknown-unknown (the rules, the engine, the session)"
# One release build of mancala-wasm and its crates, into web/pkg/ (the static copy that the
# browser tests load); it says so where the target or the wasm-bindgen CLI cannot be had.
bash scripts/wasm-build.sh

stage "browser tests (scripts/browser-tests.sh)"
bash scripts/browser-tests.sh

stage "the Python package (scripts/python-tests.sh)"
# --slow: the Kalah(6,4) proof (+8), about 10 s on two cores.
bash scripts/python-tests.sh --slow

if [ -n "${FUZZ_SECONDS:-}" ]; then
  # FUZZ_TARGETS (space-separated) picks targets; default every one.
  stage "fuzz targets, ${FUZZ_SECONDS}s each"
  # shellcheck disable=SC2086
  bash fuzz/run.sh "$FUZZ_SECONDS" ${FUZZ_TARGETS:-}
fi
stage "all passed"
