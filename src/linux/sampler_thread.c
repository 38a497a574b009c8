// SPDX-License-Identifier: MIT
/*
 * sampler_thread.c: the sampled threads (the frame thread "ft" and its
 * process's main thread "ft2"): state, faults, CPU, run-queue wait, and
 * while blocked its syscall, the fd's target and wchan, read only when it
 * ran since (a task changes where it blocks only by running), and its
 * kernel stack; and the slow snapshot of every thread of the process.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/hot.h"
#include "core/grow.h"
#include "core/syscalls.h"
#include "linux/exact.h"
#include "linux/procparse.h"
#include "linux/sampler_int.h"

#define STACK_AFTER_NS 50000000ull  /* blocked this long: first stack */
#define STACK_EVERY_NS 250000000ull /* then one every this long */
#define FD_CACHE_NS 1000000000ull /* a cached fd target is trusted this long */

/* Does syscall NR (this machine's ABI) take a file descriptor as its first
 * argument? core/syscalls.h's table says. */
static bool syscall_has_fd(int64_t nr)
{
	const struct syscall_info *sc = syscall_lookup(SYSCALL_ABI_NATIVE, (long)nr);

	return sc && sc->takes_fd;
}

const char *sampler_syscall_abi(void)
{
#if defined(__x86_64__)
	return "x86_64";
#elif defined(__aarch64__)
	return "aarch64";
#else
	return "unknown";
#endif
}

void sampler_thr_close(struct thr *t)
{
	sampler_src_close(&t->stat);
	sampler_src_close(&t->schedstat);
	sampler_src_close(&t->wchan);
	sampler_src_close(&t->syscall);
	sampler_src_close(&t->stack);
	sb_release(&t->stack_text);
	t->stack_have = false;
	sampler_switch_close(t);
}

int sampler_thr_open(struct sampler *s, struct thr *t, int tid)
{
	int r;

	sampler_thr_close(t);
	t->tid = tid;
	t->gone = false;
	t->have_blocked = false;
	t->blocked_since = 0;
	t->last_stack = 0;
	t->last_wchan_id = 0;
	t->last_call_len = 0;
	t->call_wchan = 0;
	memset(s->fdc[t == &s->th[TH_FT2]], 0, sizeof(s->fdc[0]));
	t->exact_ok = false;
	t->quiet_ok = false;
	t->quiet_key = t->quiet_key_now = 0;
	t->quiet_key_set = false;
	t->pre_have = false;
	if (s->o.exact)
		exact_set_target(s->o.exact, t == &s->th[TH_FT2] ? TH_FT2 : TH_FT, (uint32_t)tid);
	if (tid == 0)
		return 0;
	r = sampler_src_openf(s, &t->stat, "%s/task/%d/stat", s->proc, tid);
	if (r < 0) {
		t->gone = true; /* sampled as gone, never read */
		return r == -ENOENT ? -ESRCH : r;
	}
	(void)sampler_src_openf(s, &t->schedstat, "%s/task/%d/schedstat", s->proc, tid);
	(void)sampler_src_openf(s, &t->wchan, "%s/task/%d/wchan", s->proc, tid);
	(void)sampler_src_openf(s, &t->syscall, "%s/task/%d/syscall", s->proc, tid);
	if (s->is_root && !s->o.no_stacks)
		(void)sampler_src_openf(s, &t->stack, "%s/task/%d/stack", s->proc, tid);
	return 0;
}

/* The interned readlink of the thread's fd FD, cached per fd for a second. */
uint32_t sampler_fd_target(struct sampler *s, struct thr *t, int64_t fd, uint64_t t_ns)
{
	struct fd_cache_ent *c = NULL;
	char path[PATH_SIZE], link[PATH_SIZE];
	uint64_t t0;
	ssize_t n;
	uint32_t id;

	if (fd < 0 || fd > INT32_MAX)
		return 0;
	if (fd < FD_CACHE && !s->o.naive) {
		c = &s->fdc[t == &s->th[TH_FT2]][fd];
		if (c->id && t_ns - c->t_ns < FD_CACHE_NS)
			return c->id;
	}
	t0 = s->o.profile ? sampler_mono_ns() : 0;
	snprintf(path, sizeof(path), "%s/task/%d/fd/%d", s->proc, t->tid, (int)fd);
	s->nreads++;
	n = readlink(path, link, sizeof(link) - 1);
	if (s->o.profile) {
		s->costs[C_FD_LINK].reads++;
		s->costs[C_FD_LINK].ns += sampler_mono_ns() - t0;
	}
	if (n <= 0)
		return 0;
	link[n] = '\0';
	id = s->o.intern(s->o.intern_ctx, link);
	if (c) {
		c->id = id;
		c->t_ns = t_ns;
	}
	return id;
}

