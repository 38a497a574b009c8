// SPDX-License-Identifier: MIT
/*
 * export_perfetto_stream.c: export --perfetto as the record streams, in a
 * memory that grows with the record only by a bit a sample and the stalls'
 * presents, beside the analysis's own (docs/FORMAT.md, "export --perfetto
 * streamed"):
 * the same trace as export_perfetto.c writes from the whole record in
 * memory, packet for packet (tests/e2e/export-stream.sh compares them).
 *
 * The analysis is read by windows (run/analyse.h: no samples, no
 * intervals, the presents' stamps) and the stalls by windows (stall_list.h:
 * their items in a spill, read back one at a time), with pass 1 in the
 * stalls' read (stall_spans' also: each record handed on as well); pass 2
 * reads the record once more, each record handed on and none kept
 * (rec/rec.h, on_sample and the others):
 *
 *   pass 1   what the tracks' order and their clocks need before the first
 *            is written: the earliest and the latest stamp, the sampled
 *            threads (in the order the samples name them) and their names,
 *            which of them have exact intervals and API calls, the
 *            presents the segments and the stalls need, which samples are
 *            slow (a bit each);
 *   pass 2   the tracks that follow the record: frames, thread states,
 *            intervals, API calls, counters, each into a spill of its own
 *            (out/perfetto.h: an unlinked temporary file beside the
 *            output), the spills then appended in the order the whole
 *            record's exporter writes its tracks.
 *
 * Presents out of time order in the file (two sources) are read into
 * memory once more and sorted (16 bytes a present), as the whole record's
 * exporter sorts them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/export_perfetto.h"
#include "cmd/export_perfetto_int.h"
#include "cmd/stall_list.h"
#include "core/fields.h"
#include "core/grow.h"
#include "core/where.h"
#include "rec/rec.h"

#define MAX_THREADS 64	/* as export_threads: the later ones have no track */
#define RECENT 64	/* snapshot and sample stamps matched for slow samples */

/* A thread the record names, by tid (a small open-addressed table). */
struct tinfo {
	int64_t tid;		/* 0: an empty slot */
	uint32_t name;		/* its comm in the last snapshot that has it */
	bool ivs;		/* it has an interval export would write */
	bool apis;		/* it made a timed API call */
};

struct track3 {
	int64_t tid;
	uint64_t first_t;	/* its first sample's stamp, or first API call's */
	bool sampled, ivs, apis;
	struct perfetto_out *o[3];	/* spills: states, intervals, API calls */
	struct perfetto_seq *s[3];
	uint64_t iv_end, api_end;
	bool open;		/* a state slice is open */
	struct st_key cur;
};

struct counter {
	struct ctr c;
	int f;
	struct perfetto_out *o;
	struct perfetto_seq *s;
	bool have_prev;
	int64_t prev_v;
	uint64_t prev_t;
	double last;
};

/* A stall by its frame, with its presents (pass 1) and thread (pass 2). */
struct sstall {
	size_t frame;
	size_t k;		/* its item in the stalls' list */
	uint64_t a, b;
	int64_t tid;		/* 0: not seen */
};

struct ex_stream {
	struct ex *x;
	struct analysis *a;
	int sc_f[2][TF_N];	/* ft's and ft2's fields, -1: absent */
	int ft_tid;		/* "ft.tid": a stall's thread */
	/* pass 1 */
	uint64_t base, last, last_iv;
	const char *dir;	/* where the spills go */
	long every;		/* sampler.slow_every */
	bool any;		/* a stamp seen */
	size_t nsamples, npres, nintervals, napispans, nsnaps;
	struct rec_frame prev_f;	/* the last present */
	bool sorted;
	struct tinfo *tt;
	size_t ntt, cap_tt;	/* slots used; slots (a power of two) */
	struct track3 th[MAX_THREADS];
	size_t nth;
	/* the first 2 x MAX_THREADS threads to make an API call, in that
	 * order, with their first call's start: those not sampled get a
	 * track, up to MAX_THREADS in all (export_threads) */
	struct { int64_t tid; uint64_t t; } api1[2 * MAX_THREADS];
	size_t napi1;
	uint8_t *slow;		/* a bit a sample */
	size_t cap_slow;	/* bytes */
	uint64_t snap_t[RECENT], samp_t[RECENT];
	size_t nsnap_t, nsamp_t;
	struct stall_list sl;	/* the stalls' items, in a spill */
	struct stall_item it;	/* the one at hand */
	struct sstall *ss;
	size_t nss, sa, sb;	/* stalls; cursors: the next a, the next b */
	struct rec_frame *pres;	/* presents out of order: all, sorted */
	size_t cap_pres;
	/* pass 2 */
	struct perfetto_out *o_frames, *o_stalls, *o_segs, *o_stacks;
	struct perfetto_seq *s_frames, *s_stacks;
	struct counter *ctr;
	size_t nctr;
	size_t i;		/* samples so far */
	int64_t *row;		/* the previous sample, kept one sample */
	uint64_t row_t;
	bool have_row;
	size_t fk, sf;		/* presents so far; the stalls' cursor */
	size_t st_cur;		/* the stalls' thread cursor */
};

