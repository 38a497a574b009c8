#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e
# The results database on PostgreSQL (src/db/db_pg.c), on a throwaway
# PostgreSQL 15 server (tests/e2e/lib/pg.sh): the database unit tests' round
# trip against it (test-db with SS_PG); `db import` of the same run
# directories into SQLite and into PostgreSQL gives the same `runs --json`,
# `compare --json` and `matrix --db` CSVs; a second import replaces, not
# duplicates; an older schema (3) with runs upgrades keeping them; a server
# whose schema is newer is refused and nothing is written; tables named as
# ours but not ours are never touched; a bad connection string and a wrong
# password give a clear error that shows no password, in each of libpq's
# spellings of a password (issue 26); tables another writer altered to hold
# NULLs are refused with the table, run and column, never a crash.
set -u
T=$(mktemp -d)
. "$SS_SRC/tests/e2e/lib/pg.sh"
trap 'pg_stop; rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
pg_start || exit 1
pg_as "$PGBIN/createdb" -h "$PGDIR" -U postgres unit || fail "createdb unit"
pg_as "$PGBIN/createdb" -h "$PGDIR" -U postgres bench || fail "createdb bench"

SS_PG="host=$PGDIR dbname=unit user=postgres" "$SS_BUILD/tests/test-db" --pg >"$T/unit.out" 2>&1 ||
	fail "test-db --pg against PostgreSQL: $(grep -v '^ok' "$T/unit.out" | head -20)"
grep -q "ok   test_roundtrip_pg" "$T/unit.out" || fail "test-db did not run the PostgreSQL round trip"

# the same runs into both back ends
gen=$SS_BUILD/tests/test-rundir
[ -x "$gen" ] || { echo "skip: no $gen"; exit 77; }
for v in a b; do
	for k in 1 2 3; do
		d=$T/runs/$v$k
		mkdir -p "$d"
		"$gen" --write "$d" >/dev/null || fail "test-rundir --write"
		sed -i "s/^variant=.*//" "$d/run.ini"
		printf 'name=demo\nvariant=%s\nround=%s\n' "$([ $v = a ] && echo - || echo NEW=1)" "$k" >>"$d/run.ini"
	done
