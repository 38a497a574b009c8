// SPDX-License-Identifier: MIT
/*
 * variants.c: a bench's variants (variants.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/variants.h"

void variants_free(struct variant *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].switches);
		for (size_t k = 0; k < v[i].nenv; k++)
			free(v[i].env[k]);
		free(v[i].env);
	}
}

/* Whether S is an environment variable's name: [A-Za-z_][A-Za-z0-9_]*. */
static bool is_var_name(const char *s, size_t n)
{
	if (!n || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return true;
}

int variants_parse(const char *list, struct variant *v, size_t max, struct strbuf *err)
{
	char *copy = strdup(list), *tok, *save = NULL;
	size_t n = 0;

	if (!copy)
		return sb_error(err, -ENOMEM, "--variants");
	for (tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		struct variant *x = &v[n];
		char *sw, *s2 = NULL;

		for (size_t i = 0; i < n; i++) {
			if (!strcmp(v[i].name, tok)) {
				sb_error(err, 0, "option '--variants': '%s' is given twice", tok);
				goto fail;
			}
		}
		if (n == max) {
			sb_error(err, 0, "option '--variants': %zu variants at most", max);
			goto fail;
		}
		memset(x, 0, sizeof(*x));
		x->name = strdup(tok);
		n++;
		if (!x->name)
			goto nomem;
		if (!strcmp(tok, "-"))
			continue;
		x->switches = strdup(tok);
		if (!x->switches)
			goto nomem;
		for (sw = strtok_r(tok, "+", &s2); sw; sw = strtok_r(NULL, "+", &s2)) {
			char *eq = strchr(sw, '=');

			if (!eq || !is_var_name(sw, (size_t)(eq - sw))) {
				sb_error(err, 0, "option '--variants': expected '-' or VAR=VALUE "
					 "joined by '+', got '%s' in '%s'", sw, x->name);
				goto fail;
			}
			/* PREFETCH= is bench's own switch (docs/PREFETCH.md) */
			if (!strncmp(sw, "PREFETCH=", 9)) {
				if (!strcmp(eq + 1, "fetch")) {
					x->prefetch = VARIANT_PREFETCH_FETCH;
				} else if (!strcmp(eq + 1, "learn")) {
					x->prefetch = VARIANT_PREFETCH_LEARN;
				} else {
					sb_error(err, 0, "option '--variants': expected PREFETCH=fetch "
						 "or PREFETCH=learn, got '%s'", sw);
					goto fail;
				}
			}
			if (ARRAY_GROW(x->env, x->aenv, x->nenv + 1) < 0)
				goto nomem;
			if (!(x->env[x->nenv] = strdup(sw)))
				goto nomem;
			x->nenv++;
		}
		if (!x->nenv) {
			sb_error(err, 0, "option '--variants': expected VAR=VALUE in '%s'", x->name);
			goto fail;
		}
	}
	free(copy);
	if (!n) {
		return sb_error(err, 0, "option '--variants': expected at least one variant "
				"('-' is the base)");
	}
	return (int)n;
nomem:
	sb_error(err, -ENOMEM, "--variants");
fail:
	free(copy);
	variants_free(v, n);
	return -EINVAL;
}

char **variant_environ(const struct variant *v, char *const *base)
{
	size_t n = 0, k = 0;
	char **env;

	while (base && base[n])
		n++;
	env = calloc(n + v->nenv + 1, sizeof(*env));
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		bool replaced = false;

		for (size_t s = 0; s < v->nenv && !replaced; s++) {
			size_t vl = (size_t)(strchr(v->env[s], '=') - v->env[s]) + 1;

			replaced = !strncmp(base[i], v->env[s], vl);
		}
		if (!replaced)
			env[k++] = (char *)base[i];
	}
	for (size_t s = 0; s < v->nenv; s++)
		env[k++] = v->env[s];
	return env;
}
