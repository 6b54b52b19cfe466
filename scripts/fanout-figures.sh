#!/usr/bin/env bash
# The WebSocket fan-out figures of docs/results.md: one game between bots (the load test's
# `--mode people --games 1`, each move sent as soon as the last is acknowledged) watched by
# N = 1, 10, 100 and 1000 WebSockets, on one server over SQLite; the N = 1 run is made first
# and again last, as the baseline the others are compared with. The rule set is the largest
# Kalah (12 pits, 12 seeds), so that a game lasts hundreds of moves and the watchers seldom
# move to the next game. WATCHERS (default "1 10 100 1000") and SECONDS_ (default 10) set the
# runs.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked -p mancala-server --bin mancala-server --example loadtest
bin=target/release/mancala-server
lt=target/release/examples/loadtest
tmp=$(mktemp -d)
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
"$bin" --addr 127.0.0.1:0 --rate-limit 0 --db "$tmp/fanout.db" >"$tmp/server.log" 2>&1 &
pid=$!
url=""
for _ in $(seq 1 100); do
  url=$(sed -n 's/^listening on \(http:[^ ]*\).*/\1/p' "$tmp/server.log" | head -1)
  [ -n "$url" ] && break; sleep 0.1
done
[ -n "$url" ] || { cat "$tmp/server.log"; exit 1; }
ns=(${WATCHERS:-1 10 100 1000})
runs=("${ns[0]}" "${ns[@]:1}" "${ns[0]}")
uptime
printf '%s\n' "| watchers | moves/s | copies/s | copies/s vs baseline | copy p50 / p99 ms | server CPU |" "|---|---|---|---|---|---|" >"$tmp/table"
base=""
for n in "${runs[@]}"; do
  out=$("$lt" --mode people --games 1 --watchers "$n" --seconds "${SECONDS_:-10}" \
    --rules kalah,pits=12,seeds=12 --url "$url" --server-pid "$pid")
  echo "$out"
  moves=$(sed -n 's/.* \([0-9.]*\) moves\/s.*/\1/p' <<<"$out")
  copies=$(sed -n 's/^watchers.*copies, \([0-9.]*\) a second).*/\1/p' <<<"$out")
  lat=$(sed -n 's/^watchers. copies: *p50 \([0-9.]*\) ms, p99 \([0-9.]*\) ms.*/\1 \/ \2/p' <<<"$out")
  cpu=$(sed -n 's/^server [0-9]*: \([0-9]*%\) of a core.*/\1/p' <<<"$out")
  [ -n "$base" ] || base=$copies
  ratio=$(awk -v c="$copies" -v b="$base" 'BEGIN { if (b > 0) printf "%.2fx", c / b; else print "-" }')
  echo "| $n | $moves | $copies | $ratio | $lat | $cpu |" >>"$tmp/table"
done
uptime
cat "$tmp/table"
