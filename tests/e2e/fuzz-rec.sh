#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e slow
# The record format fuzzed for a bounded number of inputs: builds the
# libFuzzer targets with clang (ASan + UBSan) into the build tree and runs
# fuzz-rec (the reader on mutated records, whole and streamed, from
# tests/fixtures/rec-corpus/ and fuzz/corpus/rec/)
# for 8000 inputs and fuzz-rec-roundtrip (writer and reader must agree on
# every value of a scripted record) for 5000, and fuzz-framelog (the
# MangoHud, PresentMon and plain readers, from fuzz/corpus/framelog/)
# for 8000 (`make fuzz` and `make fuzz-long` run them longer). Skips (77)
# when clang or libFuzzer is missing.
set -u
export FUZZ_OUT="$SS_BUILD/fuzz"
FUZZ_TARGETS=fuzz-rec sh "$SS_SRC/scripts/fuzz.sh" run 8000 || exit $?
FUZZ_TARGETS=fuzz-rec-roundtrip sh "$SS_SRC/scripts/fuzz.sh" run 5000 || exit $?
FUZZ_TARGETS=fuzz-framelog sh "$SS_SRC/scripts/fuzz.sh" run 8000 || exit $?
echo "fuzz-rec, fuzz-framelog ok"
