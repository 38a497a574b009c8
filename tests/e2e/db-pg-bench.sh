#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live parallel
# Many rigs, one PostgreSQL results store (a throwaway server,
# tests/e2e/lib/pg.sh). Two benches with different --rig names write to it
# at once (the fake game, two variants, two rounds each): every run is there
# exactly once with its rig; runs --rig and compare --rig see one rig's;
# compare without --rig refuses to pool the two and --across-rigs pools
# them. The server stopped mid-bench: the bench finishes, the runs it could
# not store go to the spool and bench says so (exit 1); after a restart
# `db push` delivers them exactly once (a second push sends nothing). `db
# push --from-db` an SQLite file twice: its runs once.
set -u
T=$(mktemp -d)
. "$SS_SRC/tests/e2e/lib/pg.sh"
trap 'pg_stop; rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
GAME=$SS_BUILD/fakegame
[ -x "$GAME" ] || { echo "skip: no fakegame"; exit 77; }
pg_start || exit 1
pg_as "$PGBIN/createdb" -h "$PGDIR" -U postgres lab || fail "createdb"
DB="host=$PGDIR dbname=lab user=postgres"
export STALLSCOPE_SPOOL=$T/spool
cd "$T" || exit 1
count() {
	pg_as "$PGBIN/psql" -X -At -h "$PGDIR" -U postgres -d lab -c "$1"
}

STALL=FAKEGAME_STALL=sleep:300@0.6
for rig in rig-a rig-b; do
	"$SS_BIN" bench lab --rig "$rig" --db "$DB" --results "runs-$rig" --rounds 2 --no-watch \
		--warmup 0 --frames marker --variants "- $STALL" -- "$GAME" --seconds 1.5 \
		>"$rig.out" 2>&1 &
done
wait %1 || fail "bench rig-a: $(tail -5 rig-a.out)"
wait %2 || fail "bench rig-b: $(tail -5 rig-b.out)"
[ "$(count "SELECT count(*) FROM runs")" = 8 ] || fail "8 runs expected: $(count "SELECT rig, rundir FROM runs")"
[ "$(count "SELECT count(DISTINCT (rig, rundir)) FROM runs")" = 8 ] || fail "a run twice"
[ "$(count "SELECT count(*) FROM runs WHERE rig = 'rig-a'")" = 4 ] || fail "rig-a's runs"
[ "$(count "SELECT count(*) FROM rigs WHERE rig IN ('rig-a', 'rig-b') AND cpus > 0")" = 2 ] ||
	fail "the rigs' facts: $(count "SELECT * FROM rigs")"
n=$("$SS_BIN" runs --db "$DB" --rig rig-b --json | python3 -c 'import json,sys; r=json.load(sys.stdin); print(len(r), {x["rig"] for x in r})')
[ "$n" = "4 {'rig-b'}" ] || fail "runs --rig rig-b: $n"
"$SS_BIN" compare --db "$DB" lab:- "lab:$STALL" >mixed.out 2>&1
[ $? = 1 ] && grep -Eq "more than one rig \((rig-a, rig-b|rig-b, rig-a)\)" mixed.out || fail "pooled rigs: $(cat mixed.out)"
for rig in rig-a rig-b; do
	"$SS_BIN" compare --json --db "$DB" --rig "$rig" lab:- "lab:$STALL" >"cmp-$rig.json" ||
		fail "compare --rig $rig"
done
"$SS_BIN" compare --json --db "$DB" --across-rigs lab:- "lab:$STALL" >cmp-all.json || fail "--across-rigs"
python3 - <<'PY' || fail "compare's answers"
import json
a, b, both = (json.load(open(f)) for f in ("cmp-rig-a.json", "cmp-rig-b.json", "cmp-all.json"))
def m(c, name):
    return [x for x in c["metrics"] if x["metric"] == name][0]
for c in (a, b):
    s = m(c, "stall_s")
    assert s["n_a"] == 2 and s["n_b"] == 2, s
    assert s["b_median"] > s["a_median"] + 0.2, s   # the variant's 300 ms stall
s = m(both, "stall_s")
assert s["n_a"] == 4 and s["n_b"] == 4, s
PY

# the server stops mid-bench: the bench goes on, the rest is spooled
"$SS_BIN" bench gone --rig rig-c --db "$DB" --results runs-gone --rounds 3 --no-watch --warmup 0 \
	--frames marker -- "$GAME" --seconds 1 >gone.out 2>&1 &
bench=$!
for i in $(seq 300); do
	[ "$(count "SELECT count(*) FROM runs WHERE name = 'gone'" 2>/dev/null)" = 1 ] && break
	sleep 0.1
done
pg_as "$PGBIN/pg_ctl" -D "$PGDIR/data" -m fast stop >/dev/null || fail "pg_ctl stop"
wait $bench
rc=$?
[ $rc = 1 ] || fail "bench with the server gone: exit $rc: $(tail -5 gone.out)"
grep -q "NOT IN THE DATABASE: kept in the spool" gone.out || fail "no loud line: $(tail -5 gone.out)"
grep -q "trying again" gone.out || fail "no retry: $(cat gone.out)"
spooled=$(cat "$STALLSCOPE_SPOOL"/*.list | grep -vc '^#')
[ "$spooled" = 2 ] || fail "2 spooled runs expected: $(cat "$STALLSCOPE_SPOOL"/*.list)"
pg_as "$PGBIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/server.log" -w -o \
	"-c listen_addresses='' -c unix_socket_directories='$PGDIR' -c fsync=off" start >/dev/null ||
	fail "restart"
"$SS_BIN" db push --db "$DB" --warmup 0 >push.out 2>&1 || fail "db push: $(cat push.out)"
grep -q "2 spooled runs pushed" push.out || fail "push: $(cat push.out)"
"$SS_BIN" db push --db "$DB" --warmup 0 >push2.out 2>&1 || fail "db push again: $(cat push2.out)"
grep -q "0 spooled runs pushed" push2.out || fail "second push: $(cat push2.out)"
[ "$(count "SELECT count(*) FROM runs WHERE name = 'gone' AND rig = 'rig-c'")" = 3 ] ||
	fail "3 runs of 'gone': $(count "SELECT rundir FROM runs WHERE name = 'gone'")"

# an SQLite file's runs into the server, twice: once
"$SS_BIN" db import --db local.db --warmup 0 runs-rig-a/* >/dev/null 2>&1 || fail "import into SQLite"
sqlite3 local.db "UPDATE runs SET name = 'copied'" 2>/dev/null || fail "sqlite3"
for k in 1 2; do
	"$SS_BIN" db push --from-db local.db --to-db "$DB" >"copy$k.out" 2>&1 || fail "push --from-db: $(cat "copy$k.out")"
done
grep -q "4 runs of 'local.db' pushed" copy2.out || fail "push --from-db: $(cat copy2.out)"
[ "$(count "SELECT count(*) FROM runs WHERE name = 'copied'")" = 4 ] ||
	fail "copied runs: $(count "SELECT count(*) FROM runs WHERE name = 'copied'")"
[ "$(count "SELECT count(*) FROM metrics m JOIN runs r ON r.id = m.run_id WHERE r.name = 'copied'")" = \
	"$(sqlite3 local.db "SELECT count(*) FROM metrics")" ] || fail "the copied metrics"
[ -n "${KEEP_OUT:-}" ] && cp gone.out push.out "$KEEP_OUT/"
echo "ok"
