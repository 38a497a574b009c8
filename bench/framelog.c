// SPDX-License-Identifier: MIT
/*
 * bench/framelog.c: times framelog_read() and the compat numbers on the
 * logs named on the command line (bench/framelog.sh builds and runs it).
 * For each log: RUNS runs, median and minimum wall and CPU time of the read
 * + parse, and of compat_all() (both, one sort) on all frames.
 * Assumes a quiet-enough machine; prints what it measured, judges nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/compat.h"
#include "frames/framelog.h"

static double now(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int runs = getenv("RUNS") ? atoi(getenv("RUNS")) : 7;

	if (runs < 1 || runs > 100)
		runs = 7;
	for (int a = 1; a < argc; a++) {
		double w[100], c[100], cw[100];
		size_t n = 0;

		for (int k = 0; k < runs; k++) {
			struct frames *f = NULL;
			struct strbuf msg = STRBUF_INIT;
			struct compat_mangohud m;
			struct compat_capframex x;
			double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID), w1;

			if (framelog_read(argv[a], FRAMELOG_AUTO, &f, &msg) < 0) {
				fprintf(stderr, "%s\n", msg.buf);
				return 1;
			}
			w1 = now(CLOCK_MONOTONIC);
			c[k] = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
			w[k] = w1 - w0;
			if (compat_all(f->ft_ms, f->n, compat_mangohud_style_of(f->format), &m, &x) <
			    0)
				return 1;
			cw[k] = now(CLOCK_MONOTONIC) - w1;
			n = f->n;
			frames_free(f);
			sb_release(&msg);
		}
		qsort(w, (size_t)runs, sizeof(double), cmp);
		qsort(c, (size_t)runs, sizeof(double), cmp);
		qsort(cw, (size_t)runs, sizeof(double), cmp);
		printf("%-28s %7zu frames  read+parse wall median %6.1f ms (min %6.1f), cpu median "
		       "%6.1f ms; compat wall median %5.1f ms\n",
		       argv[a], n, w[runs / 2] * 1e3, w[0] * 1e3, c[runs / 2] * 1e3,
		       cw[runs / 2] * 1e3);
	}
	return 0;
}