/* ---------------------------------------------------------- threads */

static struct tinfo *tinfo(struct ex_stream *xs, int64_t tid)
{
	size_t k;

	if (2 * (xs->ntt + 1) > xs->cap_tt) {
		size_t cap = xs->cap_tt ? 2 * xs->cap_tt : 64;
		struct tinfo *t = calloc(cap, sizeof(*t));

		if (!t)
			return NULL;
		for (size_t j = 0; j < xs->cap_tt; j++) {
			if (!xs->tt[j].tid)
				continue;
			for (k = (uint64_t)xs->tt[j].tid * 0x9e3779b97f4a7c15ull >> 7 & (cap - 1);
			     t[k].tid; k = (k + 1) & (cap - 1))
				;
			t[k] = xs->tt[j];
		}
		free(xs->tt);
		xs->tt = t;
		xs->cap_tt = cap;
	}
	for (k = (uint64_t)tid * 0x9e3779b97f4a7c15ull >> 7 & (xs->cap_tt - 1); xs->tt[k].tid;
	     k = (k + 1) & (xs->cap_tt - 1))
		if (xs->tt[k].tid == tid)
			return &xs->tt[k];
	xs->tt[k].tid = tid;
	xs->ntt++;
	return &xs->tt[k];
}

static const struct tinfo *tinfo_find(const struct ex_stream *xs, int64_t tid)
{
	if (!xs->cap_tt || !tid)
		return NULL;
	for (size_t k = (uint64_t)tid * 0x9e3779b97f4a7c15ull >> 7 & (xs->cap_tt - 1);
	     xs->tt[k].tid; k = (k + 1) & (xs->cap_tt - 1))
		if (xs->tt[k].tid == tid)
			return &xs->tt[k];
	return NULL;
}

static struct track3 *track_of(struct ex_stream *xs, int64_t tid)
{
	for (size_t j = 0; j < xs->nth; j++)
		if (xs->th[j].tid == tid)
			return &xs->th[j];
	return NULL;
}

static void saw(struct ex_stream *xs, uint64_t t)
{
	if (!xs->any || t < xs->base)
		xs->base = t;
	xs->any = true;
}

/* ------------------------------------------------------------ pass 1 */

static void slow_set(struct ex_stream *xs, size_t i)
{
	xs->slow[i / 8] |= (uint8_t)(1u << (i % 8));
}

static bool slow_get(const struct ex_stream *xs, size_t i)
{
	return xs->slow && i / 8 < xs->cap_slow && xs->slow[i / 8] >> (i % 8) & 1;
}

static int p1_sample(void *ctx, const struct rec *r, uint64_t t, const int64_t *row)
{
	struct ex_stream *xs = ctx;
	size_t i = xs->nsamples++;

	(void)r;
	if (!i)
		saw(xs, t);	/* base_of: the first sample's stamp */
	xs->last = t;	/* the last sample's */
	if (i / 8 >= xs->cap_slow) {
		size_t cap = xs->cap_slow ? 2 * xs->cap_slow : 4096;
		uint8_t *b = realloc(xs->slow, cap);

		if (!b)
			return -ENOMEM;
		memset(b + xs->cap_slow, 0, cap - xs->cap_slow);
		xs->slow = b;
		xs->cap_slow = cap;
	}
	for (size_t k = 0; k < xs->nsnap_t && k < RECENT; k++)
		if (xs->snap_t[k] == t)
			slow_set(xs, i);
	xs->samp_t[xs->nsamp_t++ % RECENT] = t;
	for (int k = 0; k < 2; k++) {
		int f = xs->sc_f[k][TF_TID];
		int64_t tid = f < 0 ? 0 : row[f];
		size_t j;

		if (f < 0 || tid <= 0)
			continue;
		for (j = 0; j < xs->nth && xs->th[j].tid != tid; j++)
			;
		if (j == xs->nth && xs->nth < MAX_THREADS)
			xs->th[xs->nth++] = (struct track3){ .tid = tid, .first_t = t, .sampled = true };
	}
	return 0;
}

