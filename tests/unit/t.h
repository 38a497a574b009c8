/* SPDX-License-Identifier: MIT */
/*
 * t.h: the unit tests' few macros. A test file defines test functions,
 * calls them from main() through T_RUN, and returns t_exit(). A failed check
 * prints file:line and the values, marks the test failed and carries on, so
 * one run shows every broken check. t_skip() exits 77 (ctest: skipped).
 */
#ifndef SS_TEST_T_H
#define SS_TEST_T_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int t_failed;	/* checks failed so far */
static int t_checks;	/* checks run so far */

#define T_FAIL(...)                                                                   \
	do {                                                                          \
		fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                       \
		fprintf(stderr, __VA_ARGS__);                                         \
		fputc('\n', stderr);                                                  \
		t_failed++;                                                           \
	} while (0)

#define CHECK(cond)                                                                   \
	do {                                                                          \
		t_checks++;                                                           \
		if (!(cond))                                                          \
			T_FAIL("check failed: %s", #cond);                            \
	} while (0)

#define CHECK_INT(a, b)                                                               \
	do {                                                                          \
		long long a_ = (long long)(a), b_ = (long long)(b);                   \
		t_checks++;                                                           \
		if (a_ != b_)                                                         \
			T_FAIL("%s == %lld, expected %s == %lld", #a, a_, #b, b_);    \
	} while (0)

/* Doubles equal within an absolute tolerance; NaN equals NaN. */
#define CHECK_NEAR(a, b, tol)                                                         \
	do {                                                                          \
		double a_ = (double)(a), b_ = (double)(b);                            \
		t_checks++;                                                           \
		if (!((isnan(a_) && isnan(b_)) || fabs(a_ - b_) <= (tol)))            \
			T_FAIL("%s == %.9g, expected %.9g (tol %g)", #a, a_, b_,      \
			       (double)(tol));                                        \
	} while (0)

#define CHECK_STR(a, b)                                                               \
	do {                                                                          \
		const char *a_ = (a), *b_ = (b);                                      \
		t_checks++;                                                           \
		if (!a_ || !b_ || strcmp(a_, b_) != 0)                                \
			T_FAIL("%s == \"%s\", expected \"%s\"", #a, a_ ? a_ : "(null)", \
			       b_ ? b_ : "(null)");                                   \
	} while (0)

#define T_RUN(fn)                                                                     \
	do {                                                                          \
		int before_ = t_failed;                                               \
		fn();                                                                 \
		fprintf(stderr, "%s %s\n", t_failed == before_ ? "ok  " : "FAIL", #fn); \
	} while (0)

static inline int t_exit(void)
{
	fprintf(stderr, "%d checks, %d failed\n", t_checks, t_failed);
	return t_failed ? 1 : 0;
}

static inline void t_skip(const char *why)
{
	fprintf(stderr, "skip: %s\n", why);
	exit(77);
}

/* A new temporary directory from TMPL ("/tmp/ss-x-XXXXXX", changed in
 * place); exits 1 when none can be made. */
static inline char *t_tmpdir(char *tmpl)
{
	if (!mkdtemp(tmpl)) {
		perror("mkdtemp");
		exit(1);
	}
	return tmpl;
}

/* Removes DIR and what is in it (a test's t_tmpdir); says so when it
 * cannot. */
static inline void t_rmtree(const char *dir)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}

/* The path of fixture NAME under $SS_FIXTURES, in a static buffer. */
static inline const char *t_fixture(const char *name)
{
	static char path[4096];
	const char *dir = getenv("SS_FIXTURES");

	snprintf(path, sizeof(path), "%s/%s", dir ? dir : "tests/fixtures", name);
	return path;
}

#endif
