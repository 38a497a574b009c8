#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Writes the seeds of this directory in fuzz/fuzz-rec-roundtrip.c's encoding
# (a script of writer calls; see the loop there); run from the repository
# root after changing that encoding. (fuzz.sh copies this file into the
# corpus too: any bytes are an input.) Numbers are big-endian, as take()
# reads them.
import struct
d = 'fuzz/corpus/rec-roundtrip/'
def be(v, n): return v.to_bytes(n, 'big')
# a value relative to the previous one (value() there): each op kind
def same(): return bytes([0])
def up(k): return bytes([3 | (k << 3)])
def down(b): return bytes([4, b])
def up3(v): return bytes([5]) + be(v, 3)
def abs8(v): return bytes([6]) + be(v & (2**64 - 1), 8)
def small(k): return bytes([7 | ((k + 16) << 3)])
# DMG (1 to 19): the record damaged after the round trip (damaged() there)
def head(kinds, period=10, dmg=0): return bytes([len(kinds) + 13 * dmg, period]) + bytes(kinds)
def sample(t, vals): return bytes([0]) + t + b''.join(vals)
def frame(op, t, tid=0, src=0):
    return bytes([160 + op]) + t + (be(tid, 4) if op & 1 else b'') + (be(src, 1) if op & 2 else b'')
def thread_new(tid, pol, cpu, prio): return bytes([200]) + be(tid, 2) + be(pol, 1) + be(cpu, 8) + be(prio & 0xffffffff, 4)
def threads(entries, t): return bytes([200, len(entries)]) + b''.join(entries) + be(t, 8)
def th_new(tid, pol, cpu, prio): return bytes([128]) + be(tid, 2) + be(pol, 1) + be(cpu, 8) + be(prio & 0xffffffff, 4)
def th_old(add=None): return bytes([1]) + be(add, 2) if add is not None else bytes([0])
def event(op, t, tid): return bytes([220 + op]) + be(t, 8) + be(tid, 4)
def interval(op, out, wake, run, tid=9, waker=3, sysc=202, cls=1, state=2, flags=0, arg0=0):
    return bytes([240 + op]) + out + be(wake, 3) + be(run, 2) + be(tid, 4) + be(waker, 2) + \
        be(sysc & 0xffffffff, 4) + bytes([cls, state, flags]) + be(arg0, 8)
def ustack(bid, how, off, t, tid, count): return bytes([252, bid, how]) + be(off, 3) + be(t, 8) + be(tid, 4) + be(count, 2)
def apispan(op, start, dur, tid): return bytes([250 + op]) + be(start, 8) + be(dur, 3) + be(tid, 4)
def flush(): return bytes([255])
# the last sample's values again: once (144), or 8 * N + 1 times a period apart (152)
def same_once(t): return bytes([144]) + t
def same_run(n, t): return bytes([152, n]) + t
def clock(m, r, b): return bytes([253]) + be(m, 8) + be(r, 8) + be(b, 8)
def meta(k, v): return bytes([254, k]) + be(v, 2)

