#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/history.sh BUILD: history's change points (issue 30). First the
# detection table: E-Divisive (src/core/edivisive.c, the defaults: 199
# permutations, alpha 0.05, segments of 3 or more) on synthetic build series
# (bench/history-bench.c: 3..5 runs a build, a build's point the median of
# its runs, normal or heavy-tailed t(3) noise, shifts of 0.5..3 sigmas
# planted between segments of 5..60 builds): recall (a planted shift found
# within 2 builds) and false change points per 1,000 builds. Then the speed
# of `history` over 1,000 builds x 5 runs x 10 metrics (plus the stall
# causes' columns) from SQLite and from a throwaway PostgreSQL 15 (Unix
# socket, fsync off; tests/e2e/lib/pg.sh), median of 3; and the page of
# those builds (html --history): written, its size, its first render and
# zoom in headless Chromium.
set -u
build=${1:-build}
src=$(cd "$(dirname "$0")/.." && pwd)
bin=$build/stallscope
[ -f "$build/libss_core.a" ] || { echo "bench/history: run 'make build'" >&2; exit 1; }
command -v sqlite3 >/dev/null || { echo "bench/history: sqlite3 missing" >&2; exit 77; }
T=$(mktemp -d)
trap 'type pg_stop >/dev/null 2>&1 && pg_stop; rm -rf "$T"' EXIT
${CC:-cc} -O2 -std=gnu11 -D_GNU_SOURCE -I"$src/src" "$src/bench/history-bench.c" \
	"$build/libss_core.a" -lm -o "$T/hb" || exit 1

echo "detection (builds x series ~ 10,000 builds a row; recall within 2 builds)"
echo "noise  shift builds series  recall false/1000b seconds"
for noise in normal heavy; do
	for shift in 0 0.5 1 2 3; do
		for n in 50 200 500; do
			"$T/hb" $noise $shift $n $((10000 / n)) || exit 1
		done
	done
done

# the speed: one run stored by stallscope (the schema), the rest in bulk
mkdir -p "$T/run"
cp "$src/tests/fixtures/rec/steady-30.ssr" "$T/run/record.ssr"
printf 'program=speed\nname=seed\nwarmup_s=0\n' >"$T/run/run.ini"
"$bin" db import --db "$T/h.db" "$T/run" >/dev/null || exit 1
metrics="fps low1 p99_ms longest_ms stalls stall_s p95_ms median_ms smooth_fps stutter_pct
	stall_disk_s stall_swap_s stall_reclaim_s stall_gpu_s stall_cpu_s stall_io_s stall_wait_s stall_other_s"
vals=""
for m in $metrics; do
	vals="$vals${vals:+ UNION ALL }SELECT '$m' AS m"
done
sqlite3 "$T/h.db" "BEGIN;
WITH RECURSIVE r(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM r WHERE i < 4999)
INSERT INTO runs (id, name, variant, round, started, rundir, rig, build, interfered, exit_status, failed)
	SELECT 1000 + i, 'speed', '-', 0, printf('2026-12-01T%02d:%02d:%02dZ', i / 3600, i / 60 % 60, i % 60),
	'/r/' || i, 'rig', 'b' || (i / 5), 0, 0, 0 FROM r;
INSERT INTO metrics (run_id, metric, value) SELECT id, m, (abs(random()) % 1000) / 100.0
	+ CASE WHEN id >= 1000 + 3000 THEN 5 ELSE 0 END FROM runs, ($vals) WHERE name = 'speed';
COMMIT;" || exit 1
M=fps,low1,p99_ms,longest_ms,stalls,stall_s,p95_ms,median_ms,smooth_fps,stutter_pct
median3() {
	for i in 1 2 3; do
		t0=$(date +%s%N)
		"$@" >"$T/out" 2>&1 || { echo "bench/history: '$*' failed: $(head -3 "$T/out")" >&2; exit 1; }
		t1=$(date +%s%N)
		echo $(((t1 - t0) / 1000000))
	done | sort -n | sed -n 2p
}
ms=$(median3 "$bin" history --db "$T/h.db" --metrics $M speed)
cps=$(grep -c "^  change " "$T/out")
echo "speed sqlite    : history of 10 metrics over 1000 builds x 5 runs: $ms ms ($cps change points)"

