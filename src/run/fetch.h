/* SPDX-License-Identifier: MIT */
/*
 * fetch.h: prefetch's fetch, the engine under `stallscope prefetch fetch`
 * and `prefetch run`: a learnt list (core/prefetch.h) read back before the
 * program asks, what is not resident within a memory budget, in disk order,
 * at a lowered priority, stopping when memory gets short (docs/PREFETCH.md).
 * It never prints: the command says what the result holds.
 */
#ifndef SS_RUN_FETCH_H
#define SS_RUN_FETCH_H

#include <stdint.h>
#include <sys/types.h>

#include "core/prefetch.h"
#include "core/strbuf.h"

#define FETCH_LIMIT_S 60.0	/* a fetch stops after this long */

struct fetch_opts {
	double mb;		/* at most this many MB not resident (--mb) */
	double reserve_mb;	/* leave MemAvailable at least this (--reserve-mb) */
	const char *io;		/* the I/O priority: "be0".."be7" or "idle" */
	pid_t watch;		/* the program (prefetch run): its end stops the fetch; 0 none */
	double limit_s;		/* 0: FETCH_LIMIT_S */
};

struct fetch_result {
	uint64_t got;		/* bytes read */
	uint64_t already;	/* listed bytes resident before the fetch */
	uint64_t budget;	/* fetch_budget's, at the start */
	uint64_t listed;	/* fetch_listed_bytes */
	size_t files;		/* files opened to read */
	long reads;		/* read calls made */
	double seconds;
	enum prefetch_stop why;	/* PREFETCH_STOP_DONE: everything chosen was read */
	int prio_err;		/* lowering the priority failed: its negative errno; 0 ok */
};

/* The list file PATH into L: 0, -ENOENT (no file), -EINVAL (damaged, or not
 * a regular file of 64 MiB at most: the message, with its line, in ERR),
 * -ENOMEM. */
int fetch_list_read(const char *path, struct prefetch_list *l, struct strbuf *err);

/* The budget of a fetch in bytes: MB MiB, but no more than leaves
 * RESERVE_MB MiB of MEM_AVAIL_KB (MemAvailable) free; 0 when memory is
 * under the reserve already. */
uint64_t fetch_budget(uint64_t mem_avail_kb, double mb, double reserve_mb);

/* The bytes of every range of L. */
uint64_t fetch_listed_bytes(const struct prefetch_list *l);

/*
 * Reads L back with O into *RET. EXE, when not NULL, is the program the
 * list was learnt of: a size or mtime other than the list's makes the list
 * stale (-ESTALE, said in ERR, nothing read). 0 (whatever stopped it: *RET
 * says), or a negative errno with ERR.
 */
int fetch_run(const char *exe, const struct prefetch_list *l, const struct fetch_opts *o,
	      struct fetch_result *ret, struct strbuf *err);

#endif
