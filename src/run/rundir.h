/* SPDX-License-Identifier: MIT */
/*
 * rundir.h: a run directory, the one owner of its files (docs/FORMAT.md,
 * "Run directory"), as perf's util/header.c alone knows perf.data. Its
 * file names are spelled here once (rundir_file_name); every reader and
 * writer of a run directory asks this module:
 *
 *   - reading (rundir.c): a run directory opened as a directory fd
 *     (struct rundir), its files opened under that fd, O_NOFOLLOW, regular
 *     files only, read whole up to a cap (core/file.h); run.ini parsed and
 *     its typed keys; the record and the final run.ini where the recorder
 *     left them when it could not move them (the tmpfs fallbacks);
 *   - making (rundir_make.c): its name, creation and owner, where a run's
 *     files grow while it records, and what recordings left in tmpfs.
 *
 * record and bench name theirs the same way: PARENT/<UTC stamp>-<name>[-variant].
 */
#ifndef SS_RUN_RUNDIR_H
#define SS_RUN_RUNDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/record.h"
#include "core/runini.h"
#include "core/strbuf.h"
#include "linux/safefile.h"

/* ------------------------------------------------------------- its files */

/* A run directory's files by role. */
enum rundir_file {
	RUNDIR_INI,		/* run.ini: key=value, what the run was (core/runini.h) */
	RUNDIR_RECORD,		/* record.ssr: the record (rec/rec.h) */
	RUNDIR_LOG,		/* program.log: the program's output, stamped lines */
	RUNDIR_OUT,		/* program.out: the program's raw output (a recording in place) */
	RUNDIR_INTERFERENCE,	/* interference.log: the watcher's findings (docs/WATCH.md) */
	RUNDIR_NFILES
};

/* The name of F in a run directory ("run.ini"); F out of range: NULL. */
const char *rundir_file_name(enum rundir_file f);

/*
 * A run directory open for reading: the directory's fd, so that each file
 * is found in this directory and no other, whatever its path does later.
 * The path is kept for messages.
 */
struct rundir {
	int fd;			/* the directory (O_DIRECTORY) */
	char *path;		/* as the caller named it */
	uid_t owner;		/* the directory's owner (fstat on fd) */
};

/*
 * Opens the run directory PATH (a link to a directory is followed: PATH is
 * what the user named; what is inside it is not followed). Returns 0 and
 * *RET (free with rundir_close), or a negative errno with "cannot open the
 * run directory 'PATH': ..." in ERR (-ENOTDIR: not a directory).
 */
int rundir_open(const char *path, struct rundir **ret, struct strbuf *err);
void rundir_close(struct rundir *rd);	/* NULL-safe */

/* "PATH/NAME" of F appended to RET, for messages; 0 or -ENOMEM. */
int rundir_path(const struct rundir *rd, enum rundir_file f, struct strbuf *ret);

/*
 * Opens F of RD for reading under RD's fd: O_NOFOLLOW (a link at its name is
 * refused, -ELOOP), O_NONBLOCK (a FIFO does not hang), a regular file only
 * (checked with fstat on the opened fd: -EISDIR, -EINVAL otherwise). Returns
 * the fd (O_CLOEXEC; the caller closes it), its size into *RET_SIZE when not
 * NULL; or a negative errno with the message, naming the file, in ERR (NULL:
 * none). -ENOENT: it is not there.
 */
int rundir_open_file(const struct rundir *rd, enum rundir_file f, uint64_t *ret_size,
		     struct strbuf *err);

/* Whether F is in RD as a regular file (not a link). */
bool rundir_has(const struct rundir *rd, enum rundir_file f);

/* rundir_open_file, then F read whole, appended to RET, MAX bytes at most
 * (core/file.h: a larger file is refused, -EFBIG, never cut). 0 or a
 * negative errno with the message in ERR. */
int rundir_read(const struct rundir *rd, enum rundir_file f, size_t max, struct strbuf *ret,
		struct strbuf *err);

