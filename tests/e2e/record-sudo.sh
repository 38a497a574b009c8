#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live root parallel
# Under sudo (root with SUDO_UID/SUDO_GID set), as docs/SECURITY.md says:
# the program runs as the invoking user (uid, groups, HOME) unless
# --as-root (and so does watch's and prefetch run's command), and run.ini and the start line say whom it ran as; the run
# directory, the directories record creates above it and every file in it
# are the user's, made as the user (so not where the user cannot write);
# the files that grow in /dev/shm while the run lasts are 0600 and named
# so that nobody can plant them; the frame ring still reaches the program.
. "$SS_SRC/tests/e2e/lib/record.sh"
[ "$(id -u)" = 0 ] || { echo "skip: needs root"; exit 77; }
U=65534
getent passwd $U >/dev/null || { echo "skip: no user $U (nobody) in passwd"; exit 77; }
G=$(id -g $U)
H=$(getent passwd $U | cut -d: -f6)

# the user's own directory, and the programs where the user can run them
# (the build tree may be under a directory only root can enter)
chmod 755 "$T"
mkdir -p home bin && chown $U:$G home && cp "$MARKERS" bin/ && chmod -R a+rX bin
M=$T/bin/ss-markers
as_user() { SUDO_UID=$U SUDO_GID=$G "$@"; }

# 1. the program is the user's; the ring reaches it; everything is theirs
as_user "$SS_BIN" record -q --frames marker -o home/made/run -- "$M" --frames 5 --fps 500 ||
	fail "record failed"
for f in home/made home/made/run home/made/run/run.ini home/made/run/record.ssr \
	home/made/run/program.log; do
	expect_eq "owner of $f" "$(stat -c %u:%g "$f")" $U:$G
done
expect_eq "frames through the ring, the program as uid $U" \
	"$(ini home/made/run/run.ini frames)" 5
expect_eq "run.ini program_uid" "$(ini home/made/run/run.ini program_uid)" $U
expect_eq "run.ini program_user" "$(ini home/made/run/run.ini program_user)" \
	"$(getent passwd $U | cut -d: -f1)"

# what the program sees: its ids, groups, HOME, and 0600 files in /dev/shm
# (its output, and the record that grows beside it)
as_user "$SS_BIN" record -q --frames none -o home/ids -- sh -c \
	'echo "ids $(id -u) $(id -g) $(id -G | wc -w)"; echo "home $HOME";
	 echo "out $(stat -L -c %a /proc/self/fd/1)";
	 for f in /dev/shm/stallscope-*.ssr; do echo "ssr $(stat -c %a "$f")"; done' ||
	fail "record of sh failed"
log=home/ids/program.log
grep -q "ids $U $G [1-9]" $log || fail "the program's ids: $(cat $log)"
grep -q "home $H\$" $log || fail "the program's HOME is not the user's: $(cat $log)"
grep -q "out 600\$" $log || fail "the program's output file is not 0600: $(cat $log)"
grep -q "ssr 600\$" $log || fail "the record in /dev/shm is not 0600: $(cat $log)"
# its name: nobody could guess it (a random part after pid and stamp)
as_user "$SS_BIN" record -q --frames none --stop-file "$T/stop" -o home/name -- sleep 20 &
p=$!
KILL_ON_EXIT=$p
wait_for "run.ini" 20 test -e home/name/run.ini
tmp=$(ini home/name/run.ini record_tmp)
touch "$T/stop"
wait $p || fail "record --stop-file failed"
[[ $tmp =~ ^/dev/shm/stallscope-[0-9]+-[0-9]{8}T[0-9]{6}Z-[A-Za-z0-9]{8}\.ssr$ ]] ||
	fail "the record's tmpfs name is predictable: '$tmp'"

# --as-root keeps root for the program
as_user "$SS_BIN" record -q --frames none --as-root -o home/root -- sh -c 'id -u' ||
	fail "record --as-root failed"
grep -q '\] 0$' home/root/program.log || fail "--as-root: $(cat home/root/program.log)"
expect_eq "--as-root program_uid" "$(ini home/root/run.ini program_uid)" 0
expect_eq "--as-root: the run still the user's" "$(stat -c %u home/root/run.ini)" $U

# the other commands that start a program do the same: watch -- CMD and
# prefetch run (whose fetch keeps root); --as-root keeps root
as_user timeout 60 "$SS_BIN" watch --duration 5 --no-procs --input-dir "$T/bin" -- \
	sh -c 'echo "uid=$(id -u)"' >watch.out 2>&1
grep -qx "uid=$U" watch.out || fail "watch -- CMD did not run as the user: $(cat watch.out)"
as_user timeout 60 "$SS_BIN" watch --as-root --duration 5 --no-procs --input-dir "$T/bin" -- \
	sh -c 'echo "uid=$(id -u)"' >watch.out 2>&1
grep -qx "uid=0" watch.out || fail "watch --as-root: $(cat watch.out)"
as_user env XDG_CACHE_HOME="$T/cache" timeout 60 "$SS_BIN" prefetch run -- \
	sh -c 'echo "uid=$(id -u) home=$HOME"' >pf.out 2>&1
grep -qx "uid=$U home=$H" pf.out || fail "prefetch run did not run CMD as the user: $(cat pf.out)"

# 2. made as the user: nowhere the user could not write (root's 0755 cwd)
mkdir rootdir
as_user "$SS_BIN" record -q --frames none -o rootdir/run -- true 2>err &&
	fail "record made a run in a directory only root can write"
grep -q "cannot create run directory 'rootdir/run'" err || fail "no clear error: $(cat err)"
[ -e rootdir/run ] && fail "rootdir/run was made"

# 3. an existing -o: taken when empty and the user's; refused when it is a
# link, someone else's, or holds anything (as root)
mkdir home/empty && chown $U:$G home/empty
as_user "$SS_BIN" record -q --frames none -o home/empty -- true || fail "empty -o refused"
mkdir other && chown 1234:1234 other
as_user "$SS_BIN" record -q --frames none -o other -- true 2>err && fail "someone else's -o taken"
grep -q "belongs to another user" err || fail "other's -o: $(cat err)"
ln -s "$T/home/linked-to" home/link && mkdir home/linked-to && chown $U:$G home/linked-to
as_user "$SS_BIN" record -q --frames none -o home/link -- true 2>err && fail "a linked -o taken"
grep -q "is a symbolic link" err || fail "linked -o: $(cat err)"
mkdir home/full && touch home/full/x && chown -R $U:$G home/full
as_user "$SS_BIN" record -q --frames none -o home/full -- true 2>err && fail "a non-empty -o taken"
grep -q "is not empty" err || fail "non-empty -o: $(cat err)"

# 4. without sudo, root's run is root's and the program root's
"$SS_BIN" record -q --frames none -o mine -- true || fail "record failed"
expect_eq "owner without sudo" "$(stat -c %u mine/run.ini)" 0
expect_eq "program_uid without sudo" "$(ini mine/run.ini program_uid)" 0
echo ok
