/* SPDX-License-Identifier: MIT */
/*
 * recsys.h: what `stallscope record` needs from the system besides the
 * sampler: a new run directory, named and made (the invoking user's under
 * sudo, through linux/safefile.h, which also writes every file in it), and
 * a target process's command line, name and children for `record -p`.
 *
 * Everything returns 0 (or a length) or a negative errno; nothing prints.
 */
#ifndef SS_LINUX_RECSYS_H
#define SS_LINUX_RECSYS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/strbuf.h"
#include "linux/safefile.h"

/*
 * A new run directory under PARENT (made with its parents when missing),
 * named the way record and bench name theirs: PARENT/STAMP-NAME[-VARIANT]
 * [-N], NAME's last path component and VARIANT with every character but
 * [A-Za-z0-9._-] as '_' (at most 60 of each; an empty NAME is "program"),
 * N the first free suffix from 2 when the name is taken (two benches
 * started in one second), PARENT's trailing slashes not doubled. Made with
 * sf_mkdir as U (so two processes never share one, and a name someone
 * planted is passed over, never entered). With STAMP "<stamp>", nothing is
 * made: the name --dry-run shows. Returns 0 with the path in RET and, when
 * RET_FD is not NULL, its fd there; or a negative errno (-EEXIST after
 * 999).
 */
int recsys_new_rundir(const char *parent, const char *stamp, const char *name,
		      const char *variant, struct sf_user u, struct strbuf *ret, int *ret_fd);

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
