#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live root
# Exact mode's fallback: the recorder run as an unprivileged user (setpriv:
# nobody, no capabilities) cannot load BPF, so `record` says in one line why
# exact mode is off and records as without it (samples from /proc, run.ini
# exact=off with the reason, stalls split by samples); `record --exact`
# fails with a clear error and leaves no run directory. Root (to drop to
# nobody) and setpriv needed, else skipped.
. "$SS_SRC/tests/e2e/lib/record.sh"
[ "$(id -u)" = 0 ] || { echo "skip: not root (needs to become another user)"; exit 77; }
command -v setpriv >/dev/null || { echo "skip: no setpriv (util-linux)"; exit 77; }
chmod 777 "$T"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"; }
as_nobody "$SS_BIN" --version >/dev/null 2>&1 ||
	{ echo "skip: nobody cannot run '$SS_BIN' (a directory above it is closed)"; exit 77; }

as_nobody "$SS_BIN" record -o run --frames marker -- "$MARKERS" --seconds 1 --fps 60 \
	>out.txt 2>err.txt || fail "record as nobody failed: $(cat err.txt)"
n=$(grep -c "exact mode off: " err.txt)
expect_eq "lines saying exact mode is off" "$n" 1
grep -q "exact mode off: not permitted to load BPF" err.txt ||
	fail "the line does not say why: $(grep 'exact mode' err.txt)"
expect_eq "run.ini exact" "$(ini run/run.ini exact)" off
case $(ini run/run.ini exact_reason) in
"not permitted to load BPF"*) ;;
*) fail "run.ini exact_reason: '$(ini run/run.ini exact_reason)'" ;;
esac
expect_ge "samples" "$(ini run/run.ini recorder_samples)" 50
expect_ge "frames" "$(ini run/run.ini frames)" 50
"$SS_BIN" dump --summary run >sum.txt || fail "dump failed"
grep -q " intervals=" sum.txt && fail "a fallback record has intervals"
"$SS_BIN" dump run | grep -q "ftx\." && fail "a fallback record has exact fields"
"$SS_BIN" stalls --json --warmup 0 run >stalls.json || fail "stalls failed"
grep -q '"split": "samples"' stalls.json || fail "stalls --json does not say split samples"

rc=0
as_nobody "$SS_BIN" record --exact -o run2 -- "$MARKERS" --seconds 1 >out2.txt 2>err2.txt || rc=$?
[ "$rc" -ne 0 ] || fail "record --exact as nobody succeeded"
grep -q "error: --exact: exact mode is not available here: not permitted to load BPF" err2.txt ||
	fail "record --exact: unclear error: $(cat err2.txt)"
[ -e run2 ] && fail "record --exact left a run directory behind"
echo "ok: as nobody, exact mode falls back with one line; --exact fails (exit $rc): $(cat err2.txt)"
