#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live parallel
# `stallscope export --perfetto`: the demo's fake game, recorded stalling
# (cpu, sleep, and io where the build tree is on a disk) with the timer probe
# and the watcher, exported. The trace decodes with protoc against
# tests/perfetto/stallscope.proto (Perfetto's field numbers) with no unknown
# field, and reads back as trace_processor reads it (tests/e2e/lib/pftrace.py:
# sequences, incremental clocks, interning): every slice that begins ends on
# its track; the Frames track has report's frames, each one's start and end
# the record's stamps to the nanosecond (dump's); the stalls' causes are
# `stalls --json`'s, in order, on Frames and on Stalls by cause; a counter
# track for each source the record holds; the threads' tracks with the
# program's pid; the probe's and the watcher's tracks; the clock snapshot
# relates MONOTONIC to BOOTTIME and REALTIME as run.ini says; -z writes the
# same bytes gzip-compressed; where the run has stacks, each stall's
# callstack samples (PerfSample) are `stalls --json`'s stacks, sample for
# sample, on the frame thread, inside the stall, and the cpu stall's name
# spin_until <- stall_cpu. Then a real program (glxgears under Xvfb), and
# the runs that hold little: no samples (--no-sample), no frames (sleep), a
# killed recorder's torn record, a damaged block: each a valid trace with a
# note. And the refusals: no format, a frame log, two runs, a bad -o.
. "$SS_SRC/tests/e2e/lib/record.sh"
command -v protoc >/dev/null || { echo "skip: no protoc (package protobuf-compiler)"; exit 77; }
[ -x "$SS_BUILD/fakegame" ] || { echo "skip: no fakegame in '$SS_BUILD'"; exit 77; }
PROTO=$SS_SRC/tests/perfetto/stallscope.proto
export PYTHONPATH=$SS_SRC/tests/e2e/lib

stalls="--stall cpu:300@1 --stall sleep:300@1.7"
# the io stall reads a file dropped from the page cache: a disk, not tmpfs
# (beside the build tree, else under /var/tmp); where neither is on a disk
# the other cases run, then the test skips (77), saying so
nodisk=
for base in "$SS_BUILD" /var/tmp; do
	dir=$(mktemp -d "$base/ss-e2e-export.XXXXXX") || continue
	case $(stat -f -c %T "$dir") in
	tmpfs | ramfs | overlayfs) rmdir "$dir"; dir= ;;
	*) break ;;
	esac
done
if [ -n "$dir" ]; then
	stalls="$stalls --stall io:300@2.4"
else
	dir=$(mktemp -d "$SS_BUILD/ss-e2e-export.XXXXXX") || fail "mktemp"
	nodisk="neither '$SS_BUILD' nor /var/tmp is on a disk: the io stall was not judged"
fi
trap 'cleanup; rm -rf "$dir"' EXIT
# shellcheck disable=SC2086
"$SS_BIN" record -q --probe --watch -o game -- "$SS_BUILD/fakegame" --quiet --seconds 3.2 \
	--dir "$dir" $stalls >rec.out 2>&1 || fail "record: $(cat rec.out)"

"$SS_BIN" export --perfetto --warmup 0 game 2>export.err || fail "export: $(cat export.err)"
[ -s game/trace.pftrace ] || fail "no game/trace.pftrace"
grep -q "wrote 'game/trace.pftrace': [0-9]* frames, [0-9]* stalls" export.err ||
	fail "no summary line: $(cat export.err)"
"$SS_BIN" export --perfetto -z -o game.pftrace.gz --warmup 0 game 2>/dev/null || fail "export -z"
gzip -dc game.pftrace.gz | cmp -s - game/trace.pftrace || fail "-z is not the same trace compressed"
# the record streamed (the default) and whole in memory: one trace, byte
# for byte, probe and watcher tracks included (tests/e2e/export-stream.sh
# compares the two on recorded and synthetic records)
STALLSCOPE_WHOLE_RECORD=1 "$SS_BIN" export --perfetto -o whole.pftrace --warmup 0 game \
	2>/dev/null || fail "export (the whole record)"
