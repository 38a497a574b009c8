#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e
# Every command's documented exit codes (its man page's EXIT STATUS): 0 for
# --help, 2 for a usage error with one message that names the option as
# given (an unknown option, an option without its value: getopt's own message
# is not printed beside ours), 1 for a failure, never 255 or 0 after an
# error. The cases of issue 13 item 9: record -p of a process that does not
# exist, record --stop-file of a file that exists, watch of a program that
# cannot be run, compare --metrics with an unknown metric; and item 18:
# record -o and --db with missing parents say what they created.
set -u
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$SS_SRC/tests/e2e/lib/expect.sh"
B=$SS_BIN
F=$SS_FIXTURES/framelogs

# usage CMD... : exit 2 and exactly one line before "try '...--help'"
usage() {
	expect 2 "$B" "$@"
	[ "$(grep -vc '^try ' "$T/err")" = 1 ] || no "$*: expected one message, got: $(cat "$T/err")"
}

for c in record report stalls dump probe kick watch bench runs db matrix compare; do
	expect 0 "$B" "$c" --help
	grep -q "usage: stallscope $c" "$T/out" || no "$c --help: no usage line"
	usage "$c" --no-such-option
	grep -q "unknown option '--no-such-option'" "$T/err" || no "$c: $(cat "$T/err")"
done
usage record --period
grep -q "option '--period' needs a value" "$T/err" || no "record --period: $(cat "$T/err")"
usage report --cols
grep -q "option '--cols' needs a value" "$T/err" || no "report --cols: $(cat "$T/err")"
usage report -x "$F/plain.txt"
grep -q "unknown option '-x'" "$T/err" || no "report -x: $(cat "$T/err")"
usage dump --bogus=1 x
grep -q "unknown option '--bogus'" "$T/err" || no "dump --bogus=1: $(cat "$T/err")"
usage probe -t 0
usage record
usage compare onlyone:side

# failures: 1, with the reason
expect 1 "$B" record -q -p 999999999
grep -q "cannot attach to process 999999999" "$T/err" || no "record -p: $(cat "$T/err")"
touch "$T/stop"
expect 1 "$B" record -q --stop-file "$T/stop" -- true
grep -q "stop file '$T/stop' exists already" "$T/err" || no "record --stop-file: $(cat "$T/err")"
expect 1 "$B" record -q -o "$T/r" -- /nonexistent/program
expect 1 "$B" watch -- /nonexistent/program
grep -q "cannot run '/nonexistent/program'" "$T/err" || no "watch: $(cat "$T/err")"
grep -q 'summary: interfered=' "$T/out" && no "watch gave a verdict for a program that never ran"
expect 1 "$B" watch -- no-such-program-anywhere
expect 2 "$B" compare --db "$T/none.db" --metrics stalls,nosuchmetric a:- b:-
grep -q "option '--metrics': expected metric names (docs/METRICS.md), got 'nosuchmetric'" "$T/err" ||
	no "compare --metrics: $(cat "$T/err")"
expect 1 "$B" compare --db "$T/none.db" --metrics stalls a:- b:-
expect 1 "$B" report "$T/missing.csv"
expect 1 "$B" stalls "$F/plain.txt"
expect 1 "$B" dump "$T/missing.ssr"
expect 1 "$B" runs --db "$T/none.db"
expect 1 "$B" db import --db "$T/x.db" "$T"
expect 1 "$B" matrix -o "$T/m" "$T/missing.csv"
# missing parents are made, and said: never a tree of new directories in
# silence (a typo in a path)
expect 0 "$B" record -q -o "$T/new/parent/run" -- true
grep -q "created '$T/new' for the run directory '$T/new/parent/run'" "$T/err" ||
	no "record -o: $(cat "$T/err")"
expect 0 "$B" record -q -o "$T/new/parent/run2" -- true
[ -s "$T/err" ] && no "record -o into an existing parent said: $(cat "$T/err")"
expect 0 "$B" db import --db "$T/newdb/sub/r.db" "$T/new/parent/run"
grep -q "created '$T/newdb' for the database '$T/newdb/sub/r.db'" "$T/err" ||
	no "db import --db: $(cat "$T/err")"
expect 0 "$B" report --warmup 0 "$F/plain.txt"
exit $fail
