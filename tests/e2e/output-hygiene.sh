#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live parallel
# What programs and users name reaches the terminal whole and harmless: a
# run.ini line of garbage is escaped in the error (no raw escape sequence),
# a run directory with a newline in its name stays one table row and one
# with a multibyte name is aligned by its display width, and run.ini's argv
# gives every argument back, newlines included. Then issue 26 item 10: a
# name holding terminal escape sequences (OSC, CSI, BEL, an 8-bit CSI, a
# right-to-left override) reaches no terminal raw, and is shown escaped, in
# report's notes (the program's name) and its runs with no frames
# (frames_note), stalls' frames_note, db import, record's end lines (a
# program so named that fails), a recipe's "unknown key" error, prefetch
# show (a file the program read), and watch's findings (a busy process so
# named).
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

# ---- issue 26 item 10: escape sequences from files and programs, shown escaped
E=$'\033]0;owned\007\033[2J\xc2\x9b1m\xe2\x80\xae'
shown='\x1b]0;owned\x07\x1b[2J\xc2\x9b1m\u202e'
# no ESC, BEL, 8-bit CSI (raw or as UTF-8) or RLO in FILE
raw() { LC_ALL=C grep -qaP '\x1b|\x07|\x9b|\xe2\x80\xae' "$1"; }
# FILE says the escaped name and has nothing raw
escaped() { ! raw "$1" && grep -qaF -- "$shown" "$1"; }

cp -r "$mb" evil
sed -i "s|^program=.*|program=game$E|" evil/run.ini
cp -r "$mb" nof
sed -i -e 's|^frames=.*|frames=0|' -e '/^frames_note=/d' nof/run.ini
echo "frames_note=no frames$E" >>nof/run.ini
"$SS_BIN" report --warmup 0 evil nof >rep10 2>&1
check "report: the program's name in a note, frames_note, escaped" 'escaped rep10 && grep -qaF "nof: no frames$shown" rep10'
"$SS_BIN" stalls --warmup 0 nof >st10 2>&1
check "stalls: frames_note escaped" 'escaped st10'
"$SS_BIN" db import --db "$T/h.db" evil >db10 2>&1
check "db import: the program's name escaped" 'escaped db10'

ln -s "$(type -P false)" "fails$E"
"$SS_BIN" record -o rec10 --frames none --duration 1 -- "./fails$E" >rec10.out 2>&1
check "record: a failing program's name escaped in its lines" \
	'! raw rec10.out && grep -qaF "PROGRAM FAILED: '"'"'fails$shown'"'"'" rec10.out'

printf 'command=true\nkey%s=1\n' "$E" >r10.ini
"$SS_BIN" bench b10 --recipe r10.ini --db "$T/b.db" >bench10 2>&1
check "bench: a recipe's unknown key escaped in the error" \
	'escaped bench10 && grep -qa "unknown key" bench10'

export XDG_CACHE_HOME=$T/cache
head -c 100000 /dev/urandom >"data$E.pak"
printf '#!/bin/sh\ncat ./data* >/dev/null\nsleep 1.2\n' >pf.sh
chmod +x pf.sh
"$SS_BIN" prefetch learn -- ./pf.sh >pfl10 2>&1
"$SS_BIN" prefetch show ./pf.sh >pf10 2>&1
check "prefetch show: a listed file's name escaped" 'escaped pf10'

# watch: a busy process (1 s of CPU and more) named by an escape sequence
# (a comm holds 15 bytes)
W=$'\033]0;pw\007\xc2\x9b'
cp "$(type -P dash || type -P sh)" "$W"
"$SS_BIN" watch --duration 6 >w10 2>&1 &
wp=$!
sleep 0.5
timeout 4 "./$W" -c 'while :; do :; done'
wait $wp
if grep -qa "used .* s of CPU" w10; then
	check "watch: a busy process's name escaped" \
		'! raw w10 && grep -qaF "(\\x1b]0;pw\\x07\\xc2\\x9b) used" w10'
else
	check "watch: nothing raw (the busy process was not counted: a loaded machine)" '! raw w10'
fi
exit $fail
