#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/soak.sh: hours, not minutes (issue 31). Not in make test nor in
# make bench: run it for the note. Two runs of the fake game at 60 fps,
# SOAK_SECONDS each (default 3600), recorded in exact mode (the snapshot
# sampler, saying so, where exact mode cannot load), with a stall of each
# kind every minute (cpu, runq, wait, sleep, io, preads, disk; reclaim as
# root; 300 ms each, 2 s apart, from 5 s into the minute).
#
# The first run prints: the recorder's RSS once warm (a minute in; a quarter
# of a shorter run) and at its end (goal: growth <= 1 MB), missed samples (goal <= 0.01 %),
# wake-up lateness p99 and max, bytes per sample, the record's size, how
# many planted stalls `stalls` found with the cause their kind makes (goal:
# all), and each reader's wall time and peak RSS on the result (report,
# report --threads, stalls, stalls --json, export --perfetto, html, dump
# --summary).
#
# The second run is killed (kill -9) at a random moment; then what is left
# must read (dump), at most the last second may be lost (the last sample
# against the moment of the kill), and report must say it was torn.
#
# SS_BIN (default build/stallscope), SOAK_DIR (default a new directory under
# /var/tmp: the io and disk stalls need their file on a disk), SOAK_SECONDS,
# SOAK_RECORD_ARGS (more record options, e.g. --rt; default none: what a
# user gets), SOAK_KILL_AT (the second run's kill, in seconds; default a
# random moment of the run).
set -u
cd "$(dirname "$0")/.." || exit 1
SS_BIN=${SS_BIN:-$PWD/build/stallscope}
GAME=$(dirname "$SS_BIN")/fakegame
S=${SOAK_SECONDS:-3600}
[ -x "$SS_BIN" ] && [ -x "$GAME" ] || { echo "skip: build first ($SS_BIN, $GAME)"; exit 77; }
command -v python3 >/dev/null || { echo "skip: python3 is needed for the checks"; exit 77; }
T=${SOAK_DIR:-$(mktemp -d /var/tmp/ss-soak.XXXXXX)}
mkdir -p "$T"
rec=
trap '[ -n "$rec" ] && kill -9 $rec 2>/dev/null' EXIT

mode=--exact
if ! "$SS_BIN" record -q --exact -o "$T/probe" --duration 0.05 -- sleep 1 >"$T/probe.out" 2>&1; then
	echo "note: exact mode not available ($(tail -1 "$T/probe.out")): the snapshot sampler instead"
	mode=--no-exact
fi
rm -rf "$T/probe"
kinds="cpu runq wait sleep io preads disk"
[ "$(id -u)" = 0 ] && kinds="$kinds reclaim"
stalls=
for ((m = 0; m * 60 + 5 < S; m++)); do
	k=0
	for kind in $kinds; do
		at=$((m * 60 + 5 + 2 * k))
		[ $at -lt $((S - 2)) ] && stalls="$stalls --stall $kind:300@$at"
		k=$((k + 1))
	done
done

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null; }
# the RSS by kind (/proc/PID/status): "anon A file F shmem S" in kB
rss_kinds() {
	awk '/^RssAnon:/ { a = $2 } /^RssFile:/ { f = $2 } /^RssShmem:/ { s = $2 }
	     END { if (a != "") print "anon " a " file " f " shmem " s }' "/proc/$1/status" 2>/dev/null
}
ini() { sed -n "s/^$2=//p" "$1" | head -n1; }

echo "soak: the fake game at 60 fps for $S s, $mode, a stall of each kind ($kinds) every minute"
# shellcheck disable=SC2086
"$SS_BIN" record -q $mode ${SOAK_RECORD_ARGS:-} -o "$T/run" -- "$GAME" --fps 60 --seconds "$S" --dir "$T" $stalls \
	>"$T/record.out" 2>&1 &
rec=$!
# the start's RSS once the recorder is warm: its buffers and tables are
# touched in its first half minute (RssAnon grows, then stays), a minute
# into an hour's run, a quarter into a shorter one
warm=$(( S >= 240 ? 60 : S / 4 ))
sleep "$warm"
rss0=$(rss_kb $rec)
kinds0=$(rss_kinds $rec)
rss1=$rss0
kinds1=$kinds0
while kill -0 $rec 2>/dev/null; do	# the last RSS read before it ends
	r=$(rss_kb $rec)
	k=$(rss_kinds $rec)
	[ -n "$r" ] && rss1=$r
	[ -n "$k" ] && kinds1=$k
	sleep 1
done
wait $rec || { echo "record failed: $(tail -3 "$T/record.out")"; exit 1; }
rec=
f=$T/run/run.ini
sum=$("$SS_BIN" dump --summary "$T/run" | grep '^summary')
samples=$(echo "$sum" | sed -n 's/.* samples=\([0-9]*\).*/\1/p')
bps=$(echo "$sum" | sed -n 's/.* bytes_per_sample=\([^ ]*\).*/\1/p')
missed=$(ini "$f" recorder_missed)
echo "recorder RSS: ${rss0:-?} kB at $warm s, ${rss1:-?} kB at the end (growth $(( ${rss1:-0} - ${rss0:-0} )) kB; goal <= 1024)"
echo "  by kind, kB: ${kinds0:-?} at $warm s; ${kinds1:-?} at the end (anon: the recorder's own; file: mapped files, e.g. the libraries and symbol files read for stacks; shmem: the frame ring)"
awk -v m="$missed" -v n="$samples" 'BEGIN { if (n + m > 0) printf "missed samples: %d of %d (%.4f %%; goal <= 0.01 %%)\n", m, n + m, 100 * m / (n + m); else print "missed samples: - (no samples)" }'
# were they the host's? (gaps beside steal time, against every window)
python3 bench/missed.py --bin "$SS_BIN" "$T/run" | sed 's/^/  /'
echo "lateness: p99 $(ini "$f" recorder_late_p99_ms) ms, max $(ini "$f" recorder_late_max_ms) ms"
echo "record: $(stat -c %s "$T/run/record.ssr") bytes, $samples samples, $bps bytes/sample"

