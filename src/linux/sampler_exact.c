// SPDX-License-Identifier: MIT
/*
 * sampler_exact.c: the sampled threads in exact mode (sampler.h's
 * opts.exact): their fields from the kernel's counter slots instead of
 * /proc, their exact counters (ftx.*, ft2x.*), the drain of the interval
 * ring, with each interval's fd target, waker and stack named, and the
 * signal that gates the system's sources (docs/FORMAT.md, "Gates").
 */
#include <errno.h>
#include <string.h>

#include "core/hot.h"
#include "core/exact.h"
#include "core/grow.h"
#include "core/syscalls.h"
#include "linux/exact.h"
#include "linux/procparse.h"
#include "linux/sampler_int.h"

#define MAX_INTERVALS 4096	/* taken per sample; the rest wait for the next */

int sampler_setup_exact(struct sampler *s)
{
	const char *const *names[TH_N] = { field_ftx, field_ft2x };
	int r;

	for (int t = 0; t < TH_N; t++) {
		for (int i = 0; i < EF_N; i++) {
			r = sampler_add_field(s, REC_INT, "%s", names[t][i]);
			if (r < 0)
				return r;
			if (i == 0)
				s->th[t].xbase = r;
		}
	}
	/* the tracepoints attached: the analysis trusts the reclaim hooks'
	 * count only where they were there to count */
	if (sampler_add_meta(s, "exact.wake_slack_ns", "%d", EXACT_WAKE_SLACK_NS) < 0 ||
	    sampler_add_meta(s, "exact.hooks", "%s", exact_hooks(s->o.exact)) < 0)
		return -ENOMEM;
	return 0;
}

/* The state /proc would show for slot X. */
static int64_t slot_state(const struct exact_slot *x)
{
	if (x->state == XS_RUNNING || x->cls == X_PREEMPT)
		return 'R';
	if (x->wake_ns > x->out_ns)
		return 'R';	/* woken, waiting for a CPU */
	return x->flags & XF_DSTATE ? 'D' : 'S';
}

/* utime and stime, fresh fault counts, and whether the thread has gone:
 * its task stat, read at slow samples and when a watched disk moved (the
 * slot's fault counts are its switch-out's: a thread faulting pages in
 * without sleeping, from zram, does not switch out). */
static void read_stat(struct sampler *s, struct thr *t, int64_t *v)
{
	struct pp_task_stat st;
	ssize_t n = sampler_src_read(s, &t->stat, 1024, C_TASK_STAT);

	if (n == -ESRCH || n == -ENOENT) {
		t->gone = true;
		v[TF_STATE] = 'X';
		sampler_note(s, true, t->tid, "%s thread %d gone", t->prefix, t->tid);
		return;
	}
	if (n < 0 || pp_task_stat(s->buf, (size_t)n, &st) < 0)
		return;
	v[TF_UTIME] = (int64_t)(st.utime * s->tick_ns);
	v[TF_STIME] = (int64_t)(st.stime * s->tick_ns);
	if ((int64_t)st.majflt > v[TF_MAJFLT])
		v[TF_MAJFLT] = (int64_t)st.majflt;
	if ((int64_t)st.minflt > v[TF_MINFLT])
		v[TF_MINFLT] = (int64_t)st.minflt;
	if (st.state == 'Z' || st.state == 'X')
		v[TF_STATE] = (unsigned char)st.state;
}

