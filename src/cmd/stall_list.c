// SPDX-License-Identifier: MIT
/*
 * stall_list.c: a run's stalls with their causes, evidence and intervals
 * (stall_list.h), for stalls and html.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/stall_list.h"
#include "core/apicall.h"
#include "core/exact.h"
#include "core/grow.h"
#include "core/where.h"
#include "out/spill.h"
#include "rec/rec.h"

/* "futex" for wait_futex: the sub-cause without its cause's prefix, or NULL
 * when it says no more than the cause. */
const char *stall_sub_short(enum cause_sub s)
{
	const char *name = cause_sub_name(s), *cause = cause_name(cause_of_sub(s));
	size_t n = strlen(cause);

	if (!strcmp(name, cause))
		return NULL;
	if (!strncmp(name, cause, n) && name[n] == '_')
		return name + n + 1;
	return name;
}

/*
 * The frame hook's API spans (record 2.2) that overlap stall S from ANS to
 * BNS, of the thread that presented its frame (every thread's when the
 * source does not say): the longest into s->api, and the verdict's
 * sub-cause where a kind of call covers half the stall or more: a cpu
 * stall in compile calls is cpu (shader compile); a stall that is gpu or
 * wait, asleep in a call that waits for the GPU, is gpu (fence wait).
 */
static void stall_apis(const struct analysis *a, size_t i, uint64_t ans, uint64_t bns,
		       struct stall_item *s)
{
	const struct rec *r = a->rec;
	uint32_t tid = a->f->tid ? a->f->tid[i] : 0;
	double kind_ms[3] = { 0, 0, 0 }, stall_ms = (double)(bns - ans) / 1e6;

	for (size_t k = 0; r && k < r->napispans; k++) {
		const struct rec_apispan *sp = &r->apispans[k];
		uint64_t lo = sp->start_ns > ans ? sp->start_ns : ans;
		uint64_t hi = sp->start_ns + sp->dur_ns < bns ? sp->start_ns + sp->dur_ns : bns;
		struct stall_api in;
		size_t at;

		if (hi <= lo || (tid && sp->tid != tid))
			continue;
		in = (struct stall_api){ rec_str(r, sp->name), (double)sp->dur_ns / 1e6,
					 (double)(hi - lo) / 1e6 };
		kind_ms[api_call_kind(in.name)] += in.in_ms;
		for (at = s->napi; at > 0 && s->api[at - 1].in_ms < in.in_ms; at--)
			if (at < STALL_APIS)
				s->api[at] = s->api[at - 1];
		if (at < STALL_APIS) {
			s->api[at] = in;
			if (s->napi < STALL_APIS)
				s->napi++;
		}
	}
	if (!(stall_ms > 0))
		return;
	if (s->v.cause == CAUSE_CPU && kind_ms[API_KIND_COMPILE] >= stall_ms / 2) {
		s->v.sub = SUB_CPU_SHADER_COMPILE;
		s->v.sub_share = kind_ms[API_KIND_COMPILE] / stall_ms;
	} else if ((s->v.cause == CAUSE_GPU || s->v.cause == CAUSE_WAIT) &&
		   kind_ms[API_KIND_FENCE] >= stall_ms / 2) {
		s->v.cause = CAUSE_GPU;
		s->v.sub = SUB_GPU_FENCE_WAIT;
		s->v.sub_share = kind_ms[API_KIND_FENCE] / stall_ms;
		if (s->v.share < s->v.sub_share)
			s->v.share = s->v.sub_share;
		if (s->v.second == CAUSE_GPU) {
			s->v.second = -1;
			s->v.second_share = NAN;
		}
	}
}

void stall_ns(const struct stall_item *s, uint64_t *a, uint64_t *b)
{
	double an = (double)s->t0_ns + s->t_s * 1e9;

	/* the recorder stamps a stall's stacks at the frame that began it */
	*a = an <= 1e6 ? 0 : (uint64_t)(an - 1e6);
	*b = (uint64_t)(an + s->ms * 1e6);
}

