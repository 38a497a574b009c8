#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e slow
# The other readers of outside input fuzzed for a bounded number of inputs
# (issue 31; the long campaign is scripts/fuzz-long.sh, `make fuzz-long`):
# builds the libFuzzer targets with clang (ASan + UBSan) into the build tree
# and runs each from its corpus in fuzz/corpus/<name>/: fuzz-recipe (bench's
# recipe files, their variants and command), fuzz-reload (reload rules,
# run.ini's overrides, the program log and the segments), fuzz-prefetch
# (the prefetch list), fuzz-spool (db push's spool file) and fuzz-db (a
# results database with our tables holding anything; SQLite is slow to
# open, so fewer inputs). Every committed input (the regressions of the
# campaign's findings among them) runs first. Skips (77) when clang or
# libFuzzer is missing.
set -u
export FUZZ_OUT="$SS_BUILD/fuzz"
FUZZ_TARGETS="fuzz-recipe fuzz-reload fuzz-prefetch fuzz-spool" \
	sh "$SS_SRC/scripts/fuzz.sh" run 5000 || exit $?
FUZZ_TARGETS=fuzz-db sh "$SS_SRC/scripts/fuzz.sh" run 300 || exit $?
echo "fuzz-recipe, fuzz-reload, fuzz-prefetch, fuzz-spool, fuzz-db ok"
