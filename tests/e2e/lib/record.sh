# SPDX-License-Identifier: MIT
# Helpers for the tests/e2e/record-*.sh scripts (sourced, not a test: it is
# not matched by the e2e/*.sh glob). Each test gets a scratch directory, the
# marker program, and functions to read run.ini and count records in a dump.
set -u
MARKERS=${SS_BUILD:?}/tools/ss-markers
[ -x "$MARKERS" ] || { echo "skip: $MARKERS not built"; exit 77; }
[ -d /dev/shm ] || { echo "skip: no /dev/shm"; exit 77; }
T=$(mktemp -d /tmp/ss-e2e-record.XXXXXX)
KILL_ON_EXIT=
cleanup() {
	for p in $KILL_ON_EXIT; do kill -9 "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
cd "$T" || exit 1

fail() { echo "FAIL: $*"; exit 1; }

# ini FILE KEY: the value of KEY in FILE (run.ini), empty when absent.
ini() { sed -n "s/^$2=//p" "$1" | head -n1; }

# dump_count KIND RECORD_OR_RUNDIR: how many lines of `dump` are of KIND
# (the first word of a line: sample, frame, event, threads, clock, ...).
dump_count() {
	"$SS_BIN" dump "$2" | awk -v k="$1" '$1 == k { n++ } END { print n + 0 }'
}

# expect_eq WHAT GOT WANT
expect_eq() { [ "$2" = "$3" ] || fail "$1: got '$2', expected '$3'"; }
# expect_ge WHAT GOT MIN
expect_ge() { [ "$2" -ge "$3" ] 2>/dev/null || fail "$1: got '$2', expected at least $3"; }

# wait_for WHAT SECONDS CMD...: until CMD succeeds, polling every 0.1 s;
# fails the test naming WHAT after SECONDS (generous: a loaded machine).
wait_for() {
	local what=$1 n=$(($2 * 10))
	shift 2
	while ! "$@"; do
		n=$((n - 1))
		[ $n -gt 0 ] || fail "waited too long for $what"
		sleep 0.1
	done
}
# catches_int PID: whether process PID has a SIGINT handler installed
catches_int() {
	local m
	m=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null)
	[ -n "$m" ] && (((0x$m >> 1) & 1))
}
