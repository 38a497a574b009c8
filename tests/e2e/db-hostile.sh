#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e
# A results database and a --db string are input like any file (issue 26,
# items 7 and 8). An SQLite file with our table names and user_version but
# NULLs where our schema says NOT NULL (made here with the sqlite3 CLI):
# compare, matrix --db, html --db, runs, db info and db push --from-db refuse
# it with a message naming the file, the table, the run and the column and
# what was expected, and never crash; a metric named like a path writes no
# file outside matrix's directory.
# A run directory the database points at that is a file is not read into
# the page.
# A trigger someone added to the file never fires on db import.
# --db strings that hold a password however libpq spells it (spaces around
# '=', a backslash-escaped space, tabs, a percent-encoded keyword in a URI,
# and one libpq cannot parse) never show it, in any command's output, and
# none is taken for a file name. No server is needed: PGHOST points libpq
# at a socket directory that does not exist.
set -u
command -v sqlite3 >/dev/null || { echo "skip: sqlite3 missing"; exit 77; }
B=$SS_BIN
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$SS_SRC/tests/e2e/lib/expect.sh"
export PGHOST=$T/no-server PGCONNECT_TIMEOUT=2

# a run directory, and a database of ours holding it
mkdir -p "$T/run1"
cp "$SS_FIXTURES/rec/busy-300.ssr" "$T/run1/record.ssr"
printf 'program=g\nname=demo\nvariant=-\nround=1\nwarmup_s=0\nexit_status=0\n' >"$T/run1/run.ini"
O=$T/ours.db
expect 0 "$B" db import --db "$O" "$T/run1"

# --- item 7: NULL columns ---------------------------------------------------
# two runs of "game" (variants - and X=1), four rounds each, as stallscope
# stores them, in tables whose columns allow anything
hostile() {	# hostile FILE [SQL]: a fresh hostile database, SQL applied
	rm -f "$1"
	{
		echo "CREATE TABLE runs (id INTEGER PRIMARY KEY, name TEXT, variant TEXT,"
		echo " switches TEXT, round INTEGER, started TEXT, host TEXT, kernel TEXT, rundir TEXT,"
		echo " interfered INTEGER, exit_status INTEGER, interference TEXT, failed INTEGER,"
		echo " failure TEXT, rig TEXT, build TEXT);"
		echo "CREATE TABLE metrics (run_id INTEGER, metric TEXT, value REAL);"
		echo "CREATE TABLE rigs (rig TEXT);"
		echo "PRAGMA user_version = 5;"
		id=0
		for round in 1 2 3 4; do
			for v in - X=1; do
				id=$((id + 1))
				echo "INSERT INTO runs VALUES ($id, 'game', '$v', NULL, $round, NULL, NULL,"
				echo " NULL, '$T/nowhere/$id', 0, 0, NULL, 0, NULL, '-', NULL);"
				echo "INSERT INTO metrics VALUES ($id, 'fps', $((58 + id))), ($id, 'stalls', $((id % 3)));"
			done
		done
		echo "${2:-}"
	} | sqlite3 "$1" || no "sqlite3 $1"
}
H=$T/h.db
hostile "$H"
expect 0 "$B" compare --db "$H" game:- game:X=1
grep -q "^fps" "$T/out" || no "the hostile file without its NULLs should compare: $(cat "$T/out")"

# refused: exit 1, the message names the database, table, run, column and
# what was expected; no sanitizer report, no crash
refused() {	# refused WHAT PATTERN CMD...
	local what=$1 pat=$2
	shift 2
	expect 1 "$@"
	grep -q "runtime error\|AddressSanitizer" "$T/err" && no "$what: $(head -3 "$T/err")"
	grep -q -- "$pat" "$T/err" || no "$what: expected '$pat' in: $(head -c 400 "$T/err")"
}
hostile "$H" "UPDATE runs SET variant = NULL WHERE id = 3;"
msg="h.db': table runs, run 3: column variant is NULL, expected the variant's name, '-' for the base"
refused "compare, NULL variant" "$msg" "$B" compare --db "$H" game:- game:X=1
refused "matrix --db, NULL variant" "$msg" "$B" matrix --db "$H" -o "$T/m1"
[ -e "$T/m1/fps.csv" ] && no "matrix wrote a CSV from a refused database"
refused "html --db, NULL variant" "$msg" "$B" html --db "$H" -o "$T/p.html" game:- game:X=1
[ -e "$T/p.html" ] && no "html wrote a page from a refused database"
refused "runs, NULL variant" "$msg" "$B" runs --db "$H"
refused "runs --json, NULL variant" "$msg" "$B" runs --json --db "$H"
refused "db info, NULL variant" "$msg" "$B" db info --db "$H"
refused "db push --from-db, NULL variant" "$msg" "$B" db push --from-db "$H" --to-db "$T/to.db"
[ "$(sqlite3 "$T/to.db" "select count(*) from runs" 2>/dev/null)" = 0 ] ||
	no "db push --from-db copied runs of a refused database"

