#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live root
# C++ names in the stacks (docs/WHERE.md): a small C++ program, built here
# -O2 -fomit-frame-pointer, whose 200 ms stall is a busy loop in
# engine::Shader::compile(double); the stall's where: line names it
# demangled (libstdc++'s __cxa_demangle), and no frame stays mangled (_Z).
# Root: as the other stacks tests (switch-outs); skips without g++.
. "$SS_SRC/tests/e2e/lib/record.sh"
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "skip: not root"; exit 77; }
command -v g++ >/dev/null && command -v gcc >/dev/null || { echo "skip: no g++"; exit 77; }
cat >mark.c <<'C'
#include "stallscope.h"
void mark(void) { stallscope_frame(); }
C
cat >game.cpp <<'CXX'
#include <chrono>
#include <thread>
extern "C" void mark(void);
namespace engine {
struct Shader {
	__attribute__((noinline)) static void compile(double ms)
	{
		auto end = std::chrono::steady_clock::now() +
			   std::chrono::microseconds((long)(ms * 1000));
		volatile unsigned long x = 0;
		while (std::chrono::steady_clock::now() < end)
			for (int i = 0; i < 1000; i++)
				x = x + i;
	}
};
}
int main()
{
	for (int f = 0; f < 50; f++) {
		if (f == 20)
			engine::Shader::compile(200);
		std::this_thread::sleep_for(std::chrono::milliseconds(16));
		mark();
	}
}
CXX
gcc -O2 -c -I"$SS_SRC/include" mark.c -o mark.o && g++ -O2 -fomit-frame-pointer game.cpp mark.o \
	-o game -lrt || fail "cannot build the C++ program"
"$SS_BIN" record -q -o run --no-exact -- ./game >rec.out 2>&1 || fail "record: $(tail -5 rec.out)"
reason=$(ini run/run.ini stacks_reason)
case "$reason" in
*"no libdw"*) echo "skip: built without libdw"; exit 77 ;;
*"perf_event_open on thread"*) echo "skip: perf_event_open refused here: $reason"; exit 77 ;;
esac
"$SS_BIN" stalls run >stalls.txt || fail "stalls"
cat stalls.txt
grep -Eq '^ +[0-9.]+ s  where: ([5-9][0-9]|100) % engine::Shader::compile\(double\) <- main' stalls.txt ||
	fail "the stall does not name engine::Shader::compile(double)"
"$SS_BIN" stalls --json run >stalls.json || fail "stalls --json"
# >= 90 % of the stall's samples inside it, counted over every stack that
# names it (the vDSO's clock_gettime under it is a stack of its own)
python3 - stalls.json <<'PY' || fail "under 90 % of the samples in engine::Shader::compile(double)"
import json, sys
st = [s for r in json.load(open(sys.argv[1])) for s in r["stalls"] + r["warm_stalls"]]
n = sum(s.get("stack_samples", 0) for s in st)
hit = sum(x["n"] for s in st for x in s.get("stacks", [])
          if "engine::Shader::compile(double)" in x["frames"])
print("%d of %d samples in engine::Shader::compile(double)" % (hit, n))
sys.exit(0 if n >= 100 and hit >= 0.9 * n else 1)
PY
grep -q '"_Z' stalls.json && fail "a mangled name is left: $(grep -o '"_Z[^"]*"' stalls.json | head -3)"
echo ok
