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
# of exact mode) only core/exact_abi.h. A run directory's file names are
# spelled once, in its owner src/run/rundir.c; the commands name no /dev
# path and open no run directory's file themselves.
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
# A run directory has one owner, src/run/rundir.[ch] (issue 29): its file
# names are spelled there once, and no other file of src/ names one as a
# string that stands alone ("run.ini", "%s/run.ini", "/run.ini": what a path
# is built from; messages and help name them inside sentences). The
# commands (src/cmd, main.c, cli.c) name no /dev path (src/linux's) and
# open no run directory's file themselves: no fopen, open, openat or
# core/file.h reader on a line that names one.
names='run\.ini|record\.ssr|program\.log|program\.out|interference\.log'
# shellcheck disable=SC2046
bad=$(grep -nE "\"(%s/|/)?($names)\"" $(find src -name '*.[ch]' -not -path 'src/run/rundir.c') |
	grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/\*|\*|//)')
if [ -n "$bad" ]; then
	echo "a run directory's file names are spelled once, in src/run/rundir.c (rundir_file_name):"
	echo "$bad"; fail=1
fi
cmdfiles=$(ls src/cmd/*.[ch] src/main.c src/cli.[ch] src/opts.[ch] 2>/dev/null)
# shellcheck disable=SC2086
bad=$(grep -nE '"/dev(/|")' $cmdfiles)
bad="$bad${bad:+
}$(grep -nE "(^|[^a-z_])(fopen|open|openat|file_open_regular|file_read_text)\(.*($names)" $cmdfiles)"
# nor any file at all: what a command reads is read below it (src/run,
# src/linux), what it writes goes through outfile.c (safefile's sf_out)
# shellcheck disable=SC2086
more=$(grep -nE "(^|[^a-z_])(fopen|open|openat|file_open_regular|file_read_text|file_read_all)\(" \
	$(echo $cmdfiles | tr ' ' '\n' | grep -v '^src/cmd/outfile\.c$'))
bad="$bad${bad:+${more:+
}}$more"
if [ -n "$bad" ]; then
	echo "src/cmd names no /dev path and opens no file itself: a run directory's through its"
	echo "owner (run/rundir.h), others below (src/run, src/linux), output through outfile.c:"
	echo "$bad"; fail=1
fi
[ $fail = 0 ] && echo "layers ok"
exit $fail