hostile "$H" "UPDATE runs SET name = NULL, round = NULL WHERE id = 2;"
refused "runs, NULL name" "table runs, run 2: column name is NULL, expected the benchmark's name" \
	"$B" runs --db "$H"
hostile "$H" "UPDATE runs SET round = 'two' WHERE id = 2;"
refused "matrix --db, text round" "table runs, run 2: column round is 'two', expected the round" \
	"$B" matrix --db "$H" -o "$T/m2"
hostile "$H" "UPDATE runs SET rig = NULL WHERE id = 4;"
refused "compare, NULL rig" "table runs, run 4: column rig is NULL, expected the rig's name" \
	"$B" compare --db "$H" game:- game:X=1

hostile "$H" "UPDATE metrics SET value = NULL WHERE run_id = 4 AND metric = 'fps';"
msg="h.db': table metrics, run 4, metric 'fps': column value is NULL, expected a finite number"
refused "compare, NULL value" "$msg" "$B" compare --db "$H" game:- game:X=1
refused "matrix --db, NULL value" "$msg" "$B" matrix --db "$H" -o "$T/m3"
refused "html --db, NULL value" "$msg" "$B" html --db "$H" -o "$T/p.html" game:- game:X=1
refused "db push --from-db, NULL value" "$msg" "$B" db push --from-db "$H" --to-db "$T/to2.db"
# the interfered runs' values (the page draws them apart) are read too
hostile "$H" "UPDATE runs SET interfered = 1 WHERE id = 8; UPDATE metrics SET value = 'x' WHERE run_id = 8;"
refused "html --db, an interfered run's text value" "table metrics, run 8, metric '[a-z]*': column value is 'x'" \
	"$B" html --db "$H" -o "$T/p.html" game:- game:X=1

hostile "$H" "UPDATE metrics SET metric = NULL WHERE run_id = 5 AND metric = 'stalls';"
msg="h.db': table metrics, run 5: column metric is NULL, expected a metric's name"
refused "db info, NULL metric" "$msg" "$B" db info --db "$H"
refused "compare, NULL metric" "$msg" "$B" compare --db "$H" game:- game:X=1
# a metric named like a path: no file outside -o
mkdir -p "$T/sub"
hostile "$H" "UPDATE metrics SET metric = '/../../escaped' WHERE metric = 'stalls';"
refused "matrix --db, metric named like a path" "column metric is '/../../escaped'" \
	"$B" matrix --db "$H" -o "$T/sub/m4"
[ -e "$T/escaped.csv" ] || [ -e "$T/escaped.csv.tmp" ] && no "matrix wrote outside its directory"

# a run directory that is a file, maybe someone else's: not read as a frame
# log into the page
seq 1000 1300 >"$T/secret-numbers"
hostile "$H" "UPDATE runs SET rundir = '$T/secret-numbers' WHERE id = 1;"
expect 0 "$B" html --db "$H" -o "$T/p2.html" game:- game:X=1
grep -q '"curve_runs_unread":8' "$T/p2.html" ||
	no "html --db read a run directory that is a file: $(grep -o '"curve_runs_unread":[0-9]*' "$T/p2.html")"

