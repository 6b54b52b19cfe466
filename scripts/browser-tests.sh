#!/usr/bin/env bash
# Browser end-to-end tests of the web client: installs Debian's Chromium (only if missing) and
# playwright-core (npm ci, no browser download), builds `mancala` (unless MANCALA_BIN names
# one), starts `mancala serve` on a free loopback port with a temporary database and a KGP
# lobby, runs web/tests with node's test runner and stops the server; then, where web/pkg/ is
# built, the static copy's offline tests (offline.test.js). Screenshots and downloaded records land in test-output/browser/.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

if [ ! -x /usr/bin/chromium ]; then
  echo "== installing chromium (Debian package)"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq chromium >/dev/null
fi

echo "== npm ci (playwright-core)"
(cd web/tests && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)

# MANCALA_BIN names a `mancala` already built (scripts/test.sh passes the one its tests ran).
bin="${MANCALA_BIN:-}"
if [ -z "$bin" ]; then
  echo "== building mancala"
  cargo build --locked --bin mancala
  bin="${CARGO_TARGET_DIR:-$root/target}/debug/mancala"
fi
bin=$(realpath "$bin")

tmp=$(mktemp -d)
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

# With a KGP lobby, so that a bot can wait on the home page to be challenged.
"$bin" serve --addr 127.0.0.1:0 --db "$tmp/games.db" --ai-time-ms 500 \
  --kgp-addr 127.0.0.1:0 --kgp-lobby --kgp-level 1 >"$tmp/server.log" 2>&1 &
server_pid=$!
url=""
for _ in $(seq 1 100); do
  url=$(sed -n 's/^listening on \(http:[^ ]*\).*/\1/p' "$tmp/server.log" | head -1)
  [ -n "$url" ] && break
  if ! kill -0 "$server_pid" 2>/dev/null; then cat "$tmp/server.log"; echo "the server did not start"; exit 1; fi
  sleep 0.1
done
[ -n "$url" ] || { cat "$tmp/server.log"; echo "the server did not print its address"; exit 1; }
kgp=""
for _ in $(seq 1 50); do
  kgp=$(sed -n 's/^KGP on \([0-9.:]*\)$/\1/p' "$tmp/server.log" | head -1)
  [ -n "$kgp" ] && break
  sleep 0.1
done
[ -n "$kgp" ] || { cat "$tmp/server.log"; echo "the server did not print its KGP address"; exit 1; }
echo "== browser tests against $url"
mkdir -p test-output/browser
status=0
(cd web/tests && MANCALA_URL="$url" MANCALA_KGP="$kgp" MANCALA_BIN="$bin" TEST_OUTPUT="$root/test-output/browser" \
  timeout 600 node --test --test-concurrency=1 e2e.test.js accounts.test.js layout.test.js settings.test.js clocks.test.js values.test.js) || status=$?
# The static copy with the engine in the browser (`mancala web-export`), where
# scripts/wasm-build.sh has built web/pkg/.
if [ -f web/pkg/mancala_wasm_bg.wasm ]; then
  echo "== browser tests of the static copy (offline)"
  (cd web/tests && MANCALA_BIN="$bin" TEST_OUTPUT="$root/test-output/browser" \
    timeout 900 node --test --test-concurrency=1 offline.test.js) || status=$?
else
  echo "skipped: the offline tests (no web/pkg/: run scripts/wasm-build.sh)"
fi
if [ "$status" -ne 0 ]; then
  echo "== server log"; tail -50 "$tmp/server.log"
fi
exit "$status"
