#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e
# The results database's commands and report's interference side, on run
# directories made here from a committed record: report's intf column (1, 0,
# - for not watched) and --interfered-list; matrix leaves interfered runs out
# and lists them (--include-interfered keeps them), from inputs and from
# --db; `db import` stores exactly what `report --json` says, importing again
# replaces; `runs` lists them (table and JSON); a schema-1 database is
# refused by reading commands and migrated by db upgrade; someone else's
# SQLite file and a 0-byte file are refused and left as they were;
# a corrupt one and a missing one get clear errors; bench's plan interleaves
# rounds (--dry-run), recipes are found and checked, usage errors exit 2.
set -u
command -v sqlite3 >/dev/null || { echo "skip: sqlite3 missing"; exit 77; }
B=$SS_BIN
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }
# run RC CMD...: output in $T/out and $T/err; FAIL unless the status is RC
run() {
	local want=$1
	shift
	"$@" >"$T/out" 2>"$T/err"
	local rc=$?
	[ "$rc" = "$want" ] || { echo "FAIL exit $rc, expected $want: $* ($(head -c 300 "$T/err"))"; fail=1; }
}

# four runs of "demo": two variants, two rounds; r3 was not watched, r4 interfered
mk() {	# mk DIR VARIANT ROUND [run.ini lines...]
	local d=$T/runs/$1
	mkdir -p "$d"
	cp "$SS_FIXTURES/rec/busy-300.ssr" "$d/record.ssr"
	{ echo "program=synthetic-game"; echo "name=demo"; echo "variant=$2"; echo "round=$3"
	  echo "warmup_s=0"; echo "t0_utc=2026-11-30T10:0$3:00Z"; echo "kernel=6.18.0"
	  echo "exit_status=0"; shift 3; printf '%s\n' "$@"; } >"$d/run.ini"
}
mk r1 - 1 interfered=0 "interference=none (1 input devices watched)" build=abc123-dirty
mk r2 FOO=1 1 interfered=0 "interference=none (1 input devices watched)"
mk r3 - 2 "build=has a blank"
mk r4 FOO=1 2 interfered=1 "interference=1 key press at 0.4 s"
R=$T/runs