SS_HOT bool sampler_sample_thread_exact(struct sampler *s, struct thr *t, uint64_t t_ns, bool slow)
{
	int64_t *v = s->cur + t->base;
	unsigned slot = t == &s->th[TH_FT2] ? TH_FT2 : TH_FT;
	uint64_t t0 = s->o.profile ? sampler_mono_ns() : 0;
	struct exact_slot x;
	int r = exact_read(s->o.exact, slot, t_ns, &x);

	if (s->o.profile) {
		s->costs[C_EXACT].reads++;
		s->costs[C_EXACT].ns += sampler_mono_ns() - t0;
	}
	if (r == -EAGAIN)
		s->xstats.torn++;
	if (r < 0) {
		/* Not switched since it became the target (or torn): this
		 * sample's state from /proc; the counters keep their values,
		 * so a delta never mixes the two sources. A thread asleep
		 * since before it became the target stays unseen; once /proc
		 * found it blocked, a slot it has not touched since (its tid,
		 * seq and last wake-up as they were) says it is still there:
		 * nothing is read (sampler_thread_quiet). */
		if (r == -ESRCH) {
			s->xstats.unseen++;
			t->quiet_key_now = sampler_quiet_key(&x);
			t->quiet_key_set = true;
		} else {
			t->quiet_key_set = false;
			t->quiet_ok = false;
		}
		t->exact_ok = false;
		return false;
	}
	t->quiet_ok = false;
	t->exact_ok = true;
	v[TF_STATE] = slot_state(&x);
	/* the task's counts only grow: the slot's (at its switch-out) or the
	 * stat's read since, whichever is later */
	if ((int64_t)x.minflt > v[TF_MINFLT])
		v[TF_MINFLT] = (int64_t)x.minflt;
	if ((int64_t)x.majflt > v[TF_MAJFLT])
		v[TF_MAJFLT] = (int64_t)x.majflt;
	v[TF_CPU] = (int64_t)x.cpu;
	v[TF_RUN] = (int64_t)x.run_ns;
	v[TF_WAIT] = (int64_t)(x.runq_ns + x.off_ns[X_PREEMPT]);
	v[TF_SLICES] = (int64_t)x.switches;
	v[TF_WCHAN] = 0;
	if (x.state == XS_OFF && x.syscall >= 0) {
		const struct syscall_info *sc = syscall_lookup(SYSCALL_ABI_NATIVE, x.syscall);

		v[TF_SYSCALL] = x.syscall;
		v[TF_FD] = sc && sc->takes_fd && x.arg0 <= INT32_MAX ? (int64_t)x.arg0 : -1;
		v[TF_FD_TARGET] = v[TF_FD] >= 0 ? sampler_fd_target(s, t, v[TF_FD], t_ns) : 0;
	} else {
		v[TF_SYSCALL] = -1;
		v[TF_FD] = -1;
		v[TF_FD_TARGET] = 0;
	}
	exact_slot_fields(&x, s->cur + t->xbase);
	return true;
}

SS_HOT void sampler_exact_task_stat(struct sampler *s, struct thr *t, bool slow)
{
	if (!t->tid || t->gone || !t->exact_ok)
		return;
	if (slow || sampler_io_signal(s) != t->xsig || !s->gate) {
		read_stat(s, t, s->cur + t->base);
		t->xsig = sampler_io_signal(s);
	} else {
		s->costs[C_TASK_STAT].skipped++;
	}
}

SS_HOT uint64_t sampler_exact_signal(const struct sampler *s)
{
	static const int moved[] = {
		EF_CLASS + X_FILE_FAULT, EF_CLASS + X_SWAP_FAULT, EF_CLASS + X_IO_READ,
		EF_CLASS + X_IO_WRITE, EF_CLASS + X_IO_META, EF_CLASS + X_IO_SYNC,
		EF_CLASS + X_RECLAIM, EF_RECLAIM, EF_BIO_STARTED, EF_BIO_DONE, EF_FAULTS,
	};
	uint64_t h = 0;

	for (int i = 0; i < TH_N; i++) {
		const struct thr *t = &s->th[i];

		if (!t->tid)
			continue;
		if (!t->exact_ok)
			return ~h;	/* read from /proc this sample: no signal */
		for (size_t k = 0; k < sizeof(moved) / sizeof(moved[0]); k++)
			h = h * 1000003u + (uint64_t)s->cur[t->xbase + moved[k]];
		h = h * 1000003u + (uint64_t)t->tid;
	}
	return h;
}

