#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e
# The documentation a user is pointed at exists and agrees with the binary:
# every command of `stallscope --help` is in stallscope(1) and has its own
# page, which mentions every long option its --help lists; both ways: every
# option a command accepts (its table, --list-options) is listed by its
# --help and named by its page, and every option its --help lists or its
# page documents is accepted (stalls once took report's --threads and
# ignored it); nothing cites a
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
	# and the other way: what the command accepts (its option table, as
	# --list-options prints it; db's by subcommand) is what its --help lists
	# and its page names, and every option the page defines is accepted
	subs=
	[ "$c" = db ] && subs=$(awk '/^subcommands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } /^$/ { on = 0 }' "$T/help")
	[ "$c" = db ] && [ -z "$subs" ] && no "db --help lists no subcommands"
	: >"$T/accepted"
	for s in ${subs:-.}; do
		[ "$s" = . ] && s=
		# shellcheck disable=SC2086
		"$SS_BIN" "$c" $s --list-options >"$T/list" 2>&1 || no "$c $s --list-options: exit $?"
		# shellcheck disable=SC2086
		"$SS_BIN" "$c" $s --help >"$T/shelp" 2>&1
		# one awk: accepted (the list) = listed (--help's option lines), and
		# each named by the page ('\-' as roff writes '-')
		awk -v cmd="$c${s:+ $s}" -v page="stallscope-$c(1)" '
			FILENAME == ARGV[1] {
				n = split($1, a, ",")
				for (i = 1; i <= n; i++)
					if (a[i] ~ /^--/)
						acc[a[i]] = 1
				next
			}
			FILENAME == ARGV[2] {
				if (match($0, /^  +(-[a-zA-Z], )?--[a-z][a-z0-9-]*/)) {
					o = substr($0, RSTART, RLENGTH)
					sub(/.*--/, "--", o)
					listed[o] = 1
				}
				next
			}
			{ line = $0; gsub(/\\-/, "-", line); man = man "\n" line }
			END {
				if (!("--help" in acc))
					print "FAIL " cmd " --list-options does not list --help"
				for (o in acc) {
					print "ACC " o
					if (!(o in listed))
						print "FAIL " cmd " accepts " o " but its --help does not list it"
					if (o != "--help" && man !~ (o "([^a-z0-9-]|$)"))
						print "FAIL " cmd " accepts " o " but " page " does not mention it"
				}
				for (o in listed)
					if (!(o in acc))
						print "FAIL " cmd " --help lists " o " but the command does not accept it"
			}' "$T/list" "$T/shelp" "$M/stallscope-$c.1" >"$T/both"
		sed -n 's/^ACC //p' "$T/both" >>"$T/accepted"
		while IFS= read -r m; do no "$m"; done < <(sed -n 's/^FAIL //p' "$T/both")
	done
	# the page's option items (the line after each .TP) name only accepted options
	bad=$(awk 'FILENAME == ARGV[1] { acc[$1] = 1; next }
		prev ~ /^\.TP/ {
			t = $0
			gsub(/\\-/, "-", t)
			while (match(t, /--[a-z0-9][a-z0-9-]*/)) {
				o = substr(t, RSTART, RLENGTH)
				if (o != "--help" && !(o in acc))
					print o
				t = substr(t, RSTART + RLENGTH)
			}
		}
		{ prev = $0 }' "$T/accepted" "$M/stallscope-$c.1" | sort -u)
	for o in $bad; do
		no "stallscope-$c(1) documents $o, which '$c' does not accept"
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
