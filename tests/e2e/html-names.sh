#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live parallel
# The html page draws whatever a program or a file is called (issue 26
# item 9). A program name "<!--<script>" once put the data's script element
# into the HTML tokenizer's "double escaped" state: the page's own
# "</script>" no longer closed it, the page's script became data and nothing
# drew. Here: a frame log named "<!--<script>.txt", and a run whose run.ini
# says program=<!--<script> and variant=</script><script>...</script>, each
# as a page in headless chromium (tests/e2e/lib/cdp.py): it draws with no
# page error, shows the names as text, and no script of theirs ran. Skips
# (77) without chromium (scripts/deps.sh test installs it).
set -u
command -v chromium >/dev/null || { echo "skip: no chromium (package chromium)"; exit 77; }
[ -x "$SS_BUILD/fakegame" ] || { echo "skip: no fakegame in '$SS_BUILD'"; exit 77; }
[ -d /dev/shm ] || { echo "skip: no /dev/shm"; exit 77; }
T=$(mktemp -d "$SS_BUILD/ss-e2e-htmlnames.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
unset ASAN_OPTIONS UBSAN_OPTIONS	# chromium is not ours

log='<!--<script>.txt'
for i in $(seq 1 200); do echo 16.7; done >"$T/$log"
"$SS_BIN" html -o "$T/log.html" "$T/$log" 2>"$T/err" || fail "html of '$log': $(cat "$T/err")"

"$SS_BIN" record -q -o "$T/run" --frames marker -- "$SS_BUILD/fakegame" --quiet --seconds 1 \
	>/dev/null 2>"$T/err" || fail "record: $(cat "$T/err")"
sed -i -e 's|^program=.*|program=<!--<script>|' "$T/run/run.ini"
echo 'variant=</script><script>window.ssPwned = 1</script><!--' >>"$T/run/run.ini"
"$SS_BIN" html --warmup 0 -o "$T/run.html" "$T/run" 2>"$T/err" || fail "html of the run: $(cat "$T/err")"
# the run's frames (times between presents), as many as a loaded machine
# let the 1 s run draw
nrun=$("$SS_BIN" report --json --warmup 0 "$T/run" |
	python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["frames"])')
[ "$nrun" -gt 10 ] || fail "the run has $nrun frames"

PYTHONPATH=$SS_SRC/tests/e2e/lib python3 - "$T" "$nrun" <<'PY' || exit 1
import sys, cdp
T = sys.argv[1]
want_n = {"log.html": 200, "run.html": int(sys.argv[2])}
bad = []
def check(ok, what):
    print(("ok    " if ok else "FAIL: ") + what)
    if not ok:
        bad.append(what)

with cdp.Browser() as b:
    for page, want in (("log.html", "<!--<script>.txt"),
                       ("run.html", "<!--<script> [</script><script>window.ssPwned = 1</script><!--]")):
        p = b.page("file://" + T + "/" + page)
        try:
            p.wait("window.ssReport && window.ssReport.ready", 30)
            ready = True
        except Exception as e:
            ready = False
            print("      " + str(e))
        check(ready and p.errors == [], "%s draws, no page error %s" % (page, p.errors))
        if not ready:
            continue
        v = p.eval("""(() => ({ n: ssReport.runs[0].nframes, pwned: typeof window.ssPwned,
            h2: document.querySelector('h2').textContent,
            src: document.querySelector('.ss-src').textContent }))()""")
        check(v["n"] == want_n[page], "%s: its plot has the run's %d frames (%d)" % (page, want_n[page], v["n"]))
        shown = v["h2"] if page == "run.html" else v["src"]
        check(want in shown, "%s shows the name as text: %r" % (page, shown))
        check(v["pwned"] == "undefined", "%s: no script in a name ran" % page)
sys.exit(1 if bad else 0)
PY
