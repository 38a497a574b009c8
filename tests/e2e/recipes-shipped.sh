#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e
# Every recipe in share/recipes, read by bench as `stallscope bench NAME`
# would read it, without running anything (--dry-run): it loads, and the
# record command bench would run is the recipe's command whole, every
# indented line of it joined (libinih reads 200 characters a line, so a
# game's long command goes on several). A command run through `sh -c`
# (the seed's games: docs/GAMES.md) must parse as a shell script and end
# by exec'ing the game the recipe is named after. Needs no game installed.
set -u
[ -x "$SS_BIN" ] || { echo "skip: no stallscope binary"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
export HOME=$T XDG_CONFIG_HOME=$T/config
fail=0
n=0
for ini in "$SS_SRC"/share/recipes/*.ini; do
	name=$(basename "$ini" .ini)
	n=$((n + 1))
	if ! "$SS_BIN" bench "$name" --dry-run --rounds 1 --variants - >"$name.out" 2>"$name.err"; then
		echo "FAIL: $name: bench --dry-run: $(tail -2 "$name.err")"
		fail=1
		continue
	fi
	grep -q "recipe '$ini'" "$name.err" || { echo "FAIL: $name: read another recipe: $(head -1 "$name.err")"; fail=1; }
	python3 - "$ini" "$name" "$name.out" <<'EOF' || fail=1
import re, shlex, subprocess, sys
ini, name, out = sys.argv[1:]
cmd, inside = [], False
for line in open(ini):
    line = line.rstrip("\n")
    if re.match(r"command\s*=", line):
        cmd, inside = [line.split("=", 1)[1].strip()], True
    elif inside and line[:1] in (" ", "\t") and line.strip():
        cmd.append(line.strip())
    else:
        inside = False
want = shlex.split(" ".join(cmd))
run = [l for l in open(out) if l.startswith("run 1/1 ")]
if len(run) != 1 or " -- " not in run[0]:
    sys.exit("FAIL: %s: no record command in the dry run: %r" % (name, run))
got = shlex.split(run[0].split(" -- ", 1)[1])
# a bare helper name is found beside stallscope: compare base names
got[0] = got[0].rsplit("/", 1)[-1]
if got != want:
    sys.exit("FAIL: %s: bench would run %r, the recipe says %r" % (name, got, want))
if want[:2] == ["sh", "-c"]:
    script = want[2]
    if subprocess.run(["sh", "-n", "-c", script]).returncode:
        sys.exit("FAIL: %s: its sh -c script does not parse: %s" % (name, script))
    if not re.search(r"\bexec %s( |$)" % re.escape(name), script):
        sys.exit("FAIL: %s: its sh -c script does not exec %s: %s" % (name, name, script))
EOF
done
[ $n -ge 5 ] || { echo "FAIL: only $n recipes in share/recipes"; fail=1; }
exit $fail
