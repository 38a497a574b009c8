/* SPDX-License-Identifier: MIT */
/*
 * recorder_stacks.c: the sampled threads' stacks in the record
 * (linux/stacks.h, docs/WHERE.md). The raw samples of the last seconds stay
 * in memory; when a frame gap longer than the stall threshold ends, the
 * samples inside it are unwound and written as USTACK windows (rec.h: their
 * mappings, frames and stacks interned), the frame thread's and the second
 * sampled thread's, stamped at the gap's start; in exact mode each interval
 * of the frame thread inside a stall (or itself as long as one) gets its
 * switch-out's stack as a window stamped at its start. The rest are dropped
 * as they age: only stalls pay. The user frames are written as (file,
 * build-id, offset) and named at analysis time (run/symbols.h). Every stack
 * written goes through recorder_stacks_emit.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/inifmt.h"
#include "core/where.h"
#include "linux/stacks.h"
#include "rec/rec.h"
#include "run/recorder_int.h"

#define STALL_NS ((uint64_t)(RECORDER_STACKS_STALL_MS * 1e6))

/* The window kind of each stack the recorder writes (core/record.h). */
static const uint8_t uset_kinds[RSTACK_N] = {
	[RSTACK_STALL] = REC_USET_STALL,
	[RSTACK_THREAD2] = REC_USET_THREAD2,
	[RSTACK_INTERVAL] = REC_USET_INTERVAL,
};

/* At the start, before the program runs: the sampler (and, as root, the
 * kernel's symbols), unless stacks are off. */
void recorder_stacks_start(struct recorder *r)
{
	struct strbuf err = STRBUF_INIT;

	if (r->o.no_stacks || r->o.no_sample || r->stk)
		return;
	if (stacks_new(r->o.stacks_hz > 0 ? r->o.stacks_hz : STACKS_HZ_DEFAULT, &r->stk, &err) < 0) {
		snprintf(r->stacks_why, sizeof(r->stacks_why), "%s", err.buf);
		r->stacks_failed = true;
		recorder_note(r, "%s", err.buf);
	}
	sb_release(&err);
}

/* Follows the frame thread and drains the kernel's ring; once a period. */
void recorder_stacks_tick(struct recorder *r)
{
	struct strbuf err = STRBUF_INIT;
	int e;

	if (r->o.no_stacks || r->o.no_sample || r->stacks_failed)
		return;
	if (!r->stk)
		recorder_stacks_start(r);
	if (!r->stk)
		return;
	if (r->ft_tid && r->ft_tid != r->stacks_tid) {
		e = stacks_set_thread(r->stk, 0, r->fpid, r->ft_tid, &err);
		r->stacks_tid = r->ft_tid;
		if (err.len && strcmp(err.buf, r->stacks_why)) {
			snprintf(r->stacks_why, sizeof(r->stacks_why), "%s", err.buf);
			recorder_note(r, "%s", err.buf);
		}
		if (e >= 0)
			r->stacks_on = true;
		r->stk_niv = 0;	/* the old thread's intervals: its samples are gone */
		sb_reset(&err);
	}
	/* the second sampled thread (the sampler's ft2): its process's main
	 * thread while the frame thread is another, else none */
	if (r->stacks_tid && r->ft2_tid != r->stacks_want2) {
		e = stacks_set_thread(r->stk, 1, r->fpid, r->ft2_tid, &err);
		r->stacks_want2 = r->ft2_tid;	/* tried once per thread */
		r->stacks_tid2 = e < 0 ? 0 : r->ft2_tid;
		if (e < 0 && !r->stacks_why2_said) {
			recorder_note(r, "second thread: %s", err.buf);
			r->stacks_why2_said = true;
		}
	}
	sb_release(&err);
	stacks_drain(r->stk);
}

/* Writes the window's stacks OUT of thread TID, stamped at T, as one
 * USTACK window of KIND (enum rec_uset_kind) with its mappings, frames and
 * stacks interned (rec.h). 0 or a negative errno. */