int stall_where(const struct rec *r, const struct stall_item *s, struct where *w)
{
	uint64_t a, b;

	stall_ns(s, &a, &b);
	return where_stall(r, a, b, w);
}

void stall_api_text(struct strbuf *sb, const struct stall_item *s)
{
	for (size_t k = 0; k < s->napi; k++)
		sb_addf(sb, "%sin %s %.1f ms", k ? ", " : "", s->api[k].name, s->api[k].ms);
}

/* Frame I's span on the record's clock: [*ANS, *BNS]. */
static void stall_span(const struct analysis *a, size_t i, uint64_t *ans, uint64_t *bns)
{
	const struct frames *f = a->f;
	double start = frames_start(f, i);
	double an = (double)a->t0_ns + start * 1e9, bn = (double)a->t0_ns + frames_t(f, i) * 1e9;

	*ans = an <= 0 ? 0 : (uint64_t)an;
	*bns = bn <= 0 ? 0 : (uint64_t)bn;
}

static void stall_fill(const struct causes *c, const struct analysis *a, size_t i,
		       struct stall_item *s)
{
	const struct frames *f = a->f;
	double start = frames_start(f, i);
	const struct rec_interval *iv[STALL_INTERVALS];
	uint64_t ans, bns;

	stall_span(a, i, &ans, &bns);
	memset(s, 0, sizeof(*s));
	s->t0_ns = a->t0_ns;
	s->frame = i;
	s->t_s = start;
	s->ms = frames_ft(f, i);
	causes_split(c, ans, bns, &s->split);
	cause_split_verdict(&s->split, &s->v);
	causes_evidence(c, ans, bns, &s->e);
	s->exact = causes_is_exact(c);
	s->niv_all = causes_exact_intervals(c, ans, bns, iv, STALL_INTERVALS);
	s->niv = s->niv_all < STALL_INTERVALS ? s->niv_all : STALL_INTERVALS;
	for (size_t k = 0; k < s->niv; k++)
		s->iv[k] = *iv[k];
	stall_apis(a, i, ans, bns, s);
}

/* ", from pthread_cond_wait <- wait_for_worker <- ...": the user stack at
 * IV's switch-out, when the record holds it (docs/WHERE.md). */
static void interval_user_text(struct strbuf *sb, const struct rec *r,
			       const struct rec_interval *iv)
{
	struct where w;

	if (where_interval(r, iv, &w) == 0 && where_merge(&w, STALL_INTERVAL_FRAMES) == 0 &&
	    w.n && w.st[0].nframes) {
		sb_adds(sb, ", from ");
		where_chain(sb, &w.st[0], 0);
	}
	where_free(&w);
}

/* An interval in words: "futex 300.1 ms, woken by 1234 (render)" with its
 * syscall's file, its innermost kernel function and the user stack at its
 * switch-out. */
void stall_interval_text(struct strbuf *sb, const struct rec *r, const struct rec_interval *iv)
{
	const char *cls = exact_class_name(iv->cls), *st = rec_str(r, iv->stack);
	const char *sys = iv->syscall >= 0 ? cause_syscall_name(rec_meta_get(r, "syscall_abi"),
								  iv->syscall) : NULL;

	sb_addf(sb, "%s %.1f ms", cls ? cls : "?", (double)(iv->in_ns - iv->out_ns) / 1e6);
	if (sys)
		sb_addf(sb, " in %s", sys);
	else if (iv->syscall >= 0)
		sb_addf(sb, " in syscall %d", iv->syscall);
	if (iv->fd_target)
		sb_addf(sb, "(%s)", rec_str(r, iv->fd_target));
	if (iv->waker_tid)
		sb_addf(sb, ", woken by %u (%s)", iv->waker_tid, rec_str(r, iv->waker_comm));
	if (*st)
		sb_addf(sb, ", at %.*s", (int)strcspn(st, "\n"), st);
	interval_user_text(sb, r, iv);
}

