#!/bin/bash
# labels: e2e slow
# The record reader fuzzed for a bounded number of inputs: builds
# fuzz/fuzz-rec.c with clang and libFuzzer (ASan + UBSan) into the build tree
# and runs it for 20000 inputs from tests/fixtures/rec-corpus/. Skips (77)
# when clang or libFuzzer is missing.
set -u
export FUZZ_OUT="$SS_BUILD/fuzz"
sh "$SS_SRC/scripts/fuzz.sh" run 20000
rc=$?
[ $rc = 0 ] && echo "fuzz-rec ok"
exit $rc
