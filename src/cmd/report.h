/* SPDX-License-Identifier: MIT */
/*
 * report.h: the options report shares with matrix, stalls, export, html and
 * db, as option tables (opts.h) that set the analysis's options
 * (run/analyse.h) and the tables'.
 */
#ifndef SS_CMD_REPORT_H
#define SS_CMD_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "opts.h"
#include "run/analyse.h"

/* What report and the commands that analyse as it does take. */
struct report_options {
	struct analyse_opts a;
	const char *rules;	/* --rules */
	double *pass;		/* --pass's values (owned; report_options_release) */
	const char *cols;	/* --cols */
	bool csv, json;
	bool include_interfered;	/* --include-interfered */
	bool include_failed;		/* --include-failed */
	const char *intf_list;		/* --interfered-list FILE */
	const char *db, *name;		/* matrix --db PATH [--name N], html --db */
};

/*
 * The option groups, each a table (opts.h) to join to a command's with
 * OPT_CONCAT; one range per option everywhere:
 *   base      --warmup, --stall-ms, --rules (db's too)
 *   analysis  base and --from, --to, --pass (report, matrix, stalls,
 *             export, html)
 *   logs      --format, --program (frame logs: report, matrix)
 *   runs      --interfered-list, --include-interfered, --include-failed
 *             (report, matrix)
 * report_tables_init points them at O.
 */
struct report_tables {
	struct opt base[4], analysis[5], logs[3], runs[4];
};

void report_tables_init(struct report_tables *t, struct report_options *o);

/* The checks across the analysis's options after a parse (--to after
 * --from); 0, or OPTS_ERROR after a usage error. */
int report_options_check(const struct report_options *o);

void report_options_release(struct report_options *o);

/* --color[=WHEN] into the enum term_color at opt->value (report's and
 * stalls' tables): no value is always. */
int report_take_color(const struct opt *opt, const char *arg);

#endif
