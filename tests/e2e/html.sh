#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live parallel
# `stallscope html` in a real browser: Debian's chromium, headless, driven
# over the DevTools protocol (tests/e2e/lib/cdp.py: --remote-debugging-pipe,
# the standard library only). The demo run (scripts/demo-causes.sh: the fake
# game's stall kinds) as a page: it loads with no page error; the plot has
# as many points as the run has frames; each stall is drawn in its cause's
# colour and the causes are `stalls --json`'s; hovering one shows its cause
# and evidence; a drag zoom changes the x range; the stall table has a row
# per stall with the same causes; `record --html` writes a run's page (and
# glxgears', a real program under Xvfb, draws every frame); the
# comparison page of a small bench of two variants shows compare --json's
# medians, p values and '~'. Where the demo recorded stacks (docs/WHERE.md),
# the flame graphs: the longest stall's at first; clicking the cpu stall's
# row draws its canvas with exactly the frames `stalls --json` gives it
# (spin_until <- stall_cpu), its samples at the root; hovering spin_until
# names it, clicking it zooms; the sleep stall's row changes it
# (stall_sleep, no spin_until); the all-stalls graph has the causes above
# its root, weighted by stall time. The stub GL program's timed calls
# (tests/progs/stub/ss-stubapi: a 300 ms glLinkProgram, a 250 ms
# glClientWaitSync) show in the stall table's API call column. Then
# the bad inputs: an empty run, a run
# with no frames, a frame log with one frame: a page that says so and no
# script error. Then what a run's section says first (issue 32): why its
# numbers are missing, red, above the plot, with what to do (a run shorter
# than its warm-up, as record --html writes it and says on the terminal; a
# failed run; a damaged record; no frames); the warm-up beside the window in
# the stall seconds by cause and the metrics (the demo run with its 60 s
# warm-up); the evidence's first clause, the rest on a click, intervals
# grouped by kind and waker; the stall table 1366 px wide. Screenshots go to $SS_BUILD/html-shots/ for a person to look
# at. Skips (77) without chromium (scripts/deps.sh test installs it).
set -u
command -v chromium >/dev/null || { echo "skip: no chromium (package chromium)"; exit 77; }
[ -x "$SS_BUILD/fakegame" ] || { echo "skip: no fakegame in '$SS_BUILD'"; exit 77; }
T=$(mktemp -d "$SS_BUILD/ss-e2e-html.XXXXXX")
trap 'rm -rf "$T"' EXIT
SHOTS=$SS_BUILD/html-shots
mkdir -p "$SHOTS"
fail() { echo "FAIL: $*"; exit 1; }
unset ASAN_OPTIONS UBSAN_OPTIONS	# chromium is not ours

DEMO_RUN_OUT=$T/demo sh "$SS_SRC/scripts/demo-causes.sh" "$SS_BUILD" >"$T/demo.out" 2>&1 ||
	fail "demo-causes.sh: $(tail -5 "$T/demo.out")"
"$SS_BIN" html --warmup 0 -o "$T/demo.html" "$T/demo" 2>"$T/html.err" || fail "html: $(cat "$T/html.err")"
"$SS_BIN" stalls --json --warmup 0 "$T/demo" >"$T/stalls.json" || fail "stalls --json"
# the frame times: one per present after the first (report's frames, the whole run)
frames=$("$SS_BIN" report --json --warmup 0 "$T/demo" | python3 -c 'import json,sys; print(int(json.load(sys.stdin)[0]["frames"]))')

# record --html writes the run's page at the end
"$SS_BIN" record -q --html -o "$T/rh" --frames marker -- "$SS_BUILD/tools/ss-markers" --seconds 1 \
	>/dev/null 2>"$T/rh.err" || fail "record --html: $(cat "$T/rh.err")"
[ -s "$T/rh/report.html" ] || fail "record --html wrote no $T/rh/report.html"

