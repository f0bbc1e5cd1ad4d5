#!/usr/bin/env bash
# A throw-away PostgreSQL cluster for the store's contract tests.
#
#   eval "$(bash .ci/postgres.sh start)"   # prints export lines
#   bash .ci/postgres.sh stop "$CTX_TEST_POSTGRES_DIR"
#
# start: installs PostgreSQL from Debian's packages if initdb is missing
# (root only), creates a cluster with initdb in a fresh temporary
# directory, starts it on 127.0.0.1 on a free port with trust auth for
# local TCP, and prints CTX_TEST_POSTGRES_URL and CTX_TEST_POSTGRES_DIR.
# The server also speaks TLS with a self-signed certificate for
# `localhost` only (CTX_TEST_POSTGRES_TLS_ROOT: the certificate to trust),
# (CTX_PG_SELF_SIGNED=1: a certificate that signs itself instead),
# and has one role that must give a password (CTX_TEST_POSTGRES_PW_URL,
# password in CTX_TEST_POSTGRES_PW): the store's TLS and credential tests.
# stop: stops that cluster and removes its directory.
# initdb refuses to run as root: as root the cluster belongs to the
# `postgres` user (created by the package) or, failing that, `nobody`.
set -euo pipefail

find_bin() {
  local name=$1 dir
  if command -v "$name" >/dev/null 2>&1; then command -v "$name"; return; fi
  for dir in /usr/lib/postgresql/*/bin; do
    if [ -x "$dir/$name" ]; then echo "$dir/$name"; return; fi
  done
  return 1
}

install_if_missing() {
  if find_bin initdb >/dev/null; then return; fi
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "postgres.sh: initdb not found (install PostgreSQL, e.g. apt-get install postgresql)" >&2
    exit 1
  fi
  echo "postgres.sh: installing PostgreSQL from Debian's packages" >&2
  apt-get update -qq </dev/null >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql </dev/null >&2
}

# Runs "$@" as the cluster's owner.
as_owner() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u "$OWNER" -- "$@"
  else
    "$@"
  fi
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start() {
  install_if_missing
  local initdb pg_ctl dir port
  initdb=$(find_bin initdb)
  pg_ctl=$(find_bin pg_ctl)
  OWNER=$(id -un)
  if [ "$(id -u)" = 0 ]; then
    if id postgres >/dev/null 2>&1; then OWNER=postgres; else OWNER=nobody; fi
    # PostgreSQL's tools open /dev/null; some containers leave it 0700.
    chmod 666 /dev/null
  fi
  dir=$(mktemp -d /tmp/ctx-pg.XXXXXX)
  chmod 755 "$dir"
  [ "$(id -u)" = 0 ] && chown "$OWNER" "$dir"
  port=$(free_port)
  as_owner "$initdb" -D "$dir/data" -U ctx -A trust --no-sync -E UTF8 --locale=C >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; exit 1; }
  local ssl=off
  if command -v openssl >/dev/null 2>&1 && [ -n "${CTX_PG_SELF_SIGNED:-}" ]; then
    # CTX_PG_SELF_SIGNED=1: the server's certificate signs itself (for
    # localhost only), and it is the certificate to trust, as a small
    # deployment's often is.
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost \
      -addext subjectAltName=DNS:localhost \
      -keyout "$dir/data/server.key" -out "$dir/data/server.crt" >/dev/null 2>&1 \
      && cp "$dir/data/server.crt" "$dir/root.crt" \
      && chmod 600 "$dir/data/server.key" && chmod 644 "$dir/root.crt" \
      && { [ "$(id -u)" != 0 ] || chown "$OWNER" "$dir/data/server.key" "$dir/data/server.crt"; } \
      && ssl=on
  elif command -v openssl >/dev/null 2>&1; then
    # Valid for the name localhost only: connecting to 127.0.0.1 with
    # sslmode=verify-full must fail, verify-ca must pass.
    # A throw-away CA signs the server's certificate, as a real
    # deployment's would (a self-signed leaf is refused by verifiers).
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=ctx test CA" \
      -keyout "$dir/ca.key" -out "$dir/root.crt" >/dev/null 2>&1 \
      && openssl req -newkey rsa:2048 -nodes -subj /CN=localhost \
        -keyout "$dir/data/server.key" -out "$dir/server.csr" >/dev/null 2>&1 \
      && printf 'subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\n' >"$dir/server.ext" \
      && openssl x509 -req -in "$dir/server.csr" -CA "$dir/root.crt" -CAkey "$dir/ca.key" \
        -CAcreateserial -days 2 -extfile "$dir/server.ext" -out "$dir/data/server.crt" >/dev/null 2>&1 \
      && rm -f "$dir/ca.key" "$dir/server.csr" "$dir/server.ext" "$dir/root.srl" \
      && chmod 600 "$dir/data/server.key" && chmod 644 "$dir/root.crt" \
      && { [ "$(id -u)" != 0 ] || chown "$OWNER" "$dir/data/server.key" "$dir/data/server.crt"; } \
      && ssl=on
  fi
  # One role must give a password; everyone else is trusted.
  sed -i '1i host all ctx_pw 127.0.0.1/32 scram-sha-256' "$dir/data/pg_hba.conf"
  as_owner "$pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
    -o "-h 127.0.0.1 -p $port -k $dir -F -c fsync=off -c max_connections=200 -c ssl=$ssl" start >&2 \
    || { cat "$dir/server.log" >&2; exit 1; }
  local psql password
  psql=$(find_bin psql)
  password="pw-$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')"
  "$psql" -q -h 127.0.0.1 -p "$port" -U ctx -d postgres \
    -c "CREATE ROLE ctx_pw LOGIN PASSWORD '$password'" \
    -c "CREATE DATABASE ctx_pw OWNER ctx_pw" >&2
  echo "export CTX_TEST_POSTGRES_URL=postgres://ctx@127.0.0.1:$port/postgres"
  echo "export CTX_TEST_POSTGRES_DIR=$dir"
  echo "export CTX_TEST_POSTGRES_PW_URL=postgres://ctx_pw@127.0.0.1:$port/ctx_pw"
  echo "export CTX_TEST_POSTGRES_PW=$password"
  [ "$ssl" = off ] || echo "export CTX_TEST_POSTGRES_TLS_ROOT=$dir/root.crt"
}

stop() {
  local dir=${1:-${CTX_TEST_POSTGRES_DIR:-}}
  [ -n "$dir" ] && [ -d "$dir" ] || return 0
  local pg_ctl
  pg_ctl=$(find_bin pg_ctl) || true
  OWNER=$(stat -c %U "$dir")
  if [ -n "$pg_ctl" ] && [ -f "$dir/data/postmaster.pid" ]; then
    as_owner "$pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$dir"
}

case "${1:-}" in
  start) start ;;
  stop) stop "${2:-}" ;;
  *) echo "usage: $0 start | stop [DIR]" >&2; exit 2 ;;
esac