/* T's kernel stack from the N bytes of its stack file in s->buf into
 * t->stack_text, and from there into an event (stack_again). */
static void stack_again(struct sampler *s, struct thr *t);

static void stack_event(struct sampler *s, struct thr *t, ssize_t n)
{
	struct strbuf *sb = &t->stack_text;
	const char *p = s->buf, *end = s->buf + n;

	sb_reset(sb);
	t->stack_have = true;
	t->stack_at = s->nsample;
	/* "[<0>] do_wait+0x53/0x120": keep the symbol, one frame a line. */
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *q = p;

		if (!eol)
			eol = end;
		if (eol - q >= 2 && q[0] == '[') {
			const char *rb = memchr(q, ']', (size_t)(eol - q));

			if (rb)
				q = rb + 1;
			while (q < eol && *q == ' ')
				q++;
		}
		if (q < eol) {
			(void)sb_add(sb, q, (size_t)(eol - q));
			(void)sb_addc(sb, '\n');
		}
		p = eol + 1;
	}
	stack_again(s, t);
}

/* The event of T's stack text (none when it is empty). */
static void stack_again(struct sampler *s, struct thr *t)
{
	struct strbuf *sb;

	if (s->nevents >= MAX_EVENTS || t->stack_text.len == 0)
		return;
	sb = &s->ev_text[s->nevents];
	sb_reset(sb);
	if (sb_add(sb, t->stack_text.buf, t->stack_text.len) < 0)
		return;
	s->events[s->nevents++] =
	    (struct sampler_event){.tid = t->tid, .kind = "stack", .text = sb->buf};
}

/* The syscall fields of T from the N bytes of its syscall file in s->buf. */
static void syscall_fields(struct sampler *s, struct thr *t, int64_t *v, ssize_t n, uint64_t t_ns)
{
	struct pp_syscall sc;

	if (n >= 0 && pp_syscall(s->buf, (size_t)n, &sc) == 0) {
		/* "running" for a thread its stat saw blocked: where it
		 * blocked is not known (-2), not "in no syscall" (-1: a fault) */
		v[TF_SYSCALL] = sc.running ? -2 : sc.nr;
		if (sc.nr >= 0 && syscall_has_fd(sc.nr) && sc.args[0] <= INT32_MAX) {
			v[TF_FD] = (int64_t)sc.args[0];
			v[TF_FD_TARGET] = sampler_fd_target(s, t, v[TF_FD], t_ns);
		} else {
			v[TF_FD] = -1;
			v[TF_FD_TARGET] = 0;
		}
		return;
	}
	if (n < 0 && n != -ESRCH)
		sampler_src_failed(s, &t->syscall, (int)n, t->tid);
	v[TF_SYSCALL] = -2;
	v[TF_FD] = -1;
	v[TF_FD_TARGET] = 0;
}

/* Reads T's wchan into v[TF_WCHAN] (0: none or unreadable). */
static void wchan_field(struct sampler *s, struct thr *t, int64_t *v)
{
	ssize_t n = sampler_src_read(s, &t->wchan, 256, C_WCHAN);
	char w[128];

	if (n < 0 || pp_wchan(s->buf, (size_t)n, w, sizeof(w)) != 0 || !w[0]) {
		v[TF_WCHAN] = 0;
		return;
	}
	if (!t->last_wchan_id || strncmp(w, t->last_wchan, sizeof(t->last_wchan) - 1) != 0) {
		t->last_wchan_id = s->o.intern(s->o.intern_ctx, w);
		snprintf(t->last_wchan, sizeof(t->last_wchan), "%.63s", w);
	}
	v[TF_WCHAN] = t->last_wchan_id;
}

