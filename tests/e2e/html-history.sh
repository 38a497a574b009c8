#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e
# `stallscope html --history` in headless Chromium (tests/e2e/lib/cdp.py, as
# html.sh). A results database made in bulk with sqlite3 (no recording):
# 8 builds on 2 rigs, 3 runs a build; from build b5 every run stalls once
# (0.3 s of io); fps drops from b5 on rig-a and from b6 on rig-b. Checks:
# the page loads with no script error; each change point history --json
# finds is a mark on its metric's plot, at the pixel between the builds
# either side (b4|b5 for stalls on both rigs; b4|b5 and b5|b6 for fps, one
# a rig), drawn there on the canvas in the worse colour and nowhere else;
# hovering it says the builds, the change, p and io; clicking build b5
# lists its 6 runs, links the one run page at hand and says how to make
# the others; a one-build history says it has too few builds; an unknown
# benchmark and an empty --since window exit 1 with no page; bad options 2.
# A screenshot goes to $SS_BUILD/html-shots/history.png for a person to look
# at. Skips (77) without chromium or sqlite3.
set -u
command -v chromium >/dev/null || { echo "skip: no chromium (package chromium)"; exit 77; }
command -v sqlite3 >/dev/null || { echo "skip: sqlite3 missing"; exit 77; }
T=$(mktemp -d /tmp/ss-e2e-hhist.XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
unset ASAN_OPTIONS UBSAN_OPTIONS	# chromium is not ours; stallscope's runs below set none
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }
B=$SS_BIN

# the schema from one imported run, then the history in bulk
mkdir -p seed runs
cp "$SS_FIXTURES/rec/steady-30.ssr" seed/record.ssr
printf 'program=seed\nwarmup_s=0\n' >seed/run.ini
"$B" db import --db h.db seed >/dev/null 2>err || { cat err; echo "FAIL db import"; exit 1; }
# run i (0..47): build b(i/6+1), rig-a for i%6 < 3; run dirs of b5 on rig-a here,
# the first with a page
sqlite3 h.db "BEGIN;
WITH RECURSIVE r(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM r WHERE i < 47)
INSERT INTO runs (id, name, variant, round, started, rundir, rig, build, interfered, exit_status, failed)
	SELECT 100 + i, 'nightly', '-', 0, printf('2026-12-01T01:%02d:00Z', i), '$T/runs/' || i,
	CASE WHEN i % 6 < 3 THEN 'rig-a' ELSE 'rig-b' END, 'b' || (i / 6 + 1), 0, 0, 0 FROM r;
INSERT INTO metrics (run_id, metric, value) SELECT id, 'stalls', CASE WHEN id - 100 >= 24 THEN 1 ELSE 0 END FROM runs WHERE name = 'nightly';
INSERT INTO metrics (run_id, metric, value) SELECT id, 'stall_s', CASE WHEN id - 100 >= 24 THEN 0.3 + (id % 3) * 0.01 ELSE 0 END FROM runs WHERE name = 'nightly';
INSERT INTO metrics (run_id, metric, value) SELECT id, 'stall_io_s', CASE WHEN id - 100 >= 24 THEN 0.3 + (id % 3) * 0.01 ELSE 0 END FROM runs WHERE name = 'nightly';
INSERT INTO metrics (run_id, metric, value) SELECT id, 'fps', 60 + (id % 5) * 0.1
	- CASE WHEN rig = 'rig-a' AND id - 100 >= 24 THEN 10 WHEN rig = 'rig-b' AND id - 100 >= 30 THEN 10 ELSE 0 END
	FROM runs WHERE name = 'nightly';
COMMIT;" || { echo "FAIL sqlite3"; exit 1; }
for i in 24 25; do mkdir -p "runs/$i"; done
printf '<html>run 24</html>\n' >runs/24/report.html

"$B" history nightly --db h.db --metrics stalls,stall_s,fps --json >h.json 2>err ||
	{ cat err; echo "FAIL history --json"; exit 1; }