cmp -s whole.pftrace game/trace.pftrace || fail "the streamed trace is not the whole record's"
"$SS_BIN" stalls --json --warmup 0 game >stalls.json || fail "stalls --json"
"$SS_BIN" report --json --warmup 0 game >report.json || fail "report --json"
"$SS_BIN" dump game >dump.txt || fail "dump"

python3 - "$PROTO" game stalls.json report.json dump.txt <<'PY' || fail "the trace of the demo run"
import json, re, sys, pftrace
proto, run, sj, rj, dump = sys.argv[1:]
def check(ok, what):
    if not ok:
        print("FAIL:", what)
        sys.exit(1)
t = pftrace.load(run + "/trace.pftrace", proto)
check(not t.unknown, "protoc found fields the schema does not have: %s" % t.unknown[:5])
check(not t.errors, "read errors: %s" % t.errors[:5])
check(not t.unclosed, "slices begun and never ended: %s" % {k: v[:2] for k, v in t.unclosed.items()})
ini = dict(l.rstrip("\n").split("=", 1) for l in open(run + "/run.ini") if "=" in l)
proc = [x for x in t.tracks.values() if x["kind"] == "process"]
check(len(proc) == 1 and proc[0]["pid"] == int(ini["pid"]) and proc[0]["name"] == "fakegame",
      "one process track, the program's: %s" % proc)
P = proc[0]["uuid"]
frames = t.by_name("Frames", P)
check(frames is not None, "no Frames track under the process")
fs = t.slices.get(frames["uuid"], [])
rep = json.load(open(rj))[0]
check(len(fs) == rep["frames"], "Frames has %d slices, report %d frames" % (len(fs), rep["frames"]))
# round trip: frame k is present k to present k+1, to the nanosecond
pres = sorted(int(m.group(1) + m.group(2)) for m in
              (re.match(r"frame t=(\d+)\.(\d{9}) ", l) for l in open(dump)) if m)
check(len(pres) == len(fs) + 1, "%d presents in dump, %d frames" % (len(pres), len(fs)))
for k, s in enumerate(fs):
    check(s[0] == pres[k] and s[1] == pres[k + 1],
          "frame %d: %d..%d in the trace, %d..%d in the record" % (k, s[0], s[1], pres[k], pres[k + 1]))
check({s[2] for s in fs} <= {"marker", "stall"}, "frame names: %s" % {s[2] for s in fs})
# the stalls: stalls --json's causes, in time order
sl = json.load(open(sj))[0]
want = [(round(x["ms"], 3), x["cause"]) for x in sorted(sl["stalls"] + sl["warm_stalls"],
                                                          key=lambda x: x["t_s"])]
got = [(s[3]["ms"], s[3]["cause"]) for s in fs if s[2] == "stall"]
check(len(want) >= 2 and got == want, "stalls on Frames %s, stalls --json %s" % (got, want))
ev = [s[3]["evidence"] for s in fs if s[2] == "stall"]
check(all(ev), "a stall without its evidence: %s" % ev)
byc = t.by_name("Stalls by cause", P)
check(byc is not None, "no Stalls by cause track")
got2 = [s[2] for s in t.slices.get(byc["uuid"], [])]
check(got2 == [c for _, c in want], "Stalls by cause %s, stalls --json %s" % (got2, want))
# the segments: the window (--warmup 0: no warm-up) spans the frames
seg = t.by_name("Segments", P)
check(seg is not None, "no Segments track")
win = [s for s in t.slices[seg["uuid"]] if s[2] == "window"]
check(len(win) == 1 and win[0][0] == pres[0] and win[0][1] == pres[-1], "window %s" % win)
# a counter track, with values, for each source the record holds
fields = {l.split()[2] for l in open(dump) if l.startswith("field ")}
need = {"proc.majflt": "major faults", "proc.cpu_ns": "CPU (all threads)",
        "psi.memory.some_us": "memory pressure (some)", "psi.io.some_us": "io pressure (some)",
        "psi.cpu.some_us": "cpu pressure (some)"}
