/* SPDX-License-Identifier: MIT */
/*
 * recorder_stacks.c: the frame thread's stacks in the record (linux/stacks.h,
 * docs/WHERE.md). The raw samples of the last seconds stay in memory; when a
 * frame gap longer than the stall threshold ends, the samples inside it are
 * unwound and written as one "ustack" event, stamped at the gap's start, and
 * the rest are dropped as they age: only stalls pay.
 */
#include <errno.h>
#include <string.h>

#include "core/inifmt.h"
#include "linux/stacks.h"
#include "rec/rec.h"
#include "run/recorder_int.h"

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
		e = stacks_set_thread(r->stk, r->fpid, r->ft_tid, &err);
		r->stacks_tid = r->ft_tid;
		if (err.len && strcmp(err.buf, r->stacks_why)) {
			snprintf(r->stacks_why, sizeof(r->stacks_why), "%s", err.buf);
			recorder_note(r, "%s", err.buf);
		}
		if (e >= 0)
			r->stacks_on = true;
		sb_release(&err);
	}
	stacks_drain(r->stk);
}

/* A frame gap from A to B ended: when it is a stall, its stacks. */
void recorder_stacks_gap(struct recorder *r, uint64_t a, uint64_t b)
{
	struct strbuf out = STRBUF_INIT;
	uint64_t min = (uint64_t)(RECORDER_STACKS_STALL_MS * 1e6);
	int n;

	if (!r->stk || !r->stacks_tid || b <= a || b - a <= min)
		return;
	stacks_drain(r->stk);
	n = stacks_window(r->stk, a, b, &out);
	if (n > 0) {
		uint64_t before = rec_writer_bytes(r->w);

		rec_writer_event(r->w, a, (uint32_t)r->stacks_tid, "ustack", out.buf);
		r->stacks_written++;
		r->stacks_bytes += rec_writer_bytes(r->w) - before;
	} else if (n < 0) {
		r->stacks_unwind_failed++;
	}
	sb_release(&out);
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
	inifmt_addf(sb, "stacks_stalls", "%llu", (unsigned long long)r->stacks_written);
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
