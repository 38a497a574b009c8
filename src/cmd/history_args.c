// SPDX-License-Identifier: MIT
/* history_args.c: what history and html --history take alike (history_args.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd/history_args.h"
#include "run/history.h"
#include "core/build.h"
#include "core/strbuf.h"
#include "db/db.h"
#include "core/metrics.h"

static int take_since(const struct opt *opt, const char *arg)
{
	if (!history_since_ok(arg))
		return opts_error("option '--since': expected a UTC date or time (2026-11-30, "
				  "2026-11-30T10:00:00), got '%s'", arg);
	*(const char **)opt->value = arg;
	return 0;
}

void history_args_table(struct opt t[HISTORY_OPTS_N], struct history_args *a)
{
	const struct opt own[HISTORY_OPTS_N] = {
		OPT_STRING(0, "db", &a->db, "PATH",
			   "the results database (default $STALLSCOPE_DB, else\n"
			   "$XDG_DATA_HOME/stallscope/results.db)"),
		OPT_STRING(0, "metrics", &a->metrics, "LIST",
			   "the metrics (default " HISTORY_DEFAULT_METRICS ")"),
		OPT_STRING(0, "rig", &a->rig, "NAME",
			   "only this rig's runs (default: each rig its own series)"),
		OPT_CALLBACK(0, "since", &a->since, "T",
			     "only runs started at or after T (UTC, 2026-11-30 or\n"
			     "2026-11-30T10:00:00)", take_since),
		OPT_STRING(0, "order", &a->order, "FILE",
			   "the builds in order, one a line (runs of others left out)"),
		OPT_DOUBLE(0, "alpha", &a->alpha, "P", 1e-6, 0.5,
			   "a split's significance (default 0.05)"),
		OPT_INT(0, "permutations", &a->permutations, "N", 1, 100000,
			"permutations a split's test makes (default 199)"),
		OPT_DOUBLE(0, "min-change", &a->min_change_pct, "PCT", 0, 1e6,
			   "drop change points smaller than PCT % (default 0)"),
		OPT_INT(0, "min-segment", &a->min_seg, "N", 2, 10000,
			"the fewest builds between change points (default 3)"),
		OPT_END(),
	};

	struct ediv_opts ed = EDIV_OPTS_INIT;

	a->alpha = ed.alpha;
	a->permutations = (int)ed.permutations;
	a->min_change_pct = ed.min_change * 100;
	a->min_seg = (int)ed.min_seg;
	memcpy(t, own, sizeof(own));
}

struct ediv_opts history_args_ediv(const struct history_args *a)
{
	struct ediv_opts ed = EDIV_OPTS_INIT;

	ed.alpha = a->alpha;
	ed.permutations = (unsigned)a->permutations;
	ed.min_change = a->min_change_pct / 100;
	ed.min_seg = (size_t)a->min_seg;
	return ed;
}

int history_split_metrics(const char *list, char ***ret)
{
	char *copy = strdup(list), *tok, *save = NULL, **v;
	size_t n = 0;

	v = calloc(strlen(list) + 2, sizeof(*v));
	if (!copy || !v) {
		free(copy);
		free(v);
		cli_error_errno(-ENOMEM, "--metrics");
		return 1;
	}
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (metric_find(tok) < 0) {
			int r = cli_usage_error("option '--metrics': expected metric names "
						"(docs/METRICS.md), got '%s'", tok);

			build_list_free(v);
			free(copy);
			return r;
		}
		if (!(v[n++] = strdup(tok))) {
			build_list_free(v);
			free(copy);
			cli_error_errno(-ENOMEM, "--metrics");
		return 1;
		}
	}
	free(copy);
	if (!n) {
		free(v);
		return cli_usage_error("option '--metrics': expected metric names, got '%s'", list);
	}
	*ret = v;
	return 0;
}

bool history_since_ok(const char *s)
{
	size_t n = strlen(s);

	return n >= 10 && n <= 30 && s[4] == '-' && s[7] == '-' &&
	       strspn(s, "0123456789-:T.Z") == n;
}

int history_split_spec(const char *spec, char **ret_name, const char **ret_variant)
{
	const char *colon = strchr(spec, ':');
	char *name = colon ? strndup(spec, (size_t)(colon - spec)) : strdup(spec);

	if (!name) {
		cli_error_errno(-ENOMEM, "'%s'", cli_shown(spec));
		return 1;
	}
	if (!*name) {
		free(name);
		return cli_usage_error("expected NAME[:VARIANT], got '%s'", cli_shown(spec));
	}
	*ret_name = name;
	*ret_variant = colon && colon[1] ? colon + 1 : "-";
	return 0;
}

int history_open(const char *order, const char *db, char ***ret_order, struct db **ret_db)
{
	struct strbuf path = STRBUF_INIT, err = STRBUF_INIT;
	int r = 0;

	if (order) {
		r = history_order_read(order, ret_order, &err);
		if (r < 0)
			goto fail;
	}
	if (db)
		sb_adds(&path, db);
	else if (db_default_path(&path) < 0) {
		cli_error("no --db and neither XDG_DATA_HOME nor HOME is set");
		r = -1;
		goto out;
	}
	r = db_open(path.buf, false, ret_db, &err);
fail:
	if (r < 0)
		cli_error("%s", err.len ? err.buf : strerror(-r));
out:
	sb_release(&path);
	sb_release(&err);
	return r < 0 ? -1 : 0;
}
