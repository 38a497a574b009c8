# SPDX-License-Identifier: MIT
# A throwaway PostgreSQL 15 server for the database tests (sourced): initdb
# into a temporary directory as an unprivileged user (initdb refuses root:
# runuser -u postgres), pg_ctl start listening on a Unix socket in that
# directory only (listen_addresses empty), fsync off. pg_stop (called by the
# caller's EXIT trap) stops it and removes the directory, also after a
# failure. Sets PGDIR and PG (a connection string to database "postgres" as
# user postgres). Skips (77) where Debian's postgresql-15 is not installed.
PGBIN=/usr/lib/postgresql/15/bin
[ -x "$PGBIN/initdb" ] || { echo "skip: no PostgreSQL 15 (package postgresql-15)"; exit 77; }
PGDIR=$(mktemp -d /tmp/ss-pg.XXXXXX)
pg_as() {
	if [ "$(id -u)" = 0 ]; then (cd / && runuser -u postgres -- "$@"); else "$@"; fi
}
pg_stop() {
	pg_as "$PGBIN/pg_ctl" -D "$PGDIR/data" -m immediate stop >/dev/null 2>&1
	rm -rf "$PGDIR"
}
pg_start() {
	[ "$(id -u)" = 0 ] && chown postgres "$PGDIR"
	pg_as "$PGBIN/initdb" -D "$PGDIR/data" -U postgres -A trust --no-sync >"$PGDIR/initdb.log" 2>&1 ||
		{ echo "FAIL: initdb: $(tail -3 "$PGDIR/initdb.log")"; return 1; }
	pg_as "$PGBIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/server.log" -w -o \
		"-c listen_addresses='' -c unix_socket_directories='$PGDIR' -c fsync=off -c full_page_writes=off" \
		start >/dev/null 2>&1 || { echo "FAIL: pg_ctl start: $(tail -3 "$PGDIR/server.log")"; return 1; }
	PG="host=$PGDIR dbname=postgres user=postgres"
}
# pg_sql SQL...: runs SQL on database postgres (psql, stopping at an error)
pg_sql() {
	pg_as "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$PGDIR" -U postgres -d postgres -c "$1"
}
