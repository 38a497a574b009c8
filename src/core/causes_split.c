// SPDX-License-Identifier: MIT
/*
 * causes_split.c: spans of a record's samples and their causes (a frame's,
 * a stall's): the split into seconds per cause, the verdict and why, the
 * evidence (what the frame thread waited in, what moved on the disks and in
 * vmstat), and the cause columns report prints. The rules that give each
 * sample its cause are causes.c's.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/causes.h"
#include "core/causes_int.h"
#include "core/grow.h"
#include "core/syscalls.h"

/* ------------------------------------------------------- spans */

/* The first sample with a stamp > T, or nsamples. */
static size_t first_after(const struct causes *c, uint64_t t)
{
	size_t lo = 0, hi = c->r->nsamples;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->r->t_ns[mid] > t)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

void causes_split(const struct causes *c, uint64_t a, uint64_t b, struct cause_split *acc)
{
	if (c->exact)
		causes_exact_split(c, a, b, acc);
	else
		causes_split_samples(c, a, b, acc);
}

size_t causes_first_after(const struct causes *c, uint64_t t)
{
	return first_after(c, t);
}

void causes_split_samples(const struct causes *c, uint64_t a, uint64_t b, struct cause_split *acc)
{
	const uint64_t *t = c->r->t_ns;
	size_t n = c->r->nsamples, i, last;
	uint64_t from = a;

	if (b <= a)
		return;
	i = first_after(c, a);
	if (i == n) {
		acc->sub_s[SUB_NO_SAMPLE] += (double)(b - a) / 1e9;
		return;
	}
	if (t[i] >= b) {
		/* no sample inside: the next sample's interval covers it all */
		acc->sub_s[c->sub[i]] += (double)(b - a) / 1e9;
		return;
	}
	for (last = i; i < n && t[i] <= b; i++) {
		acc->sub_s[c->sub[i]] += (double)(t[i] - from) / 1e9;
		from = t[i];
		last = i;
	}
	acc->sub_s[c->sub[last]] += (double)(b - from) / 1e9;
}

double cause_split_total(const struct cause_split *s)
{
	double sum = 0;
	int i;

	for (i = 0; i < SUB_N; i++)
		sum += s->sub_s[i];
	return sum;
}

double cause_split_cause(const struct cause_split *s, enum cause c)
{
	double sum = 0;
	int i;

	for (i = 0; i < SUB_N; i++)
		if (cause_of_sub((enum cause_sub)i) == c)
			sum += s->sub_s[i];
	return sum;
}

double cause_split_col(const struct cause_split *s, enum cause_col col)
{
	double sum = 0;
	int i;

	for (i = 0; i < SUB_N; i++)
		if (cause_col_of(cause_of_sub((enum cause_sub)i)) == col)
			sum += s->sub_s[i];
	return sum;
}

void cause_split_verdict(const struct cause_split *s, struct cause_verdict *ret)
{
	double total = cause_split_total(s), best = -1, second = -1, sub_best = -1;
	int i, bi = CAUSE_UNKNOWN, si = -1;

	for (i = 0; i < CAUSE_N; i++) {
		double v = cause_split_cause(s, (enum cause)i);

		if (v > best) {
			second = best;
			si = bi;
			best = v;
			bi = i;
		} else if (v > second) {
			second = v;
			si = i;
		}
	}
	ret->cause = (enum cause)bi;
	ret->sub = SUB_UNKNOWN;
	ret->sub_share = NAN;
	for (i = 0; i < SUB_N; i++)
		if (cause_of_sub((enum cause_sub)i) == ret->cause && s->sub_s[i] > sub_best) {
			sub_best = s->sub_s[i];
			ret->sub = (enum cause_sub)i;
		}
	if (total <= 0) {
		ret->cause = CAUSE_UNKNOWN;
		ret->share = NAN;
		ret->second = -1;
		ret->second_share = NAN;
		return;
	}
	ret->share = best / total;
	ret->sub_share = sub_best / total;
	if (si >= 0 && second / total > 0.2) {
		ret->second = si;
		ret->second_share = second / total;
	} else {
		ret->second = -1;
		ret->second_share = NAN;
	}
}

int cause_split_why(const struct cause_split *s)
{
	double best = 0;
	int i, bi = -1;

	for (i = 0; i < CAUSE_COL_N; i++) {
		double v = cause_split_col(s, (enum cause_col)i);

		if (v > best) {
			best = v;
			bi = i;
		}
	}
	return bi;
}

/* ------------------------------------------------------- evidence */

