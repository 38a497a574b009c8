# SPDX-License-Identifier: MIT
# Helpers for the e2e scripts that check a command's exit status (sourced,
# not a test). Needs $T (a temporary directory) and leaves $fail at 1 after
# any failed check.
fail=0

# no MSG: a failed check
no() { echo "FAIL: $*"; fail=1; }

# expect RC CMD...: runs CMD, output in $T/out and $T/err, checks its status
expect() {
	local want=$1
	shift
	"$@" >"$T/out" 2>"$T/err"
	local rc=$?
	[ $rc = "$want" ] || no "exit $rc, expected $want: $* ($(head -c 300 "$T/err"))"
}
