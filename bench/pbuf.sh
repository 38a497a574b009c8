#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/pbuf.sh BUILD: the trace encoder, ours (src/out/pbuf.c) against
# protobuf-c (libprotobuf-c-dev, protobuf-c-compiler; code generated from
# tests/perfetto/stallscope.proto), on a one-hour Frames track, side by side
# in one run; then protobuf-c decodes our bytes (bench/pbuf-bench.c). The
# figures that chose the encoder (docs/EXPORT.md, "The encoder").
set -eu
build=${1:-build}
src=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v protoc-c >/dev/null || [ ! -f /usr/include/protobuf-c/protobuf-c.h ]; then
	echo "bench/pbuf: needs protobuf-c (packages protobuf-c-compiler libprotobuf-c-dev)" >&2
	exit 77
fi
for lib in "$build/libss_out.a" "$build/libss_core.a"; do
	[ -f "$lib" ] || { echo "bench/pbuf: '$lib' is missing; run 'make build'" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
protoc-c --proto_path="$src/tests/perfetto" --c_out="$tmp" stallscope.proto
${CC:-cc} -O2 -std=gnu11 -D_GNU_SOURCE -I"$src/src" -I"$tmp" "$src/bench/pbuf-bench.c" \
	"$tmp/stallscope.pb-c.c" "$build/libss_out.a" "$build/libss_core.a" -lprotobuf-c -lz \
	-o "$tmp/pbuf-bench"
"$tmp/pbuf-bench" "$tmp"