/* The commonest value of field F over samples [I0, I1), 0 when none. */
static int64_t commonest(const struct causes *c, size_t i0, size_t i1, int f, int64_t none)
{
	int64_t best = none;
	size_t i, j, best_n = 0;

	if (f < 0)
		return none;
	for (i = i0; i < i1; i++) {
		int64_t v = causes_val(c, i, f);
		size_t n = 0;

		for (j = i0; j < i1; j++)
			n += causes_val(c, j, f) == v;
		if (n > best_n) {
			best_n = n;
			best = v;
		}
	}
	return best;
}

/* The change of field F from sample I0 to I1; -1 when F is absent. */
static int64_t span_delta(const struct causes *c, size_t i0, size_t i1, int f)
{
	return f < 0 ? -1 : causes_val(c, i1, f) - causes_val(c, i0, f);
}

/*
 * Whether the period ending at sample K (from K - 1) has the frame thread's
 * own counters of one thread: ft.tid alike at both ends, and none of its
 * counters went back (a thread gone and its tid reused, a new thread in the
 * slot). A change of frame thread or a counter that went back gives no
 * delta for that period: a time or a count is never negative.
 */
static bool ft_period_ok(const struct causes *c, size_t k)
{
	const int fs[] = { c->ft_run, c->ft_wait, c->ft_majflt, c->ft_minflt };

	if (c->ft_tid >= 0 && causes_val(c, k, c->ft_tid) != causes_val(c, k - 1, c->ft_tid))
		return false;
	for (size_t j = 0; j < sizeof(fs) / sizeof(fs[0]); j++)
		if (fs[j] >= 0 && causes_val(c, k, fs[j]) < causes_val(c, k - 1, fs[j]))
			return false;
	return true;
}

/* The change of the frame thread's counter F over the periods from sample
 * I0 to I1 that ft_period_ok keeps; -1 when F is absent. */
static int64_t ft_span_delta(const struct causes *c, size_t i0, size_t i1, int f)
{
	int64_t sum = 0;

	if (f < 0)
		return -1;
	for (size_t k = i0 + 1; k <= i1; k++)
		if (ft_period_ok(c, k))
			sum += causes_val(c, k, f) - causes_val(c, k - 1, f);
	return sum;
}

