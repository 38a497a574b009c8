#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e
# Which recipe bench runs (issue 26, items 13 and 16). `bench NAME` read
# ./recipes/NAME.ini from the current directory before the user's and the
# installed recipes, so a recipe planted where bench happens to be started
# ran its command. Now the current directory is read only when the user
# names a path (`bench ./recipes/NAME.ini`), and bench says which file it
# read. A recipe whose regex does not compile is an error before the first
# run, naming the file, the line and the key (it was a warning after each).
set -u
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail=0
no() { echo "FAIL: $*"; fail=1; }
export XDG_CONFIG_HOME=$T/config

# a planted recipe in the current directory, and the user's own
mkdir -p recipes "$XDG_CONFIG_HOME/stallscope/recipes"
printf '[recipe]\ncommand = /bin/echo PLANTED\n' >recipes/game.ini
printf '[recipe]\ncommand = /bin/echo USERS\n' >"$XDG_CONFIG_HOME/stallscope/recipes/game.ini"
printf '[recipe]\ncommand = /bin/echo PLANTED\n' >recipes/only.ini

# 1. NAME: the user's recipe, not the planted one, and bench says which
"$SS_BIN" bench game --dry-run --rounds 1 >out 2>err || no "bench game: $(cat err)"
grep -q PLANTED out && no "bench game ran the recipe planted in the current directory: $(cat out)"
grep -q -- "-- /bin/echo USERS" out || no "bench game did not run the user's recipe: $(cat out)"
grep -q "recipe '$XDG_CONFIG_HOME/stallscope/recipes/game.ini'" err ||
	no "bench does not say which recipe it read: $(cat err)"

# 2. NAME with only a planted recipe: none found (a usage error), and the
#    message says how to run that file if it is meant
"$SS_BIN" bench only --dry-run >out 2>err
rc=$?
[ $rc = 2 ] || no "bench only exited $rc, expected 2 (no recipe): $(cat out err)"
grep -q PLANTED out && no "bench only ran the planted recipe: $(cat out)"
grep -q "'recipes/only.ini' in the current directory is read only when named: stallscope bench ./recipes/only.ini" err ||
	no "no hint for the recipe in the current directory: $(cat err)"

# 3. a path names it: read, and the benchmark is named after the file
"$SS_BIN" bench ./recipes/only.ini --dry-run --rounds 1 >out 2>err || no "bench ./recipes/only.ini: $(cat err)"
grep -q -- "-- /bin/echo PLANTED" out || no "the named recipe was not run: $(cat out)"
grep -q "recipe './recipes/only.ini'" err || no "bench does not say which recipe it read: $(cat err)"
grep -q -- "-o 'runs/<stamp>-only-base'" out || no "the benchmark is not named 'only': $(cat out)"
"$SS_BIN" bench ./recipes/only.ini --recipe recipes/game.ini --dry-run >out 2>err
[ $? = 2 ] && grep -q "a recipe named twice" err || no "two recipes: $(cat err)"
"$SS_BIN" bench ./recipes/only --dry-run >out 2>err
[ $? = 2 ] && grep -q "or a recipe file's path ending in .ini" err || no "a path without .ini: $(cat err)"

# 4. a regex that does not compile: an error before any run (exit 1), its
#    file, line and key named; nothing run, nothing stored
printf '[recipe]\ncommand = /bin/true\nwindow_start_re = ^go(\n' >bad.ini
"$SS_BIN" bench bad --recipe bad.ini --rounds 1 --db r.db --results runs --no-watch \
	--frames none >out 2>err
rc=$?
[ $rc = 1 ] || no "a bad window_start_re: exit $rc, expected 1: $(cat out err)"
grep -q "'bad.ini' line 3: window_start_re: expected a POSIX extended regex, got '^go('" err ||
	no "a bad regex is not said with its file and line: $(cat err)"
[ -e runs ] || [ -e r.db ] && no "a run was made before the bad regex was said"
printf '[recipe]\ncommand = /bin/true\nreload_re = [x\n' >bad2.ini
"$SS_BIN" bench bad2 --recipe bad2.ini --dry-run >out 2>err
[ $? = 1 ] && grep -q "'bad2.ini' line 3: reload_re: expected a POSIX extended regex" err ||
	no "a bad reload_re: $(cat err)"

[ $fail = 0 ] && echo "ok: bench reads a recipe from the current directory only when named, and says which"
exit $fail
