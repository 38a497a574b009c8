/* SPDX-License-Identifier: MIT */
/*
 * report.h: the options report, matrix and stalls share (report_parse_common),
 * parsed into the analysis's options (run/analyse.h) and the tables'.
 */
#ifndef SS_CMD_REPORT_H
#define SS_CMD_REPORT_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

#include "run/analyse.h"

/* The options of report (and matrix, which adds -o). */
struct report_options {
	struct analyse_opts a;
	const char *rules;	/* --rules */
	const char *cols;	/* --cols */
	bool csv, json;
	bool include_interfered;	/* --include-interfered */
	bool include_failed;		/* --include-failed */
	const char *intf_list;		/* --interfered-list FILE */
	const char *db, *name;		/* matrix --db PATH [--name N] */
	bool threads;	/* --threads (report): per-thread CPU per frame */
	/* A command's own options beside these (stalls' --stack-lines): EXTRA,
	 * NEXTRA entries with values of REPORT_OPT_EXTRA and up (or a letter of
	 * EXTRA_SHORT), each taken by
	 * ON_EXTRA(EXTRA_CTX, value, optarg): 0, or -1 after a usage error. */
	const struct option *extra;
	size_t nextra;
	const char *extra_short;	/* their short letters for getopt ("z"), or NULL */
	int (*on_extra)(void *ctx, int c, const char *arg);
	void *extra_ctx;
};

#define REPORT_OPT_EXTRA 0x2000

/*
 * Parses the options report and matrix share into O; with RET_OUTDIR not
 * NULL, also -o/--output DIR (matrix). Returns the index of the first input,
 * -1 after a usage error was printed, or -2 after USAGE was printed for
 * --help. *ret_pass owns --pass's array (the caller frees it).
 */
int report_parse_common(int argc, char **argv, const char *usage, struct report_options *o,
			double **ret_pass, const char **ret_outdir);

#endif
