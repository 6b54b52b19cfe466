#!/usr/bin/env bash
# PostgreSQL for the server's tests on its second store: `start` installs Debian's postgresql
# package where it is missing, starts its cluster (pg_ctlcluster, as root or with sudo),
# makes the role `mancala` and an empty database `mancala_test` (dropped first), and prints
# the database's address on its last line; `stop` stops the cluster again where `start`
# started it. Exits 1, saying why, where PostgreSQL cannot be had here.
set -euo pipefail

sudo_cmd=""
[ "$(id -u)" -ne 0 ] && sudo_cmd="sudo -n"
state=/tmp/mancala-postgres-started
port="${MANCALA_PG_PORT:-5432}"

cluster() {
  pg_lsclusters --no-header 2>/dev/null | awk -v p="$port" '$3 == p { print $1, $2, $4; exit }'
}

case "${1:-}" in
  start)
    if ! command -v pg_ctlcluster >/dev/null || [ -z "$(ls /usr/lib/postgresql 2>/dev/null)" ]; then
      echo "== installing postgresql (Debian package)" >&2
      $sudo_cmd apt-get update -qq >&2 || { echo "cannot run apt-get here" >&2; exit 1; }
      DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq postgresql >/dev/null \
        || { echo "the postgresql package could not be installed" >&2; exit 1; }
    fi
    read -r version name status <<<"$(cluster)" || true
    if [ -z "${version:-}" ]; then
      version=$(ls /usr/lib/postgresql | sort -n | tail -1)
      name=main
      $sudo_cmd pg_createcluster "$version" "$name" -p "$port" >&2
      status=down
    fi
    if [ "$status" != "online" ]; then
      $sudo_cmd pg_ctlcluster "$version" "$name" start >&2
      echo "$version $name" >"$state"
    fi
    psql_as() { $sudo_cmd su postgres -c "psql -p $port -v ON_ERROR_STOP=1 -qAtc \"$1\"" >&2; }
    exists=$($sudo_cmd su postgres -c "psql -p $port -qAtc \"SELECT 1 FROM pg_roles WHERE rolname = 'mancala'\"")
    [ "$exists" = 1 ] || psql_as "CREATE ROLE mancala LOGIN PASSWORD 'mancala'"
    psql_as "DROP DATABASE IF EXISTS mancala_test"
    psql_as "CREATE DATABASE mancala_test OWNER mancala"
    echo "postgres://mancala:mancala@127.0.0.1:$port/mancala_test"
    ;;
  stop)
    if [ -f "$state" ]; then
      read -r version name <"$state"
      $sudo_cmd pg_ctlcluster "$version" "$name" stop >&2 || true
      rm -f "$state"
    fi
    ;;
  *)
    echo "usage: scripts/postgres.sh start|stop" >&2
    exit 2
    ;;
esac
