// SPDX-License-Identifier: MIT
/* compare.c: two sides of the results database, metric by metric, and html
 * --db's data: the sides' frame-time curves beside the rows (compare.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/grow.h"
#include "core/signif.h"
#include "core/stats.h"
#include "run/analyse.h"
#include "run/compare.h"

#define ALPHA 0.05
#define CONF 0.95

int compare_side_parse(struct compare_side *s, const char *spec)
{
	/* a bench NAME holds no ':'; a variant may (FOO=sleep:300@1) */
	const char *colon = strchr(spec, ':'), *at = strrchr(spec, '@');

	s->spec = spec;
	if (colon) {
		s->name = strndup(spec, (size_t)(colon - spec));
		if (at && at > colon) {
			s->variant = at > colon + 1 ? strndup(colon + 1, (size_t)(at - colon - 1))
						    : strdup("-");
			s->whole = strdup(colon + 1);
			if (!s->whole)
				return -ENOMEM;
		} else {
			s->variant = strdup(colon[1] ? colon + 1 : "-");
		}
	} else {
		s->name = at ? strndup(spec, (size_t)(at - spec)) : strdup(spec);
		s->variant = strdup("-");
	}
	if (at && (!colon || at > colon) && !(s->build = strdup(at + 1)))
		return -ENOMEM;
	if (!s->name || !s->variant)
		return -ENOMEM;
	if (!*s->name || (s->build && !*s->build))
		return -EINVAL;
	return 0;
}

void compare_side_release(struct compare_side *s)
{
	free(s->name);
	free(s->variant);
	free(s->build);
	free(s->whole);
	for (size_t i = 0; i < s->n && s->dirs; i++)
		free(s->dirs[i]);
	free(s->dirs);
	free(s->ids);
	free(s->intf_ids);
	sb_release(&s->failures);
	for (size_t i = 0; i < s->nrigs; i++)
		free(s->rigs[i]);
	free(s->rigs);
}

static int add_rig(struct compare_side *s, const char *rig)
{
	for (size_t i = 0; i < s->nrigs; i++)
		if (!strcmp(s->rigs[i], rig))
			return 0;
	if (ARRAY_GROW(s->rigs, s->arigs, s->nrigs + 1) < 0 || !(s->rigs[s->nrigs] = strdup(rig)))
		return -ENOMEM;
	s->nrigs++;
	return 0;
}

bool compare_sides_mix_rigs(const struct compare_side *a, int n, struct strbuf *list)
{
	size_t seen = 0;

	for (int k = 0; k < n; k++)
		for (size_t i = 0; i < a[k].nrigs; i++) {
			const char *r = a[k].rigs[i];
			bool dup = false;

			for (int j = 0; j <= k && !dup; j++)
				for (size_t m = 0; m < (j == k ? i : a[j].nrigs) && !dup; m++)
					dup = !strcmp(a[j].rigs[m], r);
			if (dup)
				continue;
			sb_addf(list, "%s%s", seen++ ? ", " : "", r);
		}
	return seen > 1;
}

static int collect_run(const struct db_run *run, void *ctx)
{
	struct compare_side *s = ctx;

	const char *rig = run->rig ? run->rig : "-";

	if (strcmp(run->variant, s->variant) || (s->rig && strcmp(rig, s->rig)))
		return 0;
	if (s->build && (!run->build || strcmp(run->build, s->build)))
		return 0;
	if (run->interfered == 1) {
		s->interfered++;
		if (ARRAY_GROW(s->intf_ids, s->aintf, s->interfered) < 0)
			return -ENOMEM;
		s->intf_ids[s->interfered - 1] = run->id;
		return 0;
	}
	if (run->failed) {
		s->failed++;
		sb_addf(&s->failures, "  %s:%s round %d, %s: %s\n", run->name, run->variant,
			run->round, run->rundir ? run->rundir : "-",
			run->failure ? run->failure : "failed");
		if (!s->include_failed)
			return 0;
	}
	if (ARRAY_GROW(s->ids, s->alloc, s->n + 1) < 0 ||
	    ARRAY_GROW(s->dirs, s->adirs, s->n + 1) < 0)
		return -ENOMEM;
	s->dirs[s->n] = strdup(run->rundir ? run->rundir : "");
	if (!s->dirs[s->n] || add_rig(s, rig) < 0)
		return -ENOMEM;
	s->ids[s->n++] = run->id;
	return 0;
}