# a real program from Debian: glxgears under Xvfb (Mesa's software GL)
gears=
if command -v glxgears >/dev/null && command -v xvfb-run >/dev/null; then
	LIBGL_ALWAYS_SOFTWARE=1 timeout 120 xvfb-run -a -s "-screen 0 640x480x24" \
		"$SS_BIN" record -q --html -o "$T/gears" --duration 3 -- glxgears >"$T/gears.out" 2>&1 ||
		fail "record --html glxgears: $(tail -5 "$T/gears.out")"
	gears=$("$SS_BIN" report --json --warmup 0 "$T/gears" |
		python3 -c 'import json,sys; print(int(json.load(sys.stdin)[0]["frames"]))')
	"$SS_BIN" html --warmup 0 -o "$T/gears.html" "$T/gears" 2>/dev/null || fail "html glxgears"
else
	# scripts/deps.sh installs both (mesa-utils, xvfb): a machine without
	# them is not set up for the tests; the other cases run, then it fails
	nogears="no glxgears or xvfb-run (scripts/deps.sh: mesa-utils, xvfb): the real program's page was not checked"
fi

# a comparison page from a small bench of two variants, beside compare --json
B="hc:FAKEGAME_STALL=sleep:200@0.5"
(cd "$T" && "$SS_BIN" bench hc --db "$T/h.db" --results "$T/res" --rounds 4 \
	--variants "- FAKEGAME_STALL=sleep:200@0.5" --warmup 0 --frames marker --no-watch --html \
	-- "$SS_BUILD/fakegame" --seconds 1 >"$T/bench.out" 2>&1) || fail "bench: $(tail -5 "$T/bench.out")"
"$SS_BIN" compare --db "$T/h.db" --json "hc:-" "$B" >"$T/cmp.json" || fail "compare --json"
"$SS_BIN" html --db "$T/h.db" -o "$T/cmp.html" "hc:-" "$B" 2>"$T/cmp.err" ||
	fail "html --db: $(cat "$T/cmp.err")"

# the API call column: the stub GL program's timed calls (as
# tests/e2e/shim-apispans.sh records them)
api=
if [ -x "$SS_BUILD/stub/ss-stubapi" ]; then
	"$SS_BIN" record -q -o "$T/api" -- "$SS_BUILD/stub/ss-stubapi" 300 250 >"$T/api.out" 2>&1 ||
		fail "record ss-stubapi: $(tail -5 "$T/api.out")"
	"$SS_BIN" html --warmup 0 -o "$T/api.html" "$T/api" 2>/dev/null || fail "html of the API run"
	api=1
fi

# the bad inputs
"$SS_BIN" record -q -o "$T/empty" -- true >/dev/null 2>&1 || true
"$SS_BIN" record -q -o "$T/noframes" --frames none --duration 1 -- sleep 3 >/dev/null 2>&1 ||
	fail "record --frames none"
printf '16.7\n' >"$T/one.txt"
for b in empty noframes one.txt; do
	"$SS_BIN" html -o "$T/$b.html" "$T/$b" 2>"$T/$b.err" || fail "html $b: $(cat "$T/$b.err")"
done

# why numbers are missing, at the top of a run's section (issue 32): the
# ss-markers run (1 s) is shorter than record --html's 60 s warm-up, and
# record says so; a copy of it whose run.ini says exit_status=3 (the page's
# words are under test, not the recorder's judgement), a copy with bytes
# flipped; the demo run with the 60 s warm-up, which holds every stall
grep -q "shorter than the 60 s warm-up.*stallscope html --warmup 0 $T/rh\$" "$T/rh.err" ||
	fail "record --html does not say the run is shorter than its warm-up, with the command: $(cat "$T/rh.err")"
echo "ok    record --html says: $(grep warm-up "$T/rh.err")"
cp -r "$T/rh" "$T/failed"
sed -i 's/^exit_status=.*/exit_status=3/' "$T/failed/run.ini"
cp -r "$T/rh" "$T/damaged"
size=$(stat -c %s "$T/damaged/record.ssr")
head -c 64 /dev/zero | tr '\0' '\377' |
	dd of="$T/damaged/record.ssr" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
