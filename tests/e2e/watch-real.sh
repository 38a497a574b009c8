#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live root
# watch on the machine's real sources (root): /dev/kmsg is opened for USB
# lines, /dev/input's devices are counted as watched (or a '#' line says why
# not), the VT file and the sessions directory are watched or said missing;
# a short clean run with nothing injected. Nothing is written to the kernel
# log: other people's watched runs on this machine would count it.
set -u
[ "$(id -u)" = 0 ] || { echo "skip: /dev/kmsg and /dev/input need root"; exit 77; }
[ -r /dev/kmsg ] || { echo "skip: no /dev/kmsg"; exit 77; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }

"$SS_BIN" watch --duration 1 --no-procs --log "$T/log" --json >"$T/json" 2>"$T/err"
rc=$?
cat "$T/log" "$T/err"
check "exit 0 or 3" '[ $rc = 0 ] || [ $rc = 3 ]'
check "the real kernel log is watched" 'grep -q "^# .*watching the kernel log for USB devices (/dev/kmsg)" "$T/log"'
n=$(ls /dev/input/event* 2>/dev/null | wc -l)
check "the input devices ($n) watched, as JSON says" '/usr/bin/python3 -c "
import json; d = json.load(open(\"$T/json\")); assert d[\"input_devices\"] == $n, d"'
if [ "$n" = 0 ]; then
	check "no input devices: a # line says so" 'grep -q "^# .*no input devices watched: ./dev/input." "$T/log"'
fi
exit $fail