# the page (html --history) of the same 1000 builds x 5 runs, its 6 default
# metrics: written (median of 3), its size, and in headless Chromium the
# time from navigation to drawn (window.ssHistory.ready) and to redraw after
# a zoom; the run page's goals (docs/HTML.md) beside them
ms=$(median3 "$bin" html --history speed --db "$T/h.db" -o "$T/speed.html")
echo "page: html --history of 6 metrics over 1000 builds x 5 runs: written in $ms ms, $(stat -c %s "$T/speed.html") bytes"
if command -v chromium >/dev/null; then
	PYTHONPATH=$src/tests/e2e/lib python3 - "$T/speed.html" <<'PY' || exit 1
import statistics, sys, time, cdp
firsts, zooms, parts = [], [], []
with cdp.Browser() as b:
    for k in range(3):
        t0 = time.monotonic()
        p = b.page("file://" + sys.argv[1])
        p.wait("window.ssHistory && (window.ssHistory.ready || window.ssHistory.error)", 120)
        firsts.append(1000 * (time.monotonic() - t0))
        if p.errors or not p.eval("ssHistory.ready"):
            print("page: errors: %s %s" % (p.errors, p.eval("ssHistory.error")))
            sys.exit(1)
        parts.append(p.eval("[ssHistory.t_script, ssHistory.t_parsed - ssHistory.t_script, ssHistory.t_drawn - ssHistory.t_parsed]"))
    marks = p.eval("ssHistory.views.reduce((n, v) => n + v.marks.length, 0)")
    dots = p.eval("ssHistory.views.reduce((n, v) => n + v.dots, 0)")
    for k in range(5):
        zooms.append(p.eval("""(async () => { const u = ssHistory.views[0].plot, t0 = performance.now();
            u.setScale('x', {min: %d, max: %d});
            await new Promise(ok => requestAnimationFrame(() => ok()));
            return performance.now() - t0; })()""" % (100 * k, 100 * k + 300)))
print("page: in chromium: %d dots, %d change point marks; first render (navigation to drawn) median %.0f ms (%s); "
      "zoom redraw median %.1f ms" % (dots, marks, statistics.median(firsts),
                                      " ".join("%.0f" % f for f in firsts), statistics.median(zooms)))
print("page: in the page, median: navigation to its script %.0f ms (the HTML and uPlot), data parsed in %.0f ms, "
      "drawn in %.0f ms" % tuple(statistics.median(x[i] for x in parts) for i in range(3)))
print("page: load average %s" % open("/proc/loadavg").read().split()[0])
print("page: the run page's goals (docs/HTML.md): written <= 1000 ms, <= 3 MB, first render <= 1500 ms, zoom <= 100 ms")
PY
else
	echo "page: in chromium: skipped (no chromium: scripts/deps.sh test)"
fi

SS_SRC=$src
. "$src/tests/e2e/lib/pg.sh"
if pg_start >/dev/null 2>&1; then
	pg_as "$PGBIN/createdb" -h "$PGDIR" -U postgres hist || exit 1
	PG="host=$PGDIR dbname=hist user=postgres"
	"$bin" db import --db "$PG" "$T/run" >/dev/null || exit 1
	sqlite3 -csv "$T/h.db" "SELECT id, name, variant, round, started, rundir, rig, build, interfered, exit_status, failed FROM runs WHERE name = 'speed'" >"$T/runs.csv"
	sqlite3 -csv "$T/h.db" "SELECT m.run_id, m.metric, m.value FROM metrics m JOIN runs r ON r.id = m.run_id WHERE r.name = 'speed'" >"$T/metrics.csv"
	chmod 644 "$T"/*.csv; chmod 755 "$T"
	pg_as "$PGBIN/psql" -X -q -h "$PGDIR" -U postgres -d hist -c "
		CREATE TEMP TABLE r AS SELECT id, name, variant, round, started, rundir, rig, build, interfered, exit_status, failed FROM runs LIMIT 0;
		COPY r FROM '$T/runs.csv' CSV;
		INSERT INTO runs (name, variant, round, started, rundir, rig, build, interfered, exit_status, failed)
			SELECT name, variant, round, started, rundir, rig, build, interfered, exit_status, failed FROM r ORDER BY id;
		CREATE TEMP TABLE m (rid bigint, metric text, value double precision);
		COPY m FROM '$T/metrics.csv' CSV;
		INSERT INTO metrics SELECT n.id, m.metric, m.value FROM m JOIN r ON r.id = m.rid JOIN runs n ON n.rundir = r.rundir;" || exit 1
	ms=$(median3 "$bin" history --db "$PG" --metrics $M speed)
	echo "speed postgresql: history of 10 metrics over 1000 builds x 5 runs: $ms ms ($(grep -c "^  change " "$T/out") change points)"
else
	echo "speed postgresql: skipped (no PostgreSQL server binaries: scripts/deps.sh test)"
fi
