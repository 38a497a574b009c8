#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench.sh BUILD: runs every benchmark section bench/*.sh with the build
# directory as its argument; each prints its own figures. Add a section by
# adding a script there.
set -eu
build=$(cd "${1:-build}" && pwd)
cd "$(dirname "$0")/.."
status=0
for b in bench/*.sh; do
	[ -f "$b" ] || continue
	echo "== $b"
	sh "$b" "$build" || status=1
done
exit $status
