#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live root
# The code behind each stall (docs/WHERE.md): the fake game, built -O2
# -fomit-frame-pointer with a named function per stall kind, so that only
# DWARF unwinding (libdw) finds its callers. Its cpu stall's samples name the
# busy function (spin_until <- stall_cpu) in >= 90 %; its sleep and futex
# stalls name the calling function at the switch-out; its sort stall (a
# spinning qsort comparator) unwinds across glibc: sort_cmp <- qsort <-
# stall_sort; the futex stall's kernel frames name the futex wait. A
# stripped copy shows fakegame.stripped+0xOFFSET and still unwinds, and
# once removed after the recording its frames are [unknown] with a note;
# a non-PIE build is named; one deleted while it runs is still named (at
# record time, from /proc/PID/exe). With the frame thread the main thread
# there is no second thread's stack; with --render-thread (frames from a
# thread of their own) the main thread is the second sampled thread and its
# stacks in the stall name its code (__poll <- main_events), the frame
# thread's render_main. `stalls --at S` picks one stall (its t_s, or a time
# inside it): --folded then has its stacks alone, weighted to its time, and
# --json that stall alone; a time with no stall is an error. Then
# --no-stacks records none. Root: kernel-mode samples (the switch-outs)
# need it at perf_event_paranoid 2.
. "$SS_SRC/tests/e2e/lib/record.sh"
[ "$(id -u)" = 0 ] || { echo "skip: not root (switch-out stacks need root at perf_event_paranoid >= 2)"; exit 77; }
GAME=$SS_BUILD/fakegame
[ -x "$GAME" ] || { echo "skip: no fakegame"; exit 77; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }

"$SS_BIN" record -q -o run --no-exact -- "$GAME" --fps 60 --seconds 3.4 --stall cpu:300@0.6 \
	--stall sleep:200@1.2 --stall wait:200@1.7 --stall sort:300@2.3 >rec.out 2>&1 ||
	fail "record: $(tail -5 rec.out)"
if [ "$(ini run/run.ini stacks)" != on ]; then
	reason=$(ini run/run.ini stacks_reason)
	case "$reason" in
	*"no libdw"*) echo "skip: built without libdw: $reason"; exit 77 ;;
	*"perf_event_open on thread"*) echo "skip: this machine refuses perf_event_open: $reason"; exit 77 ;;
	esac
	fail "stacks not on: $reason"
fi
expect_ge "stacks_stalls" "$(ini run/run.ini stacks_stalls)" 4
"$SS_BIN" stalls --json run >stalls.json || fail "stalls --json"
"$SS_BIN" stalls run >stalls.txt || fail "stalls"
cat stalls.txt
python3 - stalls.json <<'PY' || fail "stacks do not name the code (stalls.txt above)"
import json, sys
runs = json.load(open(sys.argv[1]))
st = runs[0]["stalls"] + runs[0]["warm_stalls"]
st.sort(key=lambda s: s["t_s"])
bad = []
def stacks(i):
    return st[i].get("stacks", []), st[i].get("stack_samples", 0)
if len(st) != 4:
    sys.exit("expected 4 stalls, got %d" % len(st))
# the frame thread is the main thread: no second sampled thread
if any(x.get("thread2", "absent") is not None for x in st):
    bad.append("thread2 not null with the main thread presenting: %s"
               % [x.get("thread2", "absent") for x in st])
# cpu: the busy function in >= 90 % of the samples, called by stall_cpu
s, n = stacks(0)
busy = sum(x["n"] for x in s
           if "spin_until" in x["frames"] and any(f.startswith("stall_cpu") for f in x["frames"]))
if n < 100 or busy < 0.9 * n:
    bad.append("cpu: %d of %d samples in spin_until <- stall_cpu" % (busy, n))
# sleep and futex: the calling function at the switch-out
# (a switch-out sample: the kernel's frames end in schedule; a CPU sample
# may also fall into the stall's few microseconds of user code)
for i, fn in ((1, "stall_sleep"), (2, "stall_wait")):
    s, n = stacks(i)
    hit = sum(x["n"] for x in s if any(f.startswith(fn) for f in x["frames"])
              and "schedule" in x.get("kernel", []))
    if hit < 1 or hit < n - 2:
        bad.append("%s: %d of %d samples name it at a switch-out: %s" % (fn, hit, n, s[:2]))
