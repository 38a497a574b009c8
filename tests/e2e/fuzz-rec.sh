#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e slow
# The record format fuzzed for a bounded number of inputs: builds the
# libFuzzer targets with clang (ASan + UBSan) into the build tree and runs
# fuzz-rec (the reader on mutated records, whole and streamed, from
# tests/fixtures/rec-corpus/ and fuzz/corpus/rec/)
# for 6000 inputs and fuzz-rec-roundtrip (writer and reader must agree on
# every value of a scripted record, from fuzz/corpus/rec-roundtrip/) for
# 1000 (2000 before it read each record back damaged and handed on
# record by record too: the same CPU time), and fuzz-framelog (the
# MangoHud, PresentMon and plain readers, from memory and from a file,
# from fuzz/corpus/framelog/) for 4000
# (`make fuzz` and `make fuzz-long` run them longer; each input is read
# more ways than before the second campaign, so fewer inputs: the short
# run no longer than it was). Skips (77) when clang or libFuzzer is
# missing.
set -u
export FUZZ_OUT="$SS_BUILD/fuzz"
FUZZ_TARGETS=fuzz-rec sh "$SS_SRC/scripts/fuzz.sh" run 6000 || exit $?
FUZZ_TARGETS=fuzz-rec-roundtrip sh "$SS_SRC/scripts/fuzz.sh" run 1000 || exit $?
FUZZ_TARGETS=fuzz-framelog sh "$SS_SRC/scripts/fuzz.sh" run 4000 || exit $?
echo "fuzz-rec, fuzz-framelog ok"
