# SPDX-License-Identifier: MIT
#
# The short commands. CMake does the building; this file installs what is
# missing (scripts/deps.sh), then drives it.
#
#   make          build build/stallscope (and the shim, the fake game)
#   make demo     install what is missing, build, run the main job on the built-in demo
#   make test     install what tests need, build, run the whole suite (ctest)
#   make check    the fast subset for the edit loop: unit tests and the e2e
#                 tests that record nothing live (labels live, slow, root left out)
#   make bench    the benchmarks; they print their figures
#   make install  PREFIX=/usr/local by default; DESTDIR honoured
#   make fuzz     build the fuzz targets with clang and libFuzzer, run each briefly
#   make fuzz-long  the fuzzing campaign: each target 10M executions or an hour
#                 (FUZZ_EXECS, FUZZ_SECONDS), then the readers' line coverage

BUILD ?= build
TEST_BUILD ?= build-test
PREFIX ?= /usr/local
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# The suite's tests beside each other: one more than the CPUs, since the
# live ones that run together spend most of their time waiting on the
# programs they record (the rest run alone: RUN_SERIAL, tests/CMakeLists.txt)
TEST_JOBS ?= $(shell echo $$(( $(JOBS) + 1 )))
CMAKE_FLAGS ?=

.PHONY: all build demo test test-only check bench install fuzz fuzz-long clean deps deps-test

all: build

deps:
	@scripts/deps.sh build

deps-test:
	@scripts/deps.sh test

build:
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) -- --no-print-directory

demo: deps build
	@scripts/demo.sh $(BUILD)

# The suite runs on a sanitized build (ASan + UBSan) of everything but the
# shim, after checking that the release build compiles without warnings.
test: deps-test build test-only

test-only:
	@cmake -S . -B $(TEST_BUILD) -DCMAKE_BUILD_TYPE=Debug -DSTALLSCOPE_SANITIZE=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(TEST_BUILD) -j $(JOBS) -- --no-print-directory
	@cd $(TEST_BUILD) && ctest --output-on-failure -j $(TEST_JOBS) $(CTEST_FLAGS)

# The edit loop's subset: no recording of live programs, nothing slow, no root.
check: build
	@cmake -S . -B $(TEST_BUILD) -DCMAKE_BUILD_TYPE=Debug -DSTALLSCOPE_SANITIZE=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(TEST_BUILD) -j $(JOBS) -- --no-print-directory
	@cd $(TEST_BUILD) && ctest --output-on-failure -j $(JOBS) -LE 'live|slow|root' $(CTEST_FLAGS)

bench: deps-test build
	@scripts/bench.sh $(BUILD)

install: build
	@cmake --install $(BUILD) --prefix $(PREFIX)

fuzz:
	@scripts/fuzz.sh

fuzz-long:
	@scripts/fuzz-long.sh

clean:
	rm -rf $(BUILD) $(TEST_BUILD) build-fuzz
