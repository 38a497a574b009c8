#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live
# The interference detector on injected sources: FIFOs fed with real
# struct input_event records (key press/repeat/release, a mouse bump and a
# 3 s drag, a wheel step, a stick excursion, a hat), a fake tty0/active, a
# login session file created, a kernel log line, a device appearing; a
# foreign CPU burner started with setsid is counted and the run's own
# children are not; an exempt device holder's events do not count; nothing
# logged contains a key code; a clean run says none.
set -u
W=$(mktemp -d); trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$W"' EXIT
# bounded: a FIFO's writer waits for its reader, which may have gone
INJECT="timeout 60 /usr/bin/python3 $SS_SRC/tests/e2e/watch-inject.py"
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }

mkdir -p "$W/input" "$W/sess"
mkfifo "$W/input/event0" "$W/input/event1" "$W/input/event2" "$W/kmsg"
echo tty1 >"$W/vt"
printf 'USER=root\nSERVICE=login\n' >"$W/sess/3"	# existed before: not counted
srcs=(--input-dir "$W/input" --vt-file "$W/vt" --sessions-dir "$W/sess" --kmsg "$W/kmsg")

# wait_ready LOG: until the watcher has opened everything
wait_ready() {
	for _ in $(seq 100); do grep -q "watching processes\|watching the kernel log" "$1" 2>/dev/null && return 0; sleep 0.1; done
	return 1
}

# --- a disturbed run ----------------------------------------------------
# BUSY: a python3 that burns 1.5 s of CPU (the rule counts 1 s), bounded in
# wall time: 60 s, for a loaded machine that gives it little of a core.
BUSY='import time; e = time.process_time() + 1.5; s = time.time()
while time.process_time() < e and time.time() - s < 60: pass'
# WAIT FILE: one process that waits until FILE is there, 90 s at most
WAIT='import os, sys, time; s = time.time()
while not os.path.exists(sys.argv[1]) and time.time() - s < 90: time.sleep(0.1)'
# The run's command burns too, then lasts until the test says it is done
# (after every injection and the burner's finding), 90 s at most; the
# watcher's --duration is only the bound of last resort.
"$SS_BIN" watch --duration 120 "${srcs[@]}" --log "$W/log" --json \
	--rundir "$W/rd" --exempt-cmd '^ssburner$' -- sh -c "/usr/bin/python3 -c '$BUSY'; exec /usr/bin/python3 -c '$WAIT' '$W/done'" \
	>"$W/json" 2>"$W/err" &
wpid=$!
wait_ready "$W/log" || { echo "watcher did not start"; cat "$W/err"; exit 1; }
# a foreign process outside the run burning CPU until the test is done (90 s
# at most): the watcher checks CPU times once a second, so a burner that
# stopped at 1.5 s would be counted only when a check fell in its last 0.5 s
BURN='import os, sys, time; s = time.time()
while not os.path.exists(sys.argv[1]) and time.time() - s < 90: pass'
setsid sh -c "echo \$\$ >'$W/burner'; exec /usr/bin/python3 -c '$BURN' '$W/done'" &
# the same outside the run's tree, but the run's by its environment
setsid sh -c "echo \$\$ >'$W/envrun'; STALLSCOPE_RUN='$W/rd' exec /usr/bin/python3 -c '$BURN' '$W/done'" &
# and one whose name --exempt-cmd exempts (a copy of python3 named ssburner)
cp /usr/bin/python3 "$W/ssburner"
setsid sh -c "echo \$\$ >'$W/exempt'; exec '$W/ssburner' -c '$BURN' '$W/done'" &
$INJECT "$W/input/event0" keyboard 30 48 183 194
$INJECT "$W/input/event1" mouse
$INJECT "$W/input/event2" pad
echo tty3 >"$W/vt"
timeout 60 sh -c 'printf "%s\n" "usb 3-1: New USB device found, idVendor=046d, idProduct=c52b" \
	"usb 3-1: USB disconnect, device number 4" >"$1"' sh "$W/kmsg"
printf 'USER=eve\nSERVICE=sshd\n' >"$W/sess/12"
mkfifo "$W/input/event7"
rm "$W/input/event1"	# the mouse goes away
# until the watcher has counted the burner and each polled source, 90 s at most
for _ in $(seq 300); do
	burner=$(cat "$W/burner" 2>/dev/null)
	[ -n "$burner" ] && grep -q "^! .*process $burner (python3) used" "$W/log" &&
		[ "$(grep -Ec "^! .*(VT switch|USB device connected|USB device disconnected|session 12|appeared: .event7|went away)" "$W/log")" -ge 6 ] && break
	sleep 0.3
done
[ -n "$burner" ] && ! grep -q "process $burner " "$W/log" &&
	echo "burner $burner not counted: $(tr '\0' ' ' </proc/$burner/cmdline 2>/dev/null; grep -E 'State|PPid' /proc/$burner/status 2>/dev/null | tr '\n' ' '; cat /proc/$burner/cgroup 2>/dev/null)"
