#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live
# What programs and users name reaches the terminal whole and harmless: a
# run.ini line of garbage is escaped in the error (no raw escape sequence),
# a run directory with a newline in its name stays one table row and one
# with a multibyte name is aligned by its display width, and run.ini's argv
# gives every argument back, newlines included.
set -u
GAME=$SS_BUILD/fakegame
[ -x "$GAME" ] || { echo "skip: $GAME not built"; exit 77; }
[ -d /dev/shm ] || { echo "skip: no /dev/shm"; exit 77; }
T=$(mktemp -d /tmp/ss-e2e-hyg.XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }

nl=$'a\nb'
mb=$'\xe3\x82\xb2\xe3\x83\xbc\xe3\x83\xa0'	# ゲーム
for d in "$nl" "$mb"; do
	# the last argument is for sh, which leaves it to the game's caller
	"$SS_BIN" record -q -o "$d" --frames marker -- sh -c 'exec "$1" --quiet --seconds 1' sh \
		"$GAME" "two${nl}words" || { echo "FAIL record into '$d'"; exit 1; }
done

# run.ini's argv splits back (bash reads $'...') into the same words
argv=$(sed -n 's/^argv=//p' "$mb/run.ini")
want_word="\$'twoa\\nbwords'"	# two${nl}words, nl being a, newline, b
argv_line() { [ "$(grep -c '^argv=' "$mb/run.ini")" = 1 ] && [[ $argv == *"$want_word"* ]]; }
check "argv is one line with the newline escaped" argv_line
argv_back() {
	eval "set -- $argv"
	[ $# = 6 ] && [ "$3" = 'exec "$1" --quiet --seconds 1' ] && [ "$6" = "two${nl}words" ]
}
check "argv gives the arguments back whole" argv_back

"$SS_BIN" report --warmup 0 --cols source,frames "$nl" "$mb" >rep 2>&1
cat rep
check "a newline in a name stays in its row" '[ $(sed -n "/^source/,/^$/p" rep | grep -c .) = 3 ] && grep -q "^a\\\\nb " rep'
# the frames column ends at the same display column on every row
check "rows aligned by display width" 'python3 -c "
import sys
rows = [l for l in open(\"rep\", encoding=\"utf-8\").read().split(\"\n\\n\")[0].splitlines()]
import unicodedata
w = lambda s: sum(2 if unicodedata.east_asian_width(c) in \"WF\" else 1 for c in s)
ends = {w(r) for r in rows}
assert len(rows) == 3 and len(ends) == 1, (rows, ends)
"'

# a run.ini line of garbage: escaped in the error, never raw
mkdir bad
cp "$mb/record.ssr" bad/
printf 'program=x\n\033[2J\033]0;owned\007garbage\n' >bad/run.ini
"$SS_BIN" report bad >out 2>err
rc=$?
cat err
check "garbage in run.ini: an error naming the line, escaped" '[ $rc = 1 ] && grep -q "line 2: expected key=value, got .\\\\x1b\\[2J\\\\x1b\\]0;owned\\\\x07garbage." err && ! grep -q $'"'"'\033'"'"' err'
exit $fail