"$B" html --history nightly --db h.db --metrics stalls,stall_s,fps -o h.html 2>err; rc=$?
check "html --history: exit 0, says what it wrote" '[ $rc = 0 ] && [ -s h.html ] && grep -q "wrote .h.html. (48 runs of 8 builds)" err'
check "the page is self-contained (no http/https source)" '! grep -qiE "(src|href)=\"https?:" h.html'
# one build: a page that says so
sqlite3 h.db "INSERT INTO runs (id, name, variant, round, started, rundir, rig, build, interfered, exit_status, failed)
	VALUES (500, 'lone', '-', 0, '2026-12-01T02:00:00Z', '/nowhere', 'rig-a', 'only', 0, 0, 0);
	INSERT INTO metrics VALUES (500, 'stalls', 2);"
"$B" html --history lone --db h.db --metrics stalls -o one.html 2>err
check "one build: a page" '[ -s one.html ]'
"$B" html --history nosuch --db h.db -o none.html 2>err; rc=$?
check "unknown benchmark: exit 1, said, no page" '[ $rc = 1 ] && grep -q "no runs of .nosuch:-. with a build" err && grep -q "no page written" err && [ ! -e none.html ]'
"$B" html --history nightly --db h.db --since 2030-01-01 -o none.html 2>err; rc=$?
check "an empty --since window: exit 1, no page" '[ $rc = 1 ] && [ ! -e none.html ]'
"$B" html --history nightly --db h.db --alpha 2 -o none.html 2>err; rc=$?
check "--alpha out of range: exit 2" '[ $rc = 2 ] && [ ! -e none.html ]'
"$B" html --history nightly --db h.db run-dir -o none.html 2>err; rc=$?
check "a run directory beside --history: exit 2" '[ $rc = 2 ] && grep -q "takes no run directories" err'

"$B" html --history --help >out 2>&1; rc=$?
check "--history --help: its usage, exit 0" '[ $rc = 0 ] && grep -q "^usage: stallscope html --history" out'
mkdir -p "$SS_BUILD/html-shots"
PYTHONPATH=$SS_SRC/tests/e2e/lib python3 - "$T" "$SS_BUILD/html-shots" <<'PY' || fail=1
import json, sys, cdp
T, shots = sys.argv[1], sys.argv[2]
bad = []
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        bad.append(what)

hist = json.load(open(T + "/h.json"))
want = {}
for s in hist["series"]:
    want[(s["metric"], s["rig"])] = [(c["build_before"], c["build_after"], round(c["p"], 6), c["worse"])
                                     for c in s["change_points"]]