SS_HOT static void blocked_stack(struct sampler *s, struct thr *t, uint64_t t_ns, bool ran_now);

/*
 * A quiet thread: blocked at the last full read, and nothing says it ran
 * since. Its fields are then as they were, and the sample reads nothing
 * more of it (issue 31: a sleeping program cost most, not least). Carried
 * forward: state, faults, user and system time, CPU, wchan, syscall, fd
 * and its target (and in exact mode the ftx.* counters, which only a
 * switch moves). That is honest because all of them change only when the
 * thread runs: a task leaves S or D only by being woken, and then it is
 * switched in, which moves schedstat's slice count (and its run time) in
 * the snapshot sampler, or writes the exact slot (its seq) in exact mode;
 * faults, times, the syscall and where it sleeps move only on a CPU. What
 * it can miss: a thread woken and still waiting for a CPU (state R) reads
 * as sleeping until it gets one, the next sample after that at the latest
 * (in exact mode a wake-up that the slot saw is seen at once). And every
 * slow sample reads it all regardless, so nothing stays stale longer than
 * slow_every periods. SCHEDSTAT (snapshot sampler only): run time and
 * slices read into *ss (1) or not readable (0: no gate, read the rest).
 * Returns true when the sample is done with T.
 */
SS_HOT static bool sampler_thread_quiet(struct sampler *s, struct thr *t, bool slow, struct pp_schedstat *ss,
			     bool *have_ss)
{
	bool fresh = true;
	ssize_t n;

	*have_ss = false;
	if (s->o.exact) {
		/* sampler_sample_thread_exact set quiet_key_now: the slot unseen */
		if (s->gate && !slow && t->quiet_ok && t->quiet_key_set &&
		    t->quiet_key_now == t->quiet_key) {
			s->costs[C_TASK_STAT].skipped++;
			return true;
		}
		return false;
	}
	if (t->pre_have) {
		*ss = t->pre_ss;	/* unchanged_sample read it this sample */
		t->pre_have = false;
		fresh = false;
	} else {
		if (!sampler_src_ok(&t->schedstat))
			return false;
		if (!slow && sampler_switch_still(s, t)) {
			/* not switched in since its last quiet read: that
			 * schedstat again (sampler_switch.c) */
			s->costs[C_SCHEDSTAT].skipped++;
			s->costs[C_TASK_STAT].skipped++;
			s->sw_still++;
			return true;
		}
		sampler_switch_before(t);
		n = sampler_src_read(s, &t->schedstat, 256, C_SCHEDSTAT);
		if (n < 0 || pp_schedstat(s->buf, (size_t)n, ss) != 0)
			return false;	/* the full read says why (gone, or a failed source) */
	}
	*have_ss = true;
	if (sampler_schedstat_quiet(s, t, ss, slow)) {
		sampler_switch_mark(t, true);
		s->costs[C_TASK_STAT].skipped++;
		s->quiet_reads += fresh;
		return true;
	}
	if ((int64_t)ss->run_ns != s->cur[t->base + TF_RUN] ||
	    (int64_t)ss->slices != s->cur[t->base + TF_SLICES])
		sampler_switch_ran(s, t);
	return false;
}

/* Does schedstat SS say that T, blocked at its last full read, has not
 * run since (sampler_thread_quiet)? */
SS_HOT bool sampler_schedstat_quiet(const struct sampler *s, const struct thr *t,
				    const struct pp_schedstat *ss, bool slow)
{
	const int64_t *v = s->cur + t->base;

	return s->gate && !slow && t->quiet_ok && (int64_t)ss->run_ns == v[TF_RUN] &&
	       (int64_t)ss->slices == v[TF_SLICES];
}

/* A running thread's fields: in no wchan, its syscall not readable. */
static void running_fields(struct thr *t, int64_t *v)
{
	v[TF_WCHAN] = 0;
	v[TF_SYSCALL] = -1;
	v[TF_FD] = -1;
	v[TF_FD_TARGET] = 0;
	t->have_blocked = false;
	t->blocked_since = 0;
	t->last_stack = 0;
}

