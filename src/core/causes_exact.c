// SPDX-License-Identifier: MIT
/*
 * causes_exact.c: a span's causes from exact time (docs/CAUSES.md, "Exact
 * time"), for records with exact counters (ftx.*) and intervals.
 *
 * Each sample's period (from the sample before it) has the frame thread's
 * exact counter deltas: ns running, waiting for a CPU, blocked in each
 * class, in reclaim. The intervals of 0.5 ms and more say exactly where in
 * the period their time lies. A span's piece of a period therefore takes
 * (1) its overlap with each interval, to the interval's class (blocked
 * part) and to runq (the wait after the wake-up), exactly; (2) the rest of
 * it in the shares of what the counters have left once the intervals are
 * taken out (short waits, running, short run-queue waits), spread evenly
 * over the period. Running time takes the sample's rule when that says
 * disk, swap or reclaim (on-CPU work for memory: the fault path of a
 * major-fault storm, a zram swap-in, direct reclaim that does not sleep),
 * or io when it says a file syscall and the thread ran in short pieces
 * between its waits (the kernel's side of many small reads), cpu
 * otherwise; on-CPU reclaim time the reclaim hooks counted is reclaim.
 * Where a period has no deltas (the first sample, the frame thread
 * changed, a counter went back), its piece is the
 * snapshot split's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/causes.h"
#include "core/causes_int.h"
#include "core/exact.h"
#include "core/grow.h"

/* Whether the space-separated list HOOKS names tracepoint TP. */
static bool hooked(const char *hooks, const char *tp)
{
	size_t n = strlen(tp);

	for (const char *p = hooks; (p = strstr(p, tp)) != NULL; p += n)
		if ((p == hooks || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	return false;
}

/* Whether the record's reclaim hooks were attached, all four: then a
 * period's reclaim on a CPU is what they counted, and the sample rule's
 * reclaim, from counters every process moves, is not asked. Records
 * before meta exact.hooks: false. */
static bool reclaim_hooked(const struct rec *r)
{
	static const char *const tp[] = {
		"mm_vmscan_direct_reclaim_begin", "mm_vmscan_direct_reclaim_end",
		"mm_vmscan_memcg_reclaim_begin", "mm_vmscan_memcg_reclaim_end",
	};
	const char *hooks = rec_meta_get(r, "exact.hooks");

	if (!hooks)
		return false;
	for (size_t i = 0; i < sizeof(tp) / sizeof(tp[0]); i++)
		if (!hooked(hooks, tp[i]))
			return false;
	return true;
}

int causes_exact_init(struct causes *c)
{
	const struct rec *r = c->r;
	size_t n = 0;

	const char *slack = rec_meta_get(r, "exact.wake_slack_ns");

	c->exact = causes_rec_exact(r);
	c->xslack = slack ? strtoull(slack, NULL, 10) : 0;
	c->xreclaim = reclaim_hooked(r);
	for (int i = 0; i < EF_N; i++)
		c->ftx[i] = rec_field_index(r, field_ftx[i]);
	if (!c->exact)
		return 0;
	/* the intervals by switch-out */
	c->xiv = malloc((r->nintervals ? r->nintervals : 1) * sizeof(*c->xiv));
	if (!c->xiv)
		return -ENOMEM;
	for (size_t i = 0; i < r->nintervals; i++)
		c->xiv[n++] = &r->intervals[i];
	for (size_t i = 1; i < n; i++) {
		/* insertion sort: the ring's order is nearly by time already */
		const struct rec_interval *v = c->xiv[i];
		size_t j = i;

		while (j > 0 && c->xiv[j - 1]->out_ns > v->out_ns) {
			c->xiv[j] = c->xiv[j - 1];
			j--;
		}
		c->xiv[j] = v;
	}
	c->nxiv = n;
	for (size_t i = 0; i < n; i++)
		if (c->xiv[i]->in_ns - c->xiv[i]->out_ns > c->xiv_max)
			c->xiv_max = c->xiv[i]->in_ns - c->xiv[i]->out_ns;
	return 0;
}

void causes_exact_free(struct causes *c)
{
	free(c->xd);
	free(c->xiv);
}

int causes_exact_take(struct causes *c, size_t i)
{
	struct causes_xd *x;
	int64_t tid = causes_val(c, i, c->ftx[EF_TID]);

	if (ARRAY_GROW(c->xd, c->xcap, i + 1) < 0)
		return -ENOMEM;
	x = &c->xd[i];
	memset(x, 0, sizeof(*x));
	if (i == 0 || tid <= 0 || tid > UINT32_MAX || causes_val(c, i - 1, c->ftx[EF_TID]) != tid)
		return 0;
	for (int k = 0; k < XD_N; k++) {
		int f = k == XD_RUN ? EF_RUN : k == XD_RUNQ ? EF_RUNQ
			: k == XD_RECLAIM ? EF_RECLAIM : EF_CLASS + (k - XD_CLASS);
		int64_t d = causes_val(c, i, c->ftx[f]) - causes_val(c, i - 1, c->ftx[f]);

		if (d < 0)
			return 0;	/* a counter went back: not one thread's */
		x->ns[k] = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
	}
	x->tid = (uint32_t)tid;
	return 0;
}

/* What exact class CLS means as a sub-cause; SAMPLE is the rule's verdict
 * for the period, which names the swap device. */
static enum cause_sub class_sub(unsigned cls, enum cause_sub sample)
{
	switch (cls) {
	case X_FILE_FAULT: return SUB_DISK;
	case X_SWAP_FAULT:
		return sample == SUB_SWAP_ZRAM || sample == SUB_SWAP_DEV ? sample : SUB_SWAP;
	case X_IO_READ: return SUB_IO_READ;
	case X_IO_WRITE: return SUB_IO_WRITE;
	case X_IO_META: return SUB_IO_META;
	case X_IO_SYNC: return SUB_IO_SYNC;
	case X_GPU: return SUB_GPU_IOCTL;
	case X_FUTEX: return SUB_WAIT_FUTEX;
	case X_POLL: return SUB_WAIT_POLL;
	case X_SOCKET: return sample == SUB_WAIT_PIPE ? SUB_WAIT_PIPE : SUB_WAIT_SOCKET;
	case X_SLEEP: return SUB_WAIT_SLEEP;
	case X_RECLAIM: return SUB_RECLAIM_DIRECT;
	case X_PREEMPT: return SUB_RUNQ;
	default: return SUB_WAIT_OTHER;
	}
}

/* Running time's sub-cause: the sample's rule when it names on-CPU work for
 * memory (page faults from a disk or swap: the fault path's own work;
 * reclaim), else cpu. */
static bool is_reclaim(enum cause_sub s)
{
	return s == SUB_RECLAIM_DIRECT || s == SUB_RECLAIM_COMPACT || s == SUB_RECLAIM_PSI;
}

static enum cause_sub run_sub(enum cause_sub sample)
{
	switch (sample) {
	case SUB_DISK: case SUB_FAULT:
	case SUB_SWAP_ZRAM: case SUB_SWAP_DEV: case SUB_SWAP:
	case SUB_RECLAIM_DIRECT: case SUB_RECLAIM_COMPACT: case SUB_RECLAIM_PSI:
		return sample;
	default:
		return SUB_CPU;
	}
}

/* The file syscall class period K's thread was blocked in for at least
 * half of its blocked time (its wait for a CPU apart), by the exact
 * counters; SUB_N where none was. */
static enum cause_sub period_io_sub(const struct causes *c, size_t k)
{
	static const unsigned io[] = { X_IO_READ, X_IO_WRITE, X_IO_META, X_IO_SYNC };
	const struct causes_xd *x = &c->xd[k];
	uint64_t blocked = 0, best = 0;
	unsigned cls = X_NCLASS;

	for (unsigned j = 0; j < X_NCLASS; j++)
		if (j != X_PREEMPT)
			blocked += x->ns[XD_CLASS + j];
	for (size_t j = 0; j < sizeof(io) / sizeof(io[0]); j++)
		if (x->ns[XD_CLASS + io[j]] > best) {
			best = x->ns[XD_CLASS + io[j]];
			cls = io[j];
		}
	if (!best || 2 * best < blocked)
		return SUB_N;
	return class_sub(cls, SUB_N);
}

/* Running time's sub-cause in period K: run_sub's, but not the rule's
 * reclaim where the reclaim hooks were there and the thread did none of
 * its own in the period; and a file syscall's
 * io when the thread ran in short pieces, under CAUSES_IO_SLICE_NS on
 * average, between waits in one: the CPU side of many small reads, not work
 * of its own between them. The syscall is the period's sample's when that
 * was in one (D in it, or running between two such samples: causes.c),
 * else the one the exact counters say the thread was blocked in for most
 * of the period's blocked time (a storm of short reads is mostly caught
 * running by the samples, and which of them catch it in D is chance). */
static enum cause_sub period_run_sub(const struct causes *c, size_t k, enum cause_sub sample)
{
	int64_t sw;

	switch (sample) {
	case SUB_IO_READ: case SUB_IO_WRITE: case SUB_IO_META: case SUB_IO_SYNC:
		break;
	default:
		/* another process's reclaim moves the rule's counters too */
		if (c->xreclaim && is_reclaim(sample) && !c->xd[k].ns[XD_RECLAIM])
			sample = SUB_CPU;
		if (run_sub(sample) != SUB_CPU)
			return run_sub(sample);
		sample = period_io_sub(c, k);
		if (sample == SUB_N)
			return SUB_CPU;
		break;
	}
	if (c->ftx[EF_SWITCHES] < 0)
		return SUB_CPU;
	sw = causes_val(c, k, c->ftx[EF_SWITCHES]) - causes_val(c, k - 1, c->ftx[EF_SWITCHES]);
	if (sw <= 0 || c->xd[k].ns[XD_RUN] / (uint64_t)sw >= CAUSES_IO_SLICE_NS)
		return SUB_CPU;
	return sample;
}

static uint64_t overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1)
{
	uint64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;

	return hi > lo ? hi - lo : 0;
}

/* The sub-cause of interval IV's blocked part. A futex wait that a
 * renderer's thread ended is a wait for the renderer (docs/CAUSES.md,
 * "Waiting for the renderer"): only a futex, which a thread's own system
 * call wakes, where the kernel names whoever ran when an interrupt woke a
 * poll or a read. A read of a pipe is a pipe's. */
static enum cause_sub interval_sub(const struct causes *c, const struct rec_interval *iv,
				   enum cause_sub sample)
{
	if (iv->cls == X_GPU && iv->stack && strstr(rec_str(c->r, iv->stack), "fence"))
		return SUB_GPU_FENCE;
	if (iv->cls == X_FUTEX) {
		enum cause_sub d = iv->waker_tid ? causes_driver_sub(rec_str(c->r, iv->waker_comm))
						 : SUB_N;

		if (d != SUB_N)
			return d;
	}
	if (iv->cls == X_SOCKET && iv->fd_target &&
	    causes_has_prefix(rec_str(c->r, iv->fd_target), "pipe:"))
		return SUB_WAIT_PIPE;
	return class_sub(iv->cls, sample);
}

/* Period K's piece [A, B] (inside the period, K's deltas valid). */
static void split_period(const struct causes *c, size_t k, uint64_t a, uint64_t b,
			 size_t iv_from, struct cause_split *acc)
{
	const struct causes_xd *x = &c->xd[k];
	uint64_t p0 = c->r->t_ns[k - 1], p1 = c->r->t_ns[k];
	enum cause_sub sample = (enum cause_sub)c->sub[k];
	double in_p[XD_N] = { 0 }, res[XD_N], total = 0, covered = 0;

	for (size_t j = iv_from; j < c->nxiv && c->xiv[j]->out_ns < p1; j++) {
		const struct rec_interval *iv = c->xiv[j];
		bool pre = iv->cls == X_PREEMPT;
		uint64_t wake = pre ? iv->in_ns : iv->wake_ns;

		/* the wake-up's own latency belongs to the sleep, as counted */
		wake = iv->in_ns - wake > c->xslack ? wake + c->xslack : iv->in_ns;
		unsigned cls = iv->cls < X_NCLASS ? iv->cls : X_OTHER;
		uint64_t bp, rp, bs, rs;

		if (iv->tid != x->tid || iv->in_ns <= p0)
			continue;
		bp = overlap(iv->out_ns, wake, p0, p1);
		rp = overlap(wake, iv->in_ns, p0, p1);
		in_p[XD_CLASS + cls] += (double)bp;
		in_p[XD_RUNQ] += (double)rp;
		bs = overlap(iv->out_ns, wake, a, b);
		rs = overlap(wake, iv->in_ns, a, b);
		acc->sub_s[interval_sub(c, iv, sample)] += (double)bs / 1e9;
		acc->sub_s[SUB_RUNQ] += (double)rs / 1e9;
		covered += (double)(bs + rs);
	}
	for (int j = 0; j < XD_N; j++) {
		res[j] = (double)x->ns[j] - in_p[j];
		if (res[j] < 0)
			res[j] = 0;
	}
	/* reclaim on a CPU: the reclaim hooks' time not spent asleep in it */
	double rec_run = res[XD_RECLAIM] - (double)x->ns[XD_CLASS + X_RECLAIM];

	if (rec_run < 0)
		rec_run = 0;
	if (rec_run > res[XD_RUN])
		rec_run = res[XD_RUN];
	res[XD_RUN] -= rec_run;
	res[XD_RECLAIM] = rec_run;
	for (int j = 0; j < XD_N; j++)
		total += res[j];

	double rest = (double)(b - a) - covered;

	if (rest <= 0)
		return;
	if (total <= 0) {
		acc->sub_s[sample] += rest / 1e9;
		return;
	}
	for (int j = 0; j < XD_N; j++) {
		enum cause_sub s;

		if (res[j] <= 0)
			continue;
		s = j == XD_RUN ? period_run_sub(c, k, sample) : j == XD_RUNQ ? SUB_RUNQ
			: j == XD_RECLAIM ? SUB_RECLAIM_DIRECT : class_sub((unsigned)(j - XD_CLASS), sample);
		acc->sub_s[s] += rest * res[j] / total / 1e9;
	}
}

/* The first interval that may overlap time T: intervals are sorted by
 * switch-out, so the first whose switch-out is at most the longest
 * interval's length before T. */
static size_t first_interval(const struct causes *c, uint64_t t)
{
	size_t lo = 0, hi = c->nxiv;
	uint64_t from = t > c->xiv_max ? t - c->xiv_max : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->xiv[mid]->out_ns < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void causes_exact_split(const struct causes *c, uint64_t a, uint64_t b, struct cause_split *acc)
{
	const uint64_t *t = c->r->t_ns;
	size_t n = c->done < c->r->nsamples ? c->done : c->r->nsamples;
	size_t k, iv_from;

	if (b <= a)
		return;
	if (n < 2 || b <= t[0] || a >= t[n - 1]) {
		causes_split_samples(c, a, b, acc);
		return;
	}
	if (a < t[0]) {
		causes_split_samples(c, a, t[0], acc);
		a = t[0];
	}
	if (b > t[n - 1]) {
		causes_split_samples(c, t[n - 1], b, acc);
		b = t[n - 1];
	}
	k = causes_first_after(c, a);
	/* from the first period's start: an interval before A in it counts
	 * against its deltas (from A alone, whether it was found hung on the
	 * longest interval anywhere in the record) */
	iv_from = first_interval(c, t[k - 1] < a ? t[k - 1] : a);
	for (; k < n && t[k - 1] < b; k++) {
		uint64_t lo = a > t[k - 1] ? a : t[k - 1], hi = b < t[k] ? b : t[k];

		if (hi <= lo)
			continue;
		if (!c->xd || !c->xd[k].tid) {
			causes_split_samples(c, lo, hi, acc);
		} else {
			/* not from before the intervals that may reach into
			 * this period: split_period passes over those that end
			 * before it (on a long span, the load's or the warm-up's,
			 * every period passed over all of the span's before it) */
			size_t j = first_interval(c, t[k - 1]);

			split_period(c, k, lo, hi, j > iv_from ? j : iv_from, acc);
		}
	}
}

bool causes_is_exact(const struct causes *c)
{
	return c->exact;
}

bool causes_rec_exact(const struct rec *r)
{
	/* the fields the split reads; the others (switches, block I/O, faults)
	 * are the evidence's and may be missing */
	for (int i = 0; i <= EF_RECLAIM; i++) {
		int f = rec_field_index(r, field_ftx[i]);

		if (f < 0 || r->fields[f].kind != REC_INT)
			return false;
	}
	return rec_samples_in_file(r) > 0;
}

size_t causes_exact_intervals(const struct causes *c, uint64_t a, uint64_t b,
			      const struct rec_interval **out, size_t max)
{
	size_t n = 0, total = 0, k;
	uint32_t tid;

	if (!c->exact || b <= a)
		return 0;
	/* the frame thread of the span: the sample at or after its end's */
	k = causes_first_after(c, b > 0 ? b - 1 : 0);
	if (k >= c->r->nsamples)
		k = c->r->nsamples - 1;
	tid = (uint32_t)causes_val(c, k, c->ftx[EF_TID]);
	for (size_t j = first_interval(c, a); j < c->nxiv && c->xiv[j]->out_ns < b; j++) {
		const struct rec_interval *iv = c->xiv[j];
		uint64_t ov = overlap(iv->out_ns, iv->in_ns, a, b);

		if (iv->tid != tid || !ov)
			continue;
		total++;
		/* insert by overlap, longest first; keep MAX */
		size_t at = n;

		while (at > 0 && overlap(out[at - 1]->out_ns, out[at - 1]->in_ns, a, b) < ov)
			at--;
		if (at >= max)
			continue;
		if (n < max)
			n++;
		memmove(&out[at + 1], &out[at], (n - 1 - at) * sizeof(*out));
		out[at] = iv;
	}
	return total;
}
