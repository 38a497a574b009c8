#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e
# What a person sees first (out/term.h): stalls and report on a terminal,
# run under script(1) so that stdout is a pty of 80 and of 200 columns, on
# the hand-made run of eight stalls (test-causes --write). stalls: no line
# wider than the terminal, every stall's time, ms and cause and every
# evidence item of the piped line there (--full), the evidence cut to 5
# items with a count without it, the piped output and --json unchanged by
# the options; the pager ($PAGER, a script that says it ran) for several
# runs on a terminal, never on a pipe, not with --no-pager, and a pager that
# does not start leaving the text on the terminal; colour: on a terminal in
# the html page's colours, not with NO_COLOR, always with --color=always.
# report: one run transposed on 80 columns, the wide table on 200 and with
# --wide.
set -u
B=$SS_BIN
W="$SS_BUILD/tests/test-causes"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$SS_SRC/tests/e2e/lib/expect.sh"

[ -x "$W" ] || { echo "skip: no $W"; exit 77; }
command -v script >/dev/null || { echo "skip: no script(1) (bsdutils)"; exit 77; }
mkdir "$T/run" && "$W" --write "$T/run" || { echo "FAIL: test-causes --write"; exit 1; }
cd "$T" || exit 1

# tty COLS FILE CMD...: CMD on a pty of COLS columns, its output (CRs gone) in FILE
tty() {
	local cols=$1 file=$2
	shift 2
	script -qec "stty cols $cols rows 40; $(printf '%q ' "$@")" /dev/null </dev/null |
		tr -d '\r' >"$file"
}

# the piped text: what stalls says, one line a stall
expect 0 "$B" stalls --warmup 0 run
cp out piped
[ "$(grep -c '^[0-9.]*  *200\.0  ' piped)" = 8 ] || no "piped: not 8 stall lines: $(cat piped)"
# the terminal's options change nothing piped (but --color=always's colour)
expect 0 "$B" stalls --warmup 0 --full --no-pager --color=auto run
cmp -s out piped || no "piped output changed by --full --no-pager --color=auto"
expect 0 "$B" stalls --warmup 0 --json run
cp out json
expect 0 "$B" stalls --warmup 0 --json --full --color=always run
cmp -s out json || no "--json changed by --full --color=always"

# the stalls' lines and their evidence items, in the piped text
python3 - piped >facts <<'PY' || no "cannot read the piped stalls"
import re, sys
for l in open(sys.argv[1]):
    m = re.match(r"^(\d+\.\d{3})\s+(\d+\.\d)\s+(\S+(?: \([a-z ]+\))?)\s+(\d+)\s+(-|\S+ \d+%)\s+(.*)$", l)
    if m:
        print("\t".join(m.group(1, 2, 3)) + "\t" + "\t".join(m.group(6).split("; ")))
PY
[ "$(wc -l <facts)" = 8 ] || no "not 8 stalls read from the piped text"

for cols in 80 200; do
	tty "$cols" tty$cols "$B" stalls --warmup 0 --full run
	tty "$cols" cut$cols "$B" stalls --warmup 0 run
	for f in tty$cols cut$cols; do
		long=$(sed 's/\x1b\[[0-9;]*m//g' "$f" | awk -v w="$cols" 'length($0) > w' | head -3)
		[ -z "$long" ] || no "$f: lines over $cols columns: $long"
	done
	python3 - facts tty$cols cut$cols "$cols" <<'PY' || no "$cols columns: the facts differ from the piped text"
import re, sys
facts = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
strip = lambda s: re.sub(r"\x1b\[[0-9;]*m", "", s)
full = [strip(l.rstrip("\n")) for l in open(sys.argv[2])]
cut = [strip(l.rstrip("\n")) for l in open(sys.argv[3])]

