#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e
# compare on a results database made here: a metric that really moved is
# flagged with its change, one that did not prints '~', interfered runs are
# left out, too few runs say how many are needed, bad databases and bad
# arguments get clear errors and the right exit codes.
set -u
command -v sqlite3 >/dev/null || { echo "sqlite3 missing"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
db=$tmp/r.db
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }

"$SS_BIN" compare --db "$db" a b 2>"$tmp/err"; rc=$?
check "missing db exits 1" '[ $rc = 1 ] && grep -q "no such database" "$tmp/err"'

# Make the schema through stallscope's own code path (a compare on a fresh
# file would refuse it), so insert with the schema the migrations build.
{
	echo "PRAGMA user_version = 3;"
	echo "CREATE TABLE runs (id INTEGER PRIMARY KEY, name TEXT NOT NULL, variant TEXT NOT NULL, switches TEXT, round INTEGER NOT NULL DEFAULT 0, started TEXT, host TEXT, kernel TEXT, rundir TEXT UNIQUE, interfered INTEGER, exit_status INTEGER, interference TEXT, failed INTEGER NOT NULL DEFAULT 0, failure TEXT);"
	echo "CREATE TABLE metrics (run_id INTEGER NOT NULL, metric TEXT NOT NULL, value REAL NOT NULL, PRIMARY KEY (run_id, metric)) WITHOUT ROWID;"
	id=0
	for round in 1 2 3 4 5 6; do
		for v in - PATCH=1; do
			id=$((id + 1))
			echo "INSERT INTO runs VALUES ($id, 'game', '$v', NULL, $round, NULL, NULL, NULL, '/r/$id', 0, 0, NULL, 0, NULL);"
			if [ "$v" = - ]; then stalls=$((10 + round)); else stalls=$((2 + round % 2)); fi
			fps=$((60 + (round * 7) % 3))
			if [ "$v" = - ]; then big=0; else big=$((1 + round % 2)); fi	# none before, some after
			echo "INSERT INTO metrics VALUES ($id, 'stalls', $stalls), ($id, 'fps', $fps), ($id, 'over_1s', $big);"
		done
	done
	# an interfered run with a wild value, which must not count
	echo "INSERT INTO runs VALUES (99, 'game', 'PATCH=1', NULL, 7, NULL, NULL, NULL, '/r/99', 1, 0, 'key presses', 0, NULL);"
	echo "INSERT INTO metrics VALUES (99, 'stalls', 1000), (99, 'fps', 1);"
	# a failed run with a wild value, which must not count either
	echo "INSERT INTO runs VALUES (98, 'game', 'PATCH=1', NULL, 8, NULL, NULL, NULL, '/r/98', 0, 3, NULL, 1, 'the program exited with status 3');"
	echo "INSERT INTO metrics VALUES (98, 'stalls', 0), (98, 'fps', 900);"
	# a variant whose program never started: four failed runs, no metrics
	for id in 101 102 103 104; do
		echo "INSERT INTO runs VALUES ($id, 'game', 'BROKEN=1', NULL, $((id - 100)), NULL, NULL, NULL, '/r/$id', 0, 3, NULL, 1, 'the program exited with status 3');"
	done
} | sqlite3 "$db"
# written at schema 3 (before rigs): the upgrade takes it to today's
"$SS_BIN" db upgrade --db "$db" >/dev/null || { echo "FAIL: db upgrade of the v3 database"; exit 1; }

"$SS_BIN" compare --db "$db" game:- game:PATCH=1 >"$tmp/out"; rc=$?
cat "$tmp/out"
check "compare exits 0" '[ $rc = 0 ]'
check "stalls change flagged" 'grep -E "^stalls .* -[0-9.]+%" "$tmp/out" >/dev/null'
check "fps unchanged prints ~" 'grep -E "^fps .* ~ " "$tmp/out" >/dev/null'
check "interfered run listed as left out" 'grep -q "left out as interfered: 0 run(s) of a, 1 of b" "$tmp/out"'
check "failed run listed as left out, with why" 'grep -q "left out as failed (--include-failed keeps them): 0 run(s) of a, 1 of b" "$tmp/out" && grep -q "game:PATCH=1 round 8, /r/98: the program exited with status 3" "$tmp/out"'


