#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live parallel
# bench stopped by SIGTERM or by SIGINT from kill(1) (not a terminal, so
# only bench gets it): the run in progress is stopped (the signal passed to
# the recorder, which stops the program), stored marked failed, the
# finished runs kept, no recorder or program left running, exit 143 or 130.
# Before, SIGTERM left both running as orphans and lost the finished run,
# and SIGINT waited for the run to end by itself.
set -u
GAME=$SS_BUILD/fakegame
[ -x "$GAME" ] || { echo "skip: $GAME not built"; exit 77; }
[ -d /dev/shm ] || { echo "skip: no /dev/shm"; exit 77; }
command -v sqlite3 >/dev/null || { echo "skip: sqlite3 missing"; exit 77; }
T=$(mktemp -d /tmp/ss-e2e-bsig.XXXXXX)
trap 'pkill -f -- "--seconds 7.25" 2>/dev/null; rm -rf "$T"' EXIT
cd "$T" || exit 1
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }

for sig in TERM INT; do
	# setsid: no terminal, so the signal reaches bench alone, as from a
	# service manager or a script
	setsid "$SS_BIN" bench s$sig --db r.db --results runs-$sig --rounds 3 --warmup 0 \
		--frames marker --no-watch -- "$GAME" --quiet --seconds 7.25 >out-$sig 2>err-$sig &
	pid=$!
	# once the second run's program runs, stop the bench
	for _ in $(seq 400); do
		[ "$(ls -d runs-$sig/*/ 2>/dev/null | wc -l)" -ge 2 ] && break
		sleep 0.05
	done
	sleep 1
	kill -$sig $pid
	wait $pid
	rc=$?
	cat err-$sig
	want=$((128 + $(kill -l $sig)))
	check "SIG$sig: exit $want" '[ $rc = $want ]'
	# bench has waited for its recorder; the program's exit may still be
	# on its way on a loaded machine (up to 3 s)
	for _ in $(seq 30); do pgrep -f -- "--seconds 7.25" >/dev/null || break; sleep 0.1; done
	check "SIG$sig: no recorder or program left running" '! pgrep -f -- "--seconds 7.25" >/dev/null'
	check "SIG$sig: said" 'grep -q "SIG$sig: stopping the run in progress" err-$sig && grep -q "stopped by SIG$sig after 2 of 3 runs" err-$sig'
	check "SIG$sig: the finished run stored, the stopped one marked failed" '[ "$(sqlite3 r.db "select round || \":\" || failed || \":\" || coalesce(failure, \"-\") from runs where name = '\''s$sig'\'' order by round")" = "1:0:-
2:1:the bench was stopped by SIG$sig during the run" ]'
	check "SIG$sig: the stopped run's recorder finished its run.ini" 'grep -q "^state=done" runs-$sig/*/run.ini && [ $(grep -l "^end=signal" runs-$sig/*/run.ini | wc -l) = 1 ]'
done
exit $fail
