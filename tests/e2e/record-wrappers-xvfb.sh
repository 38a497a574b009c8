#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live parallel
# `record -- xvfb-run -a glxgears` was named `xvfb-run` (issue 27, item 2):
# run.ini program, the run directory, and the reload rule report looked up
# (`no reload rule for 'xvfb-run'`). Now glxgears, whose rule the shipped
# share/reload-rules.ini has; xvfb-run in program_via, the argv as given.
# record-wrappers.sh has the other wrappers, on the fake game.
. "$SS_SRC/tests/e2e/lib/record.sh"
for p in xvfb-run glxgears; do
	command -v $p >/dev/null || { echo "skip: $p not installed (scripts/deps.sh test)"; exit 77; }
done
"$SS_BIN" record -q --duration 2 -- xvfb-run -a glxgears >/dev/null 2>&1 ||
	fail "record xvfb-run -a glxgears failed"
[ "$(ls runs | wc -l)" = 1 ] || fail "run directories: $(ls runs)"
d=runs/$(ls runs)
case $d in
runs/*-glxgears) ;;
*) fail "the run directory is '$d', not named after glxgears" ;;
esac
expect_eq program "$(ini "$d/run.ini" program)" glxgears
expect_eq program_via "$(ini "$d/run.ini" program_via)" xvfb-run
expect_eq argv "$(ini "$d/run.ini" argv)" "xvfb-run -a glxgears"
expect_ge frames "$(ini "$d/run.ini" frames)" 1
"$SS_BIN" report --warmup 0 "$d" >/dev/null 2>notes || fail "report: $(cat notes)"
grep -q "no reload rule" notes && fail "glxgears's reload rule not applied: $(cat notes)"
echo "ok: xvfb-run -a glxgears named glxgears, its reload rule applied"
