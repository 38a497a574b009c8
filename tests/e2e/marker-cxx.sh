#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live parallel
# The marker API from C++ (include/stallscope.h, "C++11 or later"): a C++
# program that includes it and marks 120 frames from two threads, built by
# g++ as C++11 and by clang++ (where installed) as C++17, with -Wall -Wextra
# -Wpedantic -Werror, each recorded with --frames marker: the record holds
# exactly the 120 frames it marked. A strict C11 build without
# _DEFAULT_SOURCE stops at the header's #error that says what to do; with
# it, it builds. Skips without g++.
. "$SS_SRC/tests/e2e/lib/record.sh"
command -v g++ >/dev/null || { echo "skip: no g++ (scripts/deps.sh test installs it)"; exit 77; }
cat >game.cpp <<'CXX'
#include <cstdio>
#include <thread>
#include <vector>
#include "stallscope.h"

int main()
{
	std::vector<int> pushed(2, 0);
	std::vector<std::thread> t;
	for (int k = 0; k < 2; k++)
		t.emplace_back([k, &pushed] {
			for (int i = 0; i < 60; i++) {
				pushed[k] += stallscope_frame() == 0;
				std::this_thread::sleep_for(std::chrono::milliseconds(5));
			}
		});
	for (auto &th : t)
		th.join();
	std::printf("pushed=%d\n", pushed[0] + pushed[1]);
	return 0;
}
CXX
built=0
for build in g++:c++11 clang++:c++17; do
	cxx=${build%:*} std=${build#*:}
	command -v $cxx >/dev/null || continue
	{
		exe=game-$cxx-$std
		$cxx -std=$std -Wall -Wextra -Wpedantic -Werror -I"$SS_SRC/include" -o "$exe" game.cpp \
			-pthread -lrt >"$exe.err" 2>&1 || fail "$cxx -std=$std: $(head -5 "$exe.err")"
		"$SS_BIN" record -q -o "run-$exe" --frames marker -- "./$exe" >"$exe.out" 2>&1 ||
			fail "record $exe: $(tail -3 "$exe.out")"
		grep -q "pushed=120" "run-$exe/program.log" || fail "$exe: $(cat "run-$exe/program.log")"
		expect_eq "$exe frames" "$(dump_count frame "run-$exe")" 120
		built=$((built + 1))
	}
done
# C: strict C11 is told what it needs; with it, it builds
command -v gcc >/dev/null || fail "no gcc beside g++"
printf '#include "stallscope.h"\nint main(void) { return stallscope_frame() == 0; }\n' >strict.c
gcc -std=c11 -I"$SS_SRC/include" -c strict.c -o strict.o >strict.err 2>&1 &&
	fail "a strict C11 build without _DEFAULT_SOURCE built"
grep -q "define _DEFAULT_SOURCE" strict.err || fail "strict C11: $(head -3 strict.err)"
gcc -std=c11 -D_DEFAULT_SOURCE -Wall -Wextra -Wpedantic -Werror -I"$SS_SRC/include" -c strict.c \
	-o strict.o >strict.err 2>&1 || fail "C11 with _DEFAULT_SOURCE: $(head -5 strict.err)"
echo "ok: $built C++ builds marked 120 frames each"