for f in fields:
    m = re.match(r"disk\.(.+)\.rd_ios$", f)
    if m:
        need[f] = m.group(1) + " reads"
        need[f[:-len("rd_ios")] + "rd_sectors"] = m.group(1) + " read sectors (512 B)"
have = {x["name"]: x for x in t.tracks.values() if x["kind"] == "counter"}
for f, name in need.items():
    if f in fields:
        check(name in have and t.counters.get(have[name]["uuid"]),
              "the record has %s but the trace no counter '%s' with values" % (f, name))
check(any(f.startswith("disk.") for f in fields) <= any(n.endswith(" reads") for n in have),
      "a disk without its counters")
for name, x in have.items():
    for ts, v in t.counters.get(x["uuid"], []):
        check(v >= 0 and (x["unit_name"] != "%" or v <= 100.5), "%s: %g %s" % (name, v, x["unit_name"]))
# the frame thread's track: the program's pid, states from the samples
ths = [x for x in t.tracks.values() if x["kind"] == "thread"]
check(ths and all(x["pid"] == int(ini["pid"]) for x in ths), "thread tracks: %s" % ths)
ft = [x for x in ths if x["tid"] == int(ini["frame_thread"])]
check(ft and len(t.slices.get(ft[0]["uuid"], [])) >= 2, "the frame thread's states")
names = {s[2] for s in t.slices[ft[0]["uuid"]]}
check(names & {"Running", "Runnable"} and "Sleeping" in names, "states: %s" % names)
if ini.get("exact") == "on" and int(ini.get("exact_intervals", "0")):
    ex = [c for c in t.children(ft[0]["uuid"]) if c["name"] == "off-CPU (exact)"]
    check(ex and t.slices.get(ex[0]["uuid"]), "exact mode ran but no off-CPU (exact) track")
    cl = {s[2] for s in t.slices[ex[0]["uuid"]]}
    check("sleep" in cl, "the sleep stall's interval: %s" % cl)
# the probe ran (a track, whether or not a wake-up was late) and the watcher
probe = t.by_name("Timer probe")
check(probe is not None, "no Timer probe track (record --probe)")
w = t.by_name("Interference (watch)")
check(w is not None and t.instants.get(w["uuid"]), "no watcher track with its findings")
for ts, name, a in t.instants[w["uuid"]]:
    check(name in ("interference", "noted", "information") and a.get("finding"), (name, a))
    check(pres[0] - 2e9 < ts < pres[-1] + 2e9, "a finding at %d, frames %d..%d" % (ts, pres[0], pres[-1]))
