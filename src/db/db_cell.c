// SPDX-License-Identifier: MIT
/*
 * db_cell.c: the cells the back ends read from runs and metrics, checked
 * one way for both (db_int.h). A results database is input like any file:
 * someone may hand over an SQLite file with our tables and user_version but
 * columns without NOT NULL, or alter a shared server's tables, so every
 * column read treats NULL, and a value of the wrong kind, as a value to
 * refuse or to read as what the schema says it means (a NULL interfered is
 * "not watched"), never as 0 or "" by accident.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/display.h"
#include "db/db_int.h"

/* Says that ROW (NULL: "a row") of TABLE holds a COLUMN it should not, and
 * what was EXPECTED; returns -EINVAL. */
static int refuse(struct db *db, struct strbuf *err, const char *table, const char *row,
		  const char *column, const struct db_cell *c, const char *expected)
{
	if (!err)
		return -EINVAL;
	sb_addf(err, "'%s': table %s, %s: column %s is ", db->name, table, row ? row : "a row",
		column);
	if (c->type == DB_CELL_NULL) {
		sb_adds(err, "NULL");
	} else {
		sb_addc(err, '\'');
		display_escape(err, c->s, strlen(c->s), 40);
		sb_addc(err, '\'');
	}
	sb_addf(err, ", expected %s", expected);
	return -EINVAL;
}

/* C as an integer: SQLite's INTEGER, or text that is one and nothing
 * else. */
static bool cell_int(const struct db_cell *c, long long *ret)
{
	char *end;

	if (c->type == DB_CELL_INT) {
		*ret = c->i;
		return true;
	}
	if (c->type != DB_CELL_TEXT || !c->s[0])
		return false;
	errno = 0;
	*ret = strtoll(c->s, &end, 10);
	return !errno && !*end && end != c->s;
}

static bool cell_num(const struct db_cell *c, double *ret)
{
	char *end;

	switch (c->type) {
	case DB_CELL_INT:
		*ret = (double)c->i;
		break;
	case DB_CELL_REAL:
		*ret = c->d;
		break;
	case DB_CELL_TEXT:
		if (!c->s[0])
			return false;
		*ret = strtod(c->s, &end);
		if (*end)
			return false;
		break;
	default:
		return false;
	}
	return isfinite(*ret);
}

/* A run's integer column: NULL gives NULL_AS when NULL_OK, else it is
 * refused, as is a value outside LO..HI. */
static int run_int(struct db *db, const struct db_cell *c, const char *row, const char *column,
		   bool null_ok, int null_as, long long lo, long long hi, const char *expected,
		   int *ret, struct strbuf *err)
{
	long long v;

	if (c->type == DB_CELL_NULL && null_ok) {
		*ret = null_as;
		return 0;
	}
	if (!cell_int(c, &v) || v < lo || v > hi)
		return refuse(db, err, "runs", row, column, c, expected);
	*ret = (int)v;
	return 0;
}

/* A run's text column: NULL refused unless NULL_OK. */
static int run_text(struct db *db, const struct db_cell *c, const char *row, const char *column,
		    bool null_ok, const char *expected, const char **ret, struct strbuf *err)
{
	if (c->type == DB_CELL_NULL && !null_ok)
		return refuse(db, err, "runs", row, column, c, expected);
	*ret = c->s;
	return 0;
}

int db_run_from_cells(struct db *db, const struct db_cell *c, struct db_run *ret,
		      struct strbuf *err)
{
	struct db_run run = { 0 };
	char row[48];
	int r;

	if (!cell_int(&c[DB_RUN_ID], &run.id))
		return refuse(db, err, "runs", NULL, "id", &c[DB_RUN_ID],
			      "the run's id, an integer");
	snprintf(row, sizeof(row), "run %lld", run.id);
	r = run_text(db, &c[DB_RUN_NAME], row, "name", false, "the benchmark's name", &run.name,
		     err);
	r = r ? r : run_text(db, &c[DB_RUN_VARIANT], row, "variant", false,
			     "the variant's name, '-' for the base", &run.variant, err);
	r = r ? r : run_text(db, &c[DB_RUN_RIG], row, "rig", false,
			     "the rig's name, '-' when unknown", &run.rig, err);
	r = r ? r : run_int(db, &c[DB_RUN_ROUND], row, "round", false, 0, 0, INT_MAX,
			    "the round, a whole number (0: not part of a bench)", &run.round, err);
	r = r ? r : run_int(db, &c[DB_RUN_INTERFERED], row, "interfered", true, -1, 0, 1,
			    "1, 0 or NULL (not watched)", &run.interfered, err);
	r = r ? r : run_int(db, &c[DB_RUN_EXIT_STATUS], row, "exit_status", true, -1, INT_MIN,
			    INT_MAX, "the program's exit status, an integer (NULL: unknown)",
			    &run.exit_status, err);
	r = r ? r : run_int(db, &c[DB_RUN_FAILED], row, "failed", false, 0, 0, 1,
			    "1 (a failed run) or 0", &run.failed, err);
	if (r)
		return r;
	/* columns the schema lets be NULL: a NULL is "none" */
	run.switches = c[DB_RUN_SWITCHES].s;
	run.started = c[DB_RUN_STARTED].s;
	run.host = c[DB_RUN_HOST].s;
	run.kernel = c[DB_RUN_KERNEL].s;
	run.rundir = c[DB_RUN_RUNDIR].s;
	run.interference = c[DB_RUN_INTERFERENCE].s;
	run.failure = c[DB_RUN_FAILURE].s;
	run.build = c[DB_RUN_BUILD].s;
	*ret = run;
	return 0;
}

int db_cell_id(struct db *db, const struct db_cell *c, const char *table, const char *column,
	       long long *ret, struct strbuf *err)
{
	if (!cell_int(c, ret))
		return refuse(db, err, table, NULL, column, c, "a run's id, an integer");
	return 0;
}

int db_cell_value(struct db *db, const struct db_cell *c, long long id, const char *metric,
		  double *ret, struct strbuf *err)
{
	struct strbuf row = STRBUF_INIT;
	int r = 0;

	if (!cell_num(c, ret)) {
		sb_addf(&row, "run %lld, metric '", id);
		display_escape(&row, metric, strlen(metric), 64);
		sb_addc(&row, '\'');
		r = refuse(db, err, "metrics", row.buf, "value", c, "a finite number");
		sb_release(&row);
	}
	return r;
}

int db_cell_metric(struct db *db, const struct db_cell *c, long long id, struct strbuf *err)
{
	size_t n = c->s ? strspn(c->s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					"0123456789_") : 0;
	char row[32];

	if (c->type != DB_CELL_NULL && n && !c->s[n] && n <= 64)
		return 0;
	snprintf(row, sizeof(row), "run %lld", id);
	return refuse(db, err, "metrics", row, "metric", c,
		      "a metric's name (docs/METRICS.md: letters, digits and '_')");
}
