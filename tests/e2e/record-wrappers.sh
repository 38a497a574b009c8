#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live parallel
# Runs named after the game, not its wrapper (issue 27, item 2): `record --
# mangohud openarena` was run.ini program=mangohud, the run directory
# runs/STAMP-mangohud, and the [openarena] reload rule never applied. Each
# run here goes through wrappers to the fake game (or glxgears under
# xvfb-run, where installed) and must be named after it in run.ini, in the
# run directory's name and in the reload rule report looks up; the whole
# command line stays in argv, the wrappers in program_via. When the argv
# says nothing (sh -c '$GAME'), the process that presented names the run;
# when a launcher named after its game execs another program, the
# launcher's name stays and program_presented says who presented. A run
# recorded before (program=env) is named behind its wrappers by analysis,
# and so in the results database; a process attached to that Wine named
# foo.exe is foo.
. "$SS_SRC/tests/e2e/lib/record.sh"
GAME=$SS_BUILD/fakegame
[ -x "$GAME" ] || { echo "skip: $GAME not built"; exit 77; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
# a rule only the fake game's name finds: a pass stamp at 0.2 s makes one
# reload segment of it (reload_n=1); any other name finds none (reload_n=0)
printf '[fakegame]\nfixed = 0.3\nwhy = the test of names\n' >rules.ini

# report's program and reload_n of run directory $1; its notes in ./notes
report_of() {
	"$SS_BIN" report --warmup 0 --pass 0.2 --rules rules.ini --json "$1" 2>notes |
		python3 -c 'import json,sys
r = json.load(sys.stdin)[0]
open("notes", "a").write("\n".join(r["notes"]) + "\n")
print(r["program"], r["reload_n"])'
}

# check WHAT NAME VIA [ARGV0]: the one run in runs/ (removed after)
check() {
	local what=$1 name=$2 via=$3 dir n
	n=$(ls runs | wc -l)
	[ "$n" = 1 ] || fail "$what: $n run directories: $(ls runs)"
	dir=runs/$(ls runs)
	case $dir in
	runs/*-"$name") ;;
	*) fail "$what: the run directory is '$dir', not named after '$name'" ;;
	esac
	expect_eq "$what: program" "$(ini "$dir/run.ini" program)" "$name"
	expect_eq "$what: program_via" "$(ini "$dir/run.ini" program_via)" "$via"
	ini "$dir/run.ini" argv | grep -q -- "$4" || fail "$what: argv is not kept: $(ini "$dir/run.ini" argv)"
	mv "$dir" "done-$what"
}

# 1. env with an assignment, then nice with its value
"$SS_BIN" record -q --frames marker -- env FOO=1 nice -n 0 "$GAME" --seconds 1 >/dev/null ||
	fail "record env nice failed"
check env-nice fakegame "env nice" "^env FOO=1 nice -n 0 .*fakegame --seconds 1$"
expect_eq "env-nice: report's program and reload segments" "$(report_of done-env-nice)" "fakegame 1"

# 2. sh -c 'exec GAME'
"$SS_BIN" record -q --frames marker -- sh -c "exec '$GAME' --seconds 1" >/dev/null ||
	fail "record sh -c failed"
check sh-c fakegame "sh" "^sh -c "
expect_eq "sh-c: report's program and reload segments" "$(report_of done-sh-c)" "fakegame 1"

# 3. sh -c '$GAME': nothing to name in the argv; the presenting process names
#    the run (the directory was named before anything presented: sh)
GAME=$GAME "$SS_BIN" record -q --frames marker -- sh -c 'exec "$GAME" --seconds 1' >/dev/null ||
	fail "record sh -c \$GAME failed"
d=runs/$(ls runs)
expect_eq "sh-var: program" "$(ini "$d/run.ini" program)" fakegame
expect_eq "sh-var: program_argv" "$(ini "$d/run.ini" program_argv)" sh
expect_eq "sh-var: report's program and reload segments" "$(report_of "$d")" "fakegame 1"
mv "$d" done-sh-var

# 4. a launcher named after its game that execs another program (as
#    /usr/games/openarena execs ioquake3): the launcher's name stays
printf '#!/bin/sh\nexec "%s" "$@"\n' "$GAME" >mygame
chmod +x mygame
"$SS_BIN" record -q --frames marker -- ./mygame --seconds 1 >/dev/null || fail "record ./mygame failed"
d=runs/$(ls runs)
expect_eq "launcher: program" "$(ini "$d/run.ini" program)" mygame
expect_eq "launcher: program_presented" "$(ini "$d/run.ini" program_presented)" fakegame
mv "$d" done-launcher
# 5. a run recorded before (program=env, no program_via): analysis names it
#    after the program behind the wrappers in its argv, and says so
cp -r done-env-nice old
sed -i 's/^program=.*/program=env/; /^program_via=/d' old/run.ini
expect_eq "old run: report's program and reload segments" "$(report_of old)" "fakegame 1"
grep -q "run.ini names the program 'env'; it ran 'fakegame' through 'env nice'" notes ||
	fail "old run: no note of the name: $(cat notes)"

# 6. the results database files both under the game's name
"$SS_BIN" db import --db t.db done-env-nice old >/dev/null 2>&1 || fail "db import failed"
expect_eq "db names" "$("$SS_BIN" runs --db t.db --csv | cut -d, -f2 | tail -n +2 | sort -u)" fakegame
# 7. attached to a process Wine named foo.exe: named foo, as when started
cp "$(command -v sleep)" foo.exe
./foo.exe 30 &
KILL_ON_EXIT=$!
wait_for "foo.exe" 10 test "$(cat /proc/$KILL_ON_EXIT/comm 2>/dev/null)" = foo.exe
"$SS_BIN" record -q -o att -p "$KILL_ON_EXIT" --duration 0.3 >/dev/null 2>&1 || fail "record -p failed"
expect_eq "attached: program" "$(ini att/run.ini program)" foo
echo "ok: env nice, sh -c, sh -c \$GAME, a launcher named after the game, an old run, the db, -p foo.exe"

