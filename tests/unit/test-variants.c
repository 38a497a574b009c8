// SPDX-License-Identifier: MIT
/*
 * test-variants.c: core/variants.h: the list's grammar (the base, switches
 * joined by '+'), each usage error, and the environment a variant runs in.
 */
#include <errno.h>
#include <string.h>

#include "core/variants.h"
#include "t.h"

static void test_parse(void)
{
	struct variant v[4];
	struct strbuf err = STRBUF_INIT;
	int n = variants_parse("-  FOO=1\tFOO=1+BAR=x=y", v, 4, &err);

	CHECK_INT(n, 3);
	if (n != 3)
		return;
	CHECK_STR(v[0].name, "-");
	CHECK(v[0].switches == NULL && v[0].nenv == 0);
	CHECK_STR(v[1].switches, "FOO=1");
	CHECK_INT(v[2].nenv, 2);
	CHECK_STR(v[2].env[0], "FOO=1");
	CHECK_STR(v[2].env[1], "BAR=x=y");	/* the value may hold '=' */
	variants_free(v, (size_t)n);
	sb_release(&err);
}

static void test_errors(void)
{
	static const struct {
		const char *list, *says;
	} bad[] = {
		{ "", "at least one variant" },
		{ "- -", "'-' is given twice" },
		{ "FOO", "got 'FOO' in 'FOO'" },
		{ "1X=2", "got '1X=2'" },
		{ "A=1+B", "got 'B' in 'A=1+B'" },
		{ "+", "expected VAR=VALUE in '+'" },
		{ "A=1 B=1 C=1 D=1 E=1", "4 variants at most" },
		{ "- PREFETCH=maybe", "expected PREFETCH=fetch or PREFETCH=learn, got 'PREFETCH=maybe'" },
	};
	struct strbuf err = STRBUF_INIT;
	struct variant v[4];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(variants_parse(bad[i].list, v, 4, &err) < 0);
		if (!strstr(err.buf, bad[i].says))
			T_FAIL("'%s': got '%s', expected '%s' in it", bad[i].list, err.buf,
			       bad[i].says);
	}
	sb_release(&err);
}

/* PREFETCH= is bench's own switch: learn runs, and runs under a fetch */
static void test_prefetch(void)
{
	struct strbuf err = STRBUF_INIT;
	struct variant v[4];

	CHECK_INT(variants_parse("PREFETCH=learn - PREFETCH=fetch+X=1", v, 4, &err), 3);
	CHECK_INT(v[0].prefetch, VARIANT_PREFETCH_LEARN);
	CHECK_INT(v[1].prefetch, VARIANT_PREFETCH_NONE);
	CHECK_INT(v[2].prefetch, VARIANT_PREFETCH_FETCH);
	CHECK_INT(v[2].nenv, 2);	/* still in the program's environment */
	variants_free(v, 3);
	sb_release(&err);
}

static void test_environ(void)
{
	char *base[] = { "PATH=/bin", "FOO=old", "FOOD=keep", NULL };
	struct strbuf err = STRBUF_INIT;
	struct variant v[1];
	char **env;

	CHECK_INT(variants_parse("FOO=new+NEW=1", v, 1, &err), 1);
	env = variant_environ(&v[0], base);
	CHECK(env != NULL);
	if (env) {
		CHECK_STR(env[0], "PATH=/bin");
		CHECK_STR(env[1], "FOOD=keep");	/* FOO= replaced, FOOD= not */
		CHECK_STR(env[2], "FOO=new");
		CHECK_STR(env[3], "NEW=1");
		CHECK(env[4] == NULL);
	}
	free(env);
	variants_free(v, 1);
	sb_release(&err);
}

int main(void)
{
	T_RUN(test_parse);
	T_RUN(test_errors);
	T_RUN(test_prefetch);
	T_RUN(test_environ);
	return t_exit();
}