static int p1_threads(void *ctx, const struct rec *r, const struct rec_threads *ts)
{
	struct ex_stream *xs = ctx;

	(void)r;
	xs->nsnaps++;
	for (size_t k = 0; k < RECENT && k < xs->nsamp_t; k++)
		if (xs->samp_t[k] == ts->t_ns) {
			/* the sample of that stamp: the RECENT last ones are
			 * xs->nsamples - 1 back to - RECENT */
			size_t back = (xs->nsamp_t - 1 - k) % RECENT;

			slow_set(xs, xs->nsamples - 1 - back);
		}
	xs->snap_t[xs->nsnap_t++ % RECENT] = ts->t_ns;
	for (size_t j = 0; j < ts->n; j++) {
		struct tinfo *ti = tinfo(xs, ts->th[j].tid);

		if (!ti)
			return -ENOMEM;
		ti->name = ts->th[j].name;
	}
	return 0;
}

/* Present K (time order) at F: the segments' and the stalls' stamps. */
static void p1_present(struct ex_stream *xs, size_t k, const struct rec_frame *f)
{
	const struct analysis *a = xs->a;
	struct ex *x = xs->x;

	if (!k)
		x->pt.first = f->t_ns;
	x->pt.last = f->t_ns;
	if (a->m.win_n && k == a->m.win_first)
		x->pt.win_a = f->t_ns;
	if (a->m.win_n && k == a->m.win_first + a->m.win_n)
		x->pt.win_b = f->t_ns;
	while (xs->sa < xs->nss && xs->ss[xs->sa].frame < k)
		xs->sa++;
	if (xs->sa < xs->nss && xs->ss[xs->sa].frame == k)
		xs->ss[xs->sa++].a = f->t_ns;
	while (xs->sb < xs->nss && xs->ss[xs->sb].frame + 1 < k)
		xs->sb++;
	if (k && xs->sb < xs->nss && xs->ss[xs->sb].frame + 1 == k)
		xs->ss[xs->sb++].b = f->t_ns;
}

static int cmp_frame(const void *pa, const void *pb)
{
	const struct rec_frame *a = pa, *b = pb;

	if (a->t_ns != b->t_ns)
		return a->t_ns < b->t_ns ? -1 : 1;
	return a->source != b->source ? (a->source < b->source ? -1 : 1) : 0;
}

static int p1_frame(void *ctx, const struct rec_frame *f)
{
	struct ex_stream *xs = ctx;
	size_t k = xs->npres++;

	saw(xs, f->t_ns);
	if (f->t_ns > xs->x->pt.last_stamp)
		xs->x->pt.last_stamp = f->t_ns;
	if (k && cmp_frame(&xs->prev_f, f) > 0)
		xs->sorted = false;
	xs->prev_f = *f;
	if (xs->sorted)
		p1_present(xs, k, f);
	return 0;
}

static int p1_interval(void *ctx, const struct rec *r, const struct rec_interval *iv)
{
	struct ex_stream *xs = ctx;
	struct tinfo *ti;

	(void)r;
	xs->nintervals++;
	if (!xs->any || iv->out_ns < xs->base)
		xs->base = iv->out_ns;
	xs->any = true;
	xs->last_iv = iv->in_ns;	/* last_stamp: the last interval's (file order) */
	if (iv->in_ns < iv->out_ns)
		return 0;	/* never written: skipped */
	ti = tinfo(xs, iv->tid);
	if (!ti)
		return -ENOMEM;
	ti->ivs = true;
	return 0;
}