with cdp.Browser() as b:
    p = b.page("file://" + T + "/h.html")
    p.wait("window.ssHistory && (window.ssHistory.ready || window.ssHistory.error)", 30)
    check(p.errors == [] and p.eval("ssHistory.ready"), "the page loads with no script error %s" % p.errors)
    got = {}
    for v in p.eval("""ssHistory.views.map(v => ({metric: v.metric, marks: v.marks.map(m =>
        [ssHistory.data.rigs[m.rig], m.build_before, m.build_after, Math.round(m.cp.p * 1e6) / 1e6, m.cp.worse])}))"""):
        for rig, bb, ba, pv, w in v["marks"]:
            got.setdefault((v["metric"], rig), []).append((bb, ba, pv, w))
    check(got == {k: v for k, v in want.items() if v},
          "the marks are history --json's change points: %s" % sorted(got.items()))
    check(want[("stalls", "rig-a")] == [("b4", "b5", want[("stalls", "rig-a")][0][2], True)] and
          want[("fps", "rig-b")] and want[("fps", "rig-b")][0][:2] == ("b5", "b6"),
          "history found the planted builds (stalls b4|b5, fps on rig-b b5|b6)")
    # each mark at the pixel between its builds, and drawn there in red, not elsewhere
    pos = p.eval("""ssHistory.views.flatMap(v => v.marks.map(m => { const u = v.plot, d = ssHistory.data;
        const bi = d.builds.indexOf(m.build_before), ai = d.builds.indexOf(m.build_after);
        const px = u.valToPos(m.x, 'x', true), lo = u.valToPos(bi, 'x', true), hi = u.valToPos(ai, 'x', true);
        const red = (x) => { const img = u.ctx.getImageData(Math.round(x), u.bbox.top, 1, u.bbox.height).data;
            let n = 0; for (let i = 0; i < img.length; i += 4) if (img[i] > 180 && img[i + 1] < 40 && img[i + 2] < 40) n++; return n; };
        return [v.metric, m.build_after, Math.abs(px - (lo + hi) / 2), red(px), red(u.valToPos(1.25, 'x', true))]; }))""")
    check(len(pos) == 6 and all(off < 1 for _, _, off, _, _ in pos),
          "each mark midway between its builds' x: %s" % [(m, a, round(o, 2)) for m, a, o, _, _ in pos])
    check(all(r > 50 and elsewhere == 0 for _, _, _, r, elsewhere in pos),
          "each mark drawn in red at its x (pixels), none at build b2: %s" % [(m, a, r, e) for m, a, _, r, e in pos])
    # hover the stalls plot's first mark
    xy = p.eval("""(() => { const v = ssHistory.views.find(v => v.metric === 'stalls'), u = v.plot;
        const bx = u.over.getBoundingClientRect(); window.scrollTo(0, 0);
        return [bx.left + u.valToPos(v.marks[0].x, 'x'), bx.top + bx.height / 2]; })()""")
    p.mouse("mouseMoved", xy[0], xy[1])
    tip = p.eval("(() => { const t = document.querySelector('section[data-metric=stalls] .ss-tip'); return t.style.display === 'block' ? t.textContent : ''; })()")
    check(tip.count("b4 -> b5: 0 -> 1 (up from 0), p 0.0") == 2 and "rig rig-a" in tip and
          "rig rig-b" in tip and "WORSE" in tip and "io 0.000 -> 0.31" in tip,
          "hovering the stalls mark: both rigs' builds, change, p, io (%r)" % tip)
    # click build b5: its runs, the page at hand linked
    xy = p.eval("""(() => { const v = ssHistory.views.find(v => v.metric === 'stalls'), u = v.plot;
        const bx = u.over.getBoundingClientRect(); return [bx.left + u.valToPos(4, 'x'), bx.top + 20]; })()""")
    p.mouse("mouseMoved", xy[0], xy[1])
    p.mouse("mousePressed", xy[0], xy[1], "left", 1, 1)
    p.mouse("mouseReleased", xy[0], xy[1], "left", 0, 1)
    rows = p.eval("""[...document.querySelectorAll('section[data-metric=stalls] .ss-runs tr.ss-run')].map(tr =>
        [tr.children[0].textContent, tr.children[1].textContent, tr.children[4].textContent,
         (tr.querySelector('a') || {}).href || ''])""")
    check(len(rows) == 6 and sorted(r[0] for r in rows) == ["rig-a"] * 3 + ["rig-b"] * 3,
          "clicking b5 lists its 6 runs on both rigs (%d)" % len(rows))
    links = [r for r in rows if r[3]]
    check(len(links) == 1 and links[0][1] == "124" and links[0][3] == "file://" + T + "/runs/24/report.html",
          "the one run page at hand is linked: %s" % links)
    check(any(r[1] == "125" and r[2] == "no page yet: stallscope html " + T + "/runs/25" for r in rows) and
          any(r[1] == "126" and r[2].startswith("run directory not here") for r in rows),
          "the others say how to make a page or that the directory is not here")
    p.screenshot(shots + "/history.png")
    q = b.page("file://" + T + "/one.html")
    q.wait("window.ssHistory && (window.ssHistory.ready || window.ssHistory.error)", 30)
    txt = q.eval("document.body.innerText")
    check(q.errors == [] and "no change points: 1 build(s), a split needs at least 6" in txt and
          q.eval("ssHistory.views[0].marks.length") == 0,
          "one build: the page says too few builds, no mark")
sys.exit(1 if bad else 0)
PY
exit $fail