/* The syscall part of the evidence: "in pread64(/var/tmp/x)". */
static void ev_syscall(struct strbuf *sb, const struct cause_evidence *e)
{
	if (e->syscall == -1)
		sb_adds(sb, e->state == 'R' ? " running" : " in no syscall (a fault)");
	else if (e->syscall == -2)
		sb_adds(sb, " syscall unknown");
	else if (e->syscall_name)
		sb_addf(sb, " in %s", e->syscall_name);
	else
		sb_addf(sb, " in syscall %ld", e->syscall);
	if (e->fd_target)
		sb_addf(sb, "(%s)", e->fd_target);
}

/* Starts clause KIND of SIZE in SB (after "; " unless it is the first) and
 * records where it begins in OUT[*N] (when there is room). */
static void clause_begin(struct strbuf *sb, struct stall_clause *out, size_t max, size_t *n,
			 enum stall_clause_kind kind, double size)
{
	if (*n)
		sb_adds(sb, "; ");
	if (out && *n < max) {
		out[*n].kind = kind;
		out[*n].size = size;
		out[*n].off = sb->len;
	}
	(*n)++;
}

/* Ends the clause clause_begin started: its length. */
static void clause_end(struct strbuf *sb, struct stall_clause *out, size_t max, size_t n)
{
	if (out && n && n - 1 < max)
		out[n - 1].len = sb->len - out[n - 1].off;
}

size_t stall_evidence_clauses(struct strbuf *sb, const struct cause_evidence *e, long stack_lines,
			      struct stall_clause *out, size_t max)
{
	size_t k, n = 0;

	clause_begin(sb, out, max, &n, SC_STATE, NAN);
	if (e->state) {
		sb_addf(sb, "%c", e->state);
		ev_syscall(sb, e);
		if (e->wchan)
			sb_addf(sb, ", wchan %s", e->wchan);
	} else {
		sb_adds(sb, "no sample inside");
	}
	clause_end(sb, out, max, n);
	if (e->majflt > 0) {
		clause_begin(sb, out, max, &n, SC_FAULTS, (double)e->majflt);
		sb_addf(sb, "%lld major faults", (long long)e->majflt);
		clause_end(sb, out, max, n);
	}
	for (k = 0; k < e->ndisks; k++) {
		clause_begin(sb, out, max, &n, SC_DISK, (double)e->disks[k].rd_ios);
		sb_addf(sb, "%.*s %lld reads", (int)e->disks[k].dev_len, e->disks[k].dev,
			(long long)e->disks[k].rd_ios);
		if (e->disks[k].rd_kb >= 0)
			sb_addf(sb, " %.1f MB", (double)e->disks[k].rd_kb / 1024.0);
		clause_end(sb, out, max, n);
	}
	if (e->nvm) {
		clause_begin(sb, out, max, &n, SC_VM, NAN);
		sb_adds(sb, "vm");
		for (k = 0; k < e->nvm; k++)
			sb_addf(sb, " %s%+lld", e->vm[k].name, (long long)e->vm[k].delta);
		clause_end(sb, out, max, n);
	}
	if (!isnan(e->run_ms) || !isnan(e->runq_ms) || e->ft_gaps) {
		double run = isnan(e->run_ms) ? 0 : e->run_ms, q = isnan(e->runq_ms) ? 0 : e->runq_ms;

		clause_begin(sb, out, max, &n, SC_RUN, run > q ? run : q);
		if (!isnan(e->run_ms))
			sb_addf(sb, "run %.1f ms", e->run_ms);
		if (!isnan(e->runq_ms))
			sb_addf(sb, "%srunq %.1f ms", isnan(e->run_ms) ? "" : ", ", e->runq_ms);
		else if (isnan(e->run_ms) && e->ft_gaps && e->ft_gaps == e->ft_periods)
			sb_adds(sb, "run -, runq -");
		if (e->ft_gaps)
			sb_addf(sb, "%s(%zu of %zu periods left out: the frame thread changed or its "
				"counters went back)", isnan(e->run_ms) && isnan(e->runq_ms) &&
				e->ft_gaps != e->ft_periods ? "" : " ", e->ft_gaps, e->ft_periods);
		if (e->missed_in > 0)
			sb_addf(sb, " (%lld switch-in%s of the thread here not traced: its run "
				"time is the kernel's, when it began estimated)",
				(long long)e->missed_in, e->missed_in == 1 ? "" : "s");
		clause_end(sb, out, max, n);
	}
	if (!isnan(e->cg_mem_ms) && e->cg_mem_ms > 0) {
		clause_begin(sb, out, max, &n, SC_PRESSURE, e->cg_mem_ms);
		sb_addf(sb, "cgroup memory pressure %.1f ms", e->cg_mem_ms);
		clause_end(sb, out, max, n);
	} else if (!isnan(e->psi_mem_ms) && e->psi_mem_ms > 0) {
		clause_begin(sb, out, max, &n, SC_PRESSURE, e->psi_mem_ms);
		sb_addf(sb, "memory pressure %.1f ms", e->psi_mem_ms);
		clause_end(sb, out, max, n);
	}
	for (k = 0; k < e->nlate; k++) {
		clause_begin(sb, out, max, &n, SC_LATE, e->late[k].late_ms);
		sb_addf(sb, "CPU %d woke %.0f ms late", e->late[k].cpu, e->late[k].late_ms);
		clause_end(sb, out, max, n);
	}
	if (e->stack && stack_lines > 0) {
		const char *p = e->stack;
		long m;

		clause_begin(sb, out, max, &n, SC_STACK, NAN);
		sb_adds(sb, "stack");
		for (m = 0; m < stack_lines && *p; m++) {
			size_t len = strcspn(p, "\n");

			sb_addf(sb, "%s%.*s", m ? " < " : " ", (int)len, p);
			p += len;
			if (*p)
				p++;
		}
		clause_end(sb, out, max, n);
	}
	return n;
}

