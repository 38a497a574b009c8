#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e
# The layering rules of docs/LAYOUT.md, checked on the source: src/core uses no
# system calls (no unistd, sys/, fcntl, no /proc or /sys paths) but in
# src/core/file.c, the bounded reader every layer shares; every /proc
# and /sys path of the project lives in src/linux; src/core includes nothing
# from the layers above it; each library layer (frames, rec, linux, out, db)
# includes only itself and core; src/run (running and analysing a run)
# includes the libraries and itself, never cli.h, and never prints; cli.h
# (messages, exit codes) only the commands; src/linux/bpf (the kernel side
# of exact mode) only core/exact_abi.h. The commands name no /dev path and
# spell no run directory file name as a path to open (run.ini, record.ssr,
# program.log, interference.log): the run directory's owner below them
# does; today's offenders are an allow-list, below, that only shrinks.
set -u
cd "$SS_SRC" || exit 1
fail=0

# src/core/file.c alone may open, fstat and read (file.h: every layer reads
# files it does not own, by one set of rules); nothing else of core, its
# header included, and that file no more than those calls need
bad=$(grep -nE '#include *<(unistd|fcntl|dirent|poll|signal|pthread)\.h>|#include *<sys/' \
	$(ls src/core/*.[ch] | grep -vx 'src/core/file\.c'))
bad="$bad$(grep -nE '#include *<' src/core/file.c |
	grep -vE '#include *<(errno|fcntl|stdio|string|unistd|sys/stat)\.h>')"
if [ -n "$bad" ]; then
	echo "src/core must not make system calls (src/core/file.c: open, fstat, read only):"
	echo "$bad"; fail=1
fi
bad=$(grep -nE '#include *"(rec|linux|frames|db|out|run|cmd)/' src/core/*.[ch])
if [ -n "$bad" ]; then
	echo "src/core must not include the layers above it:"; echo "$bad"; fail=1
fi
bad=$(grep -nE '"/(proc|sys)/' $(find src -name '*.[ch]' -not -path 'src/linux/*'))
if [ -n "$bad" ]; then
	echo "/proc and /sys paths belong in src/linux:"; echo "$bad"; fail=1
fi
# the BPF program (compiled for the kernel, no libc) includes, of ours, only
# the layout it shares with user space, which includes nothing of ours
bad=$(grep -nE '#include *"[a-z_]+/' src/linux/bpf/*.[ch] | grep -vE '#include *"core/exact_abi\.h"')
bad="$bad$(grep -nE '#include *"' src/core/exact_abi.h)"
if [ -n "$bad" ]; then
	echo "src/linux/bpf may include only core/exact_abi.h of ours (and it nothing):"
	echo "$bad"; fail=1
fi
for L in frames rec linux out db; do
	bad=$(grep -nE '#include *"[a-z]+/' src/$L/*.[ch] | grep -vE "#include *\"(core|$L)/")
	if [ -n "$bad" ]; then
		echo "src/$L may include only itself and src/core:"; echo "$bad"; fail=1
	fi
done
bad=$(grep -nE '#include *"[a-z]+/' src/run/*.[ch] | grep -vE '#include *"(core|frames|rec|linux|out|db|run)/')
if [ -n "$bad" ]; then
	echo "src/run may include the libraries and itself, not the commands:"; echo "$bad"; fail=1
fi
# a library's messages go to its caller (a negative errno and a strbuf)
bad=$(grep -nE '(^|[^a-z_])(printf|fprintf|vfprintf|dprintf|puts|fputs|fputc|perror)\(|[^a-z_](stderr|stdout|STDERR_FILENO)[,)]' src/run/*.[ch])
if [ -n "$bad" ]; then
	echo "src/run never prints (errors are a negative errno and a strbuf message):"; echo "$bad"; fail=1
fi
bad=$(grep -rnE '#include *"cli\.h"' src --include='*.[ch]' | grep -vE '^src/(cmd/|main\.c|cli\.c|opts\.c)')
if [ -n "$bad" ]; then
	echo "cli.h (messages, exit codes) is the commands' alone:"; echo "$bad"; fail=1
fi
# The commands (src/cmd, main.c, cli.c) open no device and build no path
# to a run directory's file: those belong to src/linux and to the run
# directory's owner (issue 29). The rule sees "/dev/..." anywhere and a
# file name that stands alone as a string ("run.ini", "%s/run.ini",
# "/run.ini": what a path is built from; help text names them inside
# sentences). ALLOW is today's offenders, each "file|text on the line":
# issue 29's run directory object takes them away; never add to it.
ALLOW='src/cmd/watch.c|open("/dev/kmsg"
src/cmd/watch.c|sb_error(err, -errno, "/dev/kmsg")
src/cmd/watch.c|sb_addf(&path, "%s/run.ini", run)
src/cmd/watch.c|sb_addf(&path, "%s/program.log", run)
src/cmd/html.c|sb_add_path(&ini, inputs[0], "run.ini")
src/cmd/report_threads.c|sb_add_path(&path, a->source, "run.ini")
src/cmd/export_perfetto_samples.c|sb_add_path(&path, rundir, "interference.log")'
cmdfiles=$(ls src/cmd/*.[ch] src/main.c src/cli.[ch] src/opts.[ch] 2>/dev/null)
# shellcheck disable=SC2086
bad=$(grep -nE '"/dev(/|")|"(%s/|/)?(run\.ini|record\.ssr|program\.log|interference\.log)"' $cmdfiles |
	while IFS= read -r hit; do
		file=${hit%%:*}
		allowed=
		while IFS= read -r a; do
			[ "$file" = "${a%%|*}" ] && [[ $hit == *"${a#*|}"* ]] && { allowed=1; break; }
		done <<<"$ALLOW"
		[ -n "$allowed" ] || echo "$hit"
	done)
if [ -n "$bad" ]; then
	echo "src/cmd names no /dev path and builds no path to a run directory's file (run.ini,"
	echo "record.ssr, program.log, interference.log): ask src/linux or the run directory's owner:"
	echo "$bad"; fail=1
fi
# and the allow-list holds only what is still there (it shrinks, never rots)
while IFS= read -r a; do
	grep -qF -- "${a#*|}" "${a%%|*}" 2>/dev/null ||
		{ echo "layers.sh's ALLOW names what '${a%%|*}' no longer has: remove '${a#*|}'"; fail=1; }
done <<<"$ALLOW"
[ $fail = 0 ] && echo "layers ok"
exit $fail