static int p1_apispan(void *ctx, const struct rec *r, const struct rec_apispan *sp)
{
	struct ex_stream *xs = ctx;
	struct tinfo *ti = tinfo(xs, sp->tid);

	(void)r;
	if (!ti)
		return -ENOMEM;
	xs->napispans++;
	if (!ti->apis && xs->napi1 < 2 * MAX_THREADS) {
		xs->api1[xs->napi1].tid = sp->tid;
		xs->api1[xs->napi1++].t = sp->start_ns;
	}
	ti->apis = true;
	return 0;
}

static int collect_frame(void *ctx, const struct rec_frame *f)
{
	struct ex_stream *xs = ctx;

	if (ARRAY_GROW(xs->pres, xs->cap_pres, xs->npres + 1) < 0)
		return -ENOMEM;
	xs->pres[xs->npres++] = *f;
	return 0;
}

static int no_sample(void *ctx, const struct rec *r, uint64_t t, const int64_t *row)
{
	(void)ctx, (void)r, (void)t, (void)row;
	return 0;
}

static int no_interval(void *ctx, const struct rec *r, const struct rec_interval *iv)
{
	(void)ctx, (void)r, (void)iv;
	return 0;
}

static int no_apispan(void *ctx, const struct rec *r, const struct rec_apispan *sp)
{
	(void)ctx, (void)r, (void)sp;
	return 0;
}

/* The stalls by frame (the window's over the warm-up's, as stall_of),
 * before the list is read: a few dozen bytes a stall kept. */
static int stalls_by_frame(struct ex_stream *xs)
{
	struct stall_frame *sf = NULL;
	size_t n = 0;
	int r = stall_list_frames(xs->a, &xs->a->mo, &sf, &n);

	if (r < 0)
		return r;
	xs->ss = calloc(n ? n : 1, sizeof(*xs->ss));
	if (!xs->ss) {
		free(sf);
		return -ENOMEM;
	}
	for (size_t k = 0; k < n; k++)
		xs->ss[k] = (struct sstall){ .frame = sf[k].frame, .k = sf[k].k };
	xs->nss = n;
	free(sf);
	return 0;
}

/* Stall J's item into xs->it. 0 or a negative errno. */
static int stall_at(struct ex_stream *xs, size_t j)
{
	return stall_list_get(&xs->sl, xs->ss[j].k, &xs->it);
}

/* ------------------------------------------------------------ pass 2 */

static int64_t rowv(const int64_t *row, int f)
{
	return f < 0 ? 0 : row[f];
}

/* The scope (0: ft, 1: ft2) in which ROW holds TID, or -1. */
static int scope_in(const struct ex_stream *xs, const int64_t *row, int64_t tid)
{
	for (int k = 0; k < 2; k++)
		if (xs->sc_f[k][TF_TID] >= 0 && row[xs->sc_f[k][TF_TID]] == tid)
			return k;
	return -1;
}

/* Thread T's state at the sample ROW (stamp TIME; NEXT: the sample after
 * it, or NULL), as export_perfetto_samples.c's thread_states. */
static int states_step(struct ex_stream *xs, struct track3 *t, const int64_t *row, uint64_t time,
		       const int64_t *next)
{
	struct ex *x = xs->x;
	int in = scope_in(xs, row, t->tid), ret = 0;
	struct st_key k = { 0 };

	if (in >= 0) {
		const int *f = xs->sc_f[in];

		k.state = rowv(row, f[TF_STATE]);
		if (k.state == 'R' && next && scope_in(xs, next, t->tid) == in && f[TF_RUN] >= 0 &&
		    f[TF_WAIT] >= 0)
			k.runnable = next[f[TF_WAIT]] - row[f[TF_WAIT]] >
				     next[f[TF_RUN]] - row[f[TF_RUN]];
		k.wchan = k.state == 'R' ? 0 : rowv(row, f[TF_WCHAN]);
		k.syscall = k.state == 'R' || f[TF_SYSCALL] < 0 ? -1 : rowv(row, f[TF_SYSCALL]);
		k.fd_target = k.state == 'R' ? 0 : rowv(row, f[TF_FD_TARGET]);
	}
	if (t->open && (in < 0 || k.state == 'X' || !export_key_eq(&k, &t->cur))) {
		perfetto_event(t->s[0], time, PERFETTO_END, NULL);
		ret = perfetto_emit(t->s[0]);
		t->open = false;
	}
	if (ret || in < 0 || k.state == 'X' || t->open)
		return ret;
	ret = export_state_begin(x, t->s[0], time, &k);
	t->cur = k;
	t->open = true;
	return ret;
}

