// SPDX-License-Identifier: MIT
/*
 * store.c: a run's analysis into the results database (store.h), for bench
 * (each run as it ends) and db import. Never prints.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/build.h"
#include "core/runini.h"
#include "db/db.h"
#include "run/store.h"

/* run.ini's KEY, NULL when absent or "-" (what inifmt writes for none). */
static const char *ini_str(const struct runini *ini, const char *key)
{
	const char *v = ini ? runini_get(ini, key) : NULL;

	return v && strcmp(v, "-") ? v : NULL;
}

/* run.ini's KEY as an integer, DEF when absent or not one. */
static long ini_long(const struct runini *ini, const char *key, long def)
{
	const char *v = ini_str(ini, key);
	char *end;
	long x;

	if (!v)
		return def;
	x = strtol(v, &end, 10);
	return end != v && !*end ? x : def;
}

long long store_run(struct db *db, const char *rundir, const struct analysis *a,
			struct strbuf *err)
{
	const char *names[M_COUNT];
	double values[M_COUNT];
	char abs_dir[4096];
	struct db_run run = { 0 };
	struct db_rig rig = { 0 };

	if (!realpath(rundir, abs_dir))
		snprintf(abs_dir, sizeof(abs_dir), "%s", rundir);
	run.name = ini_str(a->ini, "name");
	if (!run.name)
		run.name = a->program ? a->program : "-";
	run.variant = a->variant ? a->variant : "-";
	run.switches = ini_str(a->ini, "switches");
	run.round = (int)ini_long(a->ini, "round", 0);
	run.started = ini_str(a->ini, "t0_utc");
	run.host = ini_str(a->ini, "host");
	run.kernel = ini_str(a->ini, "kernel");
	run.rundir = abs_dir;
	run.interfered = a->interfered;
	run.interference = a->interference;
	run.exit_status = (int)ini_long(a->ini, "exit_status", -1);
	run.failed = a->failure != NULL;
	run.failure = a->failure;
	/* the rig that made it, and its facts (record writes them; a run
	 * recorded before rigs has none: '-') */
	run.rig = ini_str(a->ini, "rig");
	run.build = ini_str(a->ini, "build");
	if (run.build && !build_name_ok(run.build))
		run.build = NULL;	/* run.ini is untrusted: a name only when it is one */
	if (run.rig) {
		rig.rig = run.rig;
		rig.host = ini_str(a->ini, "rig_host");
		rig.kernel = run.kernel;
		rig.cpu = ini_str(a->ini, "rig_cpu");
		rig.cpus = (int)ini_long(a->ini, "cpus", 0);
		rig.mem_kb = ini_long(a->ini, "rig_mem_kb", 0);
		rig.gpu = ini_str(a->ini, "rig_gpu");
		rig.version = ini_str(a->ini, "stallscope_version");
		rig.seen = run.started;
		run.rig_info = &rig;
		if (!run.host)
			run.host = rig.host;
	}
	for (int m = 0; m < M_COUNT; m++) {
		names[m] = metric_descs[m].name;
		values[m] = a->m.v[m];
	}
	return db_add_run(db, &run, names, values, M_COUNT, err);
}
