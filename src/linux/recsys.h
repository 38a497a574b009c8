/* SPDX-License-Identifier: MIT */
/*
 * recsys.h: what `stallscope record` needs from the system besides the
 * sampler: creating the run directory (owned by the invoking user under
 * sudo), writing a file so that it is either whole or absent (temp file,
 * fsync, rename, fsync of the directory), moving the record out of tmpfs
 * (rename, else copy + fsync + unlink across file systems), and reading a
 * target process's command line and name for `record -p`.
 *
 * uid/gid arguments of (uid_t)-1 / (gid_t)-1 leave ownership alone.
 * Everything returns 0 (or a length) or a negative errno; nothing prints.
 */
#ifndef SS_LINUX_RECSYS_H
#define SS_LINUX_RECSYS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/strbuf.h"

/* mkdir -p PATH (mode 0755); directories it creates get UID:GID, and the
 * first of them (the top of what was new) is appended to MADE when given,
 * so that the caller can say what it made. Returns 0 (also when PATH
 * exists as a directory) or a negative errno. */
int recsys_mkdirs(const char *path, uid_t uid, gid_t gid, struct strbuf *made);

/*
 * A new run directory under PARENT (which must exist), named the way
 * record and bench name theirs: PARENT/STAMP-NAME[-VARIANT][-N], NAME's last
 * path component and VARIANT with every character but [A-Za-z0-9._-] as
 * '_' (at most 60 of each; an empty NAME is "program"), N
 * the first free suffix from 2 when the name is taken (two benches started
 * in one second), PARENT's trailing slashes not doubled. Made with mkdir
 * (so two processes never share one) and chowned to UID:GID unless UID is
 * -1. With STAMP "<stamp>", nothing is made: the name --dry-run shows.
 * Returns 0 with the path in RET, or a negative errno (-EEXIST after 999).
 */
int recsys_new_rundir(const char *parent, const char *stamp, const char *name,
		      const char *variant, uid_t uid, gid_t gid, struct strbuf *ret);

/* Writes LEN bytes of DATA to PATH through "PATH.tmp": written, fsynced,
 * chowned to UID:GID, renamed over PATH, directory fsynced. On failure the
 * temp file is removed and PATH is untouched. SYNC false skips both fsyncs
 * (still whole or absent for every reader; not across a power loss): for a
 * file written while the program runs, which must not wait on the disk. */
int recsys_write_atomic(const char *path, const void *data, size_t len, uid_t uid, gid_t gid,
			bool sync);

/* Moves the file SRC to DST: rename(2), or, across file systems, a copy to
 * "DST.tmp" that is fsynced and renamed over DST, then SRC unlinked. On
 * failure SRC is left where it was and no DST or DST.tmp remains. */
int recsys_move(const char *src, const char *dst);

/* The command line of process PID as its words (NUL-separated in /proc),
 * appended to ARGV_OUT as one string per word joined by '\0' (the raw
 * cmdline); returns the number of words, or -ESRCH/-EACCES/... */
int recsys_cmdline(int pid, struct strbuf *out);

/* The comm (thread name) of thread TID of process PID (TID 0: the process)
 * appended to OUT; 0 or a negative errno. */
int recsys_comm(int pid, int tid, struct strbuf *out);

/* The process (thread group) thread TID belongs to, from /proc/TID/status;
 * -ESRCH when there is no such thread. */
int recsys_tgid(int tid);

/* The children of process PID (of every thread of it: /proc/PID/task/
 * TID/children), up to MAX into RET; returns how many, or -ESRCH. */
int recsys_children(int pid, int *ret, size_t max);

#endif
