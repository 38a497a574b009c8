/* SPDX-License-Identifier: MIT */
/*
 * history_args.h: what `history` and `html --history` take alike, declared
 * once: the benchmark NAME[:VARIANT], --metrics, --since, and the change
 * point options (--alpha, --permutations, --min-change, --min-segment) with
 * their one help text, so the page's change points are the table's.
 */
#ifndef SS_CMD_HISTORY_ARGS_H
#define SS_CMD_HISTORY_ARGS_H

#include <stdbool.h>

#include "core/edivisive.h"

#define HISTORY_DEFAULT_METRICS "fps,low1,p99_ms,longest_ms,stalls,stall_s"

/* getopt_long's values of the change point options: above any command's own */
enum history_opt_values { HOPT_ALPHA = 400, HOPT_PERMS, HOPT_MIN_CHANGE, HOPT_MIN_SEG };

#define HISTORY_EDIV_OPTIONS                                                   \
	{ "alpha", required_argument, NULL, HOPT_ALPHA },                      \
	{ "permutations", required_argument, NULL, HOPT_PERMS },               \
	{ "min-change", required_argument, NULL, HOPT_MIN_CHANGE },            \
	{ "min-segment", required_argument, NULL, HOPT_MIN_SEG }

#define HISTORY_EDIV_USAGE                                                             \
	"  --alpha P            a split's significance (default 0.05)\n"                \
	"  --permutations N     permutations a split's test makes (default 199)\n"      \
	"  --min-change PCT     drop change points smaller than PCT %% (default 0)\n"   \
	"  --min-segment N      the fewest builds between change points (default 3)\n"

/* Option C (a HOPT_* value) with ARG into ED: 0, EXIT_USAGE after saying
 * why, or 1 when C is not one of them. */
int history_ediv_opt(int c, const char *arg, struct ediv_opts *ed);

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
