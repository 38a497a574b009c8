/* SPDX-License-Identifier: MIT */
/*
 * spool.h: runs that could not reach their results database (a server that
 * went away mid-bench), kept by their run directory until `db push` sends
 * them. Nothing is lost: the run directory holds the run, the spool says
 * where it is and for which database.
 *
 * One file per database: $STALLSCOPE_SPOOL (a directory), else
 * $XDG_DATA_HOME/stallscope/spool, else ~/.local/share/stallscope/spool;
 * the file is the FNV-1a hash of the database's name (db_target_safe) in
 * hex, ".list"; its first line "# stallscope spool for NAME", then one
 * absolute run directory a line. Writers (bench) and the reader (db push)
 * hold flock(LOCK_EX) on it, so several benches and a push can share it.
 */
#ifndef SS_RUN_SPOOL_H
#define SS_RUN_SPOOL_H

#include <stddef.h>

#include "core/strbuf.h"

/* The spool file of database NAME into RET (its directories are not made). */
int spool_path(const char *name, struct strbuf *ret);

/* Appends RUNDIR (made absolute) to NAME's spool, making its directory and
 * file as needed. 0 or a negative errno with the message in ERR. */
int spool_add(const char *name, const char *rundir, struct strbuf *err);

/*
 * Sends NAME's spooled runs: under the spool's lock, calls SEND(CTX, RUNDIR)
 * for each, in order; those it returns 0 for leave the spool, the others
 * stay (SEND says why itself). Returns how many were sent (>= 0; no spool
 * is 0), or a negative errno with ERR. *ret_left: how many stay.
 */
int spool_push(const char *name, int (*send)(void *ctx, const char *rundir), void *ctx,
	       size_t *ret_left, struct strbuf *err);

#endif