# --- report: the intf column, marks and the list -------------------------
run 0 "$B" report --cols source,stalls,intf "$R/r1" "$R/r2" "$R/r3" "$R/r4"
check "intf column: 0 0 - 1" '[ "$(awk "NR>1 && NR<=5 {print \$NF}" "$T/out" | tr "\n" " ")" = "0 0 - 1 " ]'
check "interfered runs listed below the table" 'grep -q "interfered runs (intf 1; left out of medians" "$T/out" && grep -q "r4: 1 key press at 0.4 s" "$T/out"'
check "window from run.ini's warmup_s" '"$B" report --json "$R/r1" | /usr/bin/python3 -c "import json,sys; a=json.load(sys.stdin)[0]; assert a[\"warmup_s\"] == 0 and a[\"intf\"] == 0, a"'
printf '# disturbed, found later\n%s/\n' "$R/r2" >"$T/list"
run 0 "$B" report --json --interfered-list "$T/list" "$R/r1" "$R/r2" "$R/r3"
check "--interfered-list marks a listed run" '/usr/bin/python3 -c "
import json; a = json.load(open(\"$T/out\"))
assert [x[\"intf\"] for x in a] == [0, 1, None], [x[\"intf\"] for x in a]
assert \"listed in\" in a[1][\"interference\"], a[1]
"'
run 1 "$B" report --interfered-list "$T/nolist" "$R/r1"
check "missing list: clear error" 'grep -q "cannot open the interfered list .*nolist.: No such file" "$T/err"'

# --- matrix from inputs -------------------------------------------------
run 0 "$B" matrix -o "$T/m" "$R/r1" "$R/r2" "$R/r3" "$R/r4"
check "matrix leaves the interfered run out" 'grep -q "^synthetic-game,FOO=1,[0-9.]*,,[0-9.]*$" "$T/m/stalls.csv" && [ $(head -1 "$T/m/stalls.csv") = program,variant,run1,run2,median ]'
check "matrix lists it (stdout and interfered.txt)" 'grep -q "left out as interfered" "$T/out" && grep -q "r4: 1 key press" "$T/m/interfered.txt"'
run 0 "$B" matrix -o "$T/m2" --include-interfered "$R/r1" "$R/r2" "$R/r3" "$R/r4"
check "--include-interfered keeps it" '[ "$(grep -c "" "$T/m2/interfered.txt")" = 0 ] && grep -q "4 runs" "$T/out"'

# --- db import, runs, the rows equal report -------------------------------
D=$T/r.db
run 0 "$B" db import --db "$D" "$R/r1" "$R/r2" "$R/r3" "$R/r4"
check "4 runs imported" 'grep -q "^4 runs imported" "$T/out"'
run 0 "$B" db import --db "$D" "$R/r1"
check "importing again replaces" '[ "$(sqlite3 "$D" "select count(*) from runs")" = 4 ]'
run 0 "$B" runs --db "$D"
check "runs: a row each, intf shown" '[ $(grep -c " demo " "$T/out") = 4 ] && grep -q "4 runs, 1 interfered" "$T/out"'
run 0 "$B" runs --db "$D" --name demo --json
check "runs --json: fields" '/usr/bin/python3 -c "
import json; a = json.load(open(\"$T/out\"))
assert len(a) == 4 and sorted(x[\"interfered\"] for x in a if x[\"interfered\"] is not None) == [0, 0, 1], a
r4 = [x for x in a if x[\"rundir\"].endswith(\"/r4\")][0]
assert r4[\"variant\"] == \"FOO=1\" and r4[\"round\"] == 2 and r4[\"interference\"].startswith(\"1 key\"), r4
assert [x for x in a if x[\"rundir\"].endswith(\"/r3\")][0][\"interfered\"] is None
b = {x[\"rundir\"][-2:]: x[\"build\"] for x in a}
assert b == {\"r1\": \"abc123-dirty\", \"r2\": None, \"r3\": None, \"r4\": None}, b
"'
"$B" report --json "$R/r1" "$R/r2" "$R/r3" "$R/r4" >"$T/rep.json"
check "database rows equal report --json" '/usr/bin/python3 - "$D" "$T/rep.json" <<"PY"
import json, math, os, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rep = json.load(open(sys.argv[2]))
n = 0
for a in rep:
    rid, = db.execute("select id from runs where rundir = ?", (os.path.realpath(a["source"]),)).fetchone()
    got = dict(db.execute("select metric, value from metrics where run_id = ?", (rid,)))
    for k, v in a.items():
        if k in ("warmup_s", "from_s", "to_s", "stall_ms", "intf") or not (v is None or isinstance(v, (int, float))) or isinstance(v, bool):
            continue
        if v is None:
            assert k not in got, (a["source"], k, got.get(k))
        else:
            assert k in got and math.isclose(got[k], v, rel_tol=1e-9, abs_tol=1e-9), (a["source"], k, v, got.get(k))
            n += 1
    assert len(got) == sum(1 for k, v in a.items() if k in got), (set(got) - set(a))
assert n > 40, n
PY'

# --- matrix --db ---------------------------------------------------------
run 0 "$B" matrix --db "$D" --name demo -o "$T/md"
check "matrix --db: name x variant, interfered left out" '[ "$(head -1 "$T/md/stalls.csv")" = "name,variant,run1,run2,median" ] && grep -q "^demo,-," "$T/md/stalls.csv" && [ $(grep -c "^demo,FOO=1,[0-9.]*,,[0-9.]*$" "$T/md/stalls.csv") = 1 ]'
check "matrix --db lists the interfered run" 'grep -q "demo:FOO=1 round 2 .*r4.*: 1 key press" "$T/md/interfered.txt"'
run 1 "$B" matrix --db "$D" --name nosuch -o "$T/mx"
check "matrix --db, unknown name: error" 'grep -q "no runs named .nosuch." "$T/err"'
run 2 "$B" matrix --db "$D" -o "$T/mx" "$R/r1"
run 2 "$B" report --db "$D" "$R/r1"

# --- an older schema: reading says so, upgrade migrates; bad databases ------
sqlite3 "$T/v1.db" <"$SS_FIXTURES/db/v1.sql"
for c in "db info" runs; do
	run 1 "$B" $c --db "$T/v1.db"
	check "$c on schema 1: says how to upgrade, changes nothing" 'grep -q "schema version 1 is older than this stallscope.s (5); .stallscope db upgrade --db .*v1.db. upgrades it" "$T/err" && [ "$(sqlite3 "$T/v1.db" "pragma user_version")" = 1 ]'
done
run 0 "$B" db upgrade --db "$T/v1.db"
check "db upgrade: schema 1 migrates to 5" 'grep -q "upgraded to schema version 5" "$T/out" && [ "$(sqlite3 "$T/v1.db" "pragma user_version")" = 5 ]'
run 0 "$B" db info --db "$T/v1.db"
check "the upgraded database keeps its runs" 'grep -q "schema version: 5" "$T/out" && grep -q "runs: *2 (1 interfered, 0 failed)" "$T/out"'
run 0 "$B" db upgrade --db "$T/v1.db"
check "db upgrade again: nothing to do" 'grep -q "nothing to upgrade" "$T/out"'
run 1 "$B" db upgrade --db "$T/none.db"
check "db upgrade makes no new database" '[ ! -e "$T/none.db" ]'
# someone else's SQLite file, and a 0-byte one: every reading command
# refuses and leaves the file as it was
sqlite3 "$T/theirs.db" "create table notes(text); insert into notes values ('mine');"
: >"$T/zero.db"
sum=$(md5sum "$T/theirs.db" "$T/zero.db")
for db in theirs zero; do
	for c in runs "db info" "matrix -o $T/mfx --name x" "compare x:- x:A=1"; do
		run 1 "$B" $c --db "$T/$db.db"
		check "$c on $db.db: not ours" 'grep -q "$db.db.: not a stallscope results database" "$T/err"'
	done
done
check "reading commands changed no file" '[ "$(md5sum "$T/theirs.db" "$T/zero.db")" = "$sum" ]'
run 1 "$B" db import --db "$T/theirs.db" "$R/r1"
check "import refuses another program's tables" 'grep -q "its tables are not ours" "$T/err" && [ "$(md5sum "$T/theirs.db" "$T/zero.db")" = "$sum" ]'
run 0 "$B" db import --db "$T/zero.db" "$R/r1"
check "import makes a 0-byte file ours" '[ "$(sqlite3 "$T/zero.db" "select count(*) from runs")" = 1 ]'
run 0 "$B" db import --db "$T/v1.db" "$R/r1"
check "a migrated database takes new runs" '[ "$(sqlite3 "$T/v1.db" "select count(*) from runs")" = 3 ]'
printf 'this is not a database, just text\n%.0s' $(seq 200) >"$T/bad.db"
run 1 "$B" runs --db "$T/bad.db"
check "corrupt database: clear error" 'grep -q "bad.db.: not a stallscope results database" "$T/err"'
run 1 "$B" db import --db "$T/bad.db" "$R/r1"
check "corrupt database: import refuses" 'grep -q "not a stallscope results database" "$T/err"'
run 1 "$B" runs --db "$T/none.db"
check "missing database: clear error" 'grep -q "none.db.: no such database" "$T/err"'
sqlite3 "$T/new.db" "pragma user_version = 99; create table t(x);"
run 1 "$B" db info --db "$T/new.db"
check "newer schema refused" 'grep -q "schema version 99 is newer" "$T/err"'
mkdir -p "$T/notarun"
run 1 "$B" db import --db "$D" "$T/notarun"
check "not a run directory: names it" 'grep -q "notarun. is not a run directory" "$T/err"'

# --- bench: plan, recipes, usage -----------------------------------------
mkdir "$T/b" && cd "$T/b" || exit 1
run 0 "$B" bench fg --dry-run --rounds 2 --variants "- A=1 A=1+B=2" --warmup 0 --recorder-ab -- /bin/true x
check "dry run: rounds of every variant in order" '[ "$(awk "{print \$4 \$6}" "$T/out" | tr -d : | tr "\n" " ")" = "1- 1A=1 1A=1+B=2 1frames-only 2- 2A=1 2A=1+B=2 2frames-only " ]'
check "switches in the environment and run.ini keys" 'grep "^run 3/8" "$T/out" | grep -q "^run 3/8 round 1 variant A=1+B=2: A=1 B=2 .* record .*--meta switches=A=1+B=2 --meta round=1 .*-- /bin/true x"'
check "frames-only variant samples nothing" 'grep "^run 4/8" "$T/out" | grep -q -- "--no-sample"'
check "dry run stores nothing" '[ ! -e runs ]'
mkdir -p recipes
printf '[recipe]\ncommand = /bin/echo "two words" x\nvariants = - Z=1\nrounds = 3\nwarmup = 2\nwindow = 5\n' >recipes/fg.ini
run 0 "$B" bench ./recipes/fg.ini --dry-run --rounds 1
check "recipe named by its path, options win" '[ $(grep -c "^run" "$T/out") = 2 ] && grep -q "warmup_s=2 --meta window_to_s=7 .*-- /bin/echo .two words. x" "$T/out" && grep -q -- "--duration 9" "$T/out"'
printf 'command = x\nbogus = 1\n' >"$T/bad.ini"
run 1 "$B" bench fg --dry-run --recipe "$T/bad.ini"
check "bad recipe key: file and line" 'grep -q "bad.ini. line 2: unknown key .bogus." "$T/err"'
printf 'command = game "unterminated\n' >"$T/bad2.ini"
run 1 "$B" bench fg --dry-run --recipe "$T/bad2.ini"
check "bad recipe command: the column" 'grep -q "command: unterminated" "$T/err"'
# the quiet step says what it waited for and what it found, also in run.ini
# (whether this shared machine settles is not for a test to say)
# (and the build the runs measured: --build-of a git tree, issue 30)
if command -v git >/dev/null; then
	git init -q "$T/src" && echo 1 >"$T/src/f" && git -C "$T/src" add f &&
		git -C "$T/src" -c user.name=t -c user.email=t@t commit -qm one || echo "FAIL git init"
	want=$(git -C "$T/src" describe --always --dirty)
	bof=(--build-of "$T/src")
else
	want=b1 bof=(--build b1)
fi
run 0 "$B" bench q --db "$T/q.db" --results qruns --quiet --quiet-timeout 2 --quiet-cpu 100 \
	--quiet-io 1000000 --rounds 1 --frames none --no-watch --warmup 0 "${bof[@]}" -- /bin/sleep 0.2
check "quiet step: said and recorded" 'grep -Eq "quiet step: (settled|NOT settled) after [0-9]+ s.*CPU [0-9]+ % busy" "$T/err" && grep -Eq "^quiet=(settled|NOT settled)" qruns/*/run.ini'
check "no fps to compute: '-', never 0" 'grep -q "fps -, interference: not watched" "$T/err"'
check "bench --build-of: the tree's describe in run.ini and the database" '[ -n "$want" ] && grep -qx "build=$want" qruns/*/run.ini && [ "$(sqlite3 "$T/q.db" "select build from runs")" = "$want" ]'
run 2 "$B" bench q --dry-run --build-of "$T/list" -- /bin/true
check "--build-of a file: refused, git never run" 'grep -q "build-of .*list.: expected a directory" "$T/err"'
run 2 "$B" bench q --dry-run --build "two words" -- /bin/true
run 2 "$B" record --build "" -- /bin/true
STALLSCOPE_BUILD="a b" run 2 "$B" record -- /bin/true
check "a bad \$STALLSCOPE_BUILD: refused" 'grep -q "STALLSCOPE_BUILD: expected a build" "$T/err"'
run 2 "$B" bench
run 2 "$B" bench nocmd --dry-run
check "no command, no recipe: says what is expected" 'grep -q "expected -- CMD ARGS..., or a recipe" "$T/err"'
run 2 "$B" bench fg --variants "- FOO" -- /bin/true
check "bad variant: names it" 'grep -q "expected .-. or VAR=VALUE joined by .+., got .FOO." "$T/err"'
run 2 "$B" bench fg --variants "- A=1 A=1" -- /bin/true
run 2 "$B" bench fg --rounds 0 -- /bin/true
run 2 "$B" bench a/b -- /bin/true
run 0 "$B" bench --help
check "help has examples" 'grep -q EXAMPLES "$T/out"'
exit $fail
