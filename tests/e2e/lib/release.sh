# SPDX-License-Identifier: MIT
# For the e2e scripts that hold a reader to `ulimit -v` (sourced, not a
# test). An ASan build reserves more address space than such a limit at its
# start, so they run a release build: R is SS_BIN when it is one, else
# build/stallscope of the source tree when it is the same version; without
# one the script is skipped (77). G is rec-bench (bench/rec-bench.c), the
# synthetic records' maker, beside R or in SS_BUILD.
R=$SS_BIN
if ldd "$R" 2>/dev/null | grep -q libasan; then
	R=$SS_SRC/build/stallscope
	if [ ! -x "$R" ]; then
		echo "skip: $SS_BIN is an ASan build (it cannot run under ulimit -v) and there is" \
			"no release build $R"
		exit 77
	fi
	if [ "$("$R" --version 2>&1)" != "$("$SS_BIN" --version 2>&1)" ]; then
		echo "skip: $SS_BIN is an ASan build and $R is another version"
		exit 77
	fi
fi
G=$(dirname "$R")/bench/rec-bench
[ -x "$G" ] || G=$SS_BUILD/bench/rec-bench
[ -x "$G" ] || { echo "skip: no rec-bench (bench/CMakeLists.txt builds it)"; exit 77; }