int compare_side_collect(struct db *db, struct compare_side *s, struct strbuf *err)
{
	int r = db_each_run(db, s->name, collect_run, s, err);

	/* NAME:FOO=sleep:300@1 is variant FOO=sleep:300@1 when no run is of
	 * variant FOO=sleep:300 and build 1 */
	if (r == 0 && s->whole && !s->n && !s->interfered && !s->failed) {
		free(s->variant);
		free(s->build);
		s->variant = s->whole;
		s->whole = NULL;
		s->build = NULL;
		sb_reset(&s->failures);
		r = db_each_run(db, s->name, collect_run, s, err);
	}
	return r;
}

/* The values of METRIC over the side's runs into V (room for s->n); returns
 * how many runs have it, or a negative errno with ERR. */
int compare_side_values(struct db *db, const struct compare_side *s, const char *metric, double *v,
			struct strbuf *err)
{
	bool *have = calloc(s->n ? s->n : 1, sizeof(*have));
	double *all = calloc(s->n ? s->n : 1, sizeof(*all));
	size_t k = 0;
	int r;

	if (!have || !all) {
		free(have);
		free(all);
		return -ENOMEM;
	}
	r = db_metric_values(db, metric, s->ids, s->n, all, have, err);
	for (size_t i = 0; !r && i < s->n; i++)
		if (have[i])
			v[k++] = all[i];
	free(have);
	free(all);
	return r < 0 ? r : (int)k;
}

void compare_compute(struct compare_row *r, const double *a, size_t na, const double *b, size_t nb)
{
	r->na = na;
	r->nb = nb;
	r->a_med = signif_median(a, na);
	r->b_med = signif_median(b, nb);
	if (signif_median_ci(a, na, CONF, &r->a_lo, &r->a_hi) < 0)
		r->a_lo = r->a_hi = NAN;
	if (signif_median_ci(b, nb, CONF, &r->b_lo, &r->b_hi) < 0)
		r->b_lo = r->b_hi = NAN;
	r->change = r->a_med != 0 && isfinite(r->a_med) ?
		    (r->b_med - r->a_med) / fabs(r->a_med) * 100.0 : NAN;
	r->p = signif_mwu(a, na, b, nb, NULL);
	r->why[0] = '\0';
	if (!na || !nb) {
		r->significant = -1;
		snprintf(r->why, sizeof(r->why), "no runs on %s", !na ? "a" : "b");
	} else if (signif_mwu_min_p(na, nb) > ALPHA) {
		r->significant = -1;
		snprintf(r->why, sizeof(r->why), "too few runs: %zu+%zu, need at least 4 a side",
			 na, nb);
	} else if (isnan(r->p)) {
		r->significant = 0;	/* every value equal on both sides: no change */
		r->p = 1.0;
	} else {
		r->significant = r->p < ALPHA;
	}
	/* a real change from a median of 0 (no stalls before a patch added
	 * some) has no change in %: say which way it went instead of hiding it */
	if (r->significant == 1 && !isfinite(r->change))
		snprintf(r->why, sizeof(r->why), "a's median is 0: no change in %%, b's is %s",
			 r->b_med > r->a_med ? "higher" : "lower");
}