# the planted stalls, found with their causes
"$SS_BIN" stalls --json --warmup 0 "$T/run" >"$T/stalls.json" 2>"$T/stalls.err" ||
	echo "stalls failed: $(cat "$T/stalls.err")"
python3 - "$T/run" "$T/stalls.json" <<'PY'
import json, re, sys
run, js = sys.argv[1], sys.argv[2]
want = {"cpu": "cpu", "runq": "runq", "wait": "wait", "sleep": "wait", "io": "io",
        "preads": "io", "disk": "disk", "reclaim": "reclaim"}
ini = dict(l.rstrip("\n").split("=", 1) for l in open(run + "/run.ini") if "=" in l)
t0 = float(ini["t0_mono"])
made = []
unmade = 0
for l in open(run + "/program.log"):
    m = re.search(r"fakegame: stall (\w+) ([\d.]+) ms at [\d.]+ s \(mono ([\d.]+)\)", l)
    if m:
        # a reclaim stall the fake game saw no memory pressure in made no
        # reclaim (its ring's pages stayed resident): not a planted reclaim
        if m.group(1) == "reclaim" and re.search(r"memory pressure 0%", l):
            unmade += 1
            continue
        made.append((m.group(1), float(m.group(3)), float(m.group(2))))
try:
    stalls = json.load(open(js))[0]["stalls"]
except Exception as e:
    print("stalls: - (%s)" % e); sys.exit(0)
per = {}
for kind, mono, ms in made:
    hit = [s for s in stalls if abs(t0 + s["t_s"] - mono) < 0.05 and s["ms"] > 0.8 * ms]
    ok = bool(hit) and hit[0]["cause"] == want.get(kind)
    f, c, n = per.get(kind, (0, 0, 0))
    per[kind] = (f + bool(hit), c + ok, n + 1)
tot = [sum(v[i] for v in per.values()) for i in range(3)]
print("planted stalls: %d, found %d, with their cause %d (goal: all)" % (tot[2], tot[0], tot[1]))
if unmade:
    print("  and %d reclaim stalls left out: the fake game says they met no memory pressure" % unmade)
for k, (f, c, n) in sorted(per.items()):
    print("  %-8s %3d planted, %3d found, %3d with cause %s" % (k, n, f, c, want.get(k)))
PY

# each reader's time and peak memory on the result
echo "readers (wall s, peak RSS MB):"
for cmd in "report" "report --threads" "stalls" "stalls --json" "export --perfetto -o $T/trace.pftrace" \
	"html -o $T/page.html" "dump --summary"; do
	# shellcheck disable=SC2086
	/usr/bin/time -f "%e %M" -o "$T/time" "$SS_BIN" $cmd "$T/run" >/dev/null 2>"$T/reader.err"
	rc=$?
	read -r secs kb < <(tail -n 1 "$T/time")
	if [ $rc -eq 0 ]; then
		awk -v c="${cmd%% -o *}" -v s="$secs" -v k="$kb" 'BEGIN { printf "  %-20s %7.2f %7.1f\n", c, s, k / 1024 }'
	else
		printf '  %-20s failed (%d): %s\n' "${cmd%% -o *}" $rc "$(tail -1 "$T/reader.err")"
	fi
done

# the second run, killed at a random moment
kill_at=${SOAK_KILL_AT:-$(( (RANDOM % (S > 20 ? S - 10 : 10)) + 5 ))}
echo "second run: kill -9 at $kill_at s"
# shellcheck disable=SC2086
"$SS_BIN" record -q $mode ${SOAK_RECORD_ARGS:-} -o "$T/run2" -- "$GAME" --fps 60 --seconds "$S" --dir "$T" $stalls \
	>"$T/record2.out" 2>&1 &
rec=$!
sleep "$kill_at"
kill_mono=$(python3 -c 'import time; print(time.monotonic())')
kill -9 $rec
wait $rec 2>/dev/null
rec=
child=$(ini "$T/run2/run.ini" pid)
[ -n "$child" ] && kill -9 "$child" 2>/dev/null
if "$SS_BIN" dump "$T/run2" >"$T/dump2.txt" 2>"$T/dump2.err"; then
	last=$(awk '$1 == "sample" { t = $2 } END { sub("t=", "", t); print t }' "$T/dump2.txt")
	awk -v k="$kill_mono" -v l="$last" 'BEGIN { if (l == "") print "  what is left reads, but holds no sample"; else printf "  what is left reads; lost: %.3f s before the kill (goal <= 1 s)\n", k - l }'
else
	echo "  what is left does not read: $(tail -1 "$T/dump2.err")"
fi
if "$SS_BIN" report --warmup 0 "$T/run2" >"$T/report2.txt" 2>&1 &&
	grep -Eqi "torn|did not finish" "$T/report2.txt"; then
	echo "  report says it was torn: $(grep -Ei -m1 "torn|did not finish" "$T/report2.txt" | cut -c1-120)"
else
	echo "  report does not say it was torn: $(tail -2 "$T/report2.txt")"
fi
# what the killed recorder left in /dev/shm: moved out, not left in RAM
left=$(ini "$T/run2/run.ini" record_tmp)
[ -n "$left" ] && [ -f "$left" ] && "$SS_BIN" dump --salvage "$T/run2-salvaged" "$left" >/dev/null
echo "results in $T"