# the futex stall's switch-out has the kernel's side too (root: callchain)
s, n = stacks(2)
if not any("futex" in " ".join(x.get("kernel", [])) for x in s):
    bad.append("wait: no kernel frame names the futex: %s" % s[:2])
# sort: the comparator, then glibc's qsort, then its caller, in that order
s, n = stacks(3)
def order(fr):
    try:
        a = fr.index("sort_cmp")
        b = next(i for i, f in enumerate(fr) if f.startswith("qsort") and i > a)
        c = next(i for i, f in enumerate(fr) if f.startswith("stall_sort") and i > b)
        return True
    except (ValueError, StopIteration):
        return False
hit = sum(x["n"] for x in s if order(x["frames"]))
if n < 100 or hit < 0.9 * n:
    bad.append("sort: %d of %d samples in sort_cmp <- qsort <- stall_sort" % (hit, n))
if bad:
    sys.exit("; ".join(bad))
PY
# the text's top line names it (the JSON's count above is the >= 90 %: the
# vDSO's clock_gettime takes a few percent of the samples into stacks of
# their own, still inside spin_until)
grep -Eq '^ +[0-9.]+ s  where: ([5-9][0-9]|100) % spin_until <- stall_cpu' stalls.txt ||
	fail "no where: line for the cpu stall"
grep -q 'second thread' stalls.txt && fail "a second thread's line with the main thread presenting"

# frames from a thread of their own: the main thread is the second
# sampled thread (polling for events, 5 ms at a time, while the frame
# thread sleeps through its stall)
"$SS_BIN" record -q -o run5 --no-exact -- "$GAME" --render-thread --fps 60 --seconds 1.1 \
	--stall sleep:200@0.5 >rec5.out 2>&1 || fail "record --render-thread: $(tail -5 rec5.out)"
expect_ge "stacks_thread2_stalls" "$(ini run5/run.ini stacks_thread2_stalls)" 1
"$SS_BIN" stalls --json run5 >stalls5.json || fail "stalls --json (render thread)"
"$SS_BIN" stalls run5 >stalls5.txt || fail "stalls (render thread)"
python3 - stalls5.json <<'PY' || fail "the second thread's stacks (render thread): $(cat stalls5.txt)"
import json, sys
st = json.load(open(sys.argv[1]))[0]
st = st["stalls"] + st["warm_stalls"]
if len(st) != 1:
    sys.exit("expected 1 stall, got %d" % len(st))
s = st[0]
t2 = s.get("thread2")
if not t2:
    sys.exit("no thread2 in the stall")
ft = [x for x in s["stacks"] if "stall_sleep" in " ".join(x["frames"])]
if not ft or not any(f == "render_main" for f in ft[0]["frames"]):
    sys.exit("the frame thread's stack is not stall_sleep <- ... <- render_main: %s"
             % s["stacks"][:2])
n = t2["stack_samples"]
hit = sum(x["n"] for x in t2["stacks"] if "main_events" in x["frames"])
if n < 5 or hit < 0.9 * n:
    sys.exit("thread2 %d: %d of %d samples in main_events: %s" % (t2["tid"], hit, n,
             t2["stacks"][:2]))
PY
pid5=$(sed -n 's/^pid=//p' run5/run.ini)
grep -Eq "^ +second thread ${pid5:-x}: (9[0-9]|100) % __poll <- main_events <- main" stalls5.txt ||
	fail "no 'second thread $pid5:' line naming main_events: $(cat stalls5.txt)"
# --folded: collapsed stacks by cause, the widths the stalls' microseconds
"$SS_BIN" stalls --folded run >folded.txt || fail "stalls --folded"
bad=$(grep -Evc '^[a-z]+(;[^;]+)+ [0-9]+$' folded.txt)
expect_eq "lines of --folded not CAUSE;FRAME;... N" "$bad" 0
grep -Eq '^cpu;_start;.*;stall_cpu[^;]*;spin_until [0-9]+$' folded.txt ||
	fail "--folded has no cpu;...;stall_cpu;spin_until: $(head -3 folded.txt)"
