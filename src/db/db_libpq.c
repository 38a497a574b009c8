// SPDX-License-Identifier: MIT
/*
 * db_libpq.c: libpq loaded at its first use (db_libpq.h says why).
 *
 * The soname is the library's ABI: libpq.so.5 has kept it since
 * PostgreSQL 8.x, and every function here is in it since 9.0 or earlier.
 * The library stays loaded until the process ends (no dlclose: a result or
 * a connection may outlive any one caller).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>

#include "db/db_libpq.h"

#ifdef SS_HAVE_LIBPQ

#define PQ_SONAME "libpq.so.5"

struct pq_api pq;

static const struct {
	const char *name;
	size_t off;
} symbols[] = {
#define SYM(f) { #f, offsetof(struct pq_api, f) }
	SYM(PQconnectdb), SYM(PQstatus), SYM(PQfinish), SYM(PQerrorMessage),
	SYM(PQsetNoticeProcessor), SYM(PQexec), SYM(PQexecParams), SYM(PQresultStatus),
	SYM(PQresultErrorMessage), SYM(PQntuples), SYM(PQgetvalue), SYM(PQgetisnull),
	SYM(PQclear), SYM(PQconninfoParse), SYM(PQconninfoFree), SYM(PQfreemem),
#undef SYM
};

_Static_assert(sizeof(symbols) / sizeof(symbols[0]) * sizeof(void (*)(void)) ==
		       sizeof(struct pq_api),
	       "a symbol for each of pq_api's functions");

/* 0: not tried; 1: loaded; -1: failed (why in `why`) */
static int state;
static char why[256];

static int load(void)
{
	void *h = dlopen(PQ_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		const char *e = dlerror();

		snprintf(why, sizeof(why), "%s", e ? e : "dlopen failed");
		return -1;
	}
	for (size_t i = 0; i < sizeof(symbols) / sizeof(symbols[0]); i++) {
		void *f = dlsym(h, symbols[i].name);

		if (!f) {
			snprintf(why, sizeof(why), "%s has no %s", PQ_SONAME, symbols[i].name);
			dlclose(h);
			return -1;
		}
		/* POSIX: a function pointer and void * convert (dlsym's contract) */
		*(void **)((char *)&pq + symbols[i].off) = f;
	}
	return 1;
}

int pq_load(struct strbuf *err)
{
	if (!state)
		state = load();
	if (state > 0)
		return 0;
	if (err)
		sb_addf(err, "PostgreSQL's client library cannot be loaded (%s); "
			     "apt-get install libpq5", why);
	return -ENOTSUP;
}

#endif
