#!/bin/sh
# postgres.sh starts a throwaway PostgreSQL cluster for the platform tests and prints its DSN.
#
#   export QUARRY_TEST_POSTGRES="$(scripts/postgres.sh start)"   # prints postgres://…
#   scripts/postgres.sh stop                                     # stops it, removes the data
#
# The cluster lives in a temporary directory (QUARRY_PG_DIR, default /tmp/quarry-pg) on a free
# loopback port, with trust authentication on loopback only. PostgreSQL refuses to run as root,
# so when run as root the server runs as the "postgres" user (Debian's package creates it).
set -eu

dir="${QUARRY_PG_DIR:-/tmp/quarry-pg}"
cmd="${1:-start}"

bindir=""
for d in /usr/lib/postgresql/*/bin; do
	[ -x "$d/initdb" ] && bindir="$d"
done
if [ -z "$bindir" ] && command -v initdb >/dev/null 2>&1; then
	bindir="$(dirname "$(command -v initdb)")"
fi
if [ -z "$bindir" ]; then
	echo "postgres.sh: PostgreSQL not found (apt-get install postgresql)" >&2
	exit 1
fi

as_owner() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

case "$cmd" in
stop)
	if [ -f "$dir/data/postmaster.pid" ]; then
		as_owner "$bindir/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
	fi
	rm -rf "$dir"
	exit 0
	;;
start) ;;
*)
	echo "usage: postgres.sh start|stop" >&2
	exit 2
	;;
esac

# Reuse a cluster this script already started.
if [ -f "$dir/port" ] && as_owner "$bindir/pg_isready" -q -h 127.0.0.1 -p "$(cat "$dir/port")"; then
	echo "postgres://postgres@127.0.0.1:$(cat "$dir/port")/quarry_test?sslmode=disable"
	exit 0
fi
rm -rf "$dir"
mkdir -p "$dir"
if [ "$(id -u)" = 0 ]; then
	chown postgres "$dir"
fi

# A free port: ask the kernel for one.
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo 55432)"
echo "$port" >"$dir/port"

as_owner "$bindir/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 ||
	{ cat "$dir/initdb.log" >&2; exit 1; }
as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
	-o "-h 127.0.0.1 -p $port -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
	start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
as_owner "$bindir/createdb" -h 127.0.0.1 -p "$port" -U postgres quarry_test
echo "postgres://postgres@127.0.0.1:$port/quarry_test?sslmode=disable"