"$SS_BIN" compare --db "$db" --json game game:PATCH=1 >"$tmp/json"; rc=$?
check "json exits 0" '[ $rc = 0 ]'
check "json fields" '/usr/bin/python3 - "$tmp/json" <<"PY"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["a"] == "game" and d["b"] == "game:PATCH=1"
m = {x["metric"]: x for x in d["metrics"]}
s = m["stalls"]
assert s["significant"] is True and s["p"] < 0.05, s
assert s["a_median"] == 13.5 and s["b_median"] == 2.5, s
assert s["n_a"] == 6 and s["n_b"] == 6, s
assert len(s["a_ci"]) == 2 and s["a_ci"][0] <= 13.5 <= s["a_ci"][1], s
assert abs(s["change_pct"] - (2.5 - 13.5) / 13.5 * 100) < 1e-6, s
assert m["fps"]["significant"] is False, m["fps"]
for k in ("metric","a_median","b_median","a_ci","b_ci","change_pct","p","n_a","n_b","significant"):
    assert k in s, k
PY'

# a real change from a median of 0 has no %, but is shown, never hidden as '?'
check "significant change from 0: up from 0" 'grep -E "^over_1s .* up from 0 " "$tmp/out" >/dev/null'
check "from 0 in JSON: change_pct null, significant, a note" '/usr/bin/python3 -c "
import json; m = {x[\"metric\"]: x for x in json.load(open(\"$tmp/json\"))[\"metrics\"]}[\"over_1s\"]
assert m[\"change_pct\"] is None and m[\"significant\"] is True and \"median is 0\" in m[\"note\"], m
"'
"$SS_BIN" compare --db "$db" --csv --metrics stalls,fps game game:PATCH=1 >"$tmp/csv"
check "--csv: a header and a row per metric" '[ "$(head -1 "$tmp/csv")" = "metric,a,a_ci95,b,b_ci95,change,p,n" ] && grep -q "^stalls,13.5,.*,-[0-9.]*%,.*,6+6$" "$tmp/csv" && grep -q "^fps,.*,~," "$tmp/csv" && [ $(wc -l <"$tmp/csv") = 3 ]'

# the gate (issue 30): --fail-on exits 4 when a named metric got
# significantly worse by more than its amount; --junit says which; a side
# may name a build (NAME[:VARIANT]@BUILD)
sqlite3 "$db" "UPDATE runs SET build = CASE variant WHEN '-' THEN 'b1' ELSE 'b2' END"
"$SS_BIN" compare --db "$db" --fail-on 'stalls:+0,fps:-5%' --junit "$tmp/j.xml" game:PATCH=1@b2 game@b1 >"$tmp/g" 2>"$tmp/gerr"; rc=$?
check "--fail-on: stalls rose, exit 4, said" '[ $rc = 4 ] && grep -q "stalls got worse: 2.5 -> 13.5" "$tmp/gerr" && ! grep -q "fps got worse" "$tmp/gerr"'
if command -v xmllint >/dev/null; then
	check "--junit: valid XML" 'xmllint --noout "$tmp/j.xml"'
fi
check "--junit: a testcase per metric, one failure (stalls)" '/usr/bin/python3 - "$tmp/j.xml" "$tmp/g" <<"PY"
import sys, xml.etree.ElementTree as ET
s = ET.parse(sys.argv[1]).getroot().find("testsuite")
cases = s.findall("testcase")
rows = [l for l in open(sys.argv[2]) if l[:1].isalpha() and not l.startswith(("metric", "left", "kept"))]
assert len(cases) == len(rows) == 3, (len(cases), len(rows))
assert [c.get("name") for c in cases if c.find("failure") is not None] == ["stalls"]
assert s.get("failures") == "1"
PY'
"$SS_BIN" compare --db "$db" --fail-on 'stalls:+0' game game:PATCH=1 >/dev/null 2>&1; rc=$?
check "--fail-on: stalls fell, exit 0" '[ $rc = 0 ]'
"$SS_BIN" compare --db "$db" --fail-on 'stalls:-90%' game game:PATCH=1 >/dev/null 2>&1; rc=$?
check "--fail-on: down 81 %, not by more than 90 %: exit 0" '[ $rc = 0 ]'
"$SS_BIN" compare --db "$db" --fail-on 'stalls:-50%' game game:PATCH=1 >/dev/null 2>&1; rc=$?
check "--fail-on: down 81 %, by more than 50 %: exit 4" '[ $rc = 4 ]'
"$SS_BIN" compare --db "$db" --fail-on 'stalls:-11' game game:PATCH=1 >/dev/null 2>&1; rc=$?
check "--fail-on: down by 11 frames, not more than 11: exit 0" '[ $rc = 0 ]'
"$SS_BIN" compare --db "$db" --json game@b1 game:PATCH=1@b2 | sed 1,3d >"$tmp/b.json"
"$SS_BIN" compare --db "$db" --json game game:PATCH=1 | sed 1,3d >"$tmp/v.json"
check "sides by build: the same runs" 'cmp -s "$tmp/b.json" "$tmp/v.json" && [ -s "$tmp/b.json" ]'
"$SS_BIN" compare --db "$db" game@b2 game:PATCH=1 >/dev/null 2>"$tmp/err"; rc=$?
check "a build with no runs on that side: exit 1, named" '[ $rc = 1 ] && grep -q "no runs of .game:-@b2." "$tmp/err"'
for bad in stalls 'nope:+1' 'stalls:*1' 'stalls:+x' 'stalls:+1%%'; do
	"$SS_BIN" compare --db "$db" --fail-on "$bad" game game:PATCH=1 >/dev/null 2>"$tmp/err"; rc=$?
	check "--fail-on '$bad': usage, exit 2" '[ $rc = 2 ] && grep -q "option .--fail-on." "$tmp/err"'
done

# a side whose every run failed: no comparison, exit 1, the runs listed
# (the old answer was "stalls -100 %, p 0.013", an improvement)
"$SS_BIN" compare --db "$db" game:- game:BROKEN=1 >"$tmp/broken" 2>"$tmp/broken-err"; rc=$?
cat "$tmp/broken" "$tmp/broken-err"
check "every run of b failed: exit 1, says so" '[ $rc = 1 ] && grep -q "no runs of .game:BROKEN=1. in .*that did not fail" "$tmp/broken-err" && [ $(grep -c "BROKEN=1 round [1-4], /r/10[1-4]: the program exited with status 3" "$tmp/broken-err") = 4 ] && [ ! -s "$tmp/broken" ]'
"$SS_BIN" compare --db "$db" --include-failed game:- game:BROKEN=1 >"$tmp/broken" 2>"$tmp/broken-err"; rc=$?
cat "$tmp/broken"
check "--include-failed: compared, '-' where there is no number, never nan" '[ $rc = 0 ] && grep -Eq "^stalls +[0-9.]+ +[0-9.]+\.\.[0-9.]+ +- +- +\? +- +6\+0$" "$tmp/broken" && ! grep -qi nan "$tmp/broken" && grep -q "kept though failed (--include-failed): 0 run(s) of a, 4 of b" "$tmp/broken"'

# three runs a side cannot reach p < 0.05: say how many are needed
sqlite3 "$db" "DELETE FROM runs WHERE round > 3; DELETE FROM metrics WHERE run_id NOT IN (SELECT id FROM runs);"
"$SS_BIN" compare --db "$db" --metrics stalls game game:PATCH=1 >"$tmp/few"; rc=$?
cat "$tmp/few"
check "too few runs says how many" '[ $rc = 0 ] && grep -q "need at least 4 a side" "$tmp/few"'
"$SS_BIN" compare --db "$db" --json --metrics stalls game game:PATCH=1 | grep -q '"significant": null'
check "too few runs: significant null" '[ $? = 0 ]'

"$SS_BIN" compare --db "$db" game game:NOPE=1 2>"$tmp/err"; rc=$?
check "unknown variant exits 1 naming it" '[ $rc = 1 ] && grep -q "game:NOPE=1" "$tmp/err"'
head -c 4096 /dev/urandom >"$tmp/junk.db"
"$SS_BIN" compare --db "$tmp/junk.db" a b 2>"$tmp/err"; rc=$?
check "corrupt db exits 1 naming the file" '[ $rc = 1 ] && grep -q "junk.db" "$tmp/err"'
"$SS_BIN" compare --db "$db" onlyone 2>/dev/null; rc=$?
check "one side is a usage error" '[ $rc = 2 ]'
exit $fail
