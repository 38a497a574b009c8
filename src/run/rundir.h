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
#include "linux/safefile.h"

/* Whose a run's files are: the sudo user when we run as root under sudo
 * (SUDO_UID, SUDO_GID), else SF_SELF (linux/safefile.h). */
struct sf_user rundir_user(void);

/* REAL_NS (CLOCK_REALTIME) in UTC: "20261201T102033Z", a run directory's
 * stamp; with USEC, ISO 8601 with microseconds (run.ini's t0_utc). */
void rundir_stamp(char *buf, size_t size, uint64_t real_ns, bool usec);

/*
 * Creates the run directory into PATH and its fd into *RET_FD: OUTDIR as
 * given (with its parents; the top one made is appended to MADE when MADE
 * is not NULL and it is not OUTDIR itself), or, with OUTDIR NULL,
 * runs/STAMP-PROGRAM[-N] (recsys_new_rundir). Made as U (sf_mkdir). An
 * OUTDIR that exists is taken only when it holds no run and, as root, when
 * it is a directory (not a link to one), empty, and root's or U's
 * (sf_dir_adopt). 0, or a negative errno with the message in ERR.
 */
int rundir_create(const char *outdir, const char *program, uint64_t real_ns, struct sf_user u,
		  struct strbuf *path, struct strbuf *made, int *ret_fd, struct strbuf *err);

/* Whether DIR holds a run already (record.ssr or run.ini). */
bool rundir_holds_run(const char *dir);

/*
 * Where a recording's files grow while the program runs: tmpfs (/dev/shm)
 * when it is a writable directory, named stallscope-PID-STAMP-RANDOM.EXT
 * (ssr, log, out, ini: each made O_EXCL there by the recorder, so a name
 * nobody could guess and nobody could plant), else the run directory
 * itself (in_place), with the record and the log at their final names.
 */
struct rundir_tmp {
	int dirfd;		/* where they are: tmpfs, or a dup of the run directory's fd */
	bool in_place;
	char dir[4096];		/* its path, for messages and run.ini */
	char base[128];		/* "stallscope-PID-STAMP-RANDOM" in tmpfs; "" in place */
};

/* Fills T for the run directory DIR (open as RUN_FD) with a new random
 * base; 0 or a negative errno. rundir_tmp_close closes T->dirfd. */
int rundir_tmp_open(int run_fd, const char *dir, const char *stamp, struct rundir_tmp *t);
void rundir_tmp_close(struct rundir_tmp *t);

/* The name in T->dirfd of EXT ("ssr", "log", "out", "ini") into BUF: BASE.EXT
 * in tmpfs; in place record.ssr, program.log, program.out and "" for ini. */
void rundir_tmp_name(const struct rundir_tmp *t, const char *ext, char *buf, size_t size);

/*
 * Records that recordings left in tmpfs (issue 31): /dev/shm/stallscope-
 * PID-STAMP-RANDOM.ssr whose recorder (PID) is not running: one that was
 * killed before it moved its record into the run directory, or whose move
 * failed. Their readers find them (run.ini's record_tmp), and they stay in
 * RAM until someone removes them. Counts them into *RET_N and the memory
 * their files (the .ssr and beside it .log, .out, .ini) hold into
 * *RET_BYTES; 0, or a negative errno when /dev/shm cannot be listed (none:
 * 0 and 0). A PID reused by another process hides its record.
 */
int rundir_tmp_left(size_t *ret_n, uint64_t *ret_bytes);

/*
 * Moves such a record FILE (/dev/shm/stallscope-*.ssr, its recorder not
 * running) and the files beside it into the run directory OUTDIR (made as
 * U, or taken as rundir_create takes one; never one that holds a run):
 * record.ssr, program.log, program.out, run.ini. Each is copied (sf_copy,
 * synced), and only when all are, the tmpfs files are removed (as U: the
 * kernel's sticky-bit rule says whose they may be). The record itself is
 * opened O_NOFOLLOW, a regular file, and, as root under sudo, must be U's.
 * Appends what was moved ("record.ssr program.log ...") to MOVED. 0, or a
 * negative errno with the message in ERR.
 */
int rundir_salvage(const char *file, const char *outdir, struct sf_user u, struct strbuf *moved,
		   struct strbuf *err);

#endif