/* The evidence as one line of text: its clauses. */
void stall_evidence_text(struct strbuf *sb, const struct cause_evidence *e, long stack_lines)
{
	(void)stall_evidence_clauses(sb, e, stack_lines, NULL, 0);
}

/* The evidence as items, each ending in a NUL: its clauses, as the page
 * has them, cut apart for a terminal's lines. */
void stall_evidence_items(struct strbuf *sb, const struct cause_evidence *e, long stack_lines)
{
	struct strbuf line = STRBUF_INIT;
	struct stall_clause *c;
	size_t n, max = 8 + e->ndisks + e->nlate;

	c = calloc(max, sizeof(*c));
	if (!c) {
		stall_evidence_text(sb, e, stack_lines);	/* one item */
		sb_addc(sb, '\0');
		return;
	}
	n = stall_evidence_clauses(&line, e, stack_lines, c, max);
	for (size_t k = 0; k < n && k < max; k++) {
		sb_add(sb, line.buf + c[k].off, c[k].len);
		sb_addc(sb, '\0');
	}
	free(c);
	sb_release(&line);
}

void stall_items_join(struct strbuf *sb, const char *items, size_t len)
{
	for (const char *p = items; p < items + len; p += strlen(p) + 1)
		sb_addf(sb, "%s%s", p == items ? "" : "; ", p);
}

/* ------------------------------------------------------------ the list */

/* A stall frame and where its item goes: the window's list, the
 * warm-up's, or both (filled once, written to each). */
struct stall_at {
	size_t frame;
	unsigned parts;
	size_t iwin, iwarm;	/* its place in each list it is in */
};

/* A's stall frames in frame order into *RET (malloc'd, *N of them), and
 * the lists' lengths into L. 0 or -ENOMEM. */
static int stall_frames(const struct analysis *a, const struct metrics_opts *mo,
			struct stall_at **ret, size_t *n, struct stall_list *l)
{
	size_t nf = a->f ? a->f->n : 0, cap = 0;

