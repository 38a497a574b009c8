// SPDX-License-Identifier: MIT
/* history_args.c: what history and html --history take alike (history_args.h). */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd/history_args.h"
#include "core/build.h"
#include "core/file.h"
#include "core/strbuf.h"
#include "db/db.h"
#include "core/metrics.h"

int history_ediv_opt(int c, const char *arg, struct ediv_opts *ed)
{
	double d;
	long l;
	int bad;

	switch (c) {
	case HOPT_ALPHA:
		bad = cli_parse_double("--alpha", arg, 1e-6, 0.5, &ed->alpha);
		break;
	case HOPT_PERMS:
		bad = cli_parse_int("--permutations", arg, 1, 100000, &l);
		if (!bad)
			ed->permutations = (unsigned)l;
		break;
	case HOPT_MIN_CHANGE:
		bad = cli_parse_double("--min-change", arg, 0, 1e6, &d);
		if (!bad)
			ed->min_change = d / 100;
		break;
	case HOPT_MIN_SEG:
		bad = cli_parse_int("--min-segment", arg, 2, 10000, &l);
		if (!bad)
			ed->min_seg = (size_t)l;
		break;
	default:
		return 1;
	}
	return bad ? EXIT_USAGE : 0;
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
	struct strbuf path = STRBUF_INIT, err = STRBUF_INIT, text = STRBUF_INIT;
	int r = 0;

	if (order) {
		r = file_read_text(order, "the build order", 1 << 20, &text, &err);
		if (r >= 0)
			r = build_order_parse(text.buf, text.len, order, ret_order, &err);
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
	sb_release(&text);
	return r < 0 ? -1 : 0;
}