done
PGT="host=$PGDIR dbname=bench user=postgres"
"$SS_BIN" db import --db "$T/r.db" --warmup 0 "$T"/runs/* >"$T/imp1" 2>&1 || fail "import into SQLite: $(cat "$T/imp1")"
"$SS_BIN" db import --db "$PGT" --warmup 0 "$T"/runs/* >"$T/imp2" 2>&1 || fail "import into PostgreSQL: $(cat "$T/imp2")"
"$SS_BIN" db import --db "$PGT" --warmup 0 "$T"/runs/* >"$T/imp3" 2>&1 || fail "second import: $(cat "$T/imp3")"
"$SS_BIN" runs --json --db "$T/r.db" >"$T/runs1.json" || fail "runs SQLite"
"$SS_BIN" runs --json --db "$PGT" >"$T/runs2.json" || fail "runs PostgreSQL"
python3 - "$T/runs1.json" "$T/runs2.json" <<'PY' || fail "runs differ between SQLite and PostgreSQL"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
strip = lambda rs: [{k: v for k, v in r.items() if k != "id"} for r in rs]
assert len(a) == 6 and strip(a) == strip(b), (len(a), len(b), strip(a)[:1], strip(b)[:1])
PY
"$SS_BIN" compare --json --db "$T/r.db" demo:- demo:NEW=1 >"$T/cmp1.json" 2>/dev/null
"$SS_BIN" compare --json --db "$PGT" demo:- demo:NEW=1 >"$T/cmp2.json" 2>/dev/null
cmp -s "$T/cmp1.json" "$T/cmp2.json" || fail "compare differs: $(diff "$T/cmp1.json" "$T/cmp2.json" | head -5)"
STALLSCOPE_DB="$PGT" "$SS_BIN" runs --json >"$T/runs3.json" || fail "runs with STALLSCOPE_DB"
cmp -s "$T/runs2.json" "$T/runs3.json" || fail "STALLSCOPE_DB is not --db"
# matrix --db: the same CSVs from both
"$SS_BIN" matrix --db "$T/r.db" --name demo -o "$T/m1" >/dev/null 2>&1 || fail "matrix SQLite"
"$SS_BIN" matrix --db "$PGT" --name demo -o "$T/m2" >/dev/null 2>&1 || fail "matrix PostgreSQL"
diff -r "$T/m1" "$T/m2" >/dev/null || fail "matrix differs: $(diff -r "$T/m1" "$T/m2" | head -5)"
"$SS_BIN" db info --db "$PGT" >"$T/info" || fail "db info"
grep -q "(postgresql)" "$T/info" && grep -q "runs: *6 " "$T/info" || fail "db info: $(cat "$T/info")"

# history (issue 30): 8 builds of 2 runs, builds 5..8 from a busier record:
# the same history --json from both back ends, with its change point
for b in 1 2 3 4 5 6 7 8; do
	for k in 1 2; do
		d=$T/hist/$b-$k
		mkdir -p "$d"
		rec=steady-30.ssr
		[ $b -ge 5 ] && rec=busy-300.ssr
		cp "$SS_FIXTURES/rec/$rec" "$d/record.ssr"
		printf 'program=synthetic-game\nname=hist\nvariant=-\nwarmup_s=0\nrig=r1\nbuild=b%s\nt0_utc=2026-12-01T02:%02d:00Z\n' \
			"$b" "$((b * 2 + k))" >"$d/run.ini"
	done
done
"$SS_BIN" db import --db "$T/r.db" --warmup 0 "$T"/hist/* >/dev/null 2>&1 || fail "history runs into SQLite"
"$SS_BIN" db import --db "$PGT" --warmup 0 "$T"/hist/* >/dev/null 2>&1 || fail "history runs into PostgreSQL"
"$SS_BIN" history --json --db "$T/r.db" --metrics fps,p99_ms,stalls,longest_ms hist >"$T/h1.json" || fail "history SQLite"
"$SS_BIN" history --json --db "$PGT" --metrics fps,p99_ms,stalls,longest_ms hist >"$T/h2.json" || fail "history PostgreSQL"
cmp -s "$T/h1.json" "$T/h2.json" || fail "history differs: $(diff "$T/h1.json" "$T/h2.json" | head -5)"
python3 - "$T/h1.json" <<'PY' || fail "history: no change at b5"
import json, sys
h = json.load(open(sys.argv[1]))
cps = [(s["metric"], c["build_after"]) for s in h["series"] for c in s["change_points"]]
assert ("fps", "b5") in cps and h["runs"] == 16, (cps, h["runs"])
PY

# an older schema on the server (3: no rigs), with its runs: reading refuses
# it and says how to upgrade; db upgrade takes it to today's, every run and
# metric kept
pg_as "$PGBIN/createdb" -h "$PGDIR" -U postgres old || fail "createdb old"
OLD="host=$PGDIR dbname=old user=postgres"
"$SS_BIN" db import --db "$OLD" --warmup 0 "$T"/runs/* >/dev/null 2>&1 || fail "import into old"
nm=$(pg_as "$PGBIN/psql" -X -At -h "$PGDIR" -U postgres -d old -c "SELECT count(*) FROM metrics")
pg_as "$PGBIN/psql" -X -q -h "$PGDIR" -U postgres -d old -c "DROP TABLE rigs; DROP INDEX runs_by_rig;
	ALTER TABLE runs DROP CONSTRAINT runs_rig_rundir; ALTER TABLE runs DROP COLUMN rig;
	ALTER TABLE runs ADD CONSTRAINT runs_rundir_key UNIQUE (rundir); ALTER TABLE runs DROP COLUMN build;
	UPDATE stallscope_schema SET version = 3" ||
	fail "psql: back to schema 3"
"$SS_BIN" runs --db "$OLD" >"$T/old.out" 2>&1
[ $? = 1 ] && grep -q "schema version 3 is older" "$T/old.out" || fail "an older schema read: $(cat "$T/old.out")"
"$SS_BIN" db upgrade --db "$OLD" >"$T/up.out" 2>&1 || fail "db upgrade: $(cat "$T/up.out")"
grep -q "upgraded to schema version 5" "$T/up.out" || fail "db upgrade: $(cat "$T/up.out")"
[ "$(pg_as "$PGBIN/psql" -X -At -h "$PGDIR" -U postgres -d old -c "SELECT count(*) FROM runs WHERE rig = '-'")" = 6 ] ||
	fail "the upgraded runs"
[ "$(pg_as "$PGBIN/psql" -X -At -h "$PGDIR" -U postgres -d old -c "SELECT count(*) FROM metrics")" = "$nm" ] ||
	fail "the upgrade lost metrics"

# a newer schema: refused, nothing written
ours=$(pg_as "$PGBIN/psql" -X -At -h "$PGDIR" -U postgres -d bench -c "SELECT version FROM stallscope_schema")
n0=$(pg_as "$PGBIN/psql" -X -At -h "$PGDIR" -U postgres -d bench -c "SELECT count(*) FROM runs")
pg_as "$PGBIN/psql" -X -q -h "$PGDIR" -U postgres -d bench -c "UPDATE stallscope_schema SET version = 99" ||
	fail "psql"
"$SS_BIN" db import --db "$PGT" --warmup 0 "$T/runs/a1" >"$T/new.out" 2>&1
[ $? = 1 ] || fail "import into a newer schema: $(cat "$T/new.out")"
grep -q "schema version 99 is newer" "$T/new.out" || fail "newer schema: $(cat "$T/new.out")"
n=$(pg_as "$PGBIN/psql" -X -At -h "$PGDIR" -U postgres -d bench -c "SELECT count(*) FROM runs")
[ "$n" = "$n0" ] || fail "the newer database changed: $n runs, was $n0"

# tables named as ours that are not: never touched
pg_sql "CREATE TABLE runs (x integer)" || fail "psql"
"$SS_BIN" db import --db "$PG" --warmup 0 "$T/runs/a1" >"$T/theirs.out" 2>&1
[ $? = 1 ] && grep -q "not a stallscope results database" "$T/theirs.out" || fail "foreign tables: $(cat "$T/theirs.out")"

# bad connection strings and a wrong password: clear, and no password shown
"$SS_BIN" runs --db "host=$PGDIR/nothere dbname=x" >"$T/bad.out" 2>&1
[ $? = 1 ] && grep -q "cannot connect" "$T/bad.out" || fail "bad host: $(cat "$T/bad.out")"
pg_sql "CREATE ROLE rig LOGIN PASSWORD 'right-pw'" || fail "psql"
pg_as "$PGBIN/psql" -X -q -h "$PGDIR" -U postgres -d bench \
	-c "UPDATE stallscope_schema SET version = $ours; GRANT SELECT ON ALL TABLES IN SCHEMA public TO rig" ||
	fail "psql grant"
sed -i '1i local all rig scram-sha-256' "$PGDIR/data/pg_hba.conf"
pg_as "$PGBIN/pg_ctl" -D "$PGDIR/data" reload >/dev/null || fail "reload"
sleep 0.5
PGPASSWORD=wrong-pw-123 "$SS_BIN" runs --db "host=$PGDIR dbname=bench user=rig" >"$T/pw.out" 2>&1
[ $? = 1 ] && grep -q "password authentication failed" "$T/pw.out" || fail "wrong password: $(cat "$T/pw.out")"
grep -q "wrong-pw-123" "$T/pw.out" && fail "the password is in the message: $(cat "$T/pw.out")"
"$SS_BIN" runs --db "postgresql://rig:wrong-pw-456@/bench?host=$PGDIR" >"$T/pw2.out" 2>&1
[ $? = 1 ] || fail "a wrong password in the URI was accepted"
grep -q "wrong-pw-456" "$T/pw2.out" && fail "the URI's password is in the message: $(cat "$T/pw2.out")"
grep -q "'user=rig dbname=bench host=$PGDIR'" "$T/pw2.out" ||
	fail "the message does not name the database: $(cat "$T/pw2.out")"
PGPASSWORD=right-pw "$SS_BIN" runs --db "host=$PGDIR dbname=bench user=rig" >/dev/null 2>"$T/ok.out" ||
	fail "the right password: $(cat "$T/ok.out")"
# every spelling libpq has for a password (issue 26): a wrong one is never
# shown, whatever libpq or the server says; the right one connects, so the
# string reached libpq as libpq reads it
spellings() {	# spellings PASSWORD ESCAPED: the --db strings, one a line
	printf '%s\n' "host=$PGDIR dbname=bench user=rig password = $1" \
		"host=$PGDIR dbname=bench user=rig password=$2" \
		"$(printf 'host=%s\tdbname=bench\tuser=rig\tpassword=%s' "$PGDIR" "$1")" \
		"postgresql://rig@/bench?host=$PGDIR&%70assword=$1"
}
while IFS= read -r f; do
	"$SS_BIN" runs --db "$f" >"$T/f.out" 2>&1
	[ $? = 1 ] && grep -q "password authentication failed" "$T/f.out" ||
		fail "a wrong password in '${f#*user=rig}': $(cat "$T/f.out")"
	grep -E -q "wrong|pw789" "$T/f.out" && fail "the password is shown: $(cat "$T/f.out")"
done < <(spellings wrong-pw789 'wrong\ pw789')
while IFS= read -r f; do
	"$SS_BIN" runs --db "$f" >"$T/f.out" 2>&1 || fail "the right password in '${f#*user=rig}': $(cat "$T/f.out")"
done < <(spellings right-pw 'right\-pw')

# a server whose tables another writer altered, NULLs where our schema says
# NOT NULL: refused as the SQLite file is (db-hostile.sh), naming the
# database, the table, the run and the column; never a crash or a NULL read
# as 0
pg_as "$PGBIN/createdb" -h "$PGDIR" -U postgres hostile || fail "createdb hostile"
HT="host=$PGDIR dbname=hostile user=postgres"
"$SS_BIN" db import --db "$HT" --warmup 0 "$T"/runs/* >/dev/null 2>&1 || fail "import into hostile"
hsql() { pg_as "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$PGDIR" -U postgres -d hostile -c "$1" || fail "psql: $1"; }
first() { pg_as "$PGBIN/psql" -X -At -h "$PGDIR" -U postgres -d hostile -c "$1"; }
hsql "ALTER TABLE runs ALTER COLUMN variant DROP NOT NULL; ALTER TABLE runs ALTER COLUMN round DROP NOT NULL;
	ALTER TABLE metrics ALTER COLUMN value DROP NOT NULL; ALTER TABLE metrics DROP CONSTRAINT metrics_pkey;
	ALTER TABLE metrics ALTER COLUMN metric DROP NOT NULL"
id=$(first "SELECT min(id) FROM runs WHERE variant = 'NEW=1'")
refused_pg() {	# refused_pg WHAT PATTERN CMD...
	local what=$1 pat=$2
	shift 2
	"$@" >"$T/h.out" 2>&1
	local rc=$?
	[ $rc = 1 ] || fail "$what: exit $rc: $(head -5 "$T/h.out")"
	grep -q "runtime error\|AddressSanitizer" "$T/h.out" && fail "$what: $(head -5 "$T/h.out")"
	grep -q -- "$pat" "$T/h.out" || fail "$what: expected '$pat' in: $(head -5 "$T/h.out")"
}
hsql "UPDATE runs SET variant = NULL WHERE id = $id"
msg="table runs, run $id: column variant is NULL, expected the variant's name"
refused_pg "compare, NULL variant" "$msg" "$SS_BIN" compare --db "$HT" demo:- demo:NEW=1
refused_pg "matrix --db, NULL variant" "$msg" "$SS_BIN" matrix --db "$HT" -o "$T/hm"
refused_pg "html --db, NULL variant" "$msg" "$SS_BIN" html --db "$HT" -o "$T/h.html" demo:- demo:NEW=1
refused_pg "runs, NULL variant" "$msg" "$SS_BIN" runs --db "$HT"
refused_pg "db info, NULL variant" "$msg" "$SS_BIN" db info --db "$HT"
hsql "UPDATE runs SET variant = 'NEW=1', round = NULL WHERE id = $id"
refused_pg "runs, NULL round" "table runs, run $id: column round is NULL, expected the round" \
	"$SS_BIN" runs --db "$HT"
hsql "UPDATE runs SET round = 1 WHERE id = $id; UPDATE metrics SET value = NULL WHERE run_id = $id AND metric = 'fps'"
msg="table metrics, run $id, metric 'fps': column value is NULL, expected a finite number"
refused_pg "compare, NULL value" "$msg" "$SS_BIN" compare --db "$HT" demo:- demo:NEW=1
refused_pg "matrix --db, NULL value" "$msg" "$SS_BIN" matrix --db "$HT" -o "$T/hm2"
refused_pg "html --db, NULL value" "$msg" "$SS_BIN" html --db "$HT" -o "$T/h.html" demo:- demo:NEW=1
hsql "UPDATE metrics SET value = 1 WHERE value IS NULL; UPDATE metrics SET metric = NULL WHERE run_id = $id AND metric = 'stalls'"
refused_pg "db info, NULL metric" "table metrics, run $id: column metric is NULL, expected a metric's name" \
	"$SS_BIN" db info --db "$HT"
echo "ok"