static int counters_step(struct ex_stream *xs, size_t i, uint64_t t, const int64_t *row)
{
	int ret = 0;

	for (size_t k = 0; !ret && k < xs->nctr; k++) {
		struct counter *c = &xs->ctr[k];

		if (c->c.slow && !(xs->nsnaps ? slow_get(xs, i) : i % (size_t)xs->every == 0))
			continue;
		if (c->have_prev)
			ret = export_counter_step(xs->x, c->s, &c->c, row[c->f] - c->prev_v,
						  t - c->prev_t, c->prev_t, &c->last);
		c->have_prev = true;
		c->prev_v = row[c->f];
		c->prev_t = t;
	}
	return ret;
}

/* A stall's thread: the first sample in it that names the frame thread. */
static void stall_tids(struct ex_stream *xs, uint64_t t, const int64_t *row)
{
	int64_t tid = rowv(row, xs->ft_tid);

	while (xs->st_cur < xs->nss && xs->ss[xs->st_cur].b < t)
		xs->st_cur++;
	if (xs->ft_tid < 0 || tid <= 0)
		return;
	for (size_t j = xs->st_cur; j < xs->nss && xs->ss[j].a <= t; j++)
		if (t <= xs->ss[j].b && !xs->ss[j].tid)
			xs->ss[j].tid = tid;
}

static int p2_sample(void *ctx, const struct rec *r, uint64_t t, const int64_t *row)
{
	struct ex_stream *xs = ctx;
	size_t nf = r->nfields;
	int ret = 0;

	if (xs->have_row)
		for (size_t j = 0; !ret && j < xs->nth; j++)
			if (xs->th[j].sampled)
				ret = states_step(xs, &xs->th[j], xs->row, xs->row_t, row);
	if (!ret)
		ret = counters_step(xs, xs->i, t, row);
	stall_tids(xs, t, row);
	xs->i++;
	if (!xs->row && !(xs->row = malloc((nf ? nf : 1) * sizeof(*xs->row))))
		return -ENOMEM;
	memcpy(xs->row, row, nf * sizeof(*row));
	xs->row_t = t;
	xs->have_row = true;
	return ret;
}

static int p2_frame(void *ctx, const struct rec_frame *f)
{
	struct ex_stream *xs = ctx;
	uint64_t a = xs->prev_f.t_ns;
	size_t k = xs->fk++;
	const struct stall_item *it = NULL;
	int r;

	if (!xs->s_frames)
		return 0;
	xs->prev_f = *f;
	if (!k)
		return 0;
	while (xs->sf < xs->nss && xs->ss[xs->sf].frame < k - 1)
		xs->sf++;
	if (xs->sf < xs->nss && xs->ss[xs->sf].frame == k - 1) {
		if ((r = stall_at(xs, xs->sf)) < 0)
			return r;
		it = &xs->it;
	}
	return export_frame_slice(xs->x, xs->s_frames, it, a, f->t_ns, f->source);
}

static int p2_interval(void *ctx, const struct rec *r, const struct rec_interval *iv)
{
	struct ex_stream *xs = ctx;
	struct track3 *t = track_of(xs, iv->tid);
	int ret;

	(void)r;
	if (!t || !t->sampled)
		return 0;	/* the whole exporter looks at the sampled threads' */
	if (iv->out_ns < t->iv_end || iv->in_ns < iv->out_ns) {
		xs->x->st->skipped++;	/* overlaps the previous one */
		return 0;
	}
	if (!t->s[1])
		return -EIO;	/* pass 1 saw none: the file changed */
	ret = export_interval(xs->x, t->s[1], iv);
	t->iv_end = iv->in_ns;
	return ret;
}

static int p2_apispan(void *ctx, const struct rec *r, const struct rec_apispan *sp)
{
	struct ex_stream *xs = ctx;
	struct track3 *t = track_of(xs, sp->tid);
	int ret;

	(void)r;
	if (!t)
		return 0;
	if (sp->start_ns < t->api_end) {
		xs->x->st->skipped++;	/* overlaps the previous one */
		return 0;
	}
	if (!t->s[2])
		return -EIO;
	ret = export_apispan(xs->x, t->s[2], sp);
	t->api_end = sp->start_ns + sp->dur_ns;
	return ret;
}

/* ------------------------------------------------------------- tracks */