void causes_evidence(const struct causes *c, uint64_t a, uint64_t b, struct cause_evidence *ret)
{
	const struct rec *r = c->r;
	size_t n = r->nsamples, in0, in1, i0, i1, f, k;
	struct cause_evidence e = { 0 };

	e.syscall = -1;
	e.majflt = e.minflt = e.missed_in = -1;
	e.run_ms = e.runq_ms = e.cg_mem_ms = e.psi_mem_ms = NAN;
	in0 = first_after(c, a);
	in1 = first_after(c, b);	/* samples inside: [in0, in1) */
	e.nsamples = in1 - in0;
	for (k = 0; k < r->nevents; k++) {
		const struct rec_event *ev = &r->events[k];

		if (ev->t_ns >= a && ev->t_ns <= b && ev->kind && !strcmp(ev->kind, "stack")) {
			e.stack = ev->text;
			break;
		}
	}
	/* record --probe: a wake-up at t that was late_us late kept a CPU
	 * asleep over [t - late, t]; it is evidence when that overlaps */
	for (k = 0; k < r->nevents; k++) {
		const struct rec_event *ev = &r->events[k];
		unsigned long long late_us;
		int cpu;

		if (!ev->kind || strcmp(ev->kind, "late_wakeup") || !ev->text ||
		    sscanf(ev->text, "cpu=%d late_us=%llu", &cpu, &late_us) != 2)
			continue;
		if (ev->t_ns < a || ev->t_ns - late_us * 1000 > b)
			continue;
		if (e.nlate == CAUSE_EV_MAX)
			memmove(&e.late[0], &e.late[1], sizeof(e.late[0]) * (CAUSE_EV_MAX - 1)),
				e.nlate--;
		e.late[e.nlate].cpu = cpu;
		e.late[e.nlate].late_ms = late_us / 1000.0;
		e.nlate++;
	}
	if (n == 0) {
		*ret = e;
		return;
	}
	if (in1 > in0) {
		int64_t sc;

		e.state = (char)commonest(c, in0, in1, c->ft_state, 0);
		e.wchan = c->ft_wchan >= 0 ? rec_str(r, commonest(c, in0, in1, c->ft_wchan, 0)) : NULL;
		if (e.wchan && !*e.wchan)
			e.wchan = NULL;
		sc = commonest(c, in0, in1, c->ft_syscall, -2);
		e.syscall = (long)sc;
		e.syscall_name = cause_syscall_name(c->abi == SYSCALL_ABI_AARCH64 ? "aarch64" : "x86_64", e.syscall);
		if (c->ft_fd_target >= 0 && c->ft_syscall >= 0) {
			for (k = in0; k < in1; k++) {
				const char *t = causes_str_field(c, k, c->ft_fd_target);

				if (causes_val(c, k, c->ft_syscall) == sc && t && *t) {
					e.fd_target = t;
					break;
				}
			}
		}
	}
	/* deltas: from the last sample at or before a to the first at or after b */
	i0 = in0 ? in0 - 1 : 0;
	i1 = in1 < n ? in1 : n - 1;
	if (in1 > 0 && r->t_ns[in1 - 1] == b)
		i1 = in1 - 1;
	/* the frame thread's own counters: period by period, one thread's
	 * only (across a change of frame thread a delta mixes two threads'
	 * counters: "runq -8.0 ms") */
	for (k = i0 + 1; k <= i1; k++) {
		e.ft_periods++;
		e.ft_gaps += !ft_period_ok(c, k);
	}
	if (c->ft_majflt >= 0)
		e.majflt = ft_span_delta(c, i0, i1, c->ft_majflt);
	else
		e.majflt = span_delta(c, i0, i1, c->proc_majflt);
	if (c->ft_minflt >= 0)
		e.minflt = ft_span_delta(c, i0, i1, c->ft_minflt);
	else
		e.minflt = span_delta(c, i0, i1, c->proc_minflt);
	/* the process's counters only grow; one that went back is not known */
	if (e.majflt < -1)
		e.majflt = -1;
	if (e.minflt < -1)
		e.minflt = -1;
	/* no period of one thread: nothing is known of its run time */
	if (e.ft_periods == 0 || e.ft_gaps < e.ft_periods) {
		if (c->ft_run >= 0)
			e.run_ms = (double)ft_span_delta(c, i0, i1, c->ft_run) / 1e6;
		if (c->ft_wait >= 0)
			e.runq_ms = (double)ft_span_delta(c, i0, i1, c->ft_wait) / 1e6;
	}
	if (c->ftx[EF_MISSED_IN] >= 0) {
		size_t j1 = i1 + 2 < n ? i1 + 2 : n - 1;
		int64_t d = ft_span_delta(c, i0, j1, c->ftx[EF_MISSED_IN]);

		e.missed_in = d > 0 ? d : 0;
	}
	if (c->cg_mem_some >= 0)
		e.cg_mem_ms = (double)span_delta(c, i0, i1, c->cg_mem_some) / 1e3;
	if (c->psi_mem_some >= 0)
		e.psi_mem_ms = (double)span_delta(c, i0, i1, c->psi_mem_some) / 1e3;
	for (k = 0; k < c->ndisks && e.ndisks < CAUSE_EV_MAX; k++) {
		const struct disk *d = &c->disks[k];
		int64_t ios = span_delta(c, i0, i1, d->rd_ios);

		if (ios <= 0)
			continue;
		e.disks[e.ndisks].dev = d->dev;
		e.disks[e.ndisks].dev_len = d->dev_len;
		e.disks[e.ndisks].rd_ios = ios;
		e.disks[e.ndisks].rd_kb =
			d->rd_sectors >= 0 ? span_delta(c, i0, i1, d->rd_sectors) / 2 : -1;
		e.ndisks++;
	}
	for (f = 0; f < r->nfields && e.nvm < CAUSE_EV_MAX; f++) {
		int64_t dv;

		if (!causes_has_prefix(r->fields[f].name, FIELD_VM_PREFIX) || r->fields[f].kind != REC_INT)
			continue;
		dv = span_delta(c, i0, i1, (int)f);
		if (dv == 0)
			continue;
		e.vm[e.nvm].name = r->fields[f].name + strlen(FIELD_VM_PREFIX);
		e.vm[e.nvm].delta = dv;
		e.nvm++;
	}
	*ret = e;
}

/* ------------------------------------------------------- report's columns */

unsigned causes_stall_parts(const struct frames *f, size_t i, const struct metrics *m,
			    const struct metrics_opts *o, const struct metrics_seg *segs,
			    size_t nsegs)
{
	double ft = frames_ft(f, i), fe = frames_t(f, i), fs = fe - ft / 1000.0;
	unsigned ret = 0;

	if (!(ft > o->stall_ms))
		return 0;
	/* metrics.c: the warm-up is the frames ending at or before origin + warmup */
	if (fe <= m->origin_s + o->warmup_s)
		ret |= CAUSES_IN_WARM;
	if (i >= m->win_first && i < m->win_first + m->win_n) {
		ret |= CAUSES_IN_WINDOW;
		if (!metrics_in_reload(segs, nsegs, fs, fe))
			ret |= CAUSES_IN_PLAY;
	}
	return ret;
}

static uint64_t to_ns(uint64_t t0_ns, double t_s)
{
	double v = (double)t0_ns + t_s * 1e9;

	return v <= 0 ? 0 : (uint64_t)v;
}

static double disk_s(const struct cause_split *s)
{
	return cause_split_cause(s, CAUSE_DISK) + cause_split_cause(s, CAUSE_IO);
}

