#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e
# Numbers in options are decimal (issue 26, item 16): strtod took
# `--duration 0x10` as 16 s, and " 5", "inf" as what they are not meant to
# be. Every option of every command that takes a number goes through
# cli_parse_double or cli_parse_int (core/num.h); here each is given 0x10
# and must be a usage error (exit 2) naming the value, before anything is
# run. The arguments after it are harmless should the option be taken
# (a missing file, a directory that cannot be made under /dev/null,
# --dry-run), and `timeout` ends a command that would run for 0x10 seconds.
# Every option a command's table takes as a number (--list-options: int,
# number) must be here under some command, and one name has one range in
# every command (--warmup was 0..1e9 s in report and 0..1e7 s in bench).
set -u
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail=0
no() { echo "FAIL: $*"; fail=1; }
export XDG_CACHE_HOME=$T/cache XDG_CONFIG_HOME=$T/config
N=/nonexistent/x.csv

# COMMAND OPTION [ARGS AFTER THE VALUE...], one a line
cases=$(cat <<EOF
record --period -o /dev/null/r -- /bin/true
record --duration -o /dev/null/r -- /bin/true
record --kick -o /dev/null/r -- /bin/true
record --exact-min -o /dev/null/r -- /bin/true
record --stacks -o /dev/null/r -- /bin/true
record --pid -o /dev/null/r
report --warmup $N
report --from $N
report --to $N
report --stall-ms $N
report --pass $N
stalls --warmup $N
stalls --stack-lines $N
stalls --at $N
history --alpha game --db /nonexistent/x.db
history --min-change game --db /nonexistent/x.db
history --min-segment game --db /nonexistent/x.db
history --permutations game --db /nonexistent/x.db
matrix --warmup -o /dev/null/m $N
db --warmup /nonexistent/run
db --stall-ms /nonexistent/run
bench --rounds x --dry-run -- /bin/true
bench --warmup x --dry-run -- /bin/true
bench --window x --dry-run -- /bin/true
bench --duration x --dry-run -- /bin/true
bench --quiet-cpu x --dry-run -- /bin/true
bench --quiet-io x --dry-run -- /bin/true
bench --quiet-timeout x --dry-run -- /bin/true
probe -i -t 0.1 --cpus 0
probe -t --cpus 0
probe -p -t 0.1 --cpus 0
probe --late-ms -t 0.1 --cpus 0
kick -i -t 0.1 --cpus 0
kick -t -i 1 --cpus 0
kick -p -i 1 -t 0.1 --cpus 0
prefetch --mb /nonexistent/prog
prefetch --reserve-mb /nonexistent/prog
watch --duration --scan /nonexistent/run
EOF
)

while read -r cmd opt rest; do
	[ -n "$cmd" ] || continue
	# db's and prefetch's options belong to a subcommand: db import OPT ...
	pre=()
	[ "$cmd" = db ] && pre=(import --db "$T/x.db")
	[ "$cmd" = prefetch ] && pre=(fetch)
	# shellcheck disable=SC2086
	timeout 10 "$SS_BIN" "$cmd" "${pre[@]}" "$opt" 0x10 $rest >out 2>&1 </dev/null
	rc=$?
	if [ $rc != 2 ]; then
		no "$cmd $opt 0x10: exit $rc, expected 2 (a usage error): $(head -c 300 out)"
	elif ! grep -q "'0x10'" out; then
		no "$cmd $opt 0x10: the message does not name the value: $(head -c 300 out)"
	fi
done <<<"$cases"

# decimal numbers are still numbers, the other slips are not
"$SS_BIN" report --warmup 1e0 --stall-ms 50.5 "$SS_FIXTURES/framelogs/plain.txt" >out 2>&1 ||
	no "decimal numbers refused: $(head -c 300 out)"
for v in inf nan ' 5' '5 ' 1e; do
	"$SS_BIN" report --warmup "$v" "$SS_FIXTURES/framelogs/plain.txt" >out 2>&1
	[ $? = 2 ] || no "report --warmup '$v' was taken"
done

# what each command takes as a number: "CMD NAME MIN MAX" ("-t,--duration":
# either name may stand in the table above), the commands asked at once
for cmd in $("$SS_BIN" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'); do
	if [ "$cmd" = db ]; then
		for s in import info upgrade push; do echo "db $s"; done
	else
		echo "$cmd"
	fi
done | xargs -P 4 -I{} sh -c '"$1" $2 --list-options | sed "s|^|$2 |" >"$3/list.$(echo "$2" | tr " " _)"' \
	sh "$SS_BIN" {} "$T"
cat "$T"/list.* | awk '$(NF - 2) == "int" || $(NF - 2) == "number" { print $1, $(NF - 3), $(NF - 1), $NF }' |
	sort -u >numeric
[ -s numeric ] || no "no command lists an option that takes a number (--list-options)"
awk '{ print $2 }' <<<"$cases" >tested
# one awk: each numeric option tested under some name, and its range the same everywhere
bad=$(awk 'FNR == NR { tested[$1] = 1; next }
	{
		n = split($2, names, ",")
		ok = 0
		for (i = 1; i <= n; i++)
			ok = ok || (names[i] in tested)
		if (!ok)
			print $1 " takes " $2 " as a number (" $3 ".." $4 ") but no command'"'"'s " $2 " is tested here"
		if (($2 in range) && range[$2] != $3 ".." $4)
			print $2 ": " range[$2] " in " where[$2] ", " $3 ".." $4 " in " $1
		range[$2] = $3 ".." $4
		where[$2] = $1
	}' tested numeric)
[ -z "$bad" ] || no "$bad"

[ $fail = 0 ] && echo "ok: every number option refuses 0x10 as a usage error"
exit $fail
