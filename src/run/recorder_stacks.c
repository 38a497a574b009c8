/* SPDX-License-Identifier: MIT */
/*
 * recorder_stacks.c: the frame thread's stacks in the record (linux/stacks.h,
 * docs/WHERE.md). The raw samples of the last seconds stay in memory; when a
 * frame gap longer than the stall threshold ends, the samples inside it are
 * unwound and written as one USTACK window (rec.h: its mappings, frames and
 * stacks interned), stamped at the gap's start, and the rest are dropped as
 * they age: only stalls pay. The user frames are written as (file,
 * build-id, offset) and named at analysis time (run/symbols.h).
 */
#include <errno.h>
#include <stdlib.h>
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

/* Writes the window's stacks OUT of thread TID, stamped at T, as one
 * USTACK window with its mappings, frames and stacks interned (rec.h). 0
 * or a negative errno. */
static int write_stacks(struct recorder *r, uint64_t t, uint32_t tid, const struct stacks_out *out)
{
	uint32_t *maps = calloc(out->nmaps ? out->nmaps : 1, sizeof(*maps));
	uint32_t *ids = calloc(out->n, sizeof(*ids)), fr[REC_USTACK_MAX];
	uint64_t *cnt = calloc(out->n, sizeof(*cnt));
	struct rec_uset set = { .t_ns = t, .tid = tid, .stack = ids, .count = cnt };
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

/* A frame gap from A to B ended: when it is a stall, its stacks. */
void recorder_stacks_gap(struct recorder *r, uint64_t a, uint64_t b)
{
	struct stacks_out out;
	uint64_t min = (uint64_t)(RECORDER_STACKS_STALL_MS * 1e6);
	int n;

	if (!r->stk || !r->stacks_tid || b <= a || b - a <= min)
		return;
	stacks_drain(r->stk);
	n = stacks_window(r->stk, a, b, &out);
	if (n > 0) {
		uint64_t before = rec_writer_bytes(r->w);

		if (write_stacks(r, a, (uint32_t)r->stacks_tid, &out) == 0)
			r->stacks_written++;
		else
			r->stacks_unwind_failed++;
		r->stacks_bytes += rec_writer_bytes(r->w) - before;
	} else if (n < 0) {
		r->stacks_unwind_failed++;
	}
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