	*ret = NULL;
	*n = 0;
	for (size_t i = 0; i < nf; i++) {
		unsigned parts = causes_stall_parts(a->f, i, &a->m, mo, a->segs, a->nsegs);

		if (!(parts & (CAUSES_IN_WINDOW | CAUSES_IN_WARM)))
			continue;
		if (ARRAY_GROW(*ret, cap, *n + 1) < 0)
			return -ENOMEM;
		(*ret)[(*n)++] = (struct stall_at){ .frame = i, .parts = parts, .iwin = l->nwin,
						    .iwarm = l->nwarm };
		l->nwin += (parts & CAUSES_IN_WINDOW) != 0;
		l->nwarm += (parts & CAUSES_IN_WARM) != 0;
	}
	return 0;
}

int stall_list_frames(const struct analysis *a, const struct metrics_opts *mo,
		      struct stall_frame **ret, size_t *n)
{
	struct stall_list l = { .fd = -1 };
	struct stall_at *st = NULL;
	struct stall_frame *sf = NULL;
	size_t ns = 0;
	int r = stall_frames(a, mo, &st, &ns, &l);

	if (r >= 0 && !(sf = malloc((ns ? ns : 1) * sizeof(*sf))))
		r = -ENOMEM;
	for (size_t k = 0; r >= 0 && k < ns; k++)
		sf[k] = (struct stall_frame){
			.frame = st[k].frame,
			.k = st[k].parts & CAUSES_IN_WINDOW ? st[k].iwin : l.nwin + st[k].iwarm
		};
	free(st);
	if (r < 0) {
		free(sf);
		return r;
	}
	*ret = sf;
	*n = ns;
	return 0;
}