SS_HOT void sampler_sample_thread(struct sampler *s, struct thr *t, uint64_t t_ns, bool slow)
{
	int64_t *v = s->cur + t->base;
	struct pp_task_stat st;
	struct pp_schedstat ss;
	bool running, ran = true, ran_now = true, have_ss;
	int64_t prev_run = v[TF_RUN], prev_slices = v[TF_SLICES];
	ssize_t n;

	v[TF_TID] = t->tid;
	t->quiet_now = false;
	if (t->tid == 0 || t->gone)
		return;
	if (s->o.exact && sampler_sample_thread_exact(s, t, t_ns, slow))
		return;
	if (sampler_thread_quiet(s, t, slow, &ss, &have_ss)) {
		t->quiet_now = true;
		blocked_stack(s, t, t_ns, false);
		return;
	}
	t->quiet_ok = false;
	t->full_at = s->nsample;
	n = sampler_src_read(s, &t->stat, 1024, C_TASK_STAT);
	if (n == -ESRCH || n == -ENOENT) {
		t->gone = true;
		v[TF_STATE] = 'X';
		sampler_note(s, true, t->tid, "%s thread %d gone", t->prefix, t->tid);
		return;
	}
	if (n < 0 || pp_task_stat(s->buf, (size_t)n, &st) < 0) {
		sampler_src_failed(s, &t->stat, n < 0 ? (int)n : -EINVAL, t->tid);
		return;
	}
	v[TF_STATE] = (unsigned char)st.state;
	v[TF_MINFLT] = (int64_t)st.minflt;
	v[TF_MAJFLT] = (int64_t)st.majflt;
	v[TF_UTIME] = (int64_t)(st.utime * s->tick_ns);
	v[TF_STIME] = (int64_t)(st.stime * s->tick_ns);
	v[TF_CPU] = st.processor;

	if (sampler_src_ok(&t->schedstat) && !s->o.exact) {
		/* read before the stat by sampler_thread_quiet, when it could be */
		n = have_ss ? 0 : sampler_src_read(s, &t->schedstat, 256, C_SCHEDSTAT);
		if (have_ss || (n >= 0 && pp_schedstat(s->buf, (size_t)n, &ss) == 0)) {
			v[TF_RUN] = (int64_t)ss.run_ns;
			v[TF_WAIT] = (int64_t)ss.wait_ns;
			v[TF_SLICES] = (int64_t)ss.slices;
			ran = v[TF_RUN] != t->read_run || v[TF_SLICES] != t->read_slices;
			ran_now = v[TF_RUN] != prev_run || v[TF_SLICES] != prev_slices;
		} else if (n != -ESRCH) {
			sampler_src_failed(s, &t->schedstat, n < 0 ? (int)n : -EINVAL, t->tid);
		}
	}

	running = st.state == 'R';
	if (running) {
		running_fields(t, v);
		return;
	}

	/* Blocked. If it has not run since wchan and syscall were read, it is
	 * still where it was: same wchan, same syscall (a task changes where it
	 * blocks only by running). If it ran, its syscall is read; wchan only
	 * when that line (number, six arguments, user sp and pc) changed: the
	 * same call from the same place sleeps in the same kernel function (a
	 * frame loop waiting on the same futex or fence every frame).
	 * bench/sampler.sh measures how often that is wrong. */
	if (!t->have_blocked || ran || !s->gate) {
		char call[sizeof(t->last_call)];
		size_t len = 0;
		bool same_call;

		n = sampler_src_read(s, &t->syscall, 256, C_SYSCALL);
		/* "running": the thread woke between its stat and this read,
		 * so the two would be two moments (a thread in D in pread64
		 * read as D in no syscall: a fault). Once, the state again:
		 * running now, the sample is a running one; else the syscall
		 * again. */
		if (n > 0 && !strncmp(s->buf, "running", 7)) {
			ssize_t m = sampler_src_read(s, &t->stat, 1024, C_TASK_STAT);

			if (m > 0 && pp_task_stat(s->buf, (size_t)m, &st) == 0) {
				v[TF_STATE] = (unsigned char)st.state;
				v[TF_MINFLT] = (int64_t)st.minflt;
				v[TF_MAJFLT] = (int64_t)st.majflt;
				v[TF_CPU] = st.processor;
				if (st.state == 'R') {
					running_fields(t, v);
					return;
				}
			}
			n = sampler_src_read(s, &t->syscall, 256, C_SYSCALL);
		}
		if (n > 0 && (size_t)n <= sizeof(call)) {
			len = (size_t)n;
			memcpy(call, s->buf, len); /* wchan_field reuses s->buf */
		}
		same_call = len && len == t->last_call_len && memcmp(call, t->last_call, len) == 0;
		/* no_gate (benchmarks): count the reads a gate would have got wrong */
		if (!s->gate && t->have_blocked && !ran) {
			s->costs[C_SYSCALL].would_skip++;
			if (len && !same_call)
				s->costs[C_SYSCALL].missed++;
		}
		syscall_fields(s, t, v, n, t_ns);
		if (same_call && s->gate) {
			v[TF_WCHAN] = t->call_wchan;
			s->costs[C_WCHAN].skipped++;
		} else {
			wchan_field(s, t, v);
			if (same_call) {
				s->costs[C_WCHAN].would_skip++;
				if (v[TF_WCHAN] != t->call_wchan)
					s->costs[C_WCHAN].missed++;
			}
		}
		memcpy(t->last_call, call, len);
		t->last_call_len = len;
		t->call_wchan = (uint32_t)v[TF_WCHAN];
		t->have_blocked = true;
		t->read_run = v[TF_RUN];
		t->read_slices = v[TF_SLICES];
	}
	/* blocked, and read whole: quiet until it runs (sampler_thread_quiet) */
	t->quiet_ok = s->o.exact ? t->quiet_key_set : have_ss;
	t->quiet_key = t->quiet_key_now;
	if (!s->o.exact)
		sampler_switch_mark(t, t->quiet_ok);
	blocked_stack(s, t, t_ns, ran_now);
}

