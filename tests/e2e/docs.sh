#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e
# The documentation a user is pointed at exists and agrees with the binary:
# every command of `stallscope --help` is in stallscope(1) and has its own
# page, which mentions every long option its --help lists; nothing cites a
# document that is not in the repository (DESIGN.md lives outside it); the
# pages render without warnings.
set -u
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$SS_SRC/tests/e2e/lib/expect.sh"
M=$SS_SRC/man

cmds=$("$SS_BIN" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
[ -n "$cmds" ] || no "no commands in stallscope --help"
for c in $cmds; do
	grep -q "^\.B $c\$" "$M/stallscope.1" || no "stallscope(1) does not list '$c'"
	[ "$c" = version ] && continue
	[ -f "$M/stallscope-$c.1" ] || { no "no man page for '$c'"; continue; }
	grep -q "stallscope\\\\-$c (1)" "$M/stallscope.1" || no "stallscope(1) does not point at stallscope-$c(1)"
	"$SS_BIN" "$c" --help >"$T/help" 2>&1
	for o in $(grep -o -- '--[a-z][a-z0-9-]*' "$T/help" | sort -u); do
		[ "$o" = --help ] && continue
		# roff writes each '-' of an option as '\-'; \> ends the name
		grep -q -- "$(printf '%s' "$o" | sed 's/-/\\\\-/g')\\>" "$M/stallscope-$c.1" ||
			grep -q -- "$o\\>" "$M/stallscope-$c.1" || no "stallscope-$c(1) does not mention $o"
	done
done
cited=$(grep -rln 'DESIGN\.md' "$SS_SRC/man" "$SS_SRC/docs" "$SS_SRC/src" "$SS_SRC/README.md" 2>/dev/null)
[ -z "$cited" ] || no "DESIGN.md (not in the repository) cited by: $cited"
if command -v man >/dev/null; then
	for p in "$M"/*.1; do
		LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$p" >/dev/null 2>"$T/w"
		[ -s "$T/w" ] && no "$(basename "$p"): $(head -3 "$T/w")"
	done
fi
exit $fail
