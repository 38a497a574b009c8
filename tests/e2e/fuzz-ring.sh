#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e slow
# The frame ring's reader and run.ini's parser fuzzed for a bounded number
# of inputs (issue 26: both are written by what the recorder does not
# trust): builds the libFuzzer targets with clang (ASan + UBSan) into the
# build tree and runs fuzz-ring (a producer that writes anything into the
# ring between drains, from fuzz/corpus/ring/) and fuzz-runini
# (from fuzz/corpus/runini/) for 20000 inputs each. A reader that
# loops for ever fails by ctest's timeout. Skips (77) when clang or
# libFuzzer is missing.
set -u
export FUZZ_OUT="$SS_BUILD/fuzz"
FUZZ_TARGETS=fuzz-ring sh "$SS_SRC/scripts/fuzz.sh" run 20000 || exit $?
FUZZ_TARGETS=fuzz-runini sh "$SS_SRC/scripts/fuzz.sh" run 20000 || exit $?
echo "fuzz-ring, fuzz-runini ok"
