// SPDX-License-Identifier: MIT
/*
 * history-bench: how well E-Divisive (src/core/edivisive.c) finds planted
 * shifts in synthetic build series (bench/history.sh). Each series has N
 * builds of R runs (3..5, drawn), a build's point is the median of its
 * runs; runs are noise, normal or heavy-tailed (Student's t with 3 degrees
 * of freedom, scaled to unit variance); shifts of D noise sigmas are
 * planted between segments of 5..60 builds (drawn), up or down. A planted
 * change is found when a change point lies within 2 builds of it; any other
 * change point is false. D = 0 plants none. Prints one line:
 *   noise D N series recall false_per_1000_builds seconds
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/edivisive.h"

static uint64_t s = 88172645463325252ull;
static double unif(void)
{
	s ^= s << 13;
	s ^= s >> 7;
	s ^= s << 17;
	return ((double)(s >> 11) + 0.5) / 9007199254740992.0;
}
static double gauss(void)
{
	return sqrt(-2 * log(unif())) * cos(2 * M_PI * unif());
}
static double noise(int heavy)
{
	if (!heavy)
		return gauss();
	/* t(3) = Z / sqrt(chi2(3) / 3), variance 3: scaled to 1 */
	double c = 0;

	for (int i = 0; i < 3; i++) {
		double z = gauss();

		c += z * z;
	}
	return gauss() / sqrt(c / 3) / sqrt(3.0);
}
static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: history-bench normal|heavy SHIFT BUILDS SERIES\n");
		return 2;
	}
	int heavy = !strcmp(argv[1], "heavy");
	double d = atof(argv[2]);
	size_t n = (size_t)atol(argv[3]), series = (size_t)atol(argv[4]);
	size_t planted = 0, found = 0, fals = 0;
	double *z = malloc(n * sizeof(*z)), runs[5];
	size_t *at = malloc(n * sizeof(*at));
	struct ediv_opts o = EDIV_OPTS_INIT;
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t k = 0; k < series; k++) {
		size_t np = 0, next = d > 0 ? 5 + (size_t)(unif() * 56) : n;
		double level = 0;
		struct ediv_cp *cp = NULL;
		int m;

		for (size_t i = 0; i < n; i++) {
			if (i == next && n - i >= 5) {
				level += unif() < 0.5 ? d : -d;
				at[np++] = i;
				next = i + 5 + (size_t)(unif() * 56);
			}
			int r = 3 + (int)(unif() * 3);

			for (int j = 0; j < r; j++)
				runs[j] = level + noise(heavy);
			qsort(runs, (size_t)r, sizeof(*runs), cmp);
			z[i] = r % 2 ? runs[r / 2] : (runs[r / 2 - 1] + runs[r / 2]) / 2;
		}
		m = ediv_detect(z, n, &o, &cp);
		if (m < 0)
			return 1;
		planted += np;
		for (size_t p = 0; p < np; p++)
			for (int c = 0; c < m; c++)
				if (cp[c].at + 2 >= at[p] && cp[c].at <= at[p] + 2) {
					found++;
					break;
				}
		for (int c = 0; c < m; c++) {
			int ok = 0;

			for (size_t p = 0; p < np && !ok; p++)
				ok = cp[c].at + 2 >= at[p] && cp[c].at <= at[p] + 2;
			fals += !ok;
		}
		free(cp);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	char recall[16] = "-";

	if (planted)
		snprintf(recall, sizeof(recall), "%.3f", (double)found / (double)planted);
	printf("%-6s %5.1f %5zu %6zu %7s %7.2f %7.1f\n", argv[1], d, n, series, recall,
	       1000.0 * (double)fals / (double)(n * series),
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	free(z);
	free(at);
	return 0;
}
