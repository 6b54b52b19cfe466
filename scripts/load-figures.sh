#!/usr/bin/env bash
# The load figures of docs/results.md ("Past one server"): games between bots with watchers
# (the load test's `--mode people`) on (a) one server on SQLite, (b) one on PostgreSQL, (c) two
# servers on one PostgreSQL database, each a fresh schema.
# Needs PostgreSQL (scripts/postgres.sh starts it). GAMES, WATCHERS and SECONDS_ set the load
# (default 50 games, 200 watchers, 20 s each).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p mancala-server --bin mancala-server --example loadtest
bin=target/release/mancala-server
lt=target/release/examples/loadtest
pg=$(bash scripts/postgres.sh start | tail -1)
tmp=$(mktemp -d)
start() { # db log -> prints "pid url"
  "$bin" --addr 127.0.0.1:0 --rate-limit 0 --db "$1" >"$2" 2>&1 &
  local pid=$!
  for _ in $(seq 1 100); do
    url=$(sed -n 's/^listening on \(http:[^ ]*\).*/\1/p' "$2" | head -1)
    [ -n "$url" ] && break; sleep 0.1
  done
  echo "$pid $url"
}
args=(--mode people --games "${GAMES:-50}" --watchers "${WATCHERS:-200}" --seconds "${SECONDS_:-20}")
echo "== (a) one server, SQLite"; uptime
read -r p1 u1 < <(start "$tmp/a.db" "$tmp/a.log")
"$lt" "${args[@]}" --url "$u1" --server-pid "$p1"; kill "$p1"; wait "$p1" 2>/dev/null || true
s1="$pg?options=-csearch_path%3Dload_b"; s2="$pg?options=-csearch_path%3Dload_c"
psql "$pg" -qc "DROP SCHEMA IF EXISTS load_b CASCADE; DROP SCHEMA IF EXISTS load_c CASCADE; CREATE SCHEMA load_b; CREATE SCHEMA load_c;"
echo "== (b) one server, PostgreSQL"; uptime
read -r p1 u1 < <(start "$s1" "$tmp/b.log")
"$lt" "${args[@]}" --url "$u1" --server-pid "$p1"; kill "$p1"; wait "$p1" 2>/dev/null || true
echo "== (c) two servers, one PostgreSQL"; uptime
read -r p1 u1 < <(start "$s2" "$tmp/c1.log")
read -r p2 u2 < <(start "$s2" "$tmp/c2.log")
"$lt" "${args[@]}" --url "$u1" --url2 "$u2" --server-pid "$p1" --server-pid "$p2"; kill "$p1" "$p2"; wait 2>/dev/null || true
rm -rf "$tmp"