/*
 * The final run.ini of RD, parsed: RD's run.ini, or, when that is the
 * recorder's first (state=recording) and the recorder kept its final one
 * beside the record in tmpfs (record_tmp with .ini for .ssr: the run
 * directory could not take it), that file, with a line saying so in NOTE
 * (NULL: none). Its path is appended to RET_PATH (NULL: not wanted), for
 * messages. Returns 0 and *RET (runini_free), or a negative errno with the
 * message in ERR: -ENOENT when RD has no run.ini, -EINVAL (the parser's
 * message) when it is not key=value lines.
 */
int rundir_ini(const struct rundir *rd, struct runini **ret, struct strbuf *ret_path,
	       struct strbuf *note, struct strbuf *err);

/*
 * The tmpfs fallbacks. run.ini is written by whoever owns the run directory,
 * so the tmpfs files it names (record_tmp, and the final run.ini beside it)
 * are taken only when they are what the recorder makes: /dev/shm/
 * stallscope-*.ssr (or .ini), a base name with no '/', a regular file and
 * not a link (opened O_NOFOLLOW, then checked with fstat), owned by the
 * owner of the run directory. One that is not is refused, and NOTE says
 * which and why; one that is missing is no news (the reading of
 * record.ssr then gives the error).
 *
 * rundir_open_record: where the record of RD is: its record.ssr, or, when
 * that is missing and run.ini names a record_tmp that is taken (the
 * recorder was killed with the record still in /dev/shm, or its move
 * failed), that file. Appends its path to RET_PATH, a line to NOTE (NULL:
 * none) when it is the temporary one or a record_tmp was refused, and
 * returns the open fd (the caller closes it; for rec_read_fd_stream: the
 * checks are made on this very fd), or a negative errno with the message in
 * ERR.
 */
int rundir_open_record(const struct rundir *rd, struct strbuf *ret_path, struct strbuf *note,
		       struct strbuf *err);
/* As rundir_open_record, only the path (into RET; RD's record.ssr when
 * neither is there, and reading it gives the error): 0 or -ENOMEM. Between
 * this and a reader's open the file could be swapped; where that matters,
 * rundir_open_record. */
int rundir_record_path(const struct rundir *rd, struct strbuf *ret, struct strbuf *note);

/* ------------------------------------------------------ run.ini's facts */

/*
 * The recorder's account of itself in a run.ini (recorder_ini.c writes the
 * keys; report --json and html show them), typed. NaN where a key is absent
 * or not a number; a string NULL where absent (it lives as long as the
 * runini it came from).
 */
#define RUNDIR_NCOSTS 8
/* The recorder_* keys of rundir_costs.v without "recorder_": "samples",
 * "missed", "cpu_s", "us_per_sample", "cpu_pct", "late_p99_ms",
 * "late_max_ms", "bytes_per_sample". */
extern const char *const rundir_cost_names[RUNDIR_NCOSTS];
struct rundir_costs {
	double v[RUNDIR_NCOSTS];		/* recorder_<rundir_cost_names[k]> */
	double frames[REC_SOURCE_MAX + 1];	/* frames_<source>, by core/record.h's number */
	bool frames_given[REC_SOURCE_MAX + 1];	/* frames_<source> present */
	double frame_pid;			/* frame_pid */
	const char *frame_process;		/* frame_process */
};
/* The costs of INI (NULL: all absent) into *RET. */
void rundir_costs(const struct runini *ini, struct rundir_costs *ret);

/* ------------------------------------------------------------ making one */

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

/* The name in T->dirfd of F (RUNDIR_RECORD, _LOG, _OUT, _INI) into BUF:
 * BASE.EXT in tmpfs (ssr, log, out, ini); in place its final name, and ""
 * for run.ini (written at its final name at the end); "" for a file that
 * never grows there. */
void rundir_tmp_name(const struct rundir_tmp *t, enum rundir_file f, char *buf, size_t size);

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