for b in failed damaged; do
	"$SS_BIN" html -o "$T/$b.html" "$T/$b" 2>"$T/$b.err" || fail "html $b: $(cat "$T/$b.err")"
done
"$SS_BIN" html -o "$T/demo-warm.html" "$T/demo" 2>"$T/demo-warm.err" ||
	fail "html of the demo with its warm-up: $(cat "$T/demo-warm.err")"
"$SS_BIN" report --json "$T/demo" >"$T/demo-warm.json" || fail "report --json demo"

stacks=$(sed -n 's/^stacks=//p' "$T/demo/run.ini")
stacks_reason=$(sed -n 's/^stacks_reason=//p' "$T/demo/run.ini")
PYTHONPATH=$SS_SRC/tests/e2e/lib python3 - "$T" "$SHOTS" "$frames" "$gears" "$stacks" "$api" <<'PY' || exit 1
import json, re, sys, cdp
T, shots, frames = sys.argv[1], sys.argv[2], int(sys.argv[3])
COLORS = {"disk": "#1f77b4", "swap": "#9467bd", "reclaim": "#8c564b", "gpu": "#e377c2",
          "cpu": "#d62728", "runq": "#ff7f0e", "io": "#17becf", "wait": "#2ca02c",
          "fault": "#7f7f7f", "unknown": "#bcbd22"}
bad = []
def check(ok, what):
    print(("ok    " if ok else "FAIL: ") + what)
    if not ok:
        bad.append(what)