SS_HOT bool sampler_stack_due(const struct sampler *s, const struct thr *t, uint64_t t_ns)
{
	return t->blocked_since == 0 ||
	       (sampler_src_ok(&t->stack) && s->stacks < MAX_STACKS &&
		t_ns - t->blocked_since >= STACK_AFTER_NS &&
		(t->last_stack == 0 || t_ns - t->last_stack >= STACK_EVERY_NS));
}

/* The kernel stack: once blocked 50 ms, then every 250 ms. A thread that
 * ran since the previous sample (RAN_NOW) starts a new episode, though it
 * was asleep at both (a frame loop sleeping between frames). */
static void blocked_stack(struct sampler *s, struct thr *t, uint64_t t_ns, bool ran_now)
{
	ssize_t n;

	if (t->blocked_since == 0 || ran_now) {
		t->blocked_since = t_ns ? t_ns : 1;
		t->last_stack = 0;
	}
	if (sampler_src_ok(&t->stack) && s->stacks < MAX_STACKS &&
	    t_ns - t->blocked_since >= STACK_AFTER_NS &&
	    (t->last_stack == 0 || t_ns - t->last_stack >= STACK_EVERY_NS)) {
		/* not run since the last read: a task's kernel stack moves only
		 * while it runs */
		if (s->gate && t->stack_have && t->quiet_now && t->stack_at >= t->full_at) {
			n = 1;
			stack_again(s, t);
			s->costs[C_STACK].skipped++;
		} else {
			n = sampler_src_read(s, &t->stack, 8192, C_STACK);
			t->stack_have = false;
			if (n > 0)
				stack_event(s, t, n);
		}
		if (n > 0) {
			s->stacks++;
			if (s->stacks == MAX_STACKS)
				sampler_note(s, true, 0, "kernel stacks: %d taken, no more this run",
					 MAX_STACKS);
		} else if (n < 0 && n != -ESRCH) {
			sampler_src_failed(s, &t->stack, (int)n, t->tid);
		}
		t->last_stack = t_ns;
	}
}