static int write_stacks(struct recorder *r, uint64_t t, uint32_t tid, uint8_t kind,
			const struct stacks_out *out)
{
	uint32_t *maps = calloc(out->nmaps ? out->nmaps : 1, sizeof(*maps));
	uint32_t *ids = calloc(out->n, sizeof(*ids)), fr[REC_USTACK_MAX];
	uint64_t *cnt = calloc(out->n, sizeof(*cnt));
	struct rec_uset set = { .t_ns = t, .tid = tid, .kind = kind, .stack = ids, .count = cnt };
	int e = 0;

	if (!maps || !ids || !cnt) {
		e = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < out->nmaps; i++)
		maps[i] = rec_writer_umap(r->w, out->maps[i].path, out->maps[i].build_id,
					  out->maps[i].build_id_len);
	for (size_t i = 0; i < out->n; i++) {
		const struct stacks_stack *st = &out->st[i];
		size_t n = 0;

		for (size_t k = 0; k < st->nframes && n < REC_USTACK_MAX; k++) {
			const struct stacks_frame *f = &st->frames[k];
			struct rec_uframe u = { .kind = f->kind };

			if (f->kind == REC_UF_ADDR) {
				u.ref = f->map < out->nmaps ? maps[f->map] : 0;
				u.off = f->off;
			} else if (f->kind == REC_UF_NAMED || f->kind == REC_UF_KERNEL) {
				u.ref = rec_writer_intern(r->w, f->name);
			}
			if ((f->kind == REC_UF_ADDR || f->kind == REC_UF_NAMED ||
			     f->kind == REC_UF_KERNEL) && !u.ref) {
				u.kind = REC_UF_UNKNOWN;	/* a name or file refused */
				u.ref = 0;
			}
			if ((fr[n] = rec_writer_uframe(r->w, &u)))
				n++;
		}
		if (n && (ids[set.n] = rec_writer_ustack(r->w, fr, n))) {
			cnt[set.n] = st->n;
			set.n++;
		}
	}
	e = set.n ? rec_writer_uset(r->w, &set) : -ENOMEM;
out:
	free(maps);
	free(ids);
	free(cnt);
	return e;
}

/*
 * Every stack the recorder writes: the raw samples of sampled thread TID
 * (the frame thread or the second one) stamped in [A_NS, B_NS], unwound,
 * as one USTACK window of KIND's kind on TID, stamped A_NS (a stall's start,
 * an interval's switch-out). The samples it wrote, 0 when there were none
 * (nothing written), or a negative errno (counted).
 */
int recorder_stacks_emit(struct recorder *r, int tid, uint64_t a_ns, uint64_t b_ns,
			 enum recorder_stack kind)
{
	struct stacks_out out;
	int which, n;

	if (!r->stk || !tid || b_ns < a_ns)
		return 0;
	which = tid == r->stacks_tid ? 0 : tid == r->stacks_tid2 ? 1 : -1;
	if (which < 0)
		return 0;	/* not a sampled thread (any more) */
	n = stacks_window(r->stk, which, a_ns, b_ns, &out);
	if (n > 0) {
		uint64_t before = rec_writer_bytes(r->w);

		if (write_stacks(r, a_ns, (uint32_t)tid, uset_kinds[kind], &out) == 0)
			r->stacks_kind_written[kind]++;
		else
			r->stacks_unwind_failed++;
		r->stacks_bytes += rec_writer_bytes(r->w) - before;
	} else if (n < 0) {
		r->stacks_unwind_failed++;
	}
	return n;
}

static uint64_t overlap(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	uint64_t lo = a > c ? a : c, hi = b < d ? b : d;

	return hi > lo ? hi - lo : 0;
}

/* The stall window (of the last few) that interval [OUT, IN] overlaps; -1
 * none. */
static int stall_of(const struct recorder *r, uint64_t out, uint64_t in)
{
	for (int k = 0; k < RECORDER_STACKS_STALLS; k++)
		if (r->stk_stall[k].b && overlap(out, in, r->stk_stall[k].a, r->stk_stall[k].b))
			return k;
	return -1;
}

/* The switch-out stack of interval [OUT, IN] of the frame thread, when its
 * stall (K, or -1: none known) has room left. */
static void interval_stack(struct recorder *r, int k, uint64_t out, uint64_t in)
{
	if (k >= 0 && r->stk_stall[k].n >= RECORDER_STACKS_IVS)
		return;
	/* the thread is off the CPU from OUT to IN: its one sample there is
	 * the switch-out's (perf's context-switch event fires after the
	 * sched_switch tracepoint exact mode stamps OUT with) */
	if (recorder_stacks_emit(r, r->stacks_tid, out, in, RSTACK_INTERVAL) > 0 && k >= 0)
		r->stk_stall[k].n++;
}

/*
 * An exact-mode interval of a sampled thread, from OUT (its switch-out) to
 * IN: only stalls pay, so only the frame thread's intervals that lie in a
 * stall (a frame gap over the threshold) or are that long themselves get
 * their stack. The gap is often still open when the interval comes (its
 * frame is the next present): the interval then waits for the gap's end
 * (recorder_stacks_gap); the longest RECORDER_STACKS_PENDING wait.
 */