want = [s["cause"] for s in json.load(open(T + "/stalls.json"))[0]["stalls"]]
with cdp.Browser() as b:
    p = b.page("file://" + T + "/demo.html")
    p.wait("window.ssReport && window.ssReport.ready", 60)
    check(p.errors == [], "the demo page loads with no page error %s" % p.errors)
    v = p.eval("""(() => { const r = ssReport.runs[0];
        return { n: r.nframes, len: r.plot.data[0].length,
                 markers: r.markers.map(m => [m.stall.cause, m.color]),
                 rows: [...document.querySelectorAll('tr.ss-stall')].map(tr => tr.children[2].textContent) }; })()""")
    check(v["n"] == frames and v["len"] == frames,
          "the plot has every frame: %d points, report's frames %d" % (v["len"], frames))
    got = [c for c, _ in v["markers"]]
    check(got == want, "the stalls drawn are stalls --json's, in order: %s" % got)
    check(all(col == COLORS[c] for c, col in v["markers"]), "each stall in its cause's colour")
    check(len(v["rows"]) == len(want) and all(r.startswith(c) for r, c in zip(v["rows"], want)),
          "the stall table has a row per stall with its cause (%d rows)" % len(v["rows"]))
    # hover each stall's marker: its cause and evidence in the tooltip
    hovered = 0
    for i, c in enumerate(want):
        p.eval("""(async () => { const r = ssReport.runs[0], m = r.markers[%d];
            r.plot.setScale('x', {min: m.x - 2, max: m.x + 1});
            await new Promise(ok => requestAnimationFrame(() => requestAnimationFrame(ok))); })()""" % i)
        pos = p.eval("""(() => { const r = ssReport.runs[0], u = r.plot, m = r.markers[%d];
            const b = u.over.getBoundingClientRect();
            return [b.left + u.valToPos(m.x, 'x'), b.top + u.valToPos(Math.min(m.y, u.scales.y.max), 'y')]; })()""" % i)
        p.mouse("mouseMoved", pos[0], pos[1])
        tip = p.eval("document.querySelector('.ss-tip').style.display === 'block' ? document.querySelector('.ss-tip').textContent : ''")
        s = json.load(open(T + "/stalls.json"))[0]["stalls"][i]
        if (": " + c) in tip and (s["evidence"]["state"] or "") in tip:
            hovered += 1
        else:
            print("      stall %d (%s): tooltip %r" % (i, c, tip[:200]))
    check(hovered == len(want), "hovering each of the %d stalls shows its cause and evidence" % len(want))
    # a drag zoom
    p.eval("ssReport.runs[0].plot.setScale('x', {min: ssReport.runs[0].plot.data[0][0], max: ssReport.runs[0].plot.data[0][ssReport.runs[0].plot.data[0].length - 1]})")
    before = p.eval("[ssReport.runs[0].plot.scales.x.min, ssReport.runs[0].plot.scales.x.max]")
    box = p.eval("(() => { const b = ssReport.runs[0].plot.over.getBoundingClientRect(); return [b.left, b.top, b.width, b.height]; })()")
    y = box[1] + box[3] / 2
    p.mouse("mousePressed", box[0] + box[2] * 0.3, y, "left", 1, 1)
    p.mouse("mouseMoved", box[0] + box[2] * 0.45, y, "left", 1)
    p.mouse("mouseMoved", box[0] + box[2] * 0.6, y, "left", 1)
    p.mouse("mouseReleased", box[0] + box[2] * 0.6, y, "left", 0, 1)
    after = p.eval("[ssReport.runs[0].plot.scales.x.min, ssReport.runs[0].plot.scales.x.max]")
    check(after[1] - after[0] < 0.5 * (before[1] - before[0]),
          "a drag zoom narrows the x range: %.2f-%.2f s to %.2f-%.2f s" % tuple(before + after))
    # the arrow keys pan by a quarter of the range, keeping its width
    p.eval("ssReport.runs[0].plot.root.parentElement.focus()")
    for kind in ("rawKeyDown", "keyUp"):
        p.send("Input.dispatchKeyEvent", {"type": kind, "key": "ArrowRight", "code": "ArrowRight",
                                         "windowsVirtualKeyCode": 39})
    panned = p.eval("[ssReport.runs[0].plot.scales.x.min, ssReport.runs[0].plot.scales.x.max]")
    w0, w1 = after[1] - after[0], panned[1] - panned[0]
    check(abs(w1 - w0) < 1e-6 * max(1, w0) and panned[0] > after[0],
          "the right arrow pans: %.2f-%.2f s" % tuple(panned))
    # a double-click resets the zoom to the whole run
    cx = box[0] + box[2] / 2
    for k in (1, 2):
        p.mouse("mousePressed", cx, y, "left", 1, k)
        p.mouse("mouseReleased", cx, y, "left", 0, k)
    reset = p.eval("[ssReport.runs[0].plot.scales.x.min, ssReport.runs[0].plot.scales.x.max]")
    check(reset[1] - reset[0] > 0.9 * (before[1] - before[0]),
          "a double-click resets the zoom: %.2f-%.2f s" % tuple(reset))
    p.eval("ssReport.runs[0].plot.setScale('x', {min: ssReport.runs[0].plot.data[0][0], max: ssReport.runs[0].plot.data[0][ssReport.runs[0].plot.data[0].length - 1]})")
    p.screenshot(shots + "/demo.png")
    text = p.eval("document.body.innerText")
    check("CPU per frame, by thread" in text and "the recorder's own cost" in text and "[object" not in text,
          "the run page has the threads' CPU per frame and the recorder's figures")
    # the flame graphs (share/html/flame.js), where the demo has stacks
    st_json = json.load(open(T + "/stalls.json"))[0]["stalls"]
    def frames_of(s):
        return {f for x in s.get("stacks", []) for f in x["frames"]} | \
               {k + "_[k]" for x in s.get("stacks", []) for k in x.get("kernel", [])}
    def stall_with(fn):
        return next((i for i, s in enumerate(st_json)
                     if any(f.startswith(fn) for f in frames_of(s))), None)
    if sys.argv[5] == "on":
        f0 = p.eval("""(() => { const f = ssReport.runs[0].flame;
            return f && f.stall ? [f.stall.t_s, f.one.rects.length] : null; })()""")
        longest = max((s for s in st_json if s.get("stack_samples")), key=lambda s: s["ms"])
        check(f0 is not None and abs(f0[0] - longest["t_s"]) < 1e-6 and f0[1] > 1,
              "at first the flame graph is the longest stall's with stacks (%s)" % (f0,))
        def pick(i):
            p.eval("document.querySelectorAll('tr.ss-stall')[%d].click()" % i)
            return p.eval("""(() => { const f = ssReport.runs[0].flame, c = f.one.canvas;
                return { t: f.stall.t_s, root: f.one.root.value, w: c.width, h: c.height,
                         names: f.one.rects.slice(1).map(r => r.name) }; })()""")
        cpu, sleep = stall_with("stall_cpu"), stall_with("stall_sleep")
        check(cpu is not None and sleep is not None,
              "stalls --json names stall_cpu and stall_sleep (cpu stall %s, sleep stall %s)" % (cpu, sleep))
        v = pick(cpu)
        want = frames_of(st_json[cpu])
        check(v["t"] == st_json[cpu]["t_s"] and set(v["names"]) == want and
              v["root"] == st_json[cpu]["stack_samples"] and v["w"] > 0 and v["h"] > 0,
              "clicking the cpu stall draws its frames, stalls --json's %d (%d samples): %s" %
              (len(want), v["root"], sorted(set(v["names"]) ^ want)[:6]))
        # the canvas has spin_until's colour where its rectangle is; hover, click
        p.eval("ssReport.runs[0].flame.one.canvas.scrollIntoView({block: 'center'})")
        r = p.eval("""(() => { const f = ssReport.runs[0].flame.one, c = f.canvas;
            const r = f.rects.find(r => r.name === 'spin_until'), b = c.getBoundingClientRect();
            const d = window.devicePixelRatio || 1;
            const px = c.getContext('2d').getImageData((r.x + r.w / 2) * d, (r.y + r.h / 2) * d, 1, 1).data;
            return { x: b.left + r.x + r.w / 2, y: b.top + r.y + 4, alpha: px[3], w: r.w, cw: b.width }; })()""")
        check(r["alpha"] == 255 and r["w"] > 0.5 * r["cw"],
              "spin_until is drawn, over half the width (%.0f of %.0f px)" % (r["w"], r["cw"]))
        p.mouse("mouseMoved", r["x"], r["y"])
        tip = p.eval("(() => { const t = ssReport.runs[0].flame.one.tip; return t.style.display === 'block' ? t.textContent : ''; })()")
        check(tip.startswith("spin_until\n") and "samples" in tip, "hovering spin_until names it: %r" % tip[:80])
        p.mouse("mousePressed", r["x"], r["y"], "left", 1, 1)
        p.mouse("mouseReleased", r["x"], r["y"], "left", 0, 1)
        z = p.eval("""(() => { const f = ssReport.runs[0].flame.one;
            const r = f.rects.find(r => r.node === f.focus);
            return [f.focus.name, r.w, f.canvas.getBoundingClientRect().width]; })()""")
        check(z[0] == "spin_until" and abs(z[1] - z[2]) < 2, "clicking spin_until zooms into it: %s" % z)
        p.screenshot(shots + "/flame.png", full=False)
        v = pick(sleep)
        check(v["t"] == st_json[sleep]["t_s"] and "spin_until" not in v["names"] and
              any(n.startswith("stall_sleep") for n in v["names"]) and set(v["names"]) == frames_of(st_json[sleep]),
              "the sleep stall's row changes it: stall_sleep, no spin_until: %s" % v["names"][:8])
        a = p.eval("""(() => { const f = ssReport.runs[0].flame.all;
            return { root: f.root.value, causes: [...f.root.kids.keys()].sort(),
                     cpu: f.root.kids.get('cpu') ? f.root.kids.get('cpu').value : 0,
                     names: f.rects.map(r => r.name) }; })()""")
        causes = sorted({s["cause"] for s in st_json})
        cpu_ms = sum(s["ms"] for s in st_json if s["cause"] == "cpu")
        check(a["causes"] == causes and abs(a["root"] - sum(s["ms"] for s in st_json)) < 0.5 and
              abs(a["cpu"] - cpu_ms) < 0.5 and "spin_until" in a["names"],
              "all stalls by cause: %s over its root, cpu %.1f ms (stalls: %.1f)" % (a["causes"], a["cpu"], cpu_ms))
    else:
        text = p.eval("document.body.innerText")
        check("no stacks in this record" in text, "a run without stacks says so where the flame graphs go")
    pdf = p.send("Page.printToPDF", {"printBackground": False}, timeout=60)
    check(len(pdf.get("data", "")) > 10000 and p.errors == [], "the page prints (%d bytes of PDF)" % len(pdf.get("data", "")))
    q = b.page("file://" + T + "/rh/report.html")
    q.wait("window.ssReport && window.ssReport.ready", 30)
    n = q.eval("ssReport.runs[0].nframes")
    check(q.errors == [] and n >= 50, "record --html: its page draws %d frames, no error %s" % (n, q.errors))
    gears = sys.argv[4]
    if gears:
        q = b.page("file://" + T + "/gears.html")
        q.wait("window.ssReport && window.ssReport.ready", 60)
        n = q.eval("ssReport.runs[0].nframes")
        check(q.errors == [] and n == int(gears) and n > 30,
              "glxgears' page draws all its %d frames (report: %s), no error %s" % (n, gears, q.errors))
        q.screenshot(shots + "/glxgears.png")
    if sys.argv[6]:
        q = b.page("file://" + T + "/api.html")
        q.wait("window.ssReport && window.ssReport.ready", 60)
        rows = q.eval("""[...document.querySelectorAll('tr.ss-stall')].map(tr =>
            [tr.children[2].textContent, tr.querySelector('td.ss-api') ? tr.querySelector('td.ss-api').textContent : null])""")
        link = [r for r in rows if r[1] and re.fullmatch(r"in glLinkProgram 3\d\d\.\d ms", r[1])]
        wait = [r for r in rows if r[1] and re.fullmatch(r"in glClientWaitSync 2[5-9]\d\.\d ms", r[1])]
        check(q.errors == [] and len(link) == 1 and len(wait) == 1 and
              all(r[1] == "-" for r in rows if r not in link + wait),
              "the API call column: %s" % rows)
    q = b.page("file://" + T + "/cmp.html")
    q.wait("window.ssReport && window.ssReport.ready", 30)
    shown = {r["metric"]: r for r in q.eval("ssReport.compare")}
    same = 0
    cmp = json.load(open(T + "/cmp.json"))["metrics"]
    for m in cmp:
        r = shown.get(m["metric"])
        pv = m["p"]
        ok = r is not None and r["a_median"] == m["a_median"] and r["b_median"] == m["b_median"] \
            and r["p"] == pv and r["shown_p"] == ("-" if pv is None else "%.3f" % pv) \
            and (r["change"] == "~") == (m["significant"] is False)
        if ok:
            same += 1
        else:
            print("      %s: page %s, compare %s" % (m["metric"], r, m))
    check(q.errors == [] and same == len(cmp) and len(shown) == len(cmp),
          "the comparison page shows compare --json's %d metrics: medians, p, ~ (%d agree)" % (len(cmp), same))
    q.screenshot(shots + "/compare.png")
    q = b.page("file://" + T + "/hc.html")
    q.wait("window.ssReport && window.ssReport.ready", 30)
    check(q.errors == [] and len(q.eval("ssReport.compare")) == len(cmp),
          "bench --html wrote hc.html, the same comparison")
    for name, says in (("empty", "no frames"), ("noframes", "no frames"), ("one.txt", "no samples")):
        q = b.page("file://" + T + "/" + name + ".html")
        q.wait("window.ssReport && window.ssReport.ready", 30)
        text = q.eval("document.body.innerText")
        check(q.errors == [] and says in text and "could not be drawn" not in text,
              "%s: a page that says %r, no script error %s" % (name, says, q.errors))
        q.screenshot(shots + "/" + name + ".png")
    # why numbers are missing, at the top of each run's section (issue 32),
    # red, above the plot (or where it would be), with what to do
    REASONS = """(() => { const sec = document.querySelector('section.ss-run');
        const plot = sec.querySelector('.ss-plot, h3');
        return [...sec.querySelectorAll('.ss-reasons p.ss-reason')].map(p => ({kind: p.dataset.kind,
            text: p.textContent, red: getComputedStyle(p).color,
            above: !!(p.compareDocumentPosition(plot) & Node.DOCUMENT_POSITION_FOLLOWING)})); })()"""
    for name, kind, says in (("rh/report", "window", ["shorter than the 60 s warm-up",
                                                      "stallscope html --warmup 0 " + T + "/rh"]),
                             ("failed", "failed", ["the run failed: the program exited with status 3",
                                                   "program.log"]),
                             ("damaged", "damaged", ["the record is damaged", "record the run again"]),
                             ("noframes", "no_frames", ["no frames", "--frames none"])):
        q = b.page("file://" + T + "/" + name + ".html")
        q.wait("window.ssReport && window.ssReport.ready", 30)
        rs = q.eval(REASONS)
        r = [x for x in rs if x["kind"] == kind]
        check(q.errors == [] and len(r) == 1 and r[0]["above"] and r[0]["red"] == "rgb(170, 0, 0)" and
              all(s in r[0]["text"] for s in says) and
              (kind != "window" or re.search(r"the run is \d+\.\d s, ", r[0]["text"])),
              "%s: its reason (%s) above the plot: %s" % (name, kind, [x["text"] for x in rs]))
        q.screenshot(shots + "/reasons-" + name.replace("/", "-") + ".png", full=False)
    # the demo run with its 60 s warm-up: every stall in it, the window empty
    rep = json.load(open(T + "/demo-warm.json"))[0]
    q = b.page("file://" + T + "/demo-warm.html")
    q.wait("window.ssReport && window.ssReport.ready", 60)
    # drawn again at 1366x768: the plots take their width from the window
    q.send("Emulation.setDeviceMetricsOverride", {"width": 1366, "height": 768, "deviceScaleFactor": 1,
                                                 "mobile": False})
    q.eval("window.ssOld = 1")
    q.send("Page.reload")
    q.wait("!window.ssOld && window.ssReport && window.ssReport.ready", 60)
    v = q.eval("""(() => { const rows = [...document.querySelectorAll('.ss-bars-table tr.ss-bar-row')];
        const m = (n) => [...document.querySelector('tr.ss-metric[data-metric="' + n + '"]').children].map(td => td.textContent);
        return { win: rows.map(r => r.children[1].textContent), warm: rows.map(r => r.children[2].textContent),
                 stalls: m('stalls'), stall_s: m('stall_s'), fps: m('fps'), text: document.body.innerText,
                 drawn: ssReport.runs[0].markers.length }; })()""")
    num = lambda x: None if x in ("-", "") else float(x.split()[0])
    warm_s = sum(num(x) for x in v["warm"] if num(x) is not None)
    check(q.errors == [] and v["drawn"] >= 3 and all(x == "-" for x in v["win"]) and len(v["warm"]) == 8 and
          abs(warm_s - rep["stall_warm_s"]) < 0.01 and "no stall seconds" not in v["text"],
          "stall seconds by cause: the window '-', the warm-up's add up to stall_warm_s %.3f (%.3f), "
          "under %d drawn stalls" % (rep["stall_warm_s"], warm_s, v["drawn"]))
    check(v["stalls"][1] == "-" and num(v["stalls"][2]) == rep["stalls_warm"] and
          # the page's data has 4 decimals and shows 3: rounded twice, off by
          # up to 0.0005 + 0.00005 (2.43253 -> 2.4325 -> "2.432")
          v["stall_s"][1] == "-" and abs((num(v["stall_s"][2]) or -1) - rep["stall_warm_s"]) < 0.00056 and
          v["fps"][1] == "-" and (num(v["fps"][2]) or 0) > 0,
          "the metrics' warm-up column: stalls %s, stall_s %s, fps %s (report: stalls_warm %s, "
          "stall_warm_s %s)" % (v["stalls"], v["stall_s"], v["fps"], rep["stalls_warm"], rep["stall_warm_s"]))
    # the evidence: its first clause; the rest on a click
    EV = """(() => { const i = [...document.querySelectorAll('tr.ss-stall')].findIndex(tr => tr.querySelector('.ss-ev-more'));
        const td = document.querySelectorAll('tr.ss-stall td.ss-ev')[i], rest = td.querySelector('.ss-ev-rest');
        const s = ssReport.runs[0].run.stalls.find(s => s._row === td.parentElement);
        return { i: i, head: td.querySelector('.ss-ev-head').textContent, clauses: s.ev_clauses, top: s.ev_top,
                 groups: ssGroupIntervals(s.iv || []).map(g => g.text), shown: rest.offsetHeight > 0,
                 text: rest.innerText, h: td.offsetHeight }; })()"""
    e = q.eval(EV)
    rest = [c for k, c in enumerate(e["clauses"]) if k not in (0, e["top"])]
    check(e["i"] >= 0 and e["head"].startswith(e["clauses"][0]) and not e["shown"] and
          all(c not in e["head"] for c in rest),
          "the evidence shows its first clause, the rest hidden: %r" % e["head"])
    q.eval("document.querySelectorAll('tr.ss-stall')[%d].querySelector('.ss-ev-more').click()" % e["i"])
    e2 = q.eval(EV)
    check(e2["shown"] and e2["h"] > e["h"] and all(c in e2["text"] for c in rest + e["groups"]),
          "a click opens the rest (%d clauses, %d interval groups): %r" % (len(rest), len(e["groups"]), e2["text"][:160]))
    g = q.eval("""ssGroupIntervals([
        {kind: 'futex', ms: 14.2, sys: 'futex', waker: 'llvmpipe-1'},
        {kind: 'futex', ms: 9.3, sys: 'futex', waker: 'llvmpipe-0'},
        {kind: 'futex', ms: 8.1, sys: 'futex', waker: 'llvmpipe-1'},
        {kind: 'sleep', ms: 40.0, sys: 'clock_nanosleep', waker: null},
        {kind: 'futex', ms: 2.0, sys: 'futex', waker: 'Xorg'},
        {kind: 'other', ms: 1.5, sys: null, waker: 'migration/0'}]).map(g => g.text)""")
    check(g == ["sleep, 40.0 ms in clock_nanosleep", "futex x3, 31.6 ms in futex, woken by llvmpipe-0/1",
                "futex, 2.0 ms in futex, woken by Xorg", "other, 1.5 ms, woken by migration/0"],
          "intervals grouped by kind and waker: %s" % g)
    q.screenshot(shots + "/warmup-1366.png", full=False)
    # 1366 px wide, with a file name that cannot break at a space
    q.eval("""document.querySelector('tr.ss-stall .ss-ev-head').textContent =
        'D in pread64(/home/player/.local/share/Steam/steamapps/common/OpenArena/baseoa/' +
        'pak6_patch3_with_a_very_long_name_that_goes_on_and_on_and_on_and_on_and_on_and_on_and_on.pk3)'""")
    wd = q.eval("""(() => { const t = document.querySelector('table.ss-stalls').getBoundingClientRect();
        return [document.documentElement.scrollWidth, window.innerWidth, t.right]; })()""")
    check(wd[1] == 1366 and wd[0] <= wd[1] and wd[2] <= wd[1],
          "the stalls table fits 1366 px: page %d px, window %d, the table's right edge %d" % tuple(wd))
print("screenshots in " + shots)
sys.exit(1 if bad else 0)
PY
[ -z "$gears" ] && fail "$nogears"
if [ -z "$api" ]; then
	echo "skip: no $SS_BUILD/stub/ss-stubapi: the API call column is not checked"
	exit 77
fi
if [ "$stacks" != on ]; then
	echo "skip: the demo run has no stacks (run.ini: stacks=$stacks, $stacks_reason): the flame graphs are not checked"
	exit 77
fi
