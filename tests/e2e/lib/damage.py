# SPDX-License-Identifier: MIT
"""damage.py RECORD MIN_BLOCKS: flips a bit in the middle of the first block
after a record's header block (docs/FORMAT.md: a block is a u32 length, a
u32 CRC, then the payload; the file's header is 16 bytes), so that the
reader finds a block whose checksum fails. Exits 1 when the record has
fewer than MIN_BLOCKS blocks (the test would not test what it says)."""
import struct
import sys

path, min_blocks = sys.argv[1], int(sys.argv[2])
b = bytearray(open(path, "rb").read())
off, blocks = 16, []
while off + 8 <= len(b):
    n = struct.unpack_from("<I", b, off)[0]
    blocks.append((off, n))
    off += 8 + n
if len(blocks) < min_blocks:
    sys.exit("%s: %d blocks, expected at least %d" % (path, len(blocks), min_blocks))
o, n = blocks[1]
b[o + 8 + n // 2] ^= 0x20
open(path, "wb").write(b)
