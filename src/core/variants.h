/* SPDX-License-Identifier: MIT */
/*
 * variants.h: a bench's variants (docs/BENCH.md, "Variants"): a list
 * "- FOO=1 FOO=1+BAR=2", blank-separated; "-" is the base, the others are
 * switches VAR=VALUE joined by '+' that go into the program's environment.
 */
#ifndef SS_CORE_VARIANTS_H
#define SS_CORE_VARIANTS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/strbuf.h"

struct variant {
	char *name;		/* as given; "-" for the base */
	char *switches;		/* "VAR=VALUE+VAR=VALUE", or NULL for the base */
	char **env;		/* the switches as VAR=VALUE strings */
	size_t nenv, aenv;	/* aenv: env's room */
	bool no_sample;		/* bench --recorder-ab's frames-only variant */
	enum variant_prefetch {
		VARIANT_PREFETCH_NONE,
		VARIANT_PREFETCH_FETCH,	/* PREFETCH=fetch: the program under prefetch run */
		VARIANT_PREFETCH_LEARN,	/* PREFETCH=learn: a prefetch learn, not recorded */
	} prefetch;
};

/* Parses LIST into V (room for MAX); the count, or a negative errno with
 * the usage error in ERR (a name given twice, a switch that is not
 * VAR=VALUE, more than MAX, none). Nothing is left allocated on failure. */
int variants_parse(const char *list, struct variant *v, size_t max, struct strbuf *err);

/* Frees the N variants' strings. */
void variants_free(struct variant *v, size_t n);

/* A new environment: BASE with V's switches set (a switch replaces a
 * variable of the same name). NULL on ENOMEM; free the array, not the
 * strings (they are BASE's and the variant's). */
char **variant_environ(const struct variant *v, char *const *base);

#endif
