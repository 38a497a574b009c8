/* SPDX-License-Identifier: MIT */
/*
 * wrapper.h: the name of the program a command line runs, looked through
 * the wrappers people put in front of games. `mangohud env X=1 wine64
 * foo.exe` runs foo, through mangohud, env and wine64; the run is named
 * `foo`, and its reload rule, run directory and results are foo's.
 *
 * Pure argv analysis (no exec, no PATH look-up, nothing expanded): each
 * wrapper's own options are skipped as its getopt would skip them (they
 * all stop at the first word that is not an option, and take `--`), with
 * attached (`-n5`, `--adjustment=5`) and separate values (`-n 5`), then its
 * positional words (taskset's mask, chrt's priority, timeout's duration),
 * then the next word is the program, which may be a wrapper again.
 * docs/FORMAT.md (run.ini `program`, `program_via`) lists the wrappers.
 *
 * The name is a base name, never empty: a wrapper with nothing after it
 * (`env`, `nice -n 5`, `sh -c '$GAME'`) is the program itself.
 */
#ifndef SS_CORE_WRAPPER_H
#define SS_CORE_WRAPPER_H

#include <stdbool.h>

#define WRAPPER_NAME_MAX 256	/* bytes of a name, with its NUL (longer: cut) */
#define WRAPPER_VIA_MAX 256	/* bytes of the wrappers' list, with its NUL */

struct wrapper_name {
	char name[WRAPPER_NAME_MAX];	/* the program's base name */
	char via[WRAPPER_VIA_MAX];	/* the wrappers looked through, in order,
					 * blank-separated ("mangohud env wine64");
					 * "" when none; cut with "..." when long */
};

/*
 * Names the program ARGV (ARGC words) runs. Returns 0 with *ret filled, or
 * -EINVAL (ret untouched) when there is no word or the first is empty or
 * NULL. Wine's program (`wine [start [/switches]] PATH.exe`) is named after
 * the .exe without ".exe" (either slash separates its directories); a
 * flatpak app (`flatpak run [options] ID`) after the last dot-separated
 * part of its ID, lowercased; `sh -c 'CMD'` after CMD's program, past
 * `exec`, VAR=VALUE assignments and a leading `cd DIR &&`.
 */
int wrapper_name(int argc, const char *const *argv, struct wrapper_name *ret);

/* Whether NAME (a base name) is one of the wrappers looked through, or a
 * shell (`sh`, `bash`, ...). */
bool wrapper_is(const char *name);

/*
 * Whether the program named GUESS (wrapper_name's) is the process that
 * presented, whose kernel name (comm, at most 15 bytes) is COMM: equal, or
 * COMM is GUESS cut to 15 bytes, or GUESS is COMM less ".exe" (Wine names
 * its processes after the .exe), case-sensitively.
 */
bool wrapper_same(const char *guess, const char *comm);

#endif