static int spill(struct ex_stream *xs, const char *dir, struct perfetto_out **o)
{
	int r = perfetto_out_spill(dir, o);

	if (r == 0)
		xs->x->o = *o;
	return r;
}

static int on_counter(struct ex *x, const struct ctr *c, int f)
{
	struct ex_stream *xs = x->xs;
	struct counter *k;
	int r;

	k = realloc(xs->ctr, (xs->nctr + 1) * sizeof(*xs->ctr));
	if (!k)
		return -ENOMEM;
	xs->ctr = k;
	k = &xs->ctr[xs->nctr];
	*k = (struct counter){ .c = *c, .f = f, .last = __builtin_nan("") };
	r = spill(xs, xs->dir, &k->o);
	if (r < 0)
		return r;
	xs->nctr++;
	return export_counter_open(x, &k->c, &k->s);
}

static int64_t stall_tid_of(const struct ex *x, const struct stall_item *it)
{
	const struct ex_stream *xs = x->xs;
	size_t lo = 0, hi = xs->nss;

	while (lo < hi) {	/* by frame: the stalls are sorted so */
		size_t m = lo + (hi - lo) / 2;

		if (xs->ss[m].frame < it->frame)
			lo = m + 1;
		else
			hi = m;
	}
	if (lo < xs->nss && xs->ss[lo].frame == it->frame && xs->ss[lo].tid)
		return xs->ss[lo].tid;
	return x->pid;
}

/* Every track's spill, opened in the whole exporter's order (which sets
 * the sequences' ids and the tracks' uuids). */
static int open_tracks(struct ex_stream *xs, const char *dir)
{
	struct ex *x = xs->x;
	struct perfetto_seq *s = NULL;
	int r;

	r = spill(xs, dir, &xs->o_frames);
	r = r ? r : export_frames_open(x, &xs->s_frames);
	r = r ? r : spill(xs, dir, &xs->o_stalls);
	r = r ? r : export_stalls_open(x, &s);
	for (size_t j = 0; !r && j < xs->nss; j++) {
		r = stall_at(xs, j);
		r = r ? r : export_stall_slice(x, s, &xs->it, xs->ss[j].a, xs->ss[j].b);
	}
	perfetto_seq_free(s);
	r = r ? r : spill(xs, dir, &xs->o_segs);
	r = r ? r : export_segments(x);
	for (size_t j = 0; !r && j < xs->nth; j++) {
		struct track3 *t = &xs->th[j];
		const struct tinfo *ti = tinfo_find(xs, t->tid);
		const char *name = ti ? rec_str(x->r, ti->name) : NULL;
		struct perfetto_track tr = {
			.kind = PERFETTO_TRACK_THREAD, .pid = export_pid_at(x, t->first_t),
			.tid = t->tid, .name = name && *name ? name : NULL, .rank = 10 + (int)j,
			.description = t->sampled ? export_thread_sampled : export_thread_unsampled,
		};

		r = spill(xs, dir, &t->o[0]);
		r = r ? r : export_track_open(x, &tr, &t->s[0]);
		if (!t->sampled) {
			perfetto_seq_free(t->s[0]);
			t->s[0] = NULL;
		}
		if (!r && t->sampled && xs->nintervals && ti && ti->ivs) {
			struct perfetto_track it = export_intervals_track;

			it.parent = tr.uuid;
			r = spill(xs, dir, &t->o[1]);
			r = r ? r : export_track_open(x, &it, &t->s[1]);
		}
		if (!r && xs->napispans && ti && ti->apis) {
			struct perfetto_track at = export_apis_track;

			at.parent = tr.uuid;
			r = spill(xs, dir, &t->o[2]);
			r = r ? r : export_track_open(x, &at, &t->s[2]);
		}
	}
	if (!r && xs->nth == MAX_THREADS)
		sb_addf(x->notes, "more than 64 sampled threads: the later ones have no track\n");
	if (!r && where_any(x->r)) {
		r = spill(xs, dir, &xs->o_stacks);
		r = r ? r : perfetto_seq_open(x->o, x->seq++, x->proc_uuid, x->base_ns, &xs->s_stacks);
	}
	if (!r && xs->nsamples) {
		x->on_counter = on_counter;
		r = export_counters(x);
	}
	return r;
}

/* The threads that made API calls and were not sampled, in the order of
 * their first call (the samples have all passed), as export_threads adds
 * them. */
