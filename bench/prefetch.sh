#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/prefetch.sh BUILD: `prefetch fetch` against the plain ways to warm
# the same files, cold (each file's pages dropped: fsync and
# POSIX_FADV_DONTNEED), side by side, medians of 5: `cat FILES >/dev/null`,
# sequential 256 KiB reads with readahead on (vmtouch -t style), and the
# fetch (256 KiB reads, readahead off, best-effort 7). Then a fake game's
# load (reading its 3 data files, 96 MB, at once after it starts) cold with
# and without `prefetch run` (the fetch racing the game: what a player
# gets), rounds interleaved. As root, the A/B a decision rests on: `bench
# --drop-caches` of the fake game loading a 96 MB level before its first
# frame, variants PREFETCH=learn (a learn run), - and PREFETCH=fetch, 4
# rounds, then `compare` of load_s and load_disk_s. The files are in
# /var/tmp (a disk, not tmpfs).
set -u
build=${1:-build}
build=$(cd "$build" && pwd)
bin=$build/stallscope
T=$(mktemp -d /var/tmp/ss-bench-prefetch.XXXXXX)
trap 'rm -rf "$T"' EXIT
case $(stat -f -c %T "$T") in
tmpfs | ramfs | overlayfs) echo "bench/prefetch: /var/tmp is not on a disk" >&2; exit 77 ;;
esac
cd "$T" || exit 1
export XDG_CACHE_HOME=$T/cache
for k in 1 2 3; do head -c $((32 << 20)) /dev/urandom >"data$k.pak"; done
sync
cat >game.sh <<'G'
#!/bin/sh
t0=$(date +%s%N)
cat data1.pak data2.pak data3.pak >/dev/null
echo $(( ($(date +%s%N) - t0) / 1000000 )) >load_ms
G
chmod +x game.sh
drop() {
	python3 - data*.pak <<'PY'
import os, sys
for p in sys.argv[1:]:
    fd = os.open(p, os.O_RDONLY); os.fsync(fd); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED); os.close(fd)
PY
}
ms() { local t0 t1; t0=$(date +%s%N); "$@" >/dev/null 2>&1; t1=$(date +%s%N); echo $(((t1 - t0) / 1000000)); }
seqread() {
	python3 - data*.pak <<'PY'
import os, sys
for p in sys.argv[1:]:
    fd = os.open(p, os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_SEQUENTIAL)
    while os.read(fd, 262144): pass
    os.close(fd)
PY
}
"$bin" prefetch learn -- ./game.sh >/dev/null 2>&1
median() { sort -n | sed -n 3p; }
for what in cat seq fetch; do
	for i in 1 2 3 4 5; do
		drop
		case $what in
		cat) ms cat data1.pak data2.pak data3.pak ;;
		seq) ms seqread ;;
		fetch) ms "$bin" prefetch fetch --mb 200 ./game.sh ;;
		esac
	done | median >"$what.ms"
done
printf "prefetch: warming 96 MB cold (median of 5): cat %s ms, sequential 256 KiB reads %s ms, prefetch fetch %s ms\n" \
	"$(cat cat.ms)" "$(cat seq.ms)" "$(cat fetch.ms)"
base= pre=
for i in 1 2 3 4 5; do
	drop; ./game.sh; base="$base $(cat load_ms)"
	drop; "$bin" prefetch run --mb 200 -- ./game.sh 2>/dev/null; pre="$pre $(cat load_ms)"
done
printf "prefetch: the fake game's load, cold: base %s ms, with prefetch run %s ms (medians of 5; base:%s, prefetch:%s ms)\n" \
	"$(echo $base | tr ' ' '\n' | median)" "$(echo $pre | tr ' ' '\n' | median)" "$base" "$pre"

game=$build/fakegame
if [ "$(id -u)" = 0 ] && [ -x "$game" ]; then
	cat data1.pak data2.pak data3.pak >level.pak
	sync
	rm -rf "$XDG_CACHE_HOME"
	"$bin" bench pfab --db ab.db --results ab --rounds 4 --drop-caches --no-watch --warmup 0 \
		--frames marker --variants "PREFETCH=learn - PREFETCH=fetch" -- "$game" --quiet \
		--seconds 1 --load "$T/level.pak" >ab.out 2>&1 || { echo "bench/prefetch: the A/B failed: $(tail -3 ab.out)"; exit 1; }
	echo "prefetch: A/B, 4 rounds, cold (bench --drop-caches), the fake game loading 96 MB:"
	"$bin" compare --db ab.db --metrics load_s,load_disk_s pfab:- pfab:PREFETCH=fetch | sed 's/^/  /'
else
	echo "prefetch: the A/B with bench --drop-caches needs root: left out"
fi
