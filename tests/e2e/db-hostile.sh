#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e
# A --db string is input like any file (issue 26, item 8): strings that hold
# a password however libpq spells it (spaces around '=', a backslash-escaped
# space, tabs, a percent-encoded keyword in a URI, and one libpq cannot
# parse) never show it, in any command's output, and none is taken for a
# file name. No server is needed: PGHOST points libpq at a socket directory
# that does not exist.
set -u
command -v sqlite3 >/dev/null || { echo "skip: sqlite3 missing"; exit 77; }
B=$SS_BIN
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$SS_SRC/tests/e2e/lib/expect.sh"
export PGHOST=$T/no-server PGCONNECT_TIMEOUT=2

# a run directory, and a database of ours to push from
mkdir -p "$T/run1"
cp "$SS_FIXTURES/rec/busy-300.ssr" "$T/run1/record.ssr"
printf 'program=g\nname=demo\nvariant=-\nround=1\nwarmup_s=0\nexit_status=0\n' >"$T/run1/run.ini"
H=$T/h.db
expect 0 "$B" db import --db "$H" "$T/run1"

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
	expect 1 "$B" db push --from "$H" --to "$f"
	leaks && no "db push --to '$f' shows the password: $(head -5 "$T/err")"
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
exit $fail
