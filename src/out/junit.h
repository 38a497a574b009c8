/* SPDX-License-Identifier: MIT */
/*
 * junit.h: a JUnit XML report (the <testsuite> GitLab, Jenkins and GitHub
 * read without a plugin) for history --junit and compare --junit: one
 * testcase per metric, a <failure> where the gate failed. Text is escaped;
 * characters XML 1.0 does not allow are written as '?'.
 */
#ifndef SS_OUT_JUNIT_H
#define SS_OUT_JUNIT_H

#include <stdio.h>

/* <testsuites><testsuite name=SUITE tests=N failures=F> */
void junit_begin(FILE *f, const char *suite, size_t tests, size_t failures);
/* One testcase; FAILURE (NULL: it passed) is the failure's message, DETAIL
 * its text (NULL: none). */
void junit_case(FILE *f, const char *classname, const char *name, const char *failure,
		const char *detail);
void junit_end(FILE *f);

#endif
