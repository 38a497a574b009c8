#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live
# `stallscope prefetch` on a fake game (a script that reads a 64 MB data
# file in its working directory): learn it; drop the file's pages
# (POSIX_FADV_DONTNEED); `prefetch run`: the pages are resident again
# (util-linux's fincore) before the game reads them, 3 s after it starts;
# its pid is the one prefetch run was started as, its exit status (7) is
# the program's. Then list, show, forget; a damaged list is a clear error
# naming the file and line, and the next learn relearns it; a changed
# program makes its list stale. bench's PREFETCH=learn and PREFETCH=fetch
# switches on the fake game with a 64 MB load. A real game, neverball
# under Xvfb, learnt and fetched back. Skips where the scratch
# directory is on tmpfs (its pages cannot be dropped).
set -u
T=$(mktemp -d /var/tmp/ss-e2e-prefetch.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v fincore >/dev/null || { echo "skip: no fincore (util-linux)"; exit 77; }
case $(stat -f -c %T "$T") in
tmpfs | ramfs | overlayfs) echo "skip: '$T' is not on a disk"; exit 77 ;;
esac
cd "$T" || exit 1
export XDG_CACHE_HOME=$T/cache
head -c $((64 << 20)) /dev/urandom >data.pak
cat >game.sh <<'EOF'
#!/bin/sh
# the fake game: says its pid, waits (a start-up), looks at its data's
# residency, then reads it
echo $$ >pid
[ -n "${WAIT:-}" ] && sleep "$WAIT"
fincore -b -n -o RES data.pak >res_before
cat data.pak >/dev/null
exit 7
EOF
chmod +x game.sh
# drops the pages of each FILE (Debian's python3: a pyenv shim earlier in
# PATH takes seconds to start, once per call)
PY=/usr/bin/python3
[ -x $PY ] || PY=python3
drop() {
	$PY -c '
import os, sys
for f in sys.argv[1:]:
    fd = os.open(f, os.O_RDONLY)
    os.fsync(fd)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)' "$@"
}

"$SS_BIN" prefetch learn -- ./game.sh >learn.out 2>&1
[ $? = 3 ] || fail "learn: a program that exits 7 is a failed one (3): $(cat learn.out)"
grep -q "learnt '$T/game.sh'" learn.out || fail "learn: $(cat learn.out)"
"$SS_BIN" prefetch show ./game.sh >show.out || fail "show"
grep -q "files: " show.out && grep -q "$T/data.pak" show.out || fail "the data is not listed: $(cat show.out)"
grep -A1 "^files:" show.out | tail -1 | grep -q "$T/game.sh" || fail "the program is not first: $(cat show.out)"

drop data.pak
res=$(fincore -b -n -o RES data.pak)
[ "$res" -lt $((8 << 20)) ] || fail "the data did not drop ($res bytes resident): a disk that keeps it"
WAIT=3 "$SS_BIN" prefetch run --mb 80 -- ./game.sh >run.out 2>&1 &
p=$!
wait $p
rc=$?
[ $rc = 7 ] || fail "run: the exit status is $rc, not the program's 7: $(cat run.out)"
[ "$(cat pid)" = "$p" ] || fail "run: the game's pid $(cat pid) is not $p"
before=$(cat res_before)
[ "$before" -ge $((60 << 20)) ] || fail "only $before bytes resident when the game started reading: $(cat run.out)"
for i in $(seq 50); do grep -q "stopped:" run.out && break; sleep 0.1; done
grep -Eq "read 6[0-9]\.[0-9] MB from [0-9]+ files in .* s \(.* MB already resident; budget 80\.0 MB of .* MB listed; [0-9]+ reads, be7\), stopped: done" run.out ||
	fail "the fetch's line: $(cat run.out)"

# a fetch with data.pak resident does not read it again (one range of
# 64 MB: a page of it missing reads it all); a budget cuts it. Not "read
# 0.0 MB": under ctest -j the pool's other tests can push a few pages of a
# shared library out between the run and this fetch, and their ranges are
# read back whole (CI read 1.3 MB of 10 files once), which is right
res=$(fincore -b -n -o RES data.pak)
"$SS_BIN" prefetch fetch ./game.sh >fetch.out 2>&1 || fail "fetch: $(cat fetch.out)"
got=$(sed -E -n 's/.*read ([0-9.]+) MB from .*/\1/p' fetch.out)
[ -n "$got" ] || fail "the warm fetch's line: $(cat fetch.out)"
if [ "$res" -ge $((64 << 20)) ]; then
	awk -v g="$got" 'BEGIN { exit !(g < 8) }' || fail "a warm fetch read data.pak again: $(cat fetch.out)"
else	# pushed out since the run (memory short): the fetch reads it back
	awk -v g="$got" 'BEGIN { exit !(g >= 60) }' ||
		fail "data.pak was not resident ($res bytes) and the fetch did not read it: $(cat fetch.out)"
fi
drop data.pak
"$SS_BIN" prefetch fetch --mb 8 --io idle ./game.sh >fetch8.out 2>&1 || fail "fetch --mb 8"
grep -Eq "read [78]\.[0-9] MB .*budget 8\.0 MB.*idle\), stopped: done" fetch8.out || fail "fetch --mb 8: $(cat fetch8.out)"

"$SS_BIN" prefetch list >list.out || fail "list"
grep -q "$T/game.sh" list.out || fail "list: $(cat list.out)"