# the clocks: run.ini's triple, one of the snapshots
snap = {3: int(ini["clock_mono_ns"]), 6: int(ini["clock_boot_ns"]), 1: int(ini["clock_real_ns"])}
check(snap in t.clocks, "no snapshot %s in %s" % (snap, t.clocks[:2]))
check(t.primary is None, "a record with BOOTTIME must not claim the trace's clock")
# the stalls' stacks as callstack samples: stalls --json's, sample for sample
if ini.get("stacks") == "on":
    from collections import Counter
    stl = sorted(sl["stalls"] + sl["warm_stalls"], key=lambda x: x["t_s"])
    spans = [(s[0], s[1]) for s in fs if s[2] == "stall"]
    check(len(spans) == len(stl), "%d stall slices, %d stalls" % (len(spans), len(stl)))
    inside = 0
    for (b, e), x in zip(spans, stl):
        got = Counter((tuple(f), tuple(m)) for ts, pid, tid, f, mode, m in t.samples if b <= ts <= e)
        want = Counter()
        for y in x.get("stacks", []):
            k = y.get("kernel", [])
            want[(tuple(reversed(y["frames"])) + tuple(reversed(k)),
                  ("",) * len(y["frames"]) + ("/kernel",) * len(k))] += y["n"]
        check(got == want, "stall at %.3f s: samples %s, stalls --json %s" %
              (x["t_s"], sorted(got.items())[:2], sorted(want.items())[:2]))
        inside += sum(got.values())
    check(inside == len(t.samples) > 0, "%d samples, %d inside stalls" % (len(t.samples), inside))
    check(all(pid == int(ini["pid"]) and tid == int(ini["frame_thread"]) for _, pid, tid, _, _, _ in t.samples),
          "samples not of the frame thread %s: %s" % (ini["frame_thread"], {s[1:3] for s in t.samples}))
    check(all((mode == "MODE_KERNEL") == ("/kernel" in m) for _, _, _, _, mode, m in t.samples),
          "a sample's cpu_mode is not whether it has kernel frames")
    cpu = [s for (b, e), x in zip(spans, stl) if x["cause"] == "cpu" for s in t.samples if b <= s[0] <= e]
    busy = [s for s in cpu if "spin_until" in s[3] and any(f.startswith("stall_cpu") for f in s[3][:s[3].index("spin_until")])]
    check(len(cpu) >= 100 and len(busy) >= 0.9 * len(cpu),
          "the cpu stall: %d of %d samples in stall_cpu -> spin_until" % (len(busy), len(cpu)))
    print("ok: %d callstack samples, the cpu stall's %d in spin_until" % (len(t.samples), len(busy)))
else:
    print("(no stacks in this run: %s)" % ini.get("stacks_reason"))
print("ok: %d packets, %d tracks, %d frames, stalls %s" % (t.packets, len(t.tracks), len(fs), got2))
PY

# glxgears, a real program from Debian under Xvfb (Mesa's software GL)
if command -v glxgears >/dev/null && command -v xvfb-run >/dev/null; then
	LIBGL_ALWAYS_SOFTWARE=1 timeout 120 xvfb-run -a -s "-screen 0 640x480x24" \
		"$SS_BIN" record -q -o gears --duration 3 -- glxgears >gears.out 2>&1 ||
		fail "record glxgears: $(tail -5 gears.out)"
	"$SS_BIN" export --perfetto --warmup 0 gears 2>gears.err || fail "export glxgears: $(cat gears.err)"
	n=$("$SS_BIN" report --json --warmup 0 gears | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["frames"])')
	python3 - "$PROTO" gears/trace.pftrace "$n" <<'PY' || fail "glxgears' trace"
import sys, pftrace
t = pftrace.load(sys.argv[2], sys.argv[1])
assert not t.unknown and not t.errors and not t.unclosed, (t.unknown[:3], t.errors[:3])
f = t.by_name("Frames")
names = {s[2] for s in t.slices[f["uuid"]]}
assert len(t.slices[f["uuid"]]) == int(sys.argv[3]) > 30, (len(t.slices[f["uuid"]]), sys.argv[3])
assert names <= {"glx", "stall"} and "glx" in names, names
th = [x for x in t.tracks.values() if x["kind"] == "thread"]
assert th and any(x["name"] == "glxgears" for x in th), th
print("ok: glxgears: %d frames (%s)" % (len(t.slices[f["uuid"]]), sorted(names)))
PY
else
	# scripts/deps.sh installs both (mesa-utils, xvfb): the other cases
	# run, then the test fails, saying this
	nogears="no glxgears or xvfb-run (scripts/deps.sh: mesa-utils, xvfb): the real program's trace was not checked"
fi

