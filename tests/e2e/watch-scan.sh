#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e
# watch --scan on saved files of two runs made here (run.ini's clock_mono_ns
# and duration_recorded_s place them on CLOCK_MONOTONIC): a saved kernel log
# with USB lines in one run's time and outside both, an Xorg log with an
# input device added and a VT switch, and a program.log (stamped "[S] " as
# record writes it) whose line matches a rules file's interfere_re anchored
# with '^'. Findings name the run; --write appends only the disturbed run to
# the list, which report --interfered-list then honours; a clean run exits 0;
# a bad rule and a missing run.ini get clear errors. The log lines follow the
# formats of dmesg, /dev/kmsg and Xorg.0.log (tests/unit/test-watchrules.c).
set -u
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }
mkrun() {	# mkrun DIR MONO_S DURATION_S
	mkdir -p "$T/$1"
	cp "$SS_FIXTURES/rec/busy-300.ssr" "$T/$1/record.ssr"
	printf 'program=/opt/demo/bin/demo\nclock_mono_ns=%s000000000\nduration_recorded_s=%s\nwarmup_s=0\ninterfered=0\n' \
		"$2" "$3" >"$T/$1/run.ini"
}
mkrun dirty 5000 100	# 5000..5100 s
mkrun clean 6000 50	# 6000..6050 s
printf '[0.512] demo: level loaded\n[42.250] player jumped\n' >"$T/dirty/program.log"
printf '[0.498] demo: level loaded\n[10.000] demo: frames=600\n' >"$T/clean/program.log"
cat >"$T/dmesg" <<'K'
[ 4990.100000] usb 1-2: new full-speed USB device number 6 using xhci_hcd
[ 4990.250000] usb 1-2: New USB device found, idVendor=046d, idProduct=c52b, bcdDevice=12.03
[ 5030.200000] usb 1-2: New USB device found, idVendor=046d, idProduct=c08b, bcdDevice=27.03
[ 5031.000000] EXT4-fs (vda): re-mounted. Quota mode: none.
[ 6100.000000] usb 1-2: USB disconnect, device number 7
K
cat >"$T/Xorg.0.log" <<'X'
[  4800.001] (II) config/udev: Adding input device Power Button (/dev/input/event0)
[  5060.123] (II) config/udev: Adding input device Logitech G502 (/dev/input/event5)
[  5070.002] (II) AIGLX: Suspending AIGLX clients for VT switch
[  6020.500] (II) LoadModule: "glx"
X
cat >"$T/rules.ini" <<'R'
[demo]
interfere_re = ^player (jumped|shot)
rule = none
why = the test's demo reloads nothing
R

cd "$T" || exit 1
"$SS_BIN" watch --scan --rules rules.ini --dmesg dmesg --xorg-log Xorg.0.log --write --list l \
	"$T/dirty" "$T/clean" >out 2>err
rc=$?
cat out err
check "exit status 3: something found" '[ $rc = 3 ]'
check "program.log line matched past its stamp" 'grep -q "^! $T/dirty: program.log line 2 matches an interfere_re of \[demo\]" out'
check "USB line in the run's time found, at its second" 'grep -q "^! $T/dirty: kernel: USB device connected at 30 s" out'
check "USB lines outside the runs not reported" '[ $(grep -c "USB" out) = 1 ]'
check "Xorg input device and VT switch found" 'grep -q "dirty: Xorg: input device added: Logitech G502 at 60 s" out && grep -q "dirty: Xorg: VT switch at 70 s" out'
check "the clean run has none" 'grep -q "^# $T/clean: 0 findings" out && ! grep -q "^! $T/clean" out'
check "--write lists only the disturbed run" '[ "$(cat l)" = "$T/dirty" ]'
check "report honours the list" '[ "$("$SS_BIN" report --cols intf --interfered-list l "$T/dirty" "$T/clean" | awk "NR==2||NR==3 {print \$NF}" | tr "\n" " ")" = "1 0 " ]'
check "report passes over interfere_re in its rules file" '"$SS_BIN" report --rules rules.ini --cols intf "$T/clean" >/dev/null'

"$SS_BIN" watch --scan --rules rules.ini --dmesg dmesg --xorg-log Xorg.0.log "$T/clean" >out2 2>&1
check "a clean run alone: exit 0" '[ $? = 0 ]'
printf '[demo]\ninterfere_re = (\n' >bad.ini
"$SS_BIN" watch --scan --rules bad.ini --dmesg dmesg --xorg-log Xorg.0.log "$T/dirty" >out3 2>err3
check "a bad rule: exit 1, names the file and the rule" '[ $? = 1 ] && grep -q "bad.ini. line 2: \[demo\] interfere_re: not a valid regular expression" err3'
mkdir norun
"$SS_BIN" watch --scan --dmesg dmesg --xorg-log Xorg.0.log norun >out4 2>err4
check "no run.ini: exit 1, names it" '[ $? = 1 ] && grep -q "norun/run.ini.: No such file" err4'
"$SS_BIN" watch --scan 2>/dev/null
check "--scan without a run is a usage error" '[ $? = 2 ]'
exit $fail
