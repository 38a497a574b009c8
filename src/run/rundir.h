/* SPDX-License-Identifier: MIT */
/*
 * rundir.h: a run directory's name, creation and owner, and where a run's
 * files grow while it records (docs/FORMAT.md, "Run directory"). record
 * and bench name theirs the same way: PARENT/<UTC stamp>-<name>[-variant].
 */
#ifndef SS_RUN_RUNDIR_H
#define SS_RUN_RUNDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/strbuf.h"

/* The owner of what a run writes: the sudo user when we run as root under
 * sudo (SUDO_UID, SUDO_GID), else (uid_t)-1 and (gid_t)-1: leave it. */
void rundir_owner(uid_t *uid, gid_t *gid);

/* REAL_NS (CLOCK_REALTIME) in UTC: "20261201T102033Z", a run directory's
 * stamp; with USEC, ISO 8601 with microseconds (run.ini's t0_utc). */
void rundir_stamp(char *buf, size_t size, uint64_t real_ns, bool usec);

/*
 * Creates the run directory into PATH: OUTDIR as given (with its parents;
 * the top one made is appended to MADE when MADE is not NULL and it is not
 * OUTDIR itself; one that holds a run is refused), or, with OUTDIR NULL,
 * runs/STAMP-PROGRAM[-N] (recsys_new_rundir). Owned by UID:GID. 0, or a
 * negative errno with the message in ERR.
 */
int rundir_create(const char *outdir, const char *program, uint64_t real_ns, uid_t uid,
		  gid_t gid, struct strbuf *path, struct strbuf *made, struct strbuf *err);

/* Whether DIR holds a run already (record.ssr or run.ini). */
bool rundir_holds_run(const char *dir);

/* Where a recording's files grow while the program runs: tmpfs (/dev/shm)
 * when it is a writable directory, named after our pid and STAMP, else the
 * run directory itself (in_place). */
struct rundir_tmp {
	char rec[4096];		/* the record */
	char log[4096];		/* program.log */
	char out[4096];		/* the program's raw stdout and stderr */
	char ini[4096];		/* the final run.ini when the run directory cannot
				 * take it; "" in place */
	bool in_place;
};

/* Fills T for the run directory DIR; 0 or -ENAMETOOLONG. */
int rundir_tmp_paths(const char *dir, const char *stamp, struct rundir_tmp *t);

#endif