def stalls(lines):
    """each stall's line (t_s ms cause) and its evidence joined again"""
    out, cur = [], None
    for l in lines:
        m = re.match(r"^(\d+\.\d{3})\s+(\d+\.\d)\s+(\S+(?: \([a-z ]+\))?)\s+\d+\s+\S", l)
        if m:
            cur = [m.group(1), m.group(2), m.group(3), ""]
            out.append(cur)
        elif cur and l.startswith("    "):
            cur[3] += (" " if cur[3] and not cur[3].endswith(";") else "") + l.strip()
            if cur[3].endswith(";"):
                cur[3] += " "
        else:
            cur = None
    return out

ok = True
for name, got in (("full", stalls(full)), ("cut", stalls(cut))):
    if [g[:3] for g in got] != [f[:3] for f in facts]:
        print(name, "stall lines:", [g[:3] for g in got], "want", [f[:3] for f in facts]); ok = False
        continue
    for g, f in zip(got, facts):
        items = f[3:]
        ev = re.sub(r"\s+", " ", g[3]).strip()
        if name == "full":
            want = "; ".join(items)
        else:
            want = "; ".join(items[:5]) + ("; +%d more item%s (--full)" % (len(items) - 5, "" if len(items) == 6 else "s") if len(items) > 5 else "")
        # a folded item may break where the piped line had one blank
        if ev != want:
            print(name, sys.argv[4], "evidence of", f[0], repr(ev), "want", repr(want)); ok = False
sys.exit(0 if ok else 1)
PY
done
# the width is used: 200 columns take the disk stall's items on one line, 80 do not
grep -q '^    D in no syscall .*; run 20\.0 ms, runq 0\.4 ms; +1 more item (--full)$' cut200 ||
	no "200 columns: the disk stall's evidence not on one line: $(sed -n 5,6p cut200)"
grep -q '^    D in no syscall .*; run 20\.0 ms' cut80 && no "80 columns: the disk stall's evidence on one line"
grep -q '+1 more item (--full)' cut80 || no "the disk stall's sixth item not cut on the terminal"
grep -q 'stack folio_wait_bit_common' tty80 || no "--full: no stack on the terminal"

# the pager: several runs on a terminal, never piped, not with --no-pager
printf '#!/bin/sh\necho ran >>"%s/pager.log"\ncat\n' "$T" >pager.sh
chmod +x pager.sh
PAGER=$T/pager.sh tty 80 paged "$B" stalls --warmup 0 run run
[ "$(cat pager.log 2>/dev/null)" = ran ] || no "pager not run for two runs on a terminal"
[ "$(grep -c '^window: 8 stalls' paged)" = 2 ] || no "the paged text: $(head -5 paged)"
rm -f pager.log
PAGER=$T/pager.sh "$B" stalls --warmup 0 run run >out 2>err
[ -e pager.log ] && no "pager run on a pipe"
PAGER=$T/pager.sh tty 80 nopager "$B" stalls --warmup 0 --no-pager run run
[ -e pager.log ] && no "pager run with --no-pager"
PAGER=$T/no-such-pager tty 80 nostart "$B" stalls --warmup 0 run run
grep -q "warning: pager '.*no-such-pager' did not start" nostart || no "no warning for a pager that did not start"
[ "$(grep -c '^window: 8 stalls' nostart)" = 2 ] || no "a pager that did not start: text lost: $(head -3 nostart)"

