// SPDX-License-Identifier: MIT
/* history.c: a benchmark's metrics over its builds (history.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/signif.h"
#include "core/file.h"
#include "core/build.h"
#include "run/history.h"

static const char *const causes[] = { "disk", "swap", "reclaim", "gpu", "cpu", "io", "wait",
				      "other" };
#define NCAUSES (sizeof(causes) / sizeof(causes[0]))

int history_worse(const char *m)
{
	static const char *const lower[] = { "fps", "smooth_fps", "low1", "low01", "low1_play" };
	static const char *const neutral[] = { "frames", "seconds", "win_play_s", "reload_n" };

	for (size_t i = 0; i < sizeof(lower) / sizeof(lower[0]); i++)
		if (!strcmp(m, lower[i]))
			return -1;
	for (size_t i = 0; i < sizeof(neutral) / sizeof(neutral[0]); i++)
		if (!strcmp(m, neutral[i]))
			return 0;
	return 1;
}

/* A stall metric: its change points say the causes (the window's or the
 * play's columns). */
static int stall_kind(const char *m)
{
	if (!strcmp(m, "stalls") || !strcmp(m, "stall_s") || !strncmp(m, "over_", 5) ||
	    !strcmp(m, "longest_ms"))
		return 1;
	if (!strcmp(m, "stalls_play") || !strcmp(m, "stall_play_s") || !strcmp(m, "longest_play_ms"))
		return 2;
	return 0;
}

struct hrun {
	long long id;
	char *rig, *build, *started, *rundir;
	size_t b, r;			/* indices into builds, rigs */
};

struct collect {
	const struct history_opts *o;
	struct history *h;
	struct hrun *runs;
	size_t n, alloc;
};

static int index_of(char ***list, size_t *n, const char *s, bool add)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*list)[i], s))
			return (int)i;
	if (!add)
		return -1;
	/* grown by one: the list is searched whole for each name above */
	char **p = realloc(*list, (*n + 1) * sizeof(*p));

	if (!p)
		return -ENOMEM;
	*list = p;
	if (!(p[*n] = strdup(s)))
		return -ENOMEM;
	return (int)(*n)++;
}

static int take_run(const struct db_run *run, void *ctx)
{
	struct collect *c = ctx;
	const struct history_opts *o = c->o;
	struct hrun *r;

	if (strcmp(run->variant, o->variant) || (o->rig && strcmp(run->rig, o->rig)))
		return 0;
	if (o->since && (!run->started || strcmp(run->started, o->since) < 0))
		return 0;
	if (run->interfered == 1) {
		c->h->interfered++;
		return 0;
	}
	if (run->failed) {
		c->h->failed++;
		return 0;
	}
	if (!run->build) {
		c->h->no_build++;
		return 0;
	}
	if (ARRAY_GROW(c->runs, c->alloc, c->n + 1) < 0)
		return -ENOMEM;
	r = &c->runs[c->n];
	*r = (struct hrun){ .id = run->id };
	r->rig = strdup(run->rig);
	r->build = strdup(run->build);
	r->started = strdup(run->started ? run->started : "");
	r->rundir = o->keep_runs ? strdup(run->rundir ? run->rundir : "") : NULL;
	if (!r->rig || !r->build || !r->started || (o->keep_runs && !r->rundir)) {
		free(r->rig);
		free(r->build);
		free(r->started);
		free(r->rundir);
		return -ENOMEM;
	}
	c->n++;
	return 0;
}

