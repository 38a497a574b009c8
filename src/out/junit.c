// SPDX-License-Identifier: MIT
/* junit.c: a JUnit XML report (junit.h). */
#include "out/junit.h"

static void esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			fputc(c < 0x20 && c != '\n' && c != '\t' ? '?' : c, f);
		}
	}
}

void junit_begin(FILE *f, const char *suite, size_t tests, size_t failures)
{
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n<testsuite name=\"", f);
	esc(f, suite);
	fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\">\n", tests, failures);
}

void junit_case(FILE *f, const char *classname, const char *name, const char *failure,
		const char *detail)
{
	fputs("  <testcase classname=\"", f);
	esc(f, classname);
	fputs("\" name=\"", f);
	esc(f, name);
	if (!failure) {
		fputs("\"/>\n", f);
		return;
	}
	fputs("\">\n    <failure message=\"", f);
	esc(f, failure);
	fputs("\">", f);
	esc(f, detail ? detail : failure);
	fputs("</failure>\n  </testcase>\n", f);
}

void junit_end(FILE *f)
{
	fputs("</testsuite>\n</testsuites>\n", f);
}