/* IT as item K of the spill FD. 0 or a negative errno. */
static int spill_write(int fd, size_t k, const struct stall_item *it)
{
	const char *p = (const char *)it;
	off_t off = (off_t)(k * sizeof(*it));

	for (size_t done = 0; done < sizeof(*it);) {
		ssize_t w = pwrite(fd, p + done, sizeof(*it) - done, off + (off_t)done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		done += (size_t)w;
	}
	return 0;
}

int stall_list_get(const struct stall_list *l, size_t k, struct stall_item *ret)
{
	char *p = (char *)ret;
	off_t off = (off_t)(k * sizeof(*ret));

	if (l->fd < 0 || k >= l->nwin + l->nwarm)
		return -EINVAL;
	for (size_t done = 0; done < sizeof(*ret);) {
		ssize_t r = pread(l->fd, p + done, sizeof(*ret) - done, off + (off_t)done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		done += (size_t)r;
	}
	return 0;
}

void stall_list_close(struct stall_list *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}

/* Stall S of A filled with C into *IT, handed to EACH and written to
 * each list it is in (its warm-up item the same, in play and warm). */
static int stall_put(const struct analysis *a, const struct causes *c, const struct rec *r,
		     const struct stall_each *each, const struct stall_at *s,
		     const struct stall_list *l, struct stall_item *it)
{
	int ret = 0;

	stall_fill(c, a, s->frame, it);
	if (s->parts & CAUSES_IN_WINDOW)
		it->play = (s->parts & CAUSES_IN_PLAY) || !a->play_known;
	else
		it->play = it->warm = true;
	if (each)
		ret = each->fn(each->ctx, c, r, it);
	if (!ret && (s->parts & CAUSES_IN_WINDOW))
		ret = spill_write(l->fd, s->iwin, it);
	if (!ret && (s->parts & CAUSES_IN_WARM)) {
		it->play = it->warm = true;
		ret = spill_write(l->fd, l->nwin + s->iwarm, it);
	}
	return ret;
}

/* The stalls ST (NS) of A analysed with the whole record into L. 0 or a
 * negative errno. */
static int list_whole(const struct analysis *a, const struct stall_each *each,
		      const struct stall_at *st, size_t ns, struct stall_list *l)
{
	struct causes *c = NULL;
	struct stall_item it;
	int r = causes_new(a->rec, &c);

	for (size_t k = 0; r >= 0 && k < ns; k++)
		r = stall_put(a, c, a->rec, each, &st[k], l, &it);
	causes_free(c);
	return r < 0 ? r : 0;
}

/* ---------------------------------------------------------------- windows */

struct win_ctx {
	const struct analysis *a;
	const struct stall_at *st;
	size_t ns;
	const size_t *by_win;	/* window -> index into st, or ns + a span's */
	const struct stall_each *each;
	const struct stall_spans *spans;
	const struct stall_list *l;
};

/* The spans' ALSO, handed each record of the read (struct stall_spans) */
static int also_sample(void *ctx, const struct rec *r, uint64_t t, const int64_t *row)
{
	const struct rec_stream *o = ((struct win_ctx *)ctx)->spans->also;

	return o->on_sample(o->ctx, r, t, row);
}

static int also_frame(void *ctx, const struct rec_frame *f)
{
	const struct rec_stream *o = ((struct win_ctx *)ctx)->spans->also;

	return o->on_frame(o->ctx, f);
}

static int also_threads(void *ctx, const struct rec *r, const struct rec_threads *ts)
{
	const struct rec_stream *o = ((struct win_ctx *)ctx)->spans->also;

	return o->on_threads(o->ctx, r, ts);
}

static int also_interval(void *ctx, const struct rec *r, const struct rec_interval *iv)
{
	const struct rec_stream *o = ((struct win_ctx *)ctx)->spans->also;

	return o->on_interval(o->ctx, r, iv);
}

static int also_apispan(void *ctx, const struct rec *r, const struct rec_apispan *sp)
{
	const struct rec_stream *o = ((struct win_ctx *)ctx)->spans->also;

	return o->on_apispan(o->ctx, r, sp);
}

static int cmp_window(const void *x, const void *y)
{
	const struct rec_window *a = x, *b = y;

	return a->a_ns < b->a_ns ? -1 : a->a_ns > b->a_ns;
}

/* A group of windows read: their stalls split, with this group's samples
 * and intervals alone, and spilled. */
static int on_group(void *ctx, struct rec *r, size_t w0, size_t w1)
{
	struct win_ctx *x = ctx;
	struct causes *c = NULL;
	struct stall_item it;
	int ret = causes_new(r, &c);

	for (size_t w = w0; ret >= 0 && w < w1; w++) {
		size_t i = x->by_win[w];

		ret = i < x->ns ? stall_put(x->a, c, r, x->each, &x->st[i], x->l, &it)
				: x->spans->fn(x->spans->ctx, c, r, i - x->ns);
	}
	causes_free(c);
	return ret < 0 ? ret : 0;
}

/* The stalls ST (NS) of A analysed by windows into L, and SPANS (NULL:
 * none): the record read again, a group of windows' samples and
 * intervals at a time. 0 or a negative errno with the message in EMSG. */
static int list_windows(struct analysis *a, const struct stall_each *each,
			const struct stall_spans *spans, const struct stall_at *st, size_t ns,
			struct stall_list *l, struct strbuf *emsg)
{
	size_t nsp = spans ? spans->nwin : 0, n = ns + nsp;
	struct rec_window *w = malloc((n ? n : 1) * sizeof(*w));
	size_t *by_win = malloc((n ? n : 1) * sizeof(*by_win));
	struct { struct rec_window w; size_t i; } *tmp = malloc((n ? n : 1) * sizeof(*tmp));
	struct rec *r2 = NULL;
	int r = -ENOMEM;

	if (!w || !by_win || !tmp) {
		sb_error(emsg, r, "'%s'", a->source);
		goto out;
	}
	/* the windows by start, each knowing its stall (a_ns's low bits would
	 * not do: the index rides in a parallel array after the sort) */
	for (size_t k = 0; k < ns; k++) {
		stall_span(a, st[k].frame, &tmp[k].w.a_ns, &tmp[k].w.b_ns);
		tmp[k].i = k;
	}
	for (size_t k = 0; k < nsp; k++) {
		tmp[ns + k].w = spans->win[k];
		tmp[ns + k].i = ns + k;
	}
	/* struct rec_window first: cmp_window orders the pairs */
	qsort(tmp, n, sizeof(*tmp), cmp_window);
	for (size_t k = 0; k < n; k++) {
		w[k] = tmp[k].w;
		by_win[k] = tmp[k].i;
	}
	free(tmp);
	tmp = NULL;
	{
		struct win_ctx x = { .a = a, .st = st, .ns = ns, .by_win = by_win, .each = each,
				     .spans = spans, .l = l };
		struct rec_stream rs = { .skip_threads = true, .skip_frames = true, .win = w,
					 .nwin = n, .on_window = on_group, .ctx = &x };
		const struct rec_stream *o = spans ? spans->also : NULL;

		if (o) {
			rs.on_sample = o->on_sample ? also_sample : NULL;
			rs.on_frame = o->on_frame ? also_frame : NULL;
			rs.on_threads = o->on_threads ? also_threads : NULL;
			rs.on_interval = o->on_interval ? also_interval : NULL;
			rs.on_apispan = o->on_apispan ? also_apispan : NULL;
		}
		r = analyse_rec_windows(a, &rs, &r2, emsg);
		l->read = true;
	}
	if (r >= 0) {
		rec_free(a->rec_win);
		a->rec_win = r2;
		r2 = NULL;
	}
out:
	free(tmp);
	free(w);
	free(by_win);
	rec_free(r2);
	return r;
}

/* Whether A was analysed by windows (its samples are in the file). */
static bool by_windows(const struct analysis *a)
{
	return a->rec && a->rec->nsamples_read && !a->rec->nsamples;
}

int stall_list_open(struct analysis *a, const struct metrics_opts *mo,
		    const struct stall_each *each, const struct stall_spans *spans,
		    struct stall_list *ret, struct strbuf *emsg)
{
	struct stall_at *st = NULL;
	size_t ns = 0;
	int r;

	*ret = (struct stall_list){ .fd = -1 };
	r = stall_frames(a, mo, &st, &ns, ret);
	if (r >= 0 && ns && (ret->fd = spill_fd(NULL)) < 0)
		r = ret->fd;
	if (r >= 0 && (ns || (spans && (spans->nwin || spans->also))) && by_windows(a))
		r = list_windows(a, each, spans, st, ns, ret, emsg);
	else if (r >= 0 && ns)
		r = list_whole(a, each, st, ns, ret);
	if (r < 0 && !emsg->len)
		sb_error(emsg, r, "'%s'", a->source);
	free(st);
	return r;
}

int stall_list_build(const struct analysis *a, const struct metrics_opts *mo,
		     struct stall_item **ret_win, size_t *ret_nwin, struct stall_item **ret_warm,
		     size_t *ret_nwarm)
{
	struct stall_list l = { .fd = -1 };
	struct stall_item *win = NULL, *warm = NULL;
	struct stall_at *st = NULL;
	size_t ns = 0;
	int r = stall_frames(a, mo, &st, &ns, &l);

	if (r >= 0 && ns && (l.fd = spill_fd(NULL)) < 0)
		r = l.fd;
	if (r >= 0)
		r = list_whole(a, NULL, st, ns, &l);
	free(st);
	if (r >= 0) {
		win = calloc(l.nwin ? l.nwin : 1, sizeof(*win));
		warm = calloc(l.nwarm ? l.nwarm : 1, sizeof(*warm));
		r = win && warm ? 0 : -ENOMEM;
	}
	for (size_t k = 0; r >= 0 && k < l.nwin + l.nwarm; k++)
		r = stall_list_get(&l, k, k < l.nwin ? &win[k] : &warm[k - l.nwin]);
	stall_list_close(&l);
	if (r < 0) {
		free(win);
		free(warm);
		return r;
	}
	*ret_win = win;
	*ret_nwin = l.nwin;
	*ret_warm = warm;
	*ret_nwarm = l.nwarm;
	return 0;
}