touch "$W/done"
wait $wpid; rc=$?
envrun=$(cat "$W/envrun") exempt=$(cat "$W/exempt")
cat "$W/log"
check "exit status 3 when interfered" '[ $rc = 3 ]'
check "4 key presses, repeats and releases not counted" 'grep -c "^! .* key press on" "$W/log" | grep -qx 4'
check "no key code logged" '! grep -Eq "(^|[ =:(])(30|48|183|194)([ ,)]|$)" "$W/log"'
check "mouse bump noted, not counted" 'grep -q "^- .*mouse bump" "$W/log"'
check "3 s drag counted once" '[ $(grep -c "^! .*mouse motion" "$W/log") = 1 ]'
check "wheel step counted once (hi-res twin ignored)" '[ $(grep -c "^! .*wheel step" "$W/log") = 1 ]'
check "one stick excursion" '[ $(grep -c "^! .*stick moved off rest" "$W/log") = 1 ]'
check "hat press" 'grep -q "^! .*hat" "$W/log"'
check "VT switch" 'grep -q "^! .*VT switch 1->3" "$W/log"'
check "USB device" 'grep -q "^! .*USB device connected" "$W/log"'
check "new login counted, old one not" 'grep -q "^! .*new session 12 (sshd)" "$W/log" && ! grep -q "session 3" "$W/log"'
check "device appearing counted" 'grep -q "^! .*input device appeared: .event7." "$W/log"'
check "foreign CPU burner counted" 'grep -q "^! .*process $burner (python3) used" "$W/log"'
check "device going away counted" 'grep -q "^! .*input device went away: " "$W/log"'
check "USB disconnect counted" 'grep -q "^! .*USB device disconnected" "$W/log"'
check "STALLSCOPE_RUN=<rundir> in its environment: the run's" 'grep -Eq "^- .*process $envrun \(python3\)(: | after an exec: )the run.s" "$W/log" && ! grep -q "^! .*process $envrun " "$W/log"'
check "--exempt-cmd: noted as exempt, not counted" 'grep -Eq "^- .*process $exempt \(ssburner\)(: | after an exec: )exempt" "$W/log" && ! grep -q "^! .*process $exempt " "$W/log"'
# (by pid: other people's python3 on a shared machine may well be counted)
runpids=$(sed -En "s/^- [0-9.]+ new process ([0-9]+) \(python3\): the run.s$/\1/p" "$W/log")
check "the run's busy child not counted" '[ -n "$runpids" ] && ! for p in $runpids; do grep "^! .*process $p " "$W/log"; done | grep -q .'
check "the run's processes noted as the run's" 'grep -q "^- .*the run.s" "$W/log"'
check "summary in JSON" '/usr/bin/python3 -c "
import json,sys; d=json.load(open(\"$W/json\"))
assert d[\"interfered\"] == 1, d
s = d[\"interference\"]
assert \"4 key presses\" in s and \"VT switch 1->3\" in s and \"session 12 (sshd)\" in s, s
"'
check "loud invalid line" 'grep -q "!! INTERFERENCE: .* THIS RUN IS INVALID" "$W/err"'

# --- a clean run, with an exempt virtual device -------------------------
rm -f "$W/input/event7"; mkfifo "$W/input/event1"
echo tty1 >"$W/vt"
# a program named 'sleep' holds event2 open: its events are exempt
(exec 3<>"$W/input/event2"; exec sleep 120) &
holder=$!
for _ in $(seq 200); do	# until it holds it, as 'sleep'; 20 s at most
	[ "$(cat /proc/$holder/comm 2>/dev/null)" = sleep ] &&
		[ "$(readlink /proc/$holder/fd/3)" = "$W/input/event2" ] && break
	sleep 0.1
done
# the run lasts until both findings are in, 90 s at most (--duration: the bound)
"$SS_BIN" watch --duration 120 --no-procs "${srcs[@]}" --exempt-device-holder sleep \
	--expect-vt 2 --log "$W/log2" \
	-- /usr/bin/python3 -c "$WAIT" "$W/done2" \
	>/dev/null 2>"$W/err2" &
wpid=$!
wait_ready "$W/log2"
$INJECT "$W/input/event2" pad
echo tty2 >"$W/vt"	# declared with --expect-vt
for _ in $(seq 300); do
	[ "$(grep -Ec "stick moved off rest|VT switch" "$W/log2")" -ge 2 ] && break
	sleep 0.3
done
touch "$W/done2"
wait $wpid; rc=$?
kill $holder 2>/dev/null
cat "$W/log2"
check "clean run exits 0" '[ $rc = 0 ]'
check "clean run says none and how many devices" 'grep -q "interference: none (3 input devices watched)" "$W/err2"'
check "exempt holder's events noted" 'grep -q "^- .*stick moved off rest .*exempt: held by sleep" "$W/log2"'
check "expected VT switch noted" 'grep -q "^- .*VT switch 1->2 (expected)" "$W/log2"'

# --- usage errors ----------------------------------------------------------
"$SS_BIN" watch --duration -1 2>/dev/null; rc=$?
check "bad duration is a usage error" '[ $rc = 2 ]'
"$SS_BIN" watch --exempt-cmd '(' --duration 1 2>"$W/err3"; rc=$?
check "bad regex is an error naming it" '[ $rc = 1 ] && grep -q "exempt-cmd" "$W/err3"'
exit $fail