static void api_only(struct ex_stream *xs)
{
	for (size_t k = 0; k < xs->napi1 && xs->nth < MAX_THREADS; k++)
		if (xs->api1[k].tid && !track_of(xs, xs->api1[k].tid))
			xs->th[xs->nth++] = (struct track3){ .tid = xs->api1[k].tid,
							     .first_t = xs->api1[k].t };
}

/* ------------------------------------------------------------- driver */

static int read_pass(struct ex_stream *xs, struct rec_stream *st, struct strbuf *err)
{
	struct rec *r = NULL;
	int ret;

	st->ctx = xs;
	st->skip_threads = true;
	st->skip_frames = true;
	ret = analyse_rec_windows(xs->a, st, &r, err);
	rec_free(r);
	return ret;
}

int export_perfetto_stream(struct ex *x, struct analysis *a, const char *rundir,
			   const char *spill_dir, struct strbuf *err)
{
	struct ex_stream xs = { .x = x, .a = a, .sorted = true, .dir = spill_dir,
				.sl = { .fd = -1 } };
	const struct rec *r = a->rec;
	size_t npres_a = a->rec_nframes;
	const char *v = rec_meta_get(r, "sampler.slow_every");
	int ret = 0;

	xs.every = v ? strtol(v, NULL, 10) : 10;
	if (xs.every < 1)
		xs.every = 10;
	x->xs = &xs;
	x->stall_tid = stall_tid_of;
	for (int k = 0; k < TF_N; k++) {
		xs.sc_f[0][k] = rec_field_index(r, field_ft[k]);
		xs.sc_f[1][k] = rec_field_index(r, field_ft2[k]);
	}
	xs.ft_tid = rec_field_index(r, "ft.tid");
	x->nframes = npres_a ? npres_a - 1 : 0;
	/* pass 1, in the stalls' read where there is one (the stalls' frames
	 * are known before it) */
	{
		struct rec_stream st = { .on_sample = p1_sample, .on_frame = p1_frame,
					 .on_threads = p1_threads, .on_interval = p1_interval,
					 .on_apispan = p1_apispan, .ctx = &xs };
		struct stall_spans with = { .also = &st };

		if (a->f && a->f->n != x->nframes) {
			sb_addf(x->notes,
				"the analysis has %zu frames, the record %zu: stalls are not named\n",
				a->f->n, x->nframes);
		} else if (a->f) {
			ret = stalls_by_frame(&xs);
			ret = ret ? ret : stall_list_open(a, &a->mo, NULL, &with, &xs.sl, err);
		}
		if (!ret && !xs.sl.read)
			ret = read_pass(&xs, &st, err);
	}
	if (ret < 0)
		goto out;
	if (!xs.sorted) {
		/* presents out of order: all of them, sorted */
		struct rec_stream st = { .on_sample = no_sample, .on_frame = collect_frame,
					 .on_interval = no_interval, .on_apispan = no_apispan };
		size_t n = xs.npres;

		xs.npres = 0;
		ret = read_pass(&xs, &st, err);
		if (ret < 0)
			goto out;
		if (xs.npres != n) {
			ret = sb_error(err, -EIO, "'%s': the record changed while read", rundir);
			goto out;
		}
		qsort(xs.pres, xs.npres, sizeof(*xs.pres), cmp_frame);
		xs.sa = xs.sb = 0;
		for (size_t k = 0; k < xs.npres; k++)
			p1_present(&xs, k, &xs.pres[k]);
	}
	if (xs.npres != npres_a) {
		ret = sb_error(err, -EIO, "'%s': the record changed while read", rundir);
		goto out;
	}
	if (!(x->nframes && a->m.win_n && a->m.win_first + a->m.win_n <= x->nframes))
		x->pt.win_a = x->pt.win_b = 0;
	/* the base: the earliest stamp (base_of), the last (last_stamp) */
	for (size_t e = 0; e < r->nevents; e++) {
		saw(&xs, r->events[e].t_ns);
		if (r->events[e].t_ns > x->pt.last_stamp)
			x->pt.last_stamp = r->events[e].t_ns;
	}
	for (size_t c = 0; c < r->nclocks; c++)
		saw(&xs, r->clocks[c].mono_ns);
	x->base_ns = xs.any ? xs.base : 0;
	/* last_stamp: the base, the last sample, the latest present and
	 * event, the last interval */
	if (x->pt.last_stamp < x->base_ns)
		x->pt.last_stamp = x->base_ns;
	if (xs.nsamples && xs.last > x->pt.last_stamp)
		x->pt.last_stamp = xs.last;
	if (xs.nintervals && xs.last_iv > x->pt.last_stamp)
		x->pt.last_stamp = xs.last_iv;
	api_only(&xs);

	/* the tracks: the clocks and the process first, the rest in spills */
	{
		struct perfetto_out *main = x->o;

		ret = export_clocks(x);
		ret = ret ? ret : export_process_track(x);
		ret = ret ? ret : open_tracks(&xs, spill_dir);
		x->o = main;
	}
	if (ret < 0)
		goto out;

	/* pass 2 */
	{
		struct rec_stream st = { .on_sample = p2_sample, .on_frame = p2_frame,
					 .on_interval = p2_interval, .on_apispan = p2_apispan };

		if (xs.pres) {
			st.on_frame = NULL;
			for (size_t k = 0; !ret && k < xs.npres; k++)
				ret = p2_frame(&xs, &xs.pres[k]);
			free(xs.pres);
			xs.pres = NULL;
		}
		ret = ret ? ret : read_pass(&xs, &st, err);
	}
	for (size_t j = 0; !ret && xs.have_row && j < xs.nth; j++)
		if (xs.th[j].sampled)
			ret = states_step(&xs, &xs.th[j], xs.row, xs.row_t, NULL);
	for (size_t j = 0; !ret && j < xs.nth; j++) {
		struct track3 *t = &xs.th[j];

		if (t->open) {
			perfetto_event(t->s[0], xs.row_t, PERFETTO_END, NULL);
			ret = perfetto_emit(t->s[0]);
		}
	}
	if (!ret && xs.s_stacks) {
		struct strbuf names = STRBUF_INIT;

		for (size_t j = 0; !ret && j < xs.nss; j++) {
			ret = stall_at(&xs, j);
			ret = ret ? ret : export_stall_samples(x, xs.s_stacks, &xs.it, xs.ss[j].a,
							       xs.ss[j].b, &names);
		}
		sb_release(&names);
	}
	if (ret < 0)
		goto out;

	/* the spills in order, then the probe's and the watcher's tracks */
	{
		struct perfetto_out **o[8 + 3 * MAX_THREADS];
		size_t n = 0;

		o[n++] = &xs.o_frames;
		o[n++] = &xs.o_stalls;
		o[n++] = &xs.o_segs;
		for (size_t j = 0; j < xs.nth; j++)
			for (int k = 0; k < 3; k++)
				o[n++] = &xs.th[j].o[k];
		o[n++] = &xs.o_stacks;
		for (size_t k = 0; k < n && !ret; k++) {
			if (*o[k])
				ret = perfetto_out_append(x->o, *o[k]);
			*o[k] = NULL;
		}
		for (size_t k = 0; k < xs.nctr && !ret; k++) {
			ret = perfetto_out_append(x->o, xs.ctr[k].o);
			xs.ctr[k].o = NULL;
		}
	}
	ret = ret ? ret : export_probe(x);
	ret = ret ? ret : export_interference(x, rundir);
	if (ret < 0)
		goto out;
	export_say_missing(x, xs.npres, xs.nsamples);
out:
	perfetto_seq_free(xs.s_frames);
	perfetto_seq_free(xs.s_stacks);
	perfetto_out_close(xs.o_frames);
	perfetto_out_close(xs.o_stalls);
	perfetto_out_close(xs.o_segs);
	perfetto_out_close(xs.o_stacks);
	for (size_t j = 0; j < xs.nth; j++)
		for (int k = 0; k < 3; k++) {
			perfetto_seq_free(xs.th[j].s[k]);
			perfetto_out_close(xs.th[j].o[k]);
		}
	for (size_t k = 0; k < xs.nctr; k++) {
		perfetto_seq_free(xs.ctr[k].s);
		perfetto_out_close(xs.ctr[k].o);
	}
	free(xs.ctr);
	free(xs.row);
	free(xs.pres);
	free(xs.ss);
	stall_list_close(&xs.sl);
	free(xs.slow);
	free(xs.tt);
	x->xs = NULL;
	return ret;
}
