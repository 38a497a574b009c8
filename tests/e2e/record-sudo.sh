#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live root
# Under sudo (root with SUDO_UID/SUDO_GID set) the run directory, the
# directories record creates above it, and every file in it belong to the
# invoking user.
. "$SS_SRC/tests/e2e/lib/record.sh"
[ "$(id -u)" = 0 ] || { echo "skip: needs root"; exit 77; }

SUDO_UID=65534 SUDO_GID=65534 "$SS_BIN" record -q -o made/run -- "$MARKERS" --frames 5 --fps 500 ||
	fail "record failed"
for f in made made/run made/run/run.ini made/run/record.ssr made/run/program.log; do
	expect_eq "owner of $f" "$(stat -c %u:%g "$f")" 65534:65534
done
"$SS_BIN" record -q -o mine -- true || fail "record failed"
expect_eq "owner without sudo" "$(stat -c %u "mine/run.ini")" 0
echo ok
