/* SPDX-License-Identifier: MIT */
/*
 * history_args.h: what `history` and `html --history` take alike, declared
 * once: the benchmark NAME[:VARIANT], an option table (--db, --metrics,
 * --rig, --since, --order and the change point options --alpha,
 * --permutations, --min-change, --min-segment) with its one help text, so
 * the page's change points are the table's.
 */
#ifndef SS_CMD_HISTORY_ARGS_H
#define SS_CMD_HISTORY_ARGS_H

#include <stdbool.h>

#include "core/edivisive.h"
#include "opts.h"

#define HISTORY_DEFAULT_METRICS "fps,low1,p99_ms,longest_ms,stalls,stall_s"

/* The options both take, as given (argv's strings). */
struct history_args {
	const char *db, *metrics, *rig, *since, *order;
	double alpha;		/* --alpha */
	int permutations;	/* --permutations */
	double min_change_pct;	/* --min-change */
	int min_seg;		/* --min-segment */
};

#define HISTORY_OPTS_N 10	/* entries of the table, its OPT_END included */

/* The options' table (opts.h) into T, pointing at A (its defaults set
 * here), for a command to join with OPT_CONCAT: --db, --metrics, --rig,
 * --since (checked: a UTC date or time), --order, and the change point
 * options with their one help text. */
void history_args_table(struct opt t[HISTORY_OPTS_N], struct history_args *a);

/* The change point options of A as E-Divisive takes them. */
struct ediv_opts history_args_ediv(const struct history_args *a);

/* --metrics LIST: each a metric runs store, into *RET (NULL-terminated,
 * build_list_free). 0, or an exit code after saying why. */
int history_split_metrics(const char *list, char ***ret);

/* --since: a date or a UTC time, ISO 8601, as runs store their start. */
bool history_since_ok(const char *s);

/* NAME[:VARIANT] into *RET_NAME (the caller frees it) and *RET_VARIANT
 * (in SPEC; "-", the base, when none). 0, or an exit code after saying why. */
int history_split_spec(const char *spec, char **ret_name, const char **ret_variant);

struct db;

/* --order FILE (NULL: none) into *RET_ORDER (build_list_free) and the
 * results database DB (NULL: the default one) into *RET_DB (db_close):
 * what both commands read before computing. 0, or -1 after saying why
 * (whatever was opened is in *RET_ORDER and *RET_DB for the caller to
 * free). */
int history_open(const char *order, const char *db, char ***ret_order, struct db **ret_db);

#endif
