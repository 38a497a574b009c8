#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e
# prefetch fetch opens every file its list names (issue 26, item 12): a
# FIFO put in the list hung it, and a device node was read (as root: a
# disk). Now only regular files are opened, O_NONBLOCK|O_NOFOLLOW|O_NOATIME.
# A list of a FIFO, /dev/zero and a link: the fetch ends at once (under
# `timeout`) and reads nothing; /dev/zero alone: nothing read from it; a
# link to a file whose pages were dropped: not followed, nothing read; the
# list file itself a FIFO: an error naming it, not a hang. The scratch
# directory is under /var/tmp (a disk, where /tmp may be tmpfs); where that
# is not on a disk either, the link case cannot drop its target's pages:
# the other cases run, then the test skips (77), saying so.
set -u
T=$(mktemp -d /var/tmp/ss-e2e-pfh.XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail=0
no() { echo "FAIL: $*"; fail=1; }
export XDG_CACHE_HOME=$T/cache

printf '#!/bin/sh\nexit 0\n' >prog.sh
chmod +x prog.sh
head -c 65536 /dev/urandom >data
ln -s "$T/data" link
mkfifo fifo
timeout 60 "$SS_BIN" prefetch learn -- ./prog.sh >learn.out 2>&1 ||
	{ echo "skip: prefetch learn does not work here: $(tail -3 learn.out)"; exit 77; }
list=$(ls "$XDG_CACHE_HOME"/stallscope/prefetch/*.list 2>/dev/null | head -n1)
[ -f "$list" ] || { no "learn wrote no list: $(cat learn.out)"; exit 1; }
exe=$(grep '^exe ' "$list")

# fetch_with FILE...: the list of prog.sh naming FILEs (1 MiB each, no disk
# address), then a fetch of it under timeout; its exit status
fetch_with() {
	{
		echo "stallscope-prefetch 1"
		echo "$exe"
		local i=0 f
		for f in "$@"; do
			echo "file $i 0 $f"
			echo "r 0 1048576 -"
			i=$((i + 1))
		done
	} >"$list"
	timeout 20 "$SS_BIN" prefetch fetch --mb 64 ./prog.sh >fetch.out 2>&1
}

fetch_with "$T/fifo" /dev/zero "$T/link"
rc=$?
[ $rc = 124 ] && no "fetch hung on a FIFO in the list (killed after 20 s)"
[ $rc = 0 ] || [ $rc = 124 ] || no "fetch exited $rc: $(cat fetch.out)"
[ $rc = 0 ] && ! grep -q "read 0.0 MB from 0 files" fetch.out &&
	no "fetch read a FIFO, a device or through a link: $(cat fetch.out)"

fetch_with /dev/zero
rc=$?
[ $rc = 0 ] || no "fetch of /dev/zero alone exited $rc: $(cat fetch.out)"
grep -q "read 0.0 MB from 0 files" fetch.out || no "fetch read the device node /dev/zero: $(cat fetch.out)"

# a link to a regular file whose pages are not in memory: not followed,
# so not read (where the pages can be dropped: not on tmpfs)
case $(stat -f -c %T "$T") in
tmpfs | ramfs | overlayfs) nodisk="'$T' is not on a disk: the link's target cannot be dropped, that case was not judged" ;;
*)
	python3 -c 'import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); os.fsync(fd); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' data
	fetch_with "$T/link"
	rc=$?
	[ $rc = 0 ] || no "fetch of a link exited $rc: $(cat fetch.out)"
	grep -q "read 0.0 MB from 0 files" fetch.out || no "fetch followed a link: $(cat fetch.out)"
	;;
esac

# the list itself: a FIFO at its path is an error naming it, not a hang
rm -f "$list"
mkfifo "$list"
timeout 20 "$SS_BIN" prefetch show ./prog.sh >show.out 2>&1
rc=$?
[ $rc = 1 ] && grep -q "'$list' is not a regular file (a FIFO)" show.out ||
	no "prefetch show of a list that is a FIFO: exit $rc: $(cat show.out)"

[ $fail = 0 ] && [ -n "${nodisk:-}" ] && { echo "skip: $nodisk"; exit 77; }
[ $fail = 0 ] && echo "ok: fetch opens regular files only; a FIFO, a device and a link are not read"
exit $fail
