#!/bin/sh
# SPDX-License-Identifier: MIT
# demo.sh BUILD: the main job on the built-in demo.
set -eu
build=$(cd "${1:-build}" && pwd)
bin=$build/stallscope
"$bin" --version

# report on bundled sample logs (docs/METRICS.md defines every column)
cd "$(dirname "$0")/.."
src=.
echo
echo "== stallscope report demo/hud-frametimes.txt  (synthetic: warm-up hitches, 3 stalls)"
"$bin" report "$src/demo/hud-frametimes.txt"
mh="$src/tests/fixtures/framelogs/mangohud-0.6.8-perframe.csv"
if [ -f "$mh" ]; then
	echo
	echo "== a real MangoHud 0.6.8 log of glxgears (8 s, so --warmup 0), with MangoHud's own numbers"
	"$bin" report --warmup 0 --cols source,format,frames,fps,p99_ms,low1,stalls,longest_ms,mangohud.fps_0_1_min,mangohud.fps_1_min,mangohud.fps_97,mangohud.fps_avg "$mh"
	echo "MangoHud's summary said: $(tail -1 "${mh%.csv}_summary.csv" | cut -d, -f1-4)"
fi
gen=$build/tests/test-rundir
if [ -x "$gen" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	mkdir "$tmp/run-demo-loop"
	"$gen" --write "$tmp/run-demo-loop"
	printf '[demo-loop]\nline = ^Loaded map\nafter = 0.2\nwhy = the demo prints it when its map is loaded\n' >"$tmp/rules.ini"
	echo
	echo "== a run directory of a looping demo (3 passes, each reloading its map): play leaves the reloads out"
	"$bin" report --warmup 0 --rules "$tmp/rules.ini" \
		--cols program,variant,frames,stalls,longest_ms,stalls_play,longest_play_ms,reload_n,reload_s,win_play_s \
		"$tmp/run-demo-loop"
fi

# the main job: record the fake game stalling in each way, report and stalls
"$src/scripts/demo-causes.sh" "$build"
