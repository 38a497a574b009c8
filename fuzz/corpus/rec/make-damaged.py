#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Writes this directory's head-*.ssr: a record damaged in its file header
# (docs/FORMAT.md: magic u64, major u16, minor u16, flags u32) or its header
# block, each refused with its own reason (reader.c: rd_header, parse). Run
# from the repository root. (fuzz.sh copies this file into the corpus too:
# any bytes are an input.)
import struct
d = 'fuzz/corpus/rec/'
rec = open('tests/fixtures/rec-corpus/handmade.ssr', 'rb').read()
head, rest = rec[:16], rec[16:]
def ver(major, minor): return head[:8] + struct.pack('<HH', major, minor) + head[12:]
n = struct.unpack('<I', rest[:4])[0]
seeds = {
    'head-cut-magic': rec[:3],                   # ends inside the magic
    'head-not-magic': b'SSX',                     # short, and not the magic
    'head-big-endian': head[7::-1] + rec[8:],     # the magic as a big-endian writer writes it
    'head-cut': rec[:12],                         # ends inside the file header
    'head-only': head,                            # no header block
    'head-newer': ver(9, 0) + rest,               # a version this reader does not know
    'head-version-0': ver(0, 3) + rest,           # no such version
    # the header block's CRC wrong (fuzz-rec's second read makes it right)
    'head-block-crc': head + rest[:4] + bytes(b ^ 0xff for b in rest[4:8]) + rest[8:],
}
for k, v in seeds.items():
    open(d + k + '.ssr', 'wb').write(v)