# a trigger someone added to the file: never fires on our writes
expect 0 "$B" db import --db "$T/trig.db" "$T/run1"
sqlite3 "$T/trig.db" "CREATE TRIGGER t AFTER INSERT ON runs BEGIN SELECT RAISE(ABORT, 'the trigger ran'); END;"
expect 0 "$B" db import --db "$T/trig.db" "$T/run1"
grep -q "trigger ran" "$T/err" && no "a trigger in the database fired"

# --- item 8: --db strings with a password -------------------------------------
mkdir -p "$T/cwd" && cd "$T/cwd" || exit 1
forms=(
	'password = hunter2'
	'password=hun\ ter2'
	"$(printf 'dbname=x\tpassword=hunter2\tsslmode=disable')"
	'postgresql:///x?%70assword=hunter2'
	'postgresql://u:hunter2@/x'
	'dbname=x password=hun ter2'
	'POSTGRESQL://u:hunter2@h/x'
)
leaks() {	# leaks FORM: the password's pieces in $T/out or $T/err
	grep -E -q 'hunter2|hun|ter2' "$T/out" "$T/err"
}
for f in "${forms[@]}"; do
	for c in runs "runs --json" "db info" "db upgrade" "db push" "matrix -o $T/mx" \
		"compare game:- game:X=1" "html -o $T/px.html game:- game:X=1"; do
		# shellcheck disable=SC2086
		expect 1 "$B" $c --db "$f"
		leaks && no "$c --db '$f' shows the password: $(cat "$T/out" "$T/err" | head -5)"
	done
	expect 1 "$B" db import --db "$f" "$T/run1"
	leaks && no "db import --db '$f' shows the password: $(head -5 "$T/err")"
	expect 1 "$B" db push --from-db "$O" --to-db "$f"
	leaks && no "db push --to-db '$f' shows the password: $(head -5 "$T/err")"
	expect 1 "$B" bench t --db "$f" --rounds 1 --frames none --no-watch --warmup 0 -- /bin/true
	leaks && no "bench --db '$f' shows the password: $(head -5 "$T/err")"
	expect 1 env STALLSCOPE_DB="$f" "$B" runs
	leaks && no "STALLSCOPE_DB='$f' shows the password: $(head -5 "$T/err")"
done
[ -z "$(ls -A "$T/cwd")" ] || no "a --db string was taken for a file: $(ls -A "$T/cwd")"
# what they say: the server was not reached, or the string is not one
expect 1 "$B" runs --db dbname=x
if grep -q "built without libpq" "$T/err"; then
	echo "(built without libpq: what a server's messages say is not checked)"
	exit $fail
fi
expect 1 "$B" runs --db 'password = hunter2'
grep -q "'postgresql://': cannot connect" "$T/err" || no "password = hunter2: $(cat "$T/err")"
expect 1 "$B" runs --db 'postgresql:///x?%70assword=hunter2'
grep -q "'dbname=x': cannot connect" "$T/err" || no "%70assword: $(cat "$T/err")"
expect 1 "$B" runs --db 'dbname=x password=hun ter2'
grep -q "a connection string libpq cannot parse (not shown" "$T/err" ||
	no "an unparsable string: $(cat "$T/err")"
# a file whose name has an '=' is still a file, written ./NAME
expect 1 "$B" runs --db ./a=b.db
grep -q "'./a=b.db': no such database" "$T/err" || no "./a=b.db: $(cat "$T/err")"

# libpq is loaded at a server's first use (db_libpq.h): where the one found
# is not libpq (here zlib under its name), a server is refused saying so,
# the password still unshown, and a file needs no libpq at all
mkdir "$T/nopq"
z=$(ldd "$B" | awk '/libz\.so/ { print $3 }')
if [ -n "$z" ]; then
	cp "$z" "$T/nopq/libpq.so.5"
	LD_LIBRARY_PATH=$T/nopq expect 1 "$B" runs --db 'dbname=x password=hunter2'
	grep -q "client library cannot be loaded (libpq.so.5 has no PQconnectdb)" "$T/err" ||
		no "a libpq that is not one: $(cat "$T/err")"
	leaks && no "a libpq that is not one shows the password: $(cat "$T/err")"
	LD_LIBRARY_PATH=$T/nopq expect 0 "$B" runs --db "$O"
else
	no "no libz in ldd $B"
fi
exit $fail
