// SPDX-License-Identifier: MIT
/*
 * db-bench.c: the results database's insert rate, built by bench/db.sh
 * against the build's static libraries: `db-bench TARGET N` stores N runs
 * (each with every metric of docs/METRICS.md, one transaction a run, as
 * bench and db import store them) named "bench", half the base and half
 * variant V=1, on rig "rig-bench", into TARGET (an SQLite file or a
 * PostgreSQL connection string), and prints runs a second.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/metrics.h"
#include "db/db.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT;
	const char *names[M_COUNT];
	double vals[M_COUNT], t0;
	struct db *db;
	long n = argc > 2 ? strtol(argv[2], NULL, 10) : 10000;
	unsigned seed = 1;

	if (argc < 2 || db_open(argv[1], true, &db, &err) < 0) {
		fprintf(stderr, "db-bench: %s\n", argc < 2 ? "usage: db-bench TARGET [N]" : err.buf);
		return 1;
	}
	for (int m = 0; m < M_COUNT; m++)
		names[m] = metric_descs[m].name;
	t0 = now_s();
	for (long i = 0; i < n; i++) {
		char dir[64];
		struct db_run run = {
			.name = "bench", .variant = i % 2 ? "V=1" : "-", .round = (int)(i / 2 + 1),
			.started = "2026-12-01T12:00:00.000000Z", .host = "bench", .kernel = "6.18",
			.rundir = dir, .interfered = 0, .exit_status = 0, .rig = "rig-bench",
		};

		snprintf(dir, sizeof(dir), "/bench/run-%ld", i);
		for (int m = 0; m < M_COUNT; m++)
			vals[m] = (double)(rand_r(&seed) % 100000) / 100.0 + (i % 2 ? 3 : 0);
		if (db_add_run(db, &run, names, vals, M_COUNT, &err) < 0) {
			fprintf(stderr, "db-bench: %s\n", err.buf);
			return 1;
		}
	}
	printf("%.0f\n", (double)n / (now_s() - t0));
	db_close(db);
	sb_release(&err);
	return 0;
}