static bool sched_frame(const char *fn)
{
	static const char *const skip[] = { "__schedule", "schedule", "io_schedule",
					    "preempt_schedule", "__traceiter_sched_switch" };

	for (size_t i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
		if (!strncmp(fn, skip[i], strlen(skip[i])))
			return true;
	return false;
}

/* The interned stack of IV: its kernel functions, innermost first, one a
 * line, the scheduler's own frames left out. A frame loop sleeps in the
 * same few stacks: the last ids are kept by their addresses, so a repeat
 * costs a hash, not a symbol lookup per frame (a cold binary search over
 * the kernel's 100,000 symbols is most of a sample's time). */
static uint32_t stack_id(struct sampler *s, const struct exact_interval *iv)
{
	struct strbuf *sb = &s->xstack;
	struct xstack_ent *e;
	uint64_t h = 1469598103934665603ull;
	bool top = true;
	uint32_t id;

	for (unsigned i = 0; i < iv->nstack; i++)
		h = (h ^ iv->stack[i]) * 1099511628211ull;
	e = &s->xstack_cache[(h ^ h >> 29) % XSTACK_CACHE];
	if (e->id && e->n == iv->nstack && !memcmp(e->pc, iv->stack, iv->nstack * sizeof(e->pc[0])))
		return e->id;
	sb_reset(sb);
	for (unsigned i = 0; i < iv->nstack && i < EXACT_STACK; i++) {
		const char *fn = exact_symbol(s->o.exact, iv->stack[i]);

		if (top && fn && sched_frame(fn))
			continue;
		top = false;
		if (fn)
			(void)sb_addf(sb, "%s\n", fn);
		else
			(void)sb_addf(sb, "0x%llx\n", (unsigned long long)iv->stack[i]);
	}
	id = sb->len ? s->o.intern(s->o.intern_ctx, sb->buf) : 0;
	e->id = id;
	e->n = iv->nstack;
	memcpy(e->pc, iv->stack, iv->nstack * sizeof(e->pc[0]));
	return id;
}

static int take_interval(void *ctx, const struct exact_interval *iv)
{
	struct sampler *s = ctx;
	struct thr *t = NULL;
	struct rec_interval *o;
	char comm[sizeof(iv->waker_comm) + 1];

	for (int i = 0; i < TH_N; i++)
		if (s->th[i].tid && (uint32_t)s->th[i].tid == iv->tid)
			t = &s->th[i];
	if (!t)
		return 0;	/* a thread no longer sampled */
	if (s->nivs >= MAX_INTERVALS || ARRAY_GROW(s->ivs, s->aivs, s->nivs + 1) < 0)
		return -ENOBUFS;
	o = &s->ivs[s->nivs++];
	exact_interval_to_rec(iv, o);
	if (iv->syscall >= 0) {
		const struct syscall_info *sc = syscall_lookup(SYSCALL_ABI_NATIVE, iv->syscall);

		if (sc && sc->takes_fd && iv->arg0 <= INT32_MAX)
			o->fd_target = sampler_fd_target(s, t, (int64_t)iv->arg0, iv->in_ns);
	}
	memcpy(comm, iv->waker_comm, sizeof(iv->waker_comm));
	comm[sizeof(iv->waker_comm)] = '\0';
	o->waker_comm = comm[0] ? s->o.intern(s->o.intern_ctx, comm) : 0;
	o->stack = stack_id(s, iv);
	s->xstats.intervals++;
	return 0;
}

SS_HOT void sampler_drain_exact(struct sampler *s)
{
	uint64_t t0 = s->o.profile ? sampler_mono_ns() : 0;

	(void)exact_drain(s->o.exact, take_interval, s);
	if (s->o.profile)
		s->costs[C_EXACT].ns += sampler_mono_ns() - t0;
}
