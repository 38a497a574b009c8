#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live root parallel
# Root never writes or chowns through a path another user controls
# (docs/SECURITY.md; issue 26, items 1 to 4). Each block is an attack that
# worked before: the user (uid 65534 here, the one who "ran sudo") plants
# symbolic links to root's 0600 files where root will write, or swaps a
# file for a link at the moment root chowns it; the checks are that root's
# files keep their contents and their owner, and that the command either
# did its work safely or refused with a clear message. Then the results
# database: made under sudo as the user's, never opened through a link.
. "$SS_SRC/tests/e2e/lib/record.sh"
[ "$(id -u)" = 0 ] || { echo "skip: needs root"; exit 77; }
U=65534
G=$(id -g $U 2>/dev/null) || { echo "skip: no user $U (nobody)"; exit 77; }
PY=/usr/bin/python3	# the system's: one a user can run (not a shim under /root)
[ -x $PY ] || { echo "skip: no /usr/bin/python3"; exit 77; }

chmod 755 "$T"
mkdir -p home bin && chown $U:$G home && cp "$MARKERS" bin/ && chmod -R a+rX bin
M=$T/bin/ss-markers
as_user() { SUDO_UID=$U SUDO_GID=$G "$@"; }
# what a refused end left in /dev/shm (the record or run.ini record could
# not put in the run directory, named in its message): removed
tidy() { grep -o "/dev/shm/stallscope-[A-Za-z0-9.-]*" "$1" | xargs -r rm -f; }

# root's secrets, outside the user's reach
V=$T/root-only
mkdir -m 700 "$V"
for v in victim1 victim2 victim3 victim4 victim5; do
	echo "root's $v" >"$V/$v"
	chmod 600 "$V/$v"
done
intact() {	# intact NAME: root's file as it was (contents, owner, mode)
	[ "$(cat "$V/$1")" = "root's $1" ] && [ "$(stat -c %u:%a "$V/$1")" = 0:600 ] ||
		fail "$2: root's $1 was written or given away: $(stat -c %U:%a "$V/$1") '$(head -c 80 "$V/$1")'"
}

# 1. run.ini.tmp planted in the user's -o directory (old: O_TRUNC + fchown
# through it). The directory must be empty to be taken as root, so the link
# is planted by a process of the user's just after record made it: the
# program itself, which runs in it.
mkdir home/r1 && chown $U:$G home/r1
ln -s "$V/victim1" home/r1/run.ini.tmp && chown -h $U:$G home/r1/run.ini.tmp
as_user "$SS_BIN" record -q --frames none -o home/r1 -- true 2>err &&
	fail "a non-empty -o was taken as root"
intact victim1 "run.ini.tmp planted before"
rm home/r1/run.ini.tmp
as_user "$SS_BIN" record -q --frames marker -o home/r1 -- sh -c "
	for n in run.ini.tmp run.ini record.ssr.tmp program.log.tmp interference.log; do
		ln -s '$V/victim1' '$T/home/r1/'\$n 2>/dev/null
	done; '$M' --frames 5 --fps 500" 2>err
tidy err
intact victim1 "links planted in the run directory while it records"

# 2. record.ssr (and program.log) swapped for a link the moment it appears
# (old: rename, then chown(path) followed the link)
cat >racer.py <<'PY'
import os, sys, time
d, target, stop = sys.argv[1], sys.argv[2], sys.argv[3]
while not os.path.exists(stop):
	for n in ("record.ssr", "program.log", "run.ini"):
		p = os.path.join(d, n)
		try:
			if not os.path.islink(p) and os.path.exists(p):
				os.symlink(target, p + ".x")
				os.rename(p + ".x", p)
		except OSError:
			pass
PY
for k in 1 2 3; do
	mkdir "home/r2-$k" && chown $U:$G "home/r2-$k"
	rm -f stop
	runuser -u nobody -- "$PY" racer.py "$T/home/r2-$k" "$V/victim2" "$T/stop" &
	rp=$!
	as_user "$SS_BIN" record -q --frames marker -o "home/r2-$k" -- "$M" --frames 5 --fps 500 \
		2>err
	tidy err
	touch stop
	wait $rp
	intact victim2 "record.ssr swapped for a link at the end of run $k"
done