int compare_metric_list(struct db *db, const char *metrics, const struct compare_side *a,
			const struct compare_side *b, char ***ret, struct strbuf *err)
{
	char **la = NULL, **lb = NULL, **out;
	size_t n = 0, i, k;
	int r;

	if (metrics) {
		char *copy = strdup(metrics), *tok, *save = NULL;

		out = calloc(strlen(metrics) / 2 + 2, sizeof(*out));
		if (!copy || !out) {
			free(copy);
			free(out);
			return -ENOMEM;
		}
		for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			out[n++] = strdup(tok);
		free(copy);
		*ret = out;
		return (int)n;
	}
	r = db_metric_names(db, a->name, &la, err);
	if (r >= 0)
		r = db_metric_names(db, b->name, &lb, err);
	if (r < 0) {
		db_free_list(la);
		return r;
	}
	for (i = 0; la[i]; i++)
		n++;
	out = calloc(n + 1, sizeof(*out));
	if (!out) {
		db_free_list(la);
		db_free_list(lb);
		return -ENOMEM;
	}
	n = 0;
	for (i = 0; la[i]; i++)
		for (k = 0; lb[k]; k++)
			if (!strcmp(la[i], lb[k]))
				out[n++] = strdup(la[i]);
	db_free_list(la);
	db_free_list(lb);
	*ret = out;
	return (int)n;
}


/* ------------------------------------------------- the rows of B vs A */

/* METRIC of the side's interfered runs into *RET (those that have it). */
static int intf_values(struct db *db, const struct compare_side *s, const char *metric,
		       double **ret, size_t *ret_n, struct strbuf *err)
{
	double *v = calloc(s->interfered ? s->interfered : 1, sizeof(*v));
	size_t k = 0;
	int r = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < s->interfered && r >= 0; i++) {
		r = db_run_metric(db, s->intf_ids[i], metric, &v[k], err);
		k += r > 0;
	}
	*ret = v;
	*ret_n = k;
	return r < 0 ? r : 0;
}

/* One metric: the values of both sides into VA and VB (room for a->n and
 * b->n), the row computed. */
static int one_row(struct db *db, const char *metric, const struct compare_side *a,
		   const struct compare_side *b, double *va, double *vb, struct compare_row *row,
		   struct strbuf *err)
{
	int ka = compare_side_values(db, a, metric, va, err);
	int kb = ka < 0 ? 0 : compare_side_values(db, b, metric, vb, err);

	if (ka < 0 || kb < 0) {
		if (!err->len)
			sb_addf(err, "'%s': unable to read metric '%s': %s", db_name(db), metric,
				strerror(-(ka < 0 ? ka : kb)));
		return ka < 0 ? ka : kb;
	}
	row->metric = metric;
	compare_compute(row, va, (size_t)ka, vb, (size_t)kb);
	return 0;
}

int compare_result_compute(struct db *db, const char *metrics, const struct compare_side *a,
			   const struct compare_side *b, unsigned flags, struct compare_result *ret,
			   struct strbuf *err)
{
	struct compare_result *res = ret;
	double *va = NULL, *vb = NULL;
	int nm, r = 0;

	memset(res, 0, sizeof(*res));
	nm = compare_metric_list(db, metrics, a, b, &res->metrics, err);
	if (nm < 0)
		return nm;
	res->rows = calloc(nm ? (size_t)nm : 1, sizeof(*res->rows));
	res->empty = calloc(nm ? (size_t)nm : 1, sizeof(*res->empty));
	if (flags & COMPARE_VALUES)
		res->values = calloc(nm ? (size_t)nm : 1, sizeof(*res->values));
	va = calloc(a->n ? a->n : 1, sizeof(*va));
	vb = calloc(b->n ? b->n : 1, sizeof(*vb));
	if (!res->rows || !res->empty || !va || !vb || (flags & COMPARE_VALUES && !res->values)) {
		r = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < nm && r >= 0; i++) {
		struct compare_row *row = &res->rows[res->n];

		r = one_row(db, res->metrics[i], a, b, va, vb, row, err);
		if (r < 0)
			break;
		if (!row->na && !row->nb) {
			res->empty[res->nempty++] = res->metrics[i];
			if (!(flags & COMPARE_KEEP_EMPTY))
				continue;
		}
		if (res->values) {
			struct compare_values *cv = &res->values[res->n];

			cv->a = malloc((row->na + 1) * sizeof(*cv->a));
			cv->b = malloc((row->nb + 1) * sizeof(*cv->b));
			if (!cv->a || !cv->b) {
				r = -ENOMEM;
				res->n++;	/* freed with the rest */
				break;
			}
			memcpy(cv->a, va, row->na * sizeof(*va));
			memcpy(cv->b, vb, row->nb * sizeof(*vb));
			r = intf_values(db, a, res->metrics[i], &cv->a_intf, &cv->na_intf, err);
			if (r == 0)
				r = intf_values(db, b, res->metrics[i], &cv->b_intf, &cv->nb_intf, err);
		}
		res->n++;
	}
out:
	free(va);
	free(vb);
	return r;
}