us=$(awk '{ s += $NF } END { printf "%d", s / 1000 }' folded.txt)
[ "$us" -ge 950 ] && [ "$us" -le 1150 ] ||
	fail "--folded's widths add up to $us ms, not the four stalls' ~1000 ms"

# --at S: one stall, by its t_s as listed or a time inside it
read -r cpu_t cpu_ms sort_mid < <(python3 -c '
import json, sys
st = json.load(open(sys.argv[1]))[0]
st = sorted(st["stalls"] + st["warm_stalls"], key=lambda s: s["t_s"])
print("%.3f %.3f %.3f" % (st[0]["t_s"], st[0]["ms"], st[3]["t_s"] + st[3]["ms"] / 2000))' stalls.json)
"$SS_BIN" stalls --folded --at "$cpu_t" run >at.txt || fail "stalls --folded --at $cpu_t"
expect_eq "--folded --at (the cpu stall): lines not cpu;..." "$(grep -vc '^cpu;' at.txt)" 0
grep -Eq '^cpu;_start;.*;stall_cpu[^;]*;spin_until [0-9]+$' at.txt || fail "--at $cpu_t: no spin_until: $(head -3 at.txt)"
grep -Eq 'stall_(sleep|wait|sort)' at.txt && fail "--at $cpu_t has another stall's frames: $(grep -E 'stall_(sleep|wait|sort)' at.txt | head -2)"
us=$(awk '{ s += $NF } END { printf "%d", s }' at.txt)
python3 -c "import sys; sys.exit(abs($us / 1000 - $cpu_ms) > 1.0 + $(wc -l <at.txt) / 1000)" ||
	fail "--at $cpu_t: widths add up to $us us, the stall is $cpu_ms ms"
"$SS_BIN" stalls --folded --at "$sort_mid" run >at2.txt || fail "stalls --folded --at $sort_mid"
grep -q 'sort_cmp' at2.txt && ! grep -q 'stall_cpu' at2.txt ||
	fail "--at $sort_mid (inside the sort stall): $(head -3 at2.txt)"
"$SS_BIN" stalls --json --at "$sort_mid" run >at.json || fail "stalls --json --at"
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))[0]
st = r["stalls"] + r["warm_stalls"]
assert len(st) == 1 and abs(st[0]["t_s"] + st[0]["ms"] / 2000 - float(sys.argv[2])) < 0.001, st' at.json "$sort_mid" ||
	fail "stalls --json --at $sort_mid: not the sort stall alone"
"$SS_BIN" stalls --at 0.01 run >/dev/null 2>at.err
expect_eq "stalls --at a time with no stall" $? 1
grep -q "no stall at 0.010 s (stalls at $cpu_t, " at.err || fail "--at 0.01: $(cat at.err)"

# a stripped copy: no symbol for its own functions (FILE+0xOFFSET), but its
# .eh_frame still unwinds it into glibc's __libc_start_call_main
if command -v strip >/dev/null; then
	cp "$GAME" fakegame.stripped && strip fakegame.stripped || fail "strip"
	"$SS_BIN" record -q -o run3 --no-exact -- ./fakegame.stripped --fps 60 --seconds 1.2 \
		--stall cpu:200@0.5 >rec3.out 2>&1 || fail "record the stripped copy: $(tail -5 rec3.out)"
	"$SS_BIN" stalls --json run3 >stalls3.json || fail "stalls --json (stripped)"
	python3 - stalls3.json <<'PY' || fail "the stripped copy's stacks"
import json, re, sys
st = json.load(open(sys.argv[1]))[0]
st = st["stalls"] + st["warm_stalls"]
s = st[0]["stacks"]
n = st[0]["stack_samples"]
ok = sum(x["n"] for x in s
         if re.fullmatch(r"fakegame\.stripped\+0x[0-9a-f]+", x["frames"][0])
         and "__libc_start_call_main" in x["frames"])
if n < 50 or ok < 0.8 * n:
    sys.exit("%d of %d samples: fakegame.stripped+0x... reaching __libc_start_call_main: %s"
             % (ok, n, s[:2]))
