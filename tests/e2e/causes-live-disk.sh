#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live
# causes-live.sh's check for the two stalls that need a file on a disk:
# the fake game's pread64 of its file (io) and major faults on it mapped
# (disk), 300 ms each, recorded with the snapshot rules (--no-exact);
# `stalls` must give each its cause for >= 95 % of its seconds. The file
# goes beside the build tree, or under the source tree, /var/tmp or $HOME,
# whichever is first on a block device; skips (77) where none is (tmpfs or
# overlay only: a page cache with no disk behind it has no io to judge).
. "$SS_SRC/tests/e2e/lib/causes-live.sh"
RECORD_ARGS=--no-exact
use_disk_dir || { echo "skip: none of '$T', '$SS_SRC', /var/tmp, \$HOME is on a disk"; exit 77; }
echo "the stalls' file in $STALL_DIR"
record_and_check 2.4 io:io:io_read disk:disk:disk