void compare_result_release(struct compare_result *r)
{
	for (size_t i = 0; r->values && i < r->n; i++) {
		free(r->values[i].a);
		free(r->values[i].b);
		free(r->values[i].a_intf);
		free(r->values[i].b_intf);
	}
	free(r->values);
	free(r->rows);
	free(r->empty);
	db_free_list(r->metrics);
	memset(r, 0, sizeof(*r));
}

/* ------------------------------------------------- html --db's data */

double compare_curve_point(int k)
{
	return 1.0 - pow(10.0, -3.0 * k / (COMPARE_NPCT - 1));
}

long compare_side_curve(const struct compare_side *s, const struct analyse_opts *ao, double *ret,
			size_t *unread)
{
	struct analyse_opts o = *ao;
	struct strbuf emsg = STRBUF_INIT;
	double *v = NULL;
	size_t n = 0, cap = 0;
	int r = 0;

	o.keep = true;	/* the frames are what it needs */
	for (size_t i = 0; i < s->n && r == 0; i++) {
		struct analysis a;
		struct stat st;

		if (!s->dirs[i][0] || stat(s->dirs[i], &st) < 0 || !S_ISDIR(st.st_mode) ||
		    analyse_input(s->dirs[i], &o, &a, &emsg) < 0 || !a.f) {
			(*unread)++;
			sb_reset(&emsg);
			continue;
		}
		for (size_t k = a.m.win_first; k < a.m.win_first + a.m.win_n && k < a.f->n; k++) {
			if ((r = ARRAY_GROW(v, cap, n + 1)) < 0)
				break;
			v[n++] = frames_ft(a.f, k);
		}
		analysis_release(&a);
	}
	if (r == 0 && n) {
		stats_sort(v, n);
		for (int k = 0; k < COMPARE_NPCT; k++)
			ret[k] = stats_quantile_sorted(v, n, compare_curve_point(k));
	}
	free(v);
	sb_release(&emsg);
	return r < 0 ? r : (long)n;
}

int compare_page_compute(struct db *db, const struct compare_side *sides, int ns,
			 const struct analyse_opts *ao, struct compare_page *ret, struct strbuf *err)
{
	struct compare_page *p = ret;
	int r = 0;

	memset(p, 0, sizeof(*p));
	p->curve = calloc(ns ? (size_t)ns : 1, sizeof(*p->curve));
	p->curve_frames = calloc(ns ? (size_t)ns : 1, sizeof(*p->curve_frames));
	p->cmp = calloc(ns > 1 ? (size_t)ns - 1 : 1, sizeof(*p->cmp));
	if (!p->curve || !p->curve_frames || !p->cmp)
		return -ENOMEM;
	p->nsides = ns;
	for (int i = 0; i < ns && r >= 0; i++) {
		long k = compare_side_curve(&sides[i], ao, p->curve[i], &p->curve_unread);

		p->curve_frames[i] = k < 0 ? 0 : k;
		r = k < 0 ? (int)k : 0;
	}
	for (int i = 1; i < ns && r >= 0; i++)
		r = compare_result_compute(db, NULL, &sides[0], &sides[i],
					   COMPARE_VALUES | COMPARE_KEEP_EMPTY, &p->cmp[i - 1], err);
	return r;
}

void compare_page_release(struct compare_page *p)
{
	for (int i = 1; p->cmp && i < p->nsides; i++)
		compare_result_release(&p->cmp[i - 1]);
	free(p->cmp);
	free(p->curve);
	free(p->curve_frames);
	memset(p, 0, sizeof(*p));
}
