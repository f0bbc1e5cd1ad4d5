#!/usr/bin/env bash
# PgBouncer in transaction pooling mode in front of a PostgreSQL server,
# for the store's pooler tests and the `store_shared` benchmark.
#
#   eval "$(bash .ci/postgres.sh start)"      # the server
#   eval "$(bash .ci/pgbouncer.sh start)"     # prints export lines
#   bash .ci/pgbouncer.sh stop "$CTX_TEST_PGBOUNCER_DIR"
#
# start: installs PgBouncer from Debian's packages if it is missing (root
# only), writes its configuration to a fresh temporary directory and
# starts it on 127.0.0.1 on a free port with trust auth and
# pool_mode=transaction, in front of the server CTX_TEST_POSTGRES_URL
# names (postgres://USER@HOST:PORT/DB); prints CTX_TEST_PGBOUNCER_URL
# and CTX_TEST_PGBOUNCER_DIR.
# stop: stops that PgBouncer and removes its directory.
set -euo pipefail

start() {
  if ! command -v pgbouncer >/dev/null 2>&1 && [ ! -x /usr/sbin/pgbouncer ]; then
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
      echo "pgbouncer.sh: pgbouncer not found (apt-get install pgbouncer)" >&2
      exit 1
    fi
    apt-get update -qq </dev/null >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pgbouncer </dev/null >&2
  fi
  local bin
  bin=$(command -v pgbouncer || echo /usr/sbin/pgbouncer)
  local url=${CTX_TEST_POSTGRES_URL:?"set CTX_TEST_POSTGRES_URL (bash .ci/postgres.sh start)"}
  # postgres://USER@HOST:PORT/DB
  local rest=${url#*://}
  local user=${rest%%@*} hostport=${rest#*@}
  hostport=${hostport%%/*}
  local db=${rest##*/}
  db=${db%%\?*}
  local host=${hostport%%:*} sport=${hostport##*:}
  local dir port owner
  dir=$(mktemp -d /tmp/ctx-pgb.XXXXXX)
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  cat >"$dir/pgbouncer.ini" <<INI
[databases]
* = host=$host port=$sport

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = trust
auth_file = $dir/userlist.txt
pool_mode = transaction
max_client_conn = 500
default_pool_size = 20
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
INI
  printf '"%s" ""\n' "$user" >"$dir/userlist.txt"
  # PgBouncer refuses to run as root.
  if [ "$(id -u)" = 0 ]; then
    if id postgres >/dev/null 2>&1; then owner=postgres; else owner=nobody; fi
    chown -R "$owner" "$dir"
    runuser -u "$owner" -- "$bin" -d "$dir/pgbouncer.ini" >&2
  else
    "$bin" -d "$dir/pgbouncer.ini" >&2
  fi
  local i
  for i in $(seq 1 50); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 0.2)" 2>/dev/null && break
    sleep 0.1
  done
  echo "export CTX_TEST_PGBOUNCER_URL=postgres://$user@127.0.0.1:$port/$db"
  echo "export CTX_TEST_PGBOUNCER_DIR=$dir"
}

stop() {
  local dir=${1:-${CTX_TEST_PGBOUNCER_DIR:-}}
  [ -n "$dir" ] && [ -d "$dir" ] || return 0
  if [ -f "$dir/pgbouncer.pid" ]; then
    kill "$(cat "$dir/pgbouncer.pid")" 2>/dev/null || true
    sleep 0.2
  fi
  rm -rf "$dir"
}

case "${1:-}" in
  start) start ;;
  stop) stop "${2:-}" ;;
  *) echo "usage: $0 start | stop [DIR]" >&2; exit 2 ;;
esac
