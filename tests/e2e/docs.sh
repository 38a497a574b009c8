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
		grep -q -- '--help' "$T/list" || no "$c $s --list-options does not list --help"
		for o in $(awk '{ print $1 }' "$T/list" | tr ',' '\n' | grep -- '^--'); do
			echo "$o" >>"$T/accepted"
			[ "$o" = --help ] && continue
			# an option line of --help: "  --name", "  -x, --name", "      --name"
			grep -qE -- "^  +(-[a-zA-Z], )?$o([ =[]|\$)" "$T/shelp" ||
				no "$c $s accepts $o but its --help does not list it"
			grep -q -- "$(printf '%s' "$o" | sed 's/-/\\\\-/g')\\>" "$M/stallscope-$c.1" ||
				no "$c $s accepts $o but stallscope-$c(1) does not mention it"
		done
		for o in $(grep -oE -- '^  +(-[a-zA-Z], )?--[a-z][a-z0-9-]*' "$T/shelp" | grep -o -- '--.*'); do
			grep -qx -- "$o" "$T/list" ||
				awk '{ print $1 }' "$T/list" | tr ',' '\n' | grep -qx -- "$o" ||
				no "$c $s --help lists $o but the command does not accept it"
		done
	done
	# the page's option items (the line after each .TP) name only accepted options
	for o in $(awk '/^\.TP/ { getline; print }' "$M/stallscope-$c.1" |
		   grep -o '\\-\\-[a-z0-9\\-]*' | sed 's/\\//g' | sort -u); do
		[ "$o" = --help ] && continue
		grep -qx -- "$o" "$T/accepted" || no "stallscope-$c(1) documents $o, which '$c' does not accept"
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
