// SPDX-License-Identifier: MIT
/*
 * causes-bench: the cost of the cause rules. Reads a record (made by
 * bench/rec-bench.c, a synthetic busy hour) and times, median of five, the
 * reader alone and causes_new (every sample's cause) on it, printing both
 * and their ratio. Assumes the build's static libraries (bench/causes.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/causes.h"
#include "rec/rec.h"

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	double rd[5], cs[5];
	size_t n = 0, k;

	if (argc != 2) {
		fprintf(stderr, "usage: causes-bench RECORD\n");
		return 2;
	}
	for (k = 0; k < 5; k++) {
		struct strbuf err = STRBUF_INIT;
		struct causes *c = NULL;
		struct rec *r = NULL;
		double a = now(), b;

		if (rec_read_file(argv[1], &r, &err) < 0) {
			fprintf(stderr, "causes-bench: %s\n", err.buf);
			return 1;
		}
		b = now();
		if (causes_new(r, &c) < 0)
			return 1;
		cs[k] = now() - b;
		rd[k] = b - a;
		n = r->nsamples;
		causes_free(c);
		rec_free(r);
		sb_release(&err);
	}
	qsort(rd, 5, sizeof(double), cmp);
	qsort(cs, 5, sizeof(double), cmp);
	printf("causes: %zu samples: read %.0f ms, every sample's cause %.0f ms (%.2f us/sample), "
	       "causes/read %.3f (medians of 5)\n",
	       n, rd[2] * 1e3, cs[2] * 1e3, cs[2] / (double)n * 1e6, cs[2] / rd[2]);
	return 0;
}