# valid_trace DIR WHAT NOTE_RE: exports DIR; the trace decodes, every slice
# ends; stderr has a note matching NOTE_RE
valid_trace() {
	"$SS_BIN" export --perfetto --warmup 0 -o "$1.pftrace" "$1" 2>"$1.err" ||
		fail "export of $2: $(cat "$1.err")"
	grep -Eq "note: .*$3" "$1.err" || fail "export of $2: no note /$3/: $(cat "$1.err")"
	python3 - "$PROTO" "$1.pftrace" <<'PY' || fail "the trace of $2"
import sys, pftrace
t = pftrace.load(sys.argv[2], sys.argv[1])
assert not t.unknown and not t.errors and not t.unclosed, (t.unknown[:3], t.errors[:3])
assert any(x["kind"] == "process" for x in t.tracks.values())
PY
}
"$SS_BIN" record -q --no-sample -o nosample --frames marker -- "$MARKERS" --fps 100 --seconds 1 \
	>/dev/null 2>&1 || fail "record --no-sample"
valid_trace nosample "a run with no samples" "no samples"
"$SS_BIN" record -q -o noframes -- sleep 1 >/dev/null 2>&1
valid_trace noframes "a run with no frames" "no frames"

# a killed recorder: the record left in /dev/shm, torn at its last block
"$SS_BIN" record -q -o killed --frames marker -- "$MARKERS" --fps 100 --seconds 20 &
rec=$!
KILL_ON_EXIT=$rec
wait_for "the recorder to start" 60 test -f killed/run.ini
flushed() {
	"$SS_BIN" dump "$(ini killed/run.ini record_tmp)" 2>/dev/null |
		awk '$1 == "frame" { f++ } END { exit !(f >= 100) }'
}
wait_for "100 flushed frames" 60 flushed
kill -9 $rec
wait $rec 2>/dev/null
kill -9 "$(ini killed/run.ini pid)" 2>/dev/null
tmp=$(ini killed/run.ini record_tmp)
valid_trace killed "a killed recorder's record" "has no end"
rm -f "$tmp" /dev/shm/stallscope-$rec-*

# a damaged block (a bit flipped inside the first after the header): what it
# lost is a segment with its bytes ("record torn" here: a run this short has
# no later key block, so the reader stops there; "record damaged" for a span
# skipped between whole blocks)
cp -r game damaged
python3 "$SS_SRC/tests/e2e/lib/damage.py" damaged/record.ssr 3 || fail "cannot damage the record"
valid_trace damaged "a damaged record" "torn|damaged"
python3 - "$PROTO" damaged.pftrace <<'PY' || fail "the damaged record's segment"
import sys, pftrace
t = pftrace.load(sys.argv[2], sys.argv[1])
seg = [s for u, v in t.slices.items() for s in v if s[2] in ("record damaged", "record torn")]
assert seg and seg[0][3].get("bytes_lost", 0) > 0, seg
PY

# what export refuses: no format, a frame log, two runs, a bad option
"$SS_BIN" export game >/dev/null 2>bad.err
expect_eq "export without --perfetto" $? 2
grep -q -- "--perfetto" bad.err || fail "no word of --perfetto: $(cat bad.err)"
printf '16.7\n16.7\n' >log.txt
"$SS_BIN" export --perfetto log.txt >/dev/null 2>bad.err
expect_eq "export of a frame log" $? 1
grep -q "expected a run directory" bad.err || fail "frame log: $(cat bad.err)"
"$SS_BIN" export --perfetto game nosample >/dev/null 2>bad.err
expect_eq "export of two runs" $? 2
"$SS_BIN" export --perfetto -o /nonexistent/x.pftrace game >/dev/null 2>bad.err
expect_eq "export to a directory that is not there" $? 1
grep -q "cannot write '/nonexistent/x.pftrace'" bad.err || fail "bad output: $(cat bad.err)"
"$SS_BIN" export --help | grep -q "EXAMPLES" || fail "export --help"
[ -n "${nogears:-}" ] && fail "$nogears"
[ -n "$nodisk" ] && { echo "skip: $nodisk"; exit 77; }
if [ "$(ini game/run.ini stacks)" != on ]; then
	echo "skip: the run has no stacks ($(ini game/run.ini stacks_reason)): the callstack samples are not checked"
	exit 77
fi
echo "ok"