/* by start, then id: the order of first runs */
static int by_start(const void *a, const void *b)
{
	const struct hrun *x = a, *y = b;
	int k = strcmp(x->started, y->started);

	return k ? k : (x->id < y->id ? -1 : x->id > y->id);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static double median(double *v, size_t n)
{
	return signif_median(v, n);
}

/* The median over the runs of RIG whose build is at a series position in
 * [from, to) (POS: a build's position, or (size_t)-1 when it has no point):
 * values V (by run) where HAVE; TMP room for all runs. */
static double seg_median(const struct collect *c, size_t rig, const size_t *pos, size_t from,
			 size_t to, const double *v, const bool *have, double *tmp)
{
	size_t k = 0;

	for (size_t i = 0; i < c->n; i++) {
		const struct hrun *r = &c->runs[i];
		size_t p = pos[r->b];

		if (r->r == rig && have[i] && p >= from && p < to)
			tmp[k++] = v[i];
	}
	return k ? median(tmp, k) : NAN;
}

static double moved(const struct history_cause *z)
{
	return fabs((isnan(z->after) ? 0 : z->after) - (isnan(z->before) ? 0 : z->before));
}

/* The cause that moved most first, so that the line leads with what
 * changed; ties (most often: neither moved) by name. */
static int cmp_moved(const void *pa, const void *pb)
{
	const struct history_cause *a = pa, *b = pb;
	double ma = moved(a), mb = moved(b);

	if (ma != mb)
		return ma < mb ? 1 : -1;
	return strcmp(a->cause, b->cause);
}

static int series_of(struct collect *c, size_t rig, const char *metric, const double *v,
		     const bool *have, double *const *cv, bool *const *chave, struct strbuf *err)
{
	struct history *h = c->h;
	const struct history_opts *o = c->o;
	struct history_series *s;
	double *tmp = calloc(c->n + 1, sizeof(*tmp)), *pts = calloc(h->nbuilds + 1, sizeof(*pts));
	size_t *pos = malloc((h->nbuilds + 1) * sizeof(*pos)), *first = NULL, *byb = NULL;
	struct ediv_cp *cp = NULL;
	int r = 0, k;

	(void)err;
	if (!tmp || !pts || !pos) {
		r = -ENOMEM;
		goto out;
	}
	s = &h->series[h->nseries++];
	*s = (struct history_series){ .rig = h->rigs[rig], .metric = metric };
	s->builds = calloc(h->nbuilds + 1, sizeof(*s->builds));
	if (!s->builds || (o->keep_runs && !(s->values = malloc((c->n + 1) * sizeof(double))))) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; o->keep_runs && i < c->n; i++)
		s->values[i] = c->runs[i].r == rig && have[i] ? v[i] : NAN;
	/* the rig's runs with a value, by build (a counting sort): first[b] ..
	 * first[b + 1] in byb */
	first = calloc(h->nbuilds + 2, sizeof(*first));
	byb = malloc((c->n + 1) * sizeof(*byb));
	if (!first || !byb) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < c->n; i++)
		if (c->runs[i].r == rig && have[i])
			first[c->runs[i].b + 2]++;
	for (size_t b = 2; b < h->nbuilds + 2; b++)
		first[b] += first[b - 1];
	for (size_t i = 0; i < c->n; i++)
		if (c->runs[i].r == rig && have[i])
			byb[first[c->runs[i].b + 1]++] = i;
	for (size_t b = 0; b < h->nbuilds; b++) {
		struct history_build *hb = &s->builds[s->nbuilds];
		size_t n = 0;

		pos[b] = (size_t)-1;
		for (size_t q = first[b]; q < first[b + 1]; q++)
			tmp[n++] = v[byb[q]];
		if (!n)
			continue;
		hb->build = h->builds[b];
		hb->index = b;
		hb->runs = n;
		hb->median = median(tmp, n);
		hb->ci = signif_median_ci(tmp, n, 0.95, &hb->lo, &hb->hi) == 0;
		if (!hb->ci) {
			hb->lo = hb->hi = tmp[0];
			for (size_t i = 1; i < n; i++) {
				hb->lo = fmin(hb->lo, tmp[i]);
				hb->hi = fmax(hb->hi, tmp[i]);
			}
		}
		pts[s->nbuilds] = hb->median;
		pos[b] = s->nbuilds++;
	}
	k = s->nbuilds ? ediv_detect(pts, s->nbuilds, &o->ed, &cp) : -EDOM;
	if (k == -EDOM) {
		s->too_few = true;
		goto out;
	}
	if (k < 0) {
		r = k;
		goto out;
	}
	s->cps = calloc((size_t)k + 1, sizeof(*s->cps));
	if (!s->cps) {
		r = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < k; i++) {
		struct history_cp *hc = &s->cps[s->ncps++];
		size_t from = i ? cp[i - 1].at : 0, to = i + 1 < k ? cp[i + 1].at : s->nbuilds;
		int dir = history_worse(metric), kind = stall_kind(metric);

		hc->at = cp[i].at;
		hc->p = cp[i].p;
		hc->before = seg_median(c, rig, pos, from, cp[i].at, v, have, tmp);
		hc->after = seg_median(c, rig, pos, cp[i].at, to, v, have, tmp);
		hc->change_pct = hc->before != 0 ? (hc->after - hc->before) / fabs(hc->before) * 100
						 : NAN;
		hc->worse = (dir > 0 && hc->after > hc->before) || (dir < 0 && hc->after < hc->before);
		for (size_t q = 0; kind && q < NCAUSES; q++) {
			struct history_cause *hz = &hc->causes[hc->ncauses++];
			const double *x = cv[(kind - 1) * NCAUSES + q];
			const bool *xh = chave[(kind - 1) * NCAUSES + q];

			hz->cause = causes[q];
			hz->before = seg_median(c, rig, pos, from, cp[i].at, x, xh, tmp);
			hz->after = seg_median(c, rig, pos, cp[i].at, to, x, xh, tmp);
		}
		qsort(hc->causes, hc->ncauses, sizeof(hc->causes[0]), cmp_moved);
	}
	s->newest_worse = s->ncps && s->cps[s->ncps - 1].worse;