vals = [same(), up(5), down(3), up3(70000), abs8(-5), small(-9), abs8(2**63), small(15)]
seeds = {
 # every value kind in int and string fields, a flush between
 'samples': head([0, 1, 0, 1, 0, 0]) + b''.join(
     sample(vals[i % 8], [vals[(i + k) % 8] for k in range(6)]) + (flush() if i == 9 else b'')
     for i in range(24)),
 # no fields, no period; frames of each head (tid, source given or not)
 'frames': head([], 0) + b''.join(frame(i % 4, vals[i % 8], 1000 + i, i) for i in range(16)) +
     sample(up3(5), []) + frame(0, abs8(1)),
 # thread snapshots: new threads, then the same ones moved on or not
 'threads': head([0]) + sample(up(1), [up(1)]) +
     threads([th_new(100 + k, k % 3, 1000 * k, -k) for k in range(5)], 50) +
     threads([th_old(7), th_old(), th_old(9), th_new(200, 1, 5, 3), th_old()], 60) +
     threads([th_old(1)] * 3, 70) + threads([], 80),
 # events: note without text, note with, stack, ustack
 'events': head([0]) + b''.join(event(op, 1000 * op, 7) for op in (0, 1, 2, 3, 4, 6)) +
     sample(same(), [small(1)]),
 # intervals: with a stack and a waker, one whose times go back (refused)
 'intervals': head([0]) + interval(0, up3(1000), 50, 20) + interval(1, up3(1000), 0, 0) +
     interval(2, up(1), 5, 5, cls=3, state=1, flags=7, arg0=2**40) +
     interval(3, abs8(2**64 - 10), 0xffffff, 0xffff) + sample(same(), [same()]) + flush() +
     interval(3, up3(5000), 1, 1),
 # user stacks: each frame kind, two mappings, a build id of each byte
 'ustacks': head([0]) + b''.join(ustack(i * 37 % 256, i, 0x1234 * i, 10000 * i, 5, i) for i in range(16)) +
     sample(same(), [same()]),
 # API spans, one that overflows (refused)
 'apispans': head([0]) + apispan(0, 1000, 500, 5) + apispan(1, 2000, 0, 6) +
     apispan(0, 2**64 - 10, 0xffffff, 1) + flush() + apispan(1, 5000, 70000, 5),
 # clock pairs (one without boot time) and meta keys after the header,
 # the last of a key winning; a key block every 3 blocks (period 13)
 'clocks-meta': head([0], 13) + clock(10**9, 1796209801437070669, 10**9 + 15) +
     meta(0, 7) + sample(up(1), [up(1)]) + flush() + meta(1, 65535) + meta(0, 9) +
     clock(2 * 10**9, 1796209802437070669, 0) + sample(up(1), [up(1)]) + flush() +
     sample(up(1), [up(1)]) + flush() + sample(up(1), [up(1)]) + flush() + sample(up(1), [up(1)]),
}
# everything at once, and long enough for more than one block; a key block
# every 2 blocks (period 12)
mix = head([0, 1, 0], 12) + b''.join(
    sample(up(1), [vals[i % 8], up(1), small(i % 5)]) +
    (frame(i % 4, up(2), 7, 1) if i % 3 == 0 else b'') +
    (threads([th_new(1, 0, i, 0), th_old(i)], i) if i % 40 == 5 else b'') +
    (interval(i % 4, up3(100), 10, 10) if i % 7 == 0 else b'') +
    (event(i % 8, i, 1) if i % 50 == 3 else b'') +
    (ustack(i % 256, i % 16, i, i, 1, 1) if i % 60 == 11 else b'') +
    (apispan(i % 2, i * 100, 50, 2) if i % 45 == 7 else b'') +
    (clock(i, i * 2, i * 3) if i % 97 == 13 else b'') +
    (meta(i % 4, i) if i % 83 == 2 else b'') +
    (flush() if i % 100 == 99 else b'')
    for i in range(300))
seeds['mix'] = mix
# sampler_same: single repeats between changes, and a run of 2,041 rows
# (past REC_WIN_ROWS: the windowed read hands on its group before the end,
# the window ending half way: the last byte even)
seeds['same'] = head([0, 1, 0, 0], 20) + b''.join(
    sample(up(1), [vals[i % 8], up(1), same(), small(i % 3)]) + same_once(up(1)) +
    (same_once(same()) if i % 4 == 0 else b'') + (flush() if i % 10 == 9 else b'')
    for i in range(40)) + same_run(255, up(1)) + sample(up(1), [up(1)] * 4) + same_once(small(2))
seeds['same-long'] = head([0, 0], 1) + sample(up(1), [up(1), small(3)]) + same_run(255, up(1)) + \
    same_run(40, up(1)) + bytes([254, 0, 0, 2])
# the damage after the round trip: cut (even) or a byte flipped (odd) at
# DMG / 20 of the record, read whole, streamed and (DMG % 4 >= 2) from a
# pipe; a record of a few blocks, a key block every 2 (period 12)
def blocks(dmg):
    return head([0, 1], 12, dmg) + b''.join(
        sample(up(1), [vals[i % 8], up(1)]) + (frame(i % 4, up(2), 7, 1) if i % 3 == 0 else b'') +
        (interval(i % 4, up3(100), 10, 10) if i % 7 == 0 else b'') +
        (threads([th_new(1, 0, i, 0)], i) if i % 25 == 5 else b'') +
        (flush() if i % 12 == 11 else b'') for i in range(72))
for dmg in (1, 2, 3, 5, 6, 7, 9, 10, 13, 18, 19):
    seeds['damage-%d' % dmg] = blocks(dmg)
# intervals with many stacks' strings (op 244 to 247: a string each), the
# intern table growing, read back by the callbacks too
seeds['intervals-strings'] = head([0]) + b''.join(
    interval(4 + i % 4, up3(1000), 10, 10) + be(i * 7, 2) for i in range(150)) + sample(same(), [same()])
# small records damaged in their file header (a byte of the magic or the
# version flipped, cut inside it)
for dmg in (1, 2, 3):
    seeds['damage-head-%d' % dmg] = head([], 0, dmg) + event(0, 5, 1)
for k, v in seeds.items():
    open(d + k, 'wb').write(v)