PY
	# the binary removed after the recording: its frames are [unknown],
	# and a note says which file and build-id (symbols at analysis time)
	rm -f fakegame.stripped
	"$SS_BIN" stalls run3 >stalls3b.txt || fail "stalls (stripped copy removed)"
	grep -Eq '^ +[0-9.]+ s  where: [0-9]+ % \[unknown\] <- ' stalls3b.txt ||
		fail "the removed binary's frames are not [unknown]: $(cat stalls3b.txt)"
	grep -Eq "^note: .*stacks: /.*/fakegame\.stripped \(build-id [0-9a-f]{40}\) is not on this machine or differs \(.*No such file.*\): its frames show as \[unknown\]" stalls3b.txt ||
		fail "no note for the removed binary: $(cat stalls3b.txt)"
	expect_eq "notes for the removed binary" "$(grep -c 'fakegame.stripped (build-id' stalls3b.txt)" 1
fi

# a non-PIE build: its frames' file offsets turned into its fixed addresses
if [ -x "$SS_BUILD/fakegame-nopie" ]; then
	"$SS_BIN" record -q -o run6 --no-exact -- "$SS_BUILD/fakegame-nopie" --fps 60 --seconds 1.2 \
		--stall cpu:200@0.5 >rec6.out 2>&1 || fail "record the non-PIE game: $(tail -5 rec6.out)"
	"$SS_BIN" stalls run6 >stalls6.txt || fail "stalls (non-PIE)"
	grep -Eq '^ +[0-9.]+ s  where: ([5-9][0-9]|100) % spin_until <- stall_cpu' stalls6.txt ||
		fail "the non-PIE game's functions are not named: $(cat stalls6.txt)"
fi

# a binary deleted while it runs: its frames are named at record time (the
# analysis could not find it), from /proc/PID/exe
cp "$GAME" fakegame.del || fail "cp"
# deleted once it runs: record writes run.ini's pid after the exec (a
# loaded machine may take a while to get there)
(for _ in $(seq 400); do
	grep -qs '^pid=' run4/run.ini && break
	sleep 0.05
done; rm -f fakegame.del) &
"$SS_BIN" record -q -o run4 --no-exact -- ./fakegame.del --fps 60 --seconds 1.3 \
	--stall cpu:200@0.8 >rec4.out 2>&1 || fail "record the deleted copy: $(tail -5 rec4.out)"
wait
[ -e fakegame.del ] && fail "fakegame.del was not deleted while it ran"
"$SS_BIN" stalls run4 >stalls4.txt || fail "stalls (deleted)"
# >= 90 % of the samples name spin_until <- stall_cpu, counted over every
# stack that does (a loaded machine puts more of them inside the vDSO's
# clock_gettime, a where: line of its own)
"$SS_BIN" stalls --json run4 >stalls4.json || fail "stalls --json (deleted)"
python3 - stalls4.json <<'PY' || fail "the deleted binary's functions are not named: $(cat stalls4.txt)"
import json, sys
st = json.load(open(sys.argv[1]))[0]
st = st["stalls"] + st["warm_stalls"]
s, n = st[0]["stacks"], st[0]["stack_samples"]
hit = sum(x["n"] for x in s if "spin_until" in x["frames"]
          and any(f.startswith("stall_cpu") for f in x["frames"]))
if n < 100 or hit < 0.9 * n:
    sys.exit("%d of %d samples in spin_until <- stall_cpu" % (hit, n))
PY
grep -Eq '^ +[0-9.]+ s  where: [0-9]+ % spin_until <- stall_cpu' stalls4.txt ||
	fail "no where: line names spin_until <- stall_cpu: $(cat stalls4.txt)"

"$SS_BIN" record -q -o run2 --no-exact --no-stacks -- "$GAME" --fps 60 --seconds 1.2 \
	--stall cpu:200@0.5 >rec2.out 2>&1 || fail "record --no-stacks: $(tail -5 rec2.out)"
expect_eq "stacks with --no-stacks" "$(ini run2/run.ini stacks)" "off (--no-stacks)"
expect_eq "stacks with --no-stacks" "$("$SS_BIN" dump run2 | grep -c "kind='ustack'\|^ustack")" 0
echo "ok"
