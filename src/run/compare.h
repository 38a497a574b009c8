/* SPDX-License-Identifier: MIT */
/*
 * compare.h: is B different from A, metric by metric: the sides
 * (NAME:VARIANT in the results database, their runs not marked interfered,
 * failed runs left out unless asked), each side's median with a 95 %
 * order-statistic interval, the change in % and the two-sided Mann-Whitney
 * U p-value (docs/METRICS.md, "Comparisons"). `compare` prints it, `html
 * --db` draws it.
 */
#ifndef SS_RUN_COMPARE_H
#define SS_RUN_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/strbuf.h"
#include "db/db.h"

struct compare_side {
	const char *spec;	/* as given: NAME[:VARIANT][@BUILD] */
	char *name;
	char *variant;
	char *build;		/* only the runs of this build; NULL: any */
	char *whole;		/* the variant with its '@...' when the '@' may be
				 * the variant's own (FOO=sleep:300@1): tried when the
				 * split finds no run; NULL: none */
	long long *ids;
	size_t n, alloc;
	size_t interfered;	/* runs left out */
	long long *intf_ids;	/* and theirs (the html page shows them apart) */
	size_t aintf;
	char **dirs;		/* the kept runs' run directories ("" unknown), by ids */
	size_t adirs;
	size_t failed;		/* failed runs left out (or kept) */
	bool include_failed;
	struct strbuf failures;	/* "  RUNDIR: WHY\n" for each */
	const char *rig;	/* only this rig's runs (compare --rig); NULL: all */
	char **rigs;		/* the rigs of the kept runs, each once */
	size_t nrigs, arigs;
};

/* NAME[:VARIANT][@BUILD] (a variant may hold ':'; none: "-"; the build is
 * after the last '@'; a variant that holds an '@' of its own is found as a
 * whole when no run matches the split). 0, -EINVAL (no name, an empty
 * build), -ENOMEM. */
int compare_side_parse(struct compare_side *s, const char *spec);
void compare_side_release(struct compare_side *s);
/* The side's runs from DB (ids, interfered ones apart, failures, the rigs
 * they come from). */
int compare_side_collect(struct db *db, struct compare_side *s, struct strbuf *err);
/* The values of METRIC over the side's runs into V (room for s->n); how
 * many runs have it, or a negative errno with ERR (a value the database
 * holds as NULL or no number is refused). */
int compare_side_values(struct db *db, const struct compare_side *s, const char *metric, double *v,
			struct strbuf *err);
/* Whether sides A..A+N pool runs of more than one rig (compare refuses that
 * without --across-rigs); the rigs, comma-separated, into LIST. */
bool compare_sides_mix_rigs(const struct compare_side *a, int n, struct strbuf *list);

struct compare_row {
	const char *metric;
	double a_med, b_med, a_lo, a_hi, b_lo, b_hi, change, p;
	size_t na, nb;
	int significant;	/* 1, 0, -1 = cannot be decided */
	char why[96];
};

void compare_compute(struct compare_row *r, const double *a, size_t na, const double *b, size_t nb);

/* The metrics to compare: METRICS (comma-separated) or those both sides'
 * runs store. Returns their count and *ret (NULL-terminated, each freed by
 * the caller), or a negative errno with ERR. */
int compare_metric_list(struct db *db, const char *metrics, const struct compare_side *a,
			const struct compare_side *b, char ***ret, struct strbuf *err);

/* Every metric of B against A, as compare prints it and html --db draws it. */
struct compare_values {
	double *a, *b;		/* the kept runs' values: row.na and row.nb of them */
	double *a_intf, *b_intf;	/* the interfered runs' values (drawn apart) */
	size_t na_intf, nb_intf;
};

struct compare_result {
	struct compare_row *rows;	/* one per metric compared; .metric in metrics */
	struct compare_values *values;	/* beside rows with COMPARE_VALUES, else NULL */
	size_t n;
	char **metrics;		/* the metrics asked for (owned, NULL-terminated) */
	const char **empty;	/* those no kept run of either side has (in metrics) */
	size_t nempty;
};

enum compare_flags {
	COMPARE_VALUES = 1,	/* keep every run's value (and the interfered runs') */
	COMPARE_KEEP_EMPTY = 2,	/* a row also for a metric no run has (listed in empty too) */
};

/*
 * The rows of B against A for METRICS (comma-separated; NULL: those both
 * sides' runs store, compare_metric_list), into *RET (compare_result_release,
 * also after an error). A metric no kept run of either side has is listed in
 * ret->empty and has no row unless FLAGS has COMPARE_KEEP_EMPTY. 0, or a
 * negative errno with ERR.
 */
int compare_result_compute(struct db *db, const char *metrics, const struct compare_side *a,
			   const struct compare_side *b, unsigned flags, struct compare_result *ret,
			   struct strbuf *err);
void compare_result_release(struct compare_result *r);

/* ------------------------------------------------- html --db's data */

struct analyse_opts;

#define COMPARE_NPCT 121	/* points of a percentile curve */

/* The K-th point of a percentile curve (0 <= K < COMPARE_NPCT), as a
 * fraction: 0 .. 0.999, denser towards the top, where stalls are. */
double compare_curve_point(int k);

/*
 * The side's frame-time percentile curve: every window frame of its runs,
 * each analysed again from its run directory with AO (the frames kept
 * whatever AO->keep says), pooled, at the
 * COMPARE_NPCT points into RET (ms). A database says where a run directory
 * is, and it may be someone else's: only a directory is read (never a file
 * as a frame log). Runs that cannot be read are added to *UNREAD. Returns
 * the frames pooled (0: no curve, RET untouched), or -ENOMEM.
 */
long compare_side_curve(const struct compare_side *s, const struct analyse_opts *ao, double *ret,
			size_t *unread);

/* html --db's page: each side's curve, every side against the first. */
struct compare_page {
	int nsides;
	double (*curve)[COMPARE_NPCT];	/* per side (ms) */
	long *curve_frames;		/* per side: frames pooled, 0 no curve */
	size_t curve_unread;		/* runs whose directory could not be read */
	struct compare_result *cmp;	/* nsides - 1: side i + 1 against side 0 */
};

/* SIDES[0..NS-1] (collected) into *RET (compare_page_release, also after
 * an error): the curves with AO, the comparisons with every value. 0, or a
 * negative errno with ERR. */
int compare_page_compute(struct db *db, const struct compare_side *sides, int ns,
			 const struct analyse_opts *ao, struct compare_page *ret, struct strbuf *err);
void compare_page_release(struct compare_page *p);

#endif