int causes_column_spans(const struct frames *f, uint64_t t0_ns, const struct metrics *m,
			const struct metrics_opts *o, const struct metrics_seg *segs, size_t nsegs,
			bool any_sample, uint64_t first_ns, struct causes_span **ret, size_t *ret_n)
{
	struct causes_span *s = NULL;
	size_t n = 0, cap = 0, i, k;

	*ret = NULL;
	*ret_n = 0;
	for (i = 0; i < f->n; i++) {
		unsigned parts = causes_stall_parts(f, i, m, o, segs, nsegs);

		if (!(parts & CAUSES_IN_WINDOW))
			continue;
		if (ARRAY_GROW(s, cap, n + 1) < 0)
			goto nomem;
		s[n].b_ns = to_ns(t0_ns, frames_t(f, i));
		s[n].a_ns = to_ns(t0_ns, frames_start(f, i));
		s[n++].to = CAUSES_SPAN_WIN | (parts & CAUSES_IN_PLAY ? CAUSES_SPAN_PLAY : 0);
	}
	if (any_sample && f->n) {
		/* the load: first sample to the first frame's start, plus reloads */
		if (ARRAY_GROW(s, cap, n + nsegs + 2) < 0)
			goto nomem;
		if (to_ns(t0_ns, m->origin_s) > first_ns)
			s[n++] = (struct causes_span){ first_ns, to_ns(t0_ns, m->origin_s),
						       CAUSES_SPAN_LOAD };
		for (k = 0; k < nsegs; k++)
			if (segs[k].end_s > segs[k].start_s)
				s[n++] = (struct causes_span){ to_ns(t0_ns, segs[k].start_s),
							       to_ns(t0_ns, segs[k].end_s),
							       CAUSES_SPAN_LOAD };
		{
			double end = m->origin_s + o->warmup_s;

			if (end > frames_t(f, f->n - 1))
				end = frames_t(f, f->n - 1);
			s[n++] = (struct causes_span){ to_ns(t0_ns, m->origin_s), to_ns(t0_ns, end),
						       CAUSES_SPAN_WARM };
		}
	}
	*ret = s;
	*ret_n = n;
	return 0;
nomem:
	free(s);
	return -ENOMEM;
}

void causes_columns_add(const struct causes *c, const struct causes_span *s,
			struct causes_cols_acc *acc)
{
	if (s->to & CAUSES_SPAN_WIN)
		causes_split(c, s->a_ns, s->b_ns, &acc->win);
	if (s->to & CAUSES_SPAN_PLAY)
		causes_split(c, s->a_ns, s->b_ns, &acc->play);
	if (s->to & CAUSES_SPAN_LOAD)
		causes_split(c, s->a_ns, s->b_ns, &acc->load);
	if (s->to & CAUSES_SPAN_WARM)
		causes_split(c, s->a_ns, s->b_ns, &acc->warm);
}

void causes_columns_end(const struct causes_cols_acc *acc, bool play_known, bool any_sample,
			bool any_frame, struct cause_cols *ret)
{
	for (size_t k = 0; k < CAUSE_COL_N; k++) {
		ret->stall_s[k] = cause_split_col(&acc->win, (enum cause_col)k);
		ret->play_s[k] = play_known ? cause_split_col(&acc->play, (enum cause_col)k) : NAN;
	}
	ret->why = cause_split_why(&acc->win);
	ret->why_play = play_known ? cause_split_why(&acc->play) : -1;
	ret->load_disk_s = NAN;
	ret->warm_disk_s = NAN;
	if (!any_sample || !any_frame)
		return;
	ret->load_disk_s = disk_s(&acc->load);
	ret->warm_disk_s = disk_s(&acc->warm);
}

int causes_columns(const struct causes *c, const struct frames *f, uint64_t t0_ns,
		   const struct metrics *m, const struct metrics_opts *o,
		   const struct metrics_seg *segs, size_t nsegs, bool play_known,
		   struct cause_cols *ret)
{
	struct causes_cols_acc acc = { 0 };
	const struct rec *r = c->r;
	struct causes_span *s = NULL;
	size_t n = 0;

	if (causes_column_spans(f, t0_ns, m, o, segs, nsegs, r->nsamples > 0,
				r->nsamples ? r->t_ns[0] : 0, &s, &n) < 0) {
		for (size_t k = 0; k < CAUSE_COL_N; k++)
			ret->stall_s[k] = ret->play_s[k] = NAN;
		ret->why = ret->why_play = -1;
		ret->load_disk_s = ret->warm_disk_s = NAN;
		return -ENOMEM;
	}
	for (size_t k = 0; k < n; k++)
		causes_columns_add(c, &s[k], &acc);
	free(s);
	causes_columns_end(&acc, play_known, r->nsamples > 0, f->n > 0, ret);
	return 0;
}