# colour: the page's colours on a terminal; NO_COLOR; --color=always piped
esc=$'\e'	# ESC; "$esc\\[" in a regex
grep -q "$esc" tty80 || no "no colour on a terminal"
python3 - "$SS_SRC/share/html/page.js" tty80 <<'PY' || no "the causes' colours are not the page's"
import re, sys
js = open(sys.argv[1]).read()
cols = dict(re.findall(r'(\w+): "#([0-9a-f]{6})"', js[js.index("CAUSE_COLORS"):js.index("};", js.index("CAUSE_COLORS"))]))
def x256(h):
    c = [int(h[i:i + 2], 16) for i in (0, 2, 4)]
    lv = [0, 95, 135, 175, 215, 255]
    idx = [min(range(6), key=lambda i: abs(lv[i] - v)) for v in c]
    dc = sum((lv[i] - v) ** 2 for i, v in zip(idx, c))
    g = sum(c) // 3
    gi = 0 if g < 8 else 23 if g > 238 else min(23, (g - 8 + 5) // 10)
    dg = sum((8 + 10 * gi - v) ** 2 for v in c)
    return 232 + gi if dg < dc else 16 + 36 * idx[0] + 6 * idx[1] + idx[2]
seen = re.findall(r"\x1b\[38;5;(\d+)m([a-z]+)", open(sys.argv[2]).read())
assert len(seen) >= 8, seen
bad = [(n, c) for n, c in seen if int(n) != x256(cols[c])]
assert not bad, bad
PY
NO_COLOR=1 tty 80 nocolor "$B" stalls --warmup 0 run
grep -q "$esc" nocolor && no "NO_COLOR: escapes on the terminal"
[ "$(grep -c '^[0-9.]*  *200\.0  ' nocolor)" = 8 ] || no "NO_COLOR: not the stalls"
NO_COLOR=1 tty 80 always "$B" stalls --warmup 0 --color=always run
grep -q "$esc" always || no "--color=always: no escapes on the terminal with NO_COLOR"
expect 0 "$B" stalls --warmup 0 --color=always run
grep -q "^1\.000  *200\.0  *${esc}\[[0-9;]*mdisk${esc}\[m  " out || no "--color=always piped: no coloured cause: $(sed -n 4p out)"
[ "$(sed 's/\x1b\[[0-9;]*m//g' out)" = "$(cat piped)" ] || no "--color=always piped: more than colour changed"
expect 2 "$B" stalls --color=sometimes run
grep -q "option '--color': expected always, auto or never, got 'sometimes'" err || no "bad --color: $(cat err)"

# report: one run on a terminal, transposed when the wide table does not fit
expect 0 "$B" report --warmup 0 run
cp out rpiped
[ "$(wc -L <rpiped)" -gt 80 ] || no "report's wide table fits 80 columns: nothing to test"
expect 0 "$B" report --warmup 0 --wide --color=never run
cmp -s out rpiped || no "report piped changed by --wide --color=never"
tty 80 r80 "$B" report --warmup 0 run
tty 200 r200 "$B" report --warmup 0 run
tty 80 rwide "$B" report --warmup 0 --wide run
grep -q '^source  *run$' r80 && grep -q '^stalls  *8$' r80 || no "report on 80 columns not transposed: $(head -5 r80)"
long=$(sed -n '/^$/q; s/\x1b\[[0-9;]*m//g; p' r80 | awk 'length($0) > 80' | head -3)
[ -z "$long" ] || no "report's table on 80 columns: lines over 80: $long"
python3 - rpiped r80 <<'PY' || no "report transposed: not the wide table's cells"
import re, sys
p = [l.split() for l in open(sys.argv[1]) if l.strip()]
hdr, row = p[0], p[1]
t = {}
for l in open(sys.argv[2]):
    l = re.sub(r"\x1b\[[0-9;]*m", "", l).split()
    if len(l) == 2:
        t[l[0]] = l[1]
bad = [(h, v, t.get(h)) for h, v in zip(hdr, row) if t.get(h) != v]
assert not bad, bad
PY
[ "$(sed 's/\x1b\[[0-9;]*m//g' r200)" = "$(cat rpiped)" ] || no "report on 200 columns: not the wide table"
[ "$(sed 's/\x1b\[[0-9;]*m//g' rwide)" = "$(cat rpiped)" ] || no "report --wide on 80 columns: not the wide table"
grep -q "  ${esc}\[[0-9;]*mgpu${esc}\[m  " r200 || no "report on a terminal: stall_why not coloured"

[ $fail = 0 ] && echo "term ok"
exit $fail