out:
	free(cp);
	free(tmp);
	free(pts);
	free(pos);
	free(first);
	free(byb);
	return r;
}

int history_compute(struct db *db, const struct history_opts *o, struct history **ret,
		    struct strbuf *err)
{
	struct history *h = calloc(1, sizeof(*h));
	struct collect c = { .o = o, .h = h };
	long long *ids = NULL;
	double *v = NULL, *cv[2 * NCAUSES] = { 0 };
	bool *have = NULL, *chave[2 * NCAUSES] = { 0 };
	size_t nm = 0;
	int r;

	if (!h)
		return -ENOMEM;
	r = db_each_run(db, o->name, take_run, &c, err);
	if (r < 0)
		goto out;
	if (!c.n) {
		sb_addf(err, "no runs of '%s:%s'%s%s with a build in '%s' (%zu without a build, "
			"%zu interfered, %zu failed): record --build or --build-of gives one",
			o->name, o->variant, o->rig ? " of rig " : "", o->rig ? o->rig : "",
			db_name(db), h->no_build, h->interfered, h->failed);
		r = -ENOENT;
		goto out;
	}
	qsort(c.runs, c.n, sizeof(*c.runs), by_start);
	/* builds: the --order list, else by first run; rigs sorted by name */
	if (o->order) {
		for (char *const *b = o->order; *b; b++)
			if ((r = index_of(&h->builds, &h->nbuilds, *b, true)) < 0)
				goto out;
	}
	for (size_t i = 0; i < c.n; i++) {
		r = index_of(&h->rigs, &h->nrigs, c.runs[i].rig, true);
		if (r >= 0)
			r = index_of(&h->builds, &h->nbuilds, c.runs[i].build, !o->order);
		if (r == -ENOMEM)
			goto out;
	}
	qsort(h->rigs, h->nrigs, sizeof(*h->rigs), cmp_str);
	ids = calloc(c.n, sizeof(*ids));
	v = calloc(c.n, sizeof(*v));
	have = calloc(c.n, sizeof(*have));
	for (size_t q = 0; q < 2 * NCAUSES; q++) {
		cv[q] = calloc(c.n, sizeof(*cv[q]));
		chave[q] = calloc(c.n, sizeof(*chave[q]));
		if (!cv[q] || !chave[q])
			r = -ENOMEM;
	}
	if (!ids || !v || !have || r == -ENOMEM) {
		r = -ENOMEM;
		goto out;
	}
	{	/* each run's rig and build by index; runs of builds not in --order out */
		size_t k = 0;

		for (size_t i = 0; i < c.n; i++) {
			struct hrun *x = &c.runs[i];
			int b = index_of(&h->builds, &h->nbuilds, x->build, false);

			if (b < 0) {
				h->unordered++;
				free(x->rig);
				free(x->build);
				free(x->started);
				free(x->rundir);
				continue;
			}
			x->b = (size_t)b;
			x->r = (size_t)index_of(&h->rigs, &h->nrigs, x->rig, false);
			c.runs[k++] = *x;
		}
		c.n = k;
	}
	h->runs = c.n;
	if (o->keep_runs) {
		h->runv = calloc(c.n + 1, sizeof(*h->runv));
		if (!h->runv) {
			r = -ENOMEM;
			goto out;
		}
		for (size_t i = 0; i < c.n; i++) {
			h->runv[i] = (struct history_run){ .id = c.runs[i].id, .rig = c.runs[i].r,
							   .build = c.runs[i].b,
							   .rundir = c.runs[i].rundir,
							   .started = c.runs[i].started };
			c.runs[i].rundir = c.runs[i].started = NULL;
		}
	}
	for (size_t i = 0; i < c.n; i++)
		ids[i] = c.runs[i].id;
	for (char *const *m = o->metrics; *m; m++)
		nm++;
	h->series = calloc(nm * h->nrigs + 1, sizeof(*h->series));
	if (!h->series) {
		r = -ENOMEM;
		goto out;
	}
	/* the causes' columns, read once (stall metrics' change points) */
	for (size_t q = 0; q < 2 * NCAUSES; q++) {
		char col[48];

		snprintf(col, sizeof(col), q < NCAUSES ? "stall_%s_s" : "stall_%s_play_s",
			 causes[q % NCAUSES]);
		if ((r = db_metric_values(db, col, ids, c.n, cv[q], chave[q], err)) < 0)
			goto out;
	}
	for (char *const *m = o->metrics; *m; m++) {
		if ((r = db_metric_values(db, *m, ids, c.n, v, have, err)) < 0)
			goto out;
		for (size_t rig = 0; rig < h->nrigs; rig++)
			if ((r = series_of(&c, rig, *m, v, have, cv, chave, err)) < 0)
				goto out;
	}
	r = 0;
out:
	for (size_t i = 0; i < c.n; i++) {
		free(c.runs[i].rig);
		free(c.runs[i].build);
		free(c.runs[i].started);
		free(c.runs[i].rundir);
	}
	free(c.runs);
	free(ids);
	free(v);
	free(have);
	for (size_t q = 0; q < 2 * NCAUSES; q++) {
		free(cv[q]);
		free(chave[q]);
	}
	if (r < 0) {
		history_free(h);
		return r;
	}
	*ret = h;
	return 0;
}

void history_free(struct history *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->nseries; i++) {
		free(h->series[i].builds);
		free(h->series[i].cps);
		free(h->series[i].values);
	}
	for (size_t i = 0; h->runv && i < h->runs; i++) {
		free(h->runv[i].rundir);
		free(h->runv[i].started);
	}
	free(h->runv);
	free(h->series);
	for (size_t i = 0; i < h->nbuilds; i++)
		free(h->builds[i]);
	free(h->builds);
	for (size_t i = 0; i < h->nrigs; i++)
		free(h->rigs[i]);
	free(h->rigs);
	free(h);
}

int history_order_read(const char *path, char ***ret, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	int r = file_read_text(path, "the build order", 1 << 20, &text, err);

	if (r >= 0)
		r = build_order_parse(text.buf, text.len, path, ret, err);
	sb_release(&text);
	return r;
}
