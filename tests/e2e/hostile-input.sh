#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e
# Reads with a bound (issue 26, item 11): every file stallscope reads that
# someone else may have put there is opened without blocking and taken only
# when it is a regular file, and a text file read whole is capped. Here each
# reader meets a FIFO (which hung it), /dev/zero (which grew to gigabytes)
# and, for the text files read whole, a sparse file past the cap: run.ini,
# a run's record.ssr and program.log, a frame log, --rules (a directory
# too: "is a directory"), a recipe, the interfered list, watch --scan's
# run.ini, rules and logs, export's interference.log. Each command runs
# under `timeout`, so a regression fails here instead of hanging; each must
# end at once with a message that names the file and says what it is.
set -u
REC=$SS_FIXTURES/rec-corpus/exact-fakegame.ssr
LOG=$SS_FIXTURES/framelogs/plain.txt
[ -f "$REC" ] && [ -f "$LOG" ] || { echo "skip: fixtures missing"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail=0
no() { echo "FAIL: $*"; fail=1; }

# try WANT_RC PATTERN CMD...: CMD exits WANT_RC within 20 s and says
# PATTERN (grep -E) on stdout or stderr
try() {
	local want=$1 pat=$2 rc
	shift 2
	timeout 20 "$@" >out 2>&1
	rc=$?
	if [ $rc = 124 ]; then
		no "hung (killed after 20 s): $*"
	elif [ $rc != "$want" ]; then
		no "exit $rc, expected $want: $*: $(head -c 400 out)"
	elif ! grep -Eq -- "$pat" out; then
		no "no '$pat' from: $*: $(head -c 400 out)"
	elif grep -q 'Sanitizer' out; then
		no "a sanitizer report (a refused file must cost nothing): $*: $(grep -m3 Sanitizer out)"
	fi
}

mkfifo fifo
mkdir adir
truncate -s 5M big.txt		# past the 4 MiB cap, sparse: costs nothing here
printf 'program=fg\nstate=done\n' >ok.ini

# rundir NAME: a run directory of the fixture record with a plain run.ini
rundir() {
	mkdir -p "$1"
	cp "$REC" "$1/record.ssr"
	cp ok.ini "$1/run.ini"
}

# --- run.ini: a FIFO, /dev/zero, past the cap
rundir r1 && rm r1/run.ini && mkfifo r1/run.ini
try 1 "'r1/run.ini' is not a regular file \(a FIFO\)" "$SS_BIN" report --warmup 0 r1
# a link in a run directory is refused as such (run/rundir.h: its files are
# opened O_NOFOLLOW under its fd), whatever it points to
rundir r2 && ln -sf /dev/zero r2/run.ini
try 1 "'r2/run.ini' is a symbolic link" "$SS_BIN" stalls --warmup 0 r2
rundir r3 && cp big.txt r3/run.ini
try 1 "'r3/run.ini' is larger than 4 MiB" "$SS_BIN" report --warmup 0 r3
try 1 "'r3/run.ini' is larger than 4 MiB" "$SS_BIN" html -o page.html r3

# --- record.ssr: a FIFO, /dev/zero
rundir r4 && rm r4/record.ssr && mkfifo r4/record.ssr
try 1 "'r4/record.ssr' is not a regular file \(a FIFO\)" "$SS_BIN" report --warmup 0 r4
try 1 "'r4/record.ssr' is not a regular file \(a FIFO\)" "$SS_BIN" dump r4
rundir r5 && ln -sf /dev/zero r5/record.ssr
try 1 "'r5/record.ssr' is a symbolic link" "$SS_BIN" stalls --warmup 0 r5

# --- program.log, read when run.ini's reload rule needs its lines
rundir r6 && printf 'reload_re=^Load\npass1=0.5\npass2=0.8\n' >>r6/run.ini && mkfifo r6/program.log
try 1 "'r6/program.log' is not a regular file \(a FIFO\)" "$SS_BIN" report --warmup 0 r6
rundir r7 && cp r6/run.ini r7/ && ln -sf /dev/zero r7/program.log
try 1 "'r7/program.log' is a symbolic link" "$SS_BIN" report --warmup 0 r7

# --- a frame log: a FIFO, /dev/zero ('-' is how a stream is given)
try 1 "'fifo' is not a regular file \(a FIFO\) \('-' reads a frame log from standard input\)" \
	"$SS_BIN" report --warmup 0 fifo
try 1 "'/dev/zero' is not a regular file \(a character device\)" "$SS_BIN" report --warmup 0 /dev/zero
try 0 "plain.txt|^-" sh -c "\"$SS_BIN\" report --warmup 0 - <\"$LOG\""

# --- --rules: a directory, a FIFO, /dev/zero, past the cap
try 1 "the rules file 'adir' is a directory" "$SS_BIN" report --rules adir "$LOG"
try 1 "the rules file 'fifo' is not a regular file \(a FIFO\)" "$SS_BIN" report --rules fifo "$LOG"
try 1 "the rules file '/dev/zero' is not a regular file" "$SS_BIN" stalls --rules /dev/zero "$LOG"
try 1 "the rules file 'big.txt' is larger than 4 MiB" "$SS_BIN" report --rules big.txt "$LOG"

# --- a recipe: a FIFO, /dev/zero, a directory, past the cap
try 1 "the recipe 'fifo' is not a regular file \(a FIFO\)" "$SS_BIN" bench x --recipe fifo --dry-run
try 1 "the recipe '/dev/zero' is not a regular file" "$SS_BIN" bench x --recipe /dev/zero --dry-run
try 1 "the recipe 'adir' is a directory" "$SS_BIN" bench x --recipe adir --dry-run
try 1 "the recipe 'big.txt' is larger than 4 MiB" "$SS_BIN" bench x --recipe big.txt --dry-run

# --- report --interfered-list LIST
try 1 "the interfered list 'fifo' is not a regular file \(a FIFO\)" \
	"$SS_BIN" report --interfered-list fifo "$LOG"

# --- watch --scan: run.ini, the rules, the saved kernel and X logs
rundir w1 && rm w1/run.ini && mkfifo w1/run.ini
try 1 "'w1/run.ini' is not a regular file \(a FIFO\)" \
	"$SS_BIN" watch --scan --dmesg /dev/null --xorg-log ok.ini w1
rundir w2
try 1 "the rules file 'fifo' is not a regular file \(a FIFO\)" \
	"$SS_BIN" watch --scan --rules fifo --dmesg ok.ini --xorg-log ok.ini w2
try 1 "the rules file 'adir' is a directory" \
	"$SS_BIN" watch --scan --rules adir --dmesg ok.ini --xorg-log ok.ini w2
try 1 "'fifo' is not a regular file \(a FIFO\)" \
	"$SS_BIN" watch --scan --dmesg ok.ini --xorg-log fifo w2
try 0 "kernel log not checked: 'fifo' is not a regular file \(a FIFO\)" \
	"$SS_BIN" watch --scan --dmesg fifo --xorg-log ok.ini w2

# --- export: interference.log a FIFO is said, not read
rundir e1 && mkfifo e1/interference.log
try 0 "'e1/interference.log' is not a regular file \(a FIFO\): no watcher track" \
	"$SS_BIN" export --perfetto -o e1.pftrace --warmup 0 e1

[ $fail = 0 ] && echo "ok: FIFOs, /dev/zero and oversized text files refused at once, each named"
exit $fail
