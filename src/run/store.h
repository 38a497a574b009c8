/* SPDX-License-Identifier: MIT */
/*
 * store.h: what bench and db import write into the results database for a
 * run: its row and its metrics (db/db.h's schema, docs/DB.md).
 */
#ifndef SS_RUN_STORE_H
#define SS_RUN_STORE_H

#include "core/strbuf.h"
#include "run/analyse.h"

struct db;

/*
 * Stores analysis A of run directory RUNDIR in DB (db_add_run: one
 * transaction): the run's row from its run.ini (name= else program=,
 * variant= else "-", switches, round, t0_utc, host, kernel, interfered,
 * interference, exit_status; failed and failure from A) and one row per
 * metric that has a number. The run is keyed by RUNDIR's absolute path, so
 * storing it again replaces it. Returns the run's id (> 0) or a negative
 * errno with a message in ERR.
 */
long long store_run(struct db *db, const char *rundir, const struct analysis *a,
		    struct strbuf *err);

#endif