# a damaged list: a clear error, the next learn relearns
l=$(ls "$T"/cache/stallscope/prefetch/*.list)
printf 'stallscope-prefetch 1\nexe 1 2 3 /x\nr 0 4096 -\n' >"$l"
"$SS_BIN" prefetch show ./game.sh >bad.out 2>&1
[ $? = 1 ] && grep -q "'$l' line 3: a range before any file" bad.out || fail "damaged list: $(cat bad.out)"
"$SS_BIN" prefetch learn -- ./game.sh >relearn.out 2>&1
grep -q "damaged: learning it anew" relearn.out || fail "relearn: $(cat relearn.out)"
"$SS_BIN" prefetch show ./game.sh | grep -q "learns:   1" || fail "the relearnt list"

# a changed program: its list is stale
sleep 1.1
echo "# changed" >>game.sh
"$SS_BIN" prefetch fetch ./game.sh >stale.out 2>&1
[ $? = 1 ] && grep -q "the list is stale" stale.out || fail "stale: $(cat stale.out)"
"$SS_BIN" prefetch learn -- ./game.sh >l2.out 2>&1
grep -q "changed since its list was learnt: learning it anew" l2.out || fail "relearn a changed program: $(cat l2.out)"

# bench's switches: PREFETCH=learn is a learn run (not recorded, not
# stored), PREFETCH=fetch a variant whose program runs under prefetch run
# (its fetch's line in program.log); load_s is stored for each
GAME=$SS_BUILD/fakegame
if [ -x "$GAME" ]; then
	"$SS_BIN" bench pf --db r.db --results runs --rounds 1 --no-watch --warmup 0 --frames marker \
		--variants "PREFETCH=learn - PREFETCH=fetch" -- "$GAME" --quiet --seconds 1 \
		--load "$T/data.pak" >bench.out 2>&1 || fail "bench: $(tail -5 bench.out)"
	grep -q "run 1/3 is a learn run (PREFETCH=learn): not recorded" bench.out || fail "no learn run: $(cat bench.out)"
	n=$("$SS_BIN" runs --db r.db --json | python3 -c 'import json,sys; print(sorted(r["variant"] for r in json.load(sys.stdin)))')
	[ "$n" = "['-', 'PREFETCH=fetch']" ] || fail "stored variants: $n"
	grep -q "stallscope prefetch: read .* stopped: " runs/*PREFETCH*/program.log ||
		fail "the fetch variant's program.log: $(cat runs/*PREFETCH*/program.log)"
	grep -q "stallscope prefetch" runs/*-pf-base/program.log && fail "the base ran a fetch"
	"$SS_BIN" report --json --warmup 0 runs/*/ | python3 -c '
import json, sys
for r in json.load(sys.stdin):
    assert r["load_s"] is not None and 0 < r["load_s"] < 30, r["load_s"]' || fail "load_s"
fi

# a real game from Debian: neverball under Xvfb (Mesa's software GL),
# learnt for 5 s and stopped by SIGINT (passed on to it; the learn ends with
# it and writes the list): its data from /usr/share/games/neverball is
# listed after the program; with those files' pages dropped, a fetch reads
# them back
NB=/usr/games/neverball
if [ -x "$NB" ] && command -v xvfb-run >/dev/null; then
	LIBGL_ALWAYS_SOFTWARE=1 timeout 60 xvfb-run -a -s "-screen 0 640x480x24" \
		timeout -s INT 5 "$SS_BIN" prefetch learn -- "$NB" >nb.out 2>&1
	grep -q "learnt '$NB'" nb.out || fail "learn neverball: $(grep -v '^GL' nb.out | tail -5)"
	"$SS_BIN" prefetch show "$NB" >nbshow.out || fail "show neverball"
	grep -A1 "^files:" nbshow.out | tail -1 | grep -q " $NB$" || fail "neverball is not first: $(head -8 nbshow.out)"
	data=$(grep -c "/usr/share/games/neverball/" nbshow.out)
	[ "$data" -ge 5 ] || fail "only $data of neverball's data files listed: $(head -20 nbshow.out)"
	grep "/usr/share/games/neverball/" nbshow.out | awk '{ print $NF }' >nbfiles
	mapfile -t nbf <nbfiles
	drop "${nbf[@]}"
	"$SS_BIN" prefetch fetch --mb 400 "$NB" >nbfetch.out 2>&1 || fail "fetch neverball: $(cat nbfetch.out)"
	grep -Eq "read [0-9.]+ MB from [1-9][0-9]* files" nbfetch.out && ! grep -q "read 0.0 MB" nbfetch.out ||
		fail "the fetch read nothing back: $(cat nbfetch.out)"
	cat nbfetch.out
else
	# scripts/deps.sh installs both: the checks below run, then it fails
	nonb="no $NB or xvfb-run (scripts/deps.sh: neverball, xvfb): the real game was not checked"
fi

"$SS_BIN" prefetch forget ./game.sh >/dev/null || fail "forget"
"$SS_BIN" prefetch show ./game.sh >gone.out 2>&1
[ $? = 1 ] && grep -q "no prefetch list" gone.out || fail "after forget: $(cat gone.out)"
"$SS_BIN" prefetch fetch --io be9 ./game.sh >/dev/null 2>&1
[ $? = 2 ] || fail "--io be9 is a usage error"
[ -n "${nonb:-}" ] && fail "$nonb"
echo "ok"
