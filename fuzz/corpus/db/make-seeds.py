#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Writes the seeds of this directory in fuzz/fuzz-db.c's encoding; run from
# the repository root after changing that encoding. (fuzz.sh copies this
# file into the corpus too: any bytes are an input.)
import struct
d = 'fuzz/corpus/db/'
W = ["-", "fps_avg", "frametime_p99", "a b", "1", "-1", "2.5", "nan", "inf", "1e999",
     "0x10", "", "ft_ms", "glxgears", "bad-name", "9223372036854775808", " 3", "3 "]
def null(): return bytes([0])
def i64(v): return bytes([1]) + struct.pack('>q', v)
def small(v): return bytes([2 | ((v - 1) << 3)])          # 1 .. 32
def real(x): return bytes([3]) + struct.pack('>d', x)
def text(s): b = s.encode(); return bytes([4, len(b)]) + b
def blob(b): return bytes([5, len(b)]) + b
def word(s): return bytes([6 | (W.index(s) << 3)])
# runs: id name variant switches round started host kernel rundir
#       interfered exit_status interference failed failure rig
def run(id, name='glxgears', variant='-', rig='-', interfered=small(1), failed=small(1),
        exit_status=i64(0), round=small(1)):
    return (bytes([0]) + small(id) + word(name) + word(variant) + null() + round +
            text('2026-01-01T00:00:00Z') + text('host') + text('6.1') +
            text('/runs/%d' % id) + interfered + exit_status + null() + failed + null() +
            word(rig))
def metric(id, name, value):
    return bytes([1]) + small(id) + (word(name) if name in W else text(name)) + value
seeds = {
    # our schema, three runs and their metrics
    'good': bytes([0]) + run(1) + run(2) + run(3, variant='a b') +
            metric(1, 'fps_avg', real(60.0)) + metric(2, 'fps_avg', real(59.5)) +
            metric(3, 'frametime_p99', real(16.7)) + metric(1, 'ft_ms', word('2.5')),
    # the tables without types: NULL names, text where numbers go
    'loose': bytes([2]) + run(1) + run(2, name='-') +
             bytes([0]) + small(3) + null() + null() + null() + word('1') + null() * 4 +
             word(' 3') + word('3 ') + null() + word('0x10') + null() + null() +
             metric(1, 'fps_avg', word('nan')) + metric(2, 'bad-name', real(1.0)) +
             metric(1, 'frametime_p99', null()) + bytes([1]) + null() + word('ft_ms') + real(2.0),
    # values out of range and of the wrong kind
    'odd-values': bytes([2]) + run(1, interfered=word('1e999'), exit_status=word('9223372036854775808')) +
                  metric(1, 'fps_avg', real(float('inf'))) + metric(1, 'ft_ms', blob(b'\x00\x01')) +
                  metric(1, 'frametime_p99', word('inf')),
    # a user_version that is not ours
    'version-3': bytes([4, 3]) + run(1),
    'version-9': bytes([4, 9]) + run(1),
    # not a database at all
    'raw-text': bytes([0x0f]) + b'SQLite format 3\x00 but not really',
}
for name, b in seeds.items():
    open(d + name, 'wb').write(b)