# 3. html -o and export -o: a planted FILE.tmp (old: O_CREAT|O_TRUNC
# through it), a link at FILE (never replaced), and a device (written,
# never replaced: old renamed a regular file over /dev/null)
"$SS_BIN" record -q --frames marker -o run -- "$M" --frames 30 --fps 200 || fail "record"
ln -s "$V/victim3" home/page.html.tmp
ln -s "$V/victim3" home/trace.pftrace.tmp
as_user "$SS_BIN" html --warmup 0 -o home/page.html run 2>err || fail "html: $(cat err)"
as_user "$SS_BIN" export --perfetto -o home/trace.pftrace run 2>err || fail "export: $(cat err)"
intact victim3 "html/export -o with FILE.tmp planted"
expect_eq "the page is the user's" "$(stat -c %u home/page.html)" $U
ln -s "$V/victim3" home/linked.html
as_user "$SS_BIN" html --warmup 0 -o home/linked.html run 2>err && fail "html wrote through a link"
grep -q "is a symbolic link; not replaced" err || fail "html -o link: $(cat err)"
intact victim3 "html -o a link"
mknod null c 1 3 && chmod 666 null
"$SS_BIN" html --warmup 0 -o null run 2>err || fail "html -o a device: $(cat err)"
"$SS_BIN" export --perfetto -o null run 2>err || fail "export -o a device: $(cat err)"
[ -c null ] || fail "html/export -o DEVICE replaced the device: $(stat -c %F null)"
"$SS_BIN" html --warmup 0 -o /dev/stdout run >page-stdout 2>err || fail "html -o /dev/stdout"
grep -q '<html' page-stdout || fail "html -o /dev/stdout wrote no page"

# 4. the tmpfs names of old, planted by the user: stallscope-PID-STAMP.EXT
# as links to one file (old: the program's output written through them,
# and the end-of-run copy fed on itself until the disk was full)
rm -f stop
(
	pid=$BASHPID
	for s in $(date -u +%s) $(($(date -u +%s) + 1)) $(($(date -u +%s) + 2)); do
		st=$(date -u -d "@$s" +%Y%m%dT%H%M%SZ)
		for e in ssr log out ini; do
			runuser -u nobody -- ln -sf "$V/victim4" "/dev/shm/stallscope-$pid-$st.$e"
			echo "/dev/shm/stallscope-$pid-$st.$e" >>planted
		done
	done
	exec env SUDO_UID=$U SUDO_GID=$G "$SS_BIN" record -q --frames marker -o home/r4 -- \
		sh -c "echo hello; '$M' --frames 5 --fps 500"
) 2>err &
rp=$!
# a watchdog that lets go of our output (ctest waits for it to close)
(sleep 60; kill -9 $rp 2>/dev/null) >/dev/null 2>&1 &
wd=$!
wait $rp
rc=$?
pkill -P $wd sleep 2>/dev/null
kill $wd 2>/dev/null
[ -e planted ] && xargs rm -f <planted
[ $rc = 137 ] && fail "record with old names planted in /dev/shm hung (killed after 60 s)"
[ $rc = 0 ] || fail "record with old names planted in /dev/shm: $(cat err)"
intact victim4 "the old tmpfs names planted"
grep -q hello home/r4/program.log || fail "the program's output is lost: $(cat home/r4/program.log)"

# 5. watch --log and watch --scan --write: appended to, never through a
# link; a FIFO is an error, not a hang
ln -s "$V/victim5" home/intf.log
as_user timeout 20 "$SS_BIN" watch --log home/intf.log --duration 0.2 --no-procs \
	--input-dir "$T/bin" >/dev/null 2>err && fail "watch --log wrote through a link"
grep -q "symbolic link" err || fail "watch --log a link: $(cat err)"
intact victim5 "watch --log a link"
mkfifo home/fifo && chown $U:$G home/fifo
as_user timeout 20 "$SS_BIN" watch --log home/fifo --duration 0.2 --no-procs \
	--input-dir "$T/bin" >/dev/null 2>err
[ $? = 124 ] && fail "watch --log a FIFO hangs"
grep -q "not a regular file" err || fail "watch --log a FIFO: $(cat err)"

# 6. the results database: made under sudo, it is the user's (old: SQLite
# created it as root, and the user's next run without sudo could not
# write it); a symbolic link the user planted is not opened (old: SQLite
# followed it to root's file)
mkdir home/r6 && chown $U:$G home/r6
as_user "$SS_BIN" record -q --frames marker -o home/r6/run -- "$M" --frames 5 --fps 500 >/dev/null 2>&1 ||
	fail "record for the database"
as_user "$SS_BIN" db import --db home/r6/new.db home/r6/run >/dev/null 2>err || fail "db import: $(cat err)"
[ "$(stat -c %u home/r6/new.db)" = $U ] || fail "the database made under sudo is $(stat -c %U home/r6/new.db)'s"
: >"$V/victim6" && chmod 600 "$V/victim6"	# empty: SQLite would take it as a new database
ln -s "$V/victim6" home/r6/link.db
as_user "$SS_BIN" db import --db home/r6/link.db home/r6/run >/dev/null 2>err &&
	fail "db import opened a database through a link"
grep -q "symbolic link" err || fail "db import through a link: $(cat err)"
[ -s "$V/victim6" ] && fail "root's empty file became a database through a link"
echo ok
