#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e root parallel
# run.ini is text whoever owns the run directory writes, and root reads it
# (issue 26, item 6): a record_tmp it names, and the final run.ini beside
# it, are read only when they are what the recorder makes there: in
# /dev/shm, named stallscope-*.ssr (.ini), a regular file and not a link,
# owned by the run directory's owner. Here a run directory of a throwaway
# user (nobody) names root's 0600 files, a link to one, a file of another
# owner and a name that climbs out of /dev/shm: report, stalls and html
# (as root) read none of them, and say why each was refused; the genuine
# case (the owner's own files in /dev/shm, as a killed recorder leaves
# them) is read as before.
set -u
[ "$(id -u)" = 0 ] || { echo "skip: needs root (a run directory of another user)"; exit 77; }
[ -d /dev/shm ] && [ -w /dev/shm ] || { echo "skip: no writable /dev/shm"; exit 77; }
REC=$SS_FIXTURES/rec-corpus/exact-fakegame.ssr
[ -f "$REC" ] || { echo "skip: no fixture record '$REC'"; exit 77; }
U=$(id -u nobody 2>/dev/null || echo 65534)
T=$(mktemp -d /tmp/ss-e2e-tmptrust.XXXXXX)	# root's, 0700: the secrets
S=/dev/shm/stallscope-e2e-$$
trap 'rm -rf "$T"; rm -f "$S"-*' EXIT
fail=0
no() { echo "FAIL: $*"; fail=1; }
show() { head -c 600 "$1"; }	# a file in a message, not all of a dump
cd "$T" || exit 1

# root's secrets: a record, and a "final run.ini" whose program is a token
cp "$REC" secret.ssr
printf 'program=TOPSECRET%s\nstate=done\nend=exit\n' $$ >secret.ini
chmod 600 secret.ssr secret.ini

# mkrun DIR RECORD_TMP [RECORD]: a run directory of nobody's whose first
# run.ini (state=recording, as a killed recorder leaves it) names
# RECORD_TMP, with a record.ssr in it when RECORD is given
mkrun() {
	mkdir -p "$1"
	printf 'program=fg\nstate=recording\nrecord_tmp=%s\n' "$2" >"$1/run.ini"
	[ -n "${3:-}" ] && cp "$3" "$1/record.ssr"
	chown -R "$U" "$1"
}

# 1. record_tmp outside /dev/shm, the record in the run directory: the
#    final run.ini "beside" it (root's 0600 secret.ini) is not read
mkrun r1 "$T/secret.ssr" "$REC"
"$SS_BIN" report --warmup 0 --cols source,program r1 >out1 2>&1 || no "report r1: $(show out1)"
grep -q TOPSECRET out1 && no "report read root's 0600 file through record_tmp: $(show out1)"
grep -q "r1/run.ini': the final run.ini beside record_tmp '$T/secret.ssr' is not read: not a name the recorder gives (/dev/shm/stallscope-\*.ini)" out1 ||
	no "report does not say why record_tmp's run.ini was refused: $(show out1)"
"$SS_BIN" html -o page.html r1 >html.out 2>&1 || no "html r1: $(show html.out)"
grep -q TOPSECRET page.html && no "html embedded root's 0600 file into the page"
"$SS_BIN" stalls --warmup 0 r1 >stalls1 2>&1 || no "stalls r1: $(show stalls1)"
grep -q TOPSECRET stalls1 && no "stalls read root's 0600 file: $(show stalls1)"

# 2. no record.ssr: the record_tmp outside /dev/shm (root's record) is
#    not read; the error says so (there is no record to read)
mkrun r2 "$T/secret.ssr"
"$SS_BIN" report --warmup 0 r2 >out2 2>&1
rc=$?
[ $rc = 1 ] || no "report r2 exited $rc, expected 1 (no record it may read): $(show out2)"
grep -q "record_tmp '$T/secret.ssr' in 'r2/run.ini' is not read: not a name the recorder gives" out2 ||
	no "the error does not say why record_tmp was refused: $(show out2)"
"$SS_BIN" dump r2 >dump2 2>&1 && no "dump read root's record through record_tmp"
grep -q "record_tmp '$T/secret.ssr' is not read" dump2 || no "dump does not say why: $(show dump2)"

# 3. a name that climbs out of /dev/shm
mkrun r3 "/dev/shm/../..$T/secret.ssr"
"$SS_BIN" stalls --warmup 0 r3 >out3 2>&1 && no "stalls read '/dev/shm/../..$T/secret.ssr'"
grep -q "is not read: not a name the recorder gives" out3 || no "r3: $(show out3)"

# 4. the right name, but a link to root's files
ln -s "$T/secret.ssr" "$S-link.ssr"
ln -s "$T/secret.ini" "$S-link.ini"
mkrun r4 "$S-link.ssr"
"$SS_BIN" report --warmup 0 r4 >out4 2>&1 && no "report read a record_tmp that is a link: $(show out4)"
grep -q "is not read: '$S-link.ssr' is a symbolic link, not a file" out4 || no "r4: $(show out4)"
mkrun r4b "$S-link.ssr" "$REC"
"$SS_BIN" report --warmup 0 --cols source,program r4b >out4b 2>&1
grep -q TOPSECRET out4b && no "report read the final run.ini through a link: $(show out4b)"
grep -q "beside record_tmp '$S-link.ssr' is not read: '$S-link.ini' is a symbolic link" out4b ||
	no "r4b: $(show out4b)"

# 5. the right name, a regular file, but root's, not the run directory
#    owner's (a copy of a file nobody may read)
cp -p secret.ssr "$S-root.ssr"
cp -p secret.ini "$S-root.ini"
mkrun r5 "$S-root.ssr" "$REC"
"$SS_BIN" html -o page5.html r5 >out5 2>&1 || no "html r5: $(show out5)"
grep -q TOPSECRET page5.html && no "html embedded a root-owned record_tmp's run.ini"
mkrun r5b "$S-root.ssr"
"$SS_BIN" report --warmup 0 r5b >out5b 2>&1 && no "report read a root-owned record_tmp"
grep -q "is not read: it is owned by uid 0, the run directory by uid $U" out5b || no "r5b: $(show out5b)"

# 6. the genuine case: the owner's own record and final run.ini in
#    /dev/shm, where a recorder that could not move them leaves them
cp "$REC" "$S-ok.ssr"
printf 'program=GENUINE\nstate=done\nend=exit\n' >"$S-ok.ini"
chown "$U" "$S-ok.ssr" "$S-ok.ini"
mkrun r6 "$S-ok.ssr"
"$SS_BIN" report --warmup 0 --cols source,program,frames r6 >out6 2>&1 || no "report r6: $(show out6)"
grep -Eq '^r6 +GENUINE +52' out6 || no "the owner's record_tmp and its final run.ini are not read: $(show out6)"
grep -q "its final run.ini is at '$S-ok.ini'" out6 || no "r6: no note of the final run.ini: $(show out6)"
grep -q "read the record where it grew, '$S-ok.ssr'" out6 || no "r6: no note of the record: $(show out6)"

[ $fail = 0 ] && echo "ok: record_tmp read only when it is the recorder's, in /dev/shm, of the run's owner"
exit $fail
