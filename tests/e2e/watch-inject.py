#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Writes real struct input_event records (the 64-bit layout: two longs of
# time, u16 type, u16 code, s32 value) into a FIFO, as a device would.
# usage: watch-inject.py FIFO SCENARIO [KEYCODE...]
import struct
import sys

EV_SYN, EV_KEY, EV_REL, EV_ABS = 0, 1, 2, 3
path, scenario = sys.argv[1], sys.argv[2]
codes = [int(c) for c in sys.argv[3:]]
out = open(path, "wb", buffering=0)


def ev(t, typ, code, value):
    sec = int(t)
    usec = int(round((t - sec) * 1e6))
    out.write(struct.pack("qqHHi", sec, usec, typ, code, value))


t = 1000.0
if scenario == "keyboard":
    for c in codes:                  # press, two repeats, release: one press each
        ev(t, EV_KEY, c, 1); ev(t, EV_SYN, 0, 0)
        ev(t + 0.25, EV_KEY, c, 2); ev(t + 0.28, EV_KEY, c, 2)
        ev(t + 0.30, EV_KEY, c, 0); ev(t + 0.30, EV_SYN, 0, 0)
        t += 1
elif scenario == "mouse":
    for i in range(20):              # a bump: 0.2 s of small motion
        ev(t + i * 0.01, EV_REL, 0, 2); ev(t + i * 0.01, EV_SYN, 0, 0)
    t += 5
    for i in range(300):             # a 3 s drag, 1 count every 10 ms
        ev(t + i * 0.01, EV_REL, 1, 1); ev(t + i * 0.01, EV_SYN, 0, 0)
    t += 10
    ev(t, EV_REL, 8, -1); ev(t, EV_REL, 11, -120); ev(t, EV_SYN, 0, 0)   # a wheel step
elif scenario == "pad":
    for v in (1000, 20000, 30000, 200, -200):   # one excursion of the left stick
        ev(t, EV_ABS, 0, v); ev(t, EV_SYN, 0, 0); t += 0.1
    ev(t, EV_ABS, 0x10, 1); ev(t, EV_ABS, 0x10, 0)   # a hat press
else:
    sys.exit("unknown scenario " + scenario)
out.close()