static struct tslot *tslot_find(struct sampler *s, int tid)
{
	for (size_t i = 0; i < s->nts; i++)
		if (s->ts[i].tid == tid)
			return &s->ts[i];
	return NULL;
}

void sampler_sample_threads(struct sampler *s)
{
	struct dirent *e;
	size_t w;

	s->nsnap = 0;
	if (!s->taskdir)
		return;
	for (size_t i = 0; i < s->nts; i++)
		s->ts[i].seen = false;
	rewinddir(s->taskdir);
	while ((e = readdir(s->taskdir))) {
		char *end;
		long tid = strtol(e->d_name, &end, 10);
		struct tslot *t;
		struct pp_schedstat ss;
		struct pp_task_stat st;
		bool ran = true;
		ssize_t n;

		if (*end || tid <= 0)
			continue;
		t = tslot_find(s, (int)tid);
		if (!t) {
			if (ARRAY_GROW(s->ts, s->ats, s->nts + 1) < 0)
				continue;
			t = &s->ts[s->nts++];
			memset(t, 0, sizeof(*t));
			t->tid = (int)tid;
			t->run_ns = -1;
			sampler_src_init(&t->stat);
			sampler_src_init(&t->schedstat);
			if (sampler_src_openf(s, &t->stat, "%s/task/%ld/stat", s->proc, tid) < 0 ||
			    sampler_src_openf(s, &t->schedstat, "%s/task/%ld/schedstat", s->proc, tid) <
				0) {
				sampler_src_close(&t->stat);
				sampler_src_close(&t->schedstat);
				s->nts--;
				continue;
			}
		}
		n = sampler_src_read(s, &t->schedstat, 256, C_THREADS);
		if (n < 0)
			continue; /* gone: dropped below */
		if (pp_schedstat(s->buf, (size_t)n, &ss) == 0) {
			ran = (int64_t)ss.run_ns != t->run_ns;
			t->run_ns = (int64_t)ss.run_ns;
		}
		/* A thread that has not run has the same CPU and comm. */
		if (ran || !s->gate || t->name == 0) {
			n = sampler_src_read(s, &t->stat, 1024, C_THREADS);
			if (n < 0 || pp_task_stat(s->buf, (size_t)n, &st) < 0)
				continue;
			t->cpu = st.processor;
			if (t->name == 0 || strcmp(t->comm, st.comm) != 0) {
				snprintf(t->comm, sizeof(t->comm), "%s", st.comm);
				t->name = s->o.intern(s->o.intern_ctx, t->comm);
			}
			if (t->run_ns < 0)
				t->run_ns = (int64_t)((st.utime + st.stime) * s->tick_ns);
		} else {
			s->costs[C_THREADS].skipped++;
		}
		t->seen = true;
	}
	/* Drop threads that have gone; snapshot the rest. */
	w = 0;
	for (size_t i = 0; i < s->nts; i++) {
		if (!s->ts[i].seen) {
			sampler_src_close(&s->ts[i].stat);
			sampler_src_close(&s->ts[i].schedstat);
			continue;
		}
		s->ts[w++] = s->ts[i];
	}
	s->nts = w;
	if (ARRAY_GROW(s->snap, s->asnap, s->nts) < 0)
		return;
	for (size_t i = 0; i < s->nts; i++)
		s->snap[i] = (struct rec_thread){
		    .tid = (uint32_t)s->ts[i].tid,
		    .name = s->ts[i].name,
		    .cpu_ns = s->ts[i].run_ns < 0 ? 0 : (uint64_t)s->ts[i].run_ns,
		    .cpu = s->ts[i].cpu,
		};
	s->nsnap = s->nts;
}

int sampler_setup_thread_fields(struct sampler *s, struct thr *t, const char *prefix)
{
	t->prefix = prefix;
	const char *const *names = strcmp(prefix, "ft") ? field_ft2 : field_ft;

	for (int i = 0; i < TF_N; i++) {
		int r = sampler_add_field(s, field_thread_kind[i], "%s", names[i]);

		if (r < 0)
			return r;
		if (i == 0)
			t->base = r;
	}
	return 0;
}