void recorder_stacks_interval(struct recorder *r, int tid, uint64_t out, uint64_t in)
{
	size_t at;
	int k;

	if (!r->stk || !r->stacks_tid || tid != r->stacks_tid || in <= out)
		return;
	k = stall_of(r, out, in);
	if (k >= 0 || in - out > STALL_NS) {
		stacks_drain(r->stk);
		interval_stack(r, k, out, in);
		return;
	}
	if (r->last_frame_ns && in <= r->last_frame_ns)
		return;	/* in a frame gap already ended, not a stall */
	/* pending, longest first; a full list drops its shortest */
	for (at = r->stk_niv; at > 0 && r->stk_iv[at - 1].in_ns - r->stk_iv[at - 1].out_ns <
					      in - out; at--)
		;
	if (at >= RECORDER_STACKS_PENDING)
		return;
	if (r->stk_niv < RECORDER_STACKS_PENDING)
		r->stk_niv++;
	memmove(&r->stk_iv[at + 1], &r->stk_iv[at], (r->stk_niv - 1 - at) * sizeof(r->stk_iv[0]));
	r->stk_iv[at].out_ns = out;
	r->stk_iv[at].in_ns = in;
}

/* A frame gap from A to B ended: when it is a stall, its stacks: the frame
 * thread's, the second thread's, and those of the intervals that waited for
 * it (the longest first); intervals that ended in it are settled either way. */
void recorder_stacks_gap(struct recorder *r, uint64_t a, uint64_t b)
{
	bool stall = b > a && b - a > STALL_NS;
	size_t keep = 0;
	int k = -1;

	if (!r->stk || !r->stacks_tid)
		return;
	if (stall) {
		stacks_drain(r->stk);
		recorder_stacks_emit(r, r->stacks_tid, a, b, RSTACK_STALL);
		if (r->stacks_tid2)
			recorder_stacks_emit(r, r->stacks_tid2, a, b, RSTACK_THREAD2);
		k = r->stk_stall_next;
		r->stk_stall[k].a = a;
		r->stk_stall[k].b = b;
		r->stk_stall[k].n = 0;
		r->stk_stall_next = (k + 1) % RECORDER_STACKS_STALLS;
	}
	for (size_t i = 0; i < r->stk_niv; i++) {
		uint64_t out = r->stk_iv[i].out_ns, in = r->stk_iv[i].in_ns;

		if (stall && overlap(out, in, a, b))
			interval_stack(r, k, out, in);
		else if (in > b)
			r->stk_iv[keep++] = r->stk_iv[i];	/* a later gap's */
	}
	r->stk_niv = keep;
}

void recorder_stacks_ini(struct recorder *r, struct strbuf *sb, bool final)
{
	struct stacks_stats st;

	if (!final) {
		if (r->o.no_stacks)
			inifmt_add(sb, "stacks", "off (--no-stacks)");
		else if (r->o.no_sample)
			inifmt_add(sb, "stacks", "off (--no-sample)");
		else
			inifmt_addf(sb, "stacks_hz", "%d",
				    r->o.stacks_hz > 0 ? r->o.stacks_hz : STACKS_HZ_DEFAULT);
		return;
	}
	if (r->o.no_stacks || r->o.no_sample)
		return;
	inifmt_add(sb, "stacks", r->stacks_on ? "on" : "off");
	if (r->stacks_why[0])
		inifmt_add(sb, "stacks_reason", r->stacks_why);
	else if (!r->stacks_on)
		inifmt_add(sb, "stacks_reason", r->fmode != FRAMES_RING
			   ? "stacks: frames not from the frame ring (a HUD log, or none): "
			     "no frame thread to sample"
			   : "stacks: no thread presented: no frame thread to sample");
	if (!r->stk)
		return;
	stacks_stats(r->stk, &st);
	inifmt_addf(sb, "stacks_samples", "%llu", (unsigned long long)st.samples);
	inifmt_addf(sb, "stacks_lost", "%llu", (unsigned long long)st.lost);
	inifmt_addf(sb, "stacks_unwound", "%llu", (unsigned long long)st.unwound);
	inifmt_addf(sb, "stacks_stalls", "%llu",
		    (unsigned long long)r->stacks_kind_written[RSTACK_STALL]);
	if (r->stacks_kind_written[RSTACK_THREAD2] || r->stacks_tid2)
		inifmt_addf(sb, "stacks_thread2_stalls", "%llu",
			    (unsigned long long)r->stacks_kind_written[RSTACK_THREAD2]);
	if (r->exact)
		inifmt_addf(sb, "stacks_intervals", "%llu",
			    (unsigned long long)r->stacks_kind_written[RSTACK_INTERVAL]);
	inifmt_addf(sb, "stacks_bytes", "%llu", (unsigned long long)r->stacks_bytes);
	if (r->stacks_unwind_failed)
		inifmt_addf(sb, "stacks_unwind_failed", "%llu",
			    (unsigned long long)r->stacks_unwind_failed);
}

void recorder_stacks_free(struct recorder *r)
{
	stacks_free(r->stk);
	r->stk = NULL;
}
