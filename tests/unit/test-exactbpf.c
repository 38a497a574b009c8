// SPDX-License-Identifier: MIT
/*
 * test-exactbpf.c: exact mode's loader (linux/exact.h; the arithmetic on
 * its counters is core/exact.h's, test-exact). The program loaded and
 * attached here, this thread made slot 0's target, then put to sleep for
 * 30 ms and made to wait 30 ms on a pipe a child writes: the slot's
 * counters hold that time in the sleep and the socket/pipe classes; the
 * ring holds the two intervals, classed, with their syscalls, this tid,
 * and a kernel stack whose innermost frame has a name. Skipped (77) where
 * exact_check says exact mode cannot work (not root, no BTF, not built),
 * saying why.
 *
 * A switch-in taken away from the program (the target unset while a child
 * sleeps, set again by the child on its CPU) is counted as missed_in at the
 * switch-out after it.
 *
 * Then the sampler in exact mode on a child asleep on a pipe since before
 * it became the target (issue 31): the kernel's counters never see it
 * switch, so /proc says where it sleeps; once read, a slot it has not
 * touched (all zero in a fresh program) says it did not run, and the samples
 * read nothing of it, their fields equal to what a snapshot sampler reading
 * everything gives at the same moment, and from the third on the sampler
 * says they are unchanged (sampler_same: nothing read, the values left as
 * they were). Woken, it is seen at once.
 */
#include "t.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "linux/exact.h"
#include "linux/sampler.h"
#include "t-sampler.h"

struct seen {
	uint32_t tid;
	int sleep, pipe, named;
	uint64_t sleep_ns, pipe_ns;
	const struct exact *x;
};

static int on_interval(void *ctx, const struct exact_interval *iv)
{
	struct seen *s = ctx;
	uint64_t ns = iv->in_ns > iv->out_ns ? iv->in_ns - iv->out_ns : 0;

	if (iv->tid != s->tid)
		return 0;
	if (iv->cls == X_SLEEP && (iv->syscall == SYS_clock_nanosleep || iv->syscall == SYS_nanosleep)) {
		s->sleep++;
		s->sleep_ns += ns;
	}
	if (iv->cls == X_SOCKET && iv->syscall == SYS_read) {
		s->pipe++;
		s->pipe_ns += ns;
	}
	if (iv->nstack > 0 && exact_symbol(s->x, iv->stack[0]))
		s->named++;
	return 0;
}

static uint64_t skipped(struct sampler *s, const char *source)
{
	return cost_of(s, source).skipped;
}

static uint64_t mono_ns(void);

/* A child asleep on a pipe before exact mode targets it: the gated exact
 * sampler reads it once from /proc and then nothing (its slot untouched),
 * each sample's ft.* fields equal to those of a snapshot sampler that
 * reads every source every sample (no_gate); written to, it runs, and the
 * next sample has it from the slot. */
static void test_quiet_unseen(struct exact *x)
{
	static const char *const same[] = { "ft.state", "ft.minflt", "ft.majflt", "ft.utime_ns",
					    "ft.stime_ns", "ft.cpu", "ft.wchan", "ft.syscall",
					    "ft.fd", "ft.fd_target" };
	struct sampler_opts o = { .intern = intern, .slow_every = 100, .profile = true };
	struct sampler *g = NULL, *full = NULL;
	const struct sampler_field *f;
	struct sampler_exact_stats xs;
	struct timespec ms2 = { 0, 2 * 1000 * 1000 };
	int64_t *v = NULL, *w = NULL;
	const struct sampler_meta *m;
	int p[2], st, state, repeats = 0, want = 0;
	size_t ev_last = 1;
	bool srv = false;
	pid_t kid;

	CHECK_INT(pipe(p), 0);
	kid = fork();
	if (kid == 0) {
		char c;

		close(p[1]);
		while (read(p[0], &c, 1) == 1)
			;
		_exit(0);
	}
	close(p[0]);
	/* asleep in its read before the samplers start */
	for (int i = 0; i < 2000; i++) {
		char path[64], buf[512];
		FILE *fp;
		size_t n;
		const char *rp;

		nanosleep(&ms2, NULL);
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)kid);
		fp = fopen(path, "r");
		n = fp ? fread(buf, 1, sizeof(buf) - 1, fp) : 0;
		if (fp)
			fclose(fp);
		buf[n] = 0;
		rp = strrchr(buf, ')');
		if (rp && rp[1] == ' ' && rp[2] == 'S' && i > 5)
			break;
	}
	o.pid = kid;
	o.exact = x;
	CHECK_INT(sampler_new(&o, &g), 0);
	o.exact = NULL;
	o.no_gate = true;
	CHECK_INT(sampler_new(&o, &full), 0);
	if (!g || !full)
		goto out;
	v = calloc(sampler_fields(g, &f), sizeof(*v));
	w = calloc(sampler_fields(full, &f), sizeof(*w));
	state = field(g, "ft.state");
	for (int i = 0; i < 20; i++) {
		uint64_t now = mono_ns();

		CHECK_INT(sampler_sample(g, now, v), 0);
		CHECK_INT(sampler_sample(full, now, w), 0);
		{
			const struct sampler_event *ev;
			size_t ne = sampler_events(g, &ev);

			repeats += sampler_same(g);
			/* a repeat makes no event, and follows a sample that
			 * made none (a kernel stack due, as root, is one) */
			want += i >= 2 && ev_last == 0 && ne == 0;
			ev_last = ne;
		}
		for (size_t k = 0; k < sizeof(same) / sizeof(same[0]); k++) {
			int a = field(g, same[k]), b = field(full, same[k]);

			if (a < 0 || b < 0 || v[a] != w[b])
				T_FAIL("sample %d: %s %lld, read whole %lld", i, same[k],
				       a < 0 ? -1LL : (long long)v[a], b < 0 ? -1LL : (long long)w[b]);
		}
		nanosleep(&ms2, NULL);
	}
	CHECK_INT(v[state], 'S');
	CHECK_INT(skipped(g, "task stat"), 19);	/* all but the first */
	sampler_exact_stats(g, &xs);
	CHECK_INT(xs.unseen, 20);
	/* Unchanged samples (nothing read, VALS left as they were): all but
	 * the first two (the first reads everything; the second reads
	 * nothing, and only after such a sample can the next be a repeat),
	 * and but those around a kernel stack's event. A display server's
	 * CPU clock is read every sample: none then. */
	for (size_t i = 0, n = sampler_meta(g, &m); i < n; i++)
		srv |= !strcmp(m[i].key, "srv");
	if (srv)
		CHECK_INT(repeats, 0);
	else
		CHECK_INT(repeats, want);
	CHECK(want >= 10);
	/* woken: it runs, reads, sleeps again; the slot has it, and the very
	 * next sample sees it (not a repeat) */
	CHECK_INT(write(p[1], "x", 1), 1);
	nanosleep(&ms2, NULL);
	nanosleep(&ms2, NULL);
	CHECK_INT(sampler_sample(g, mono_ns(), v), 0);
	CHECK(!sampler_same(g));
	sampler_exact_stats(g, &xs);
	CHECK_INT(xs.unseen, 20);
	CHECK(v[field(g, "ftx.switches")] >= 1);
out:
	free(v);
	free(w);
	sampler_free(g);
	sampler_free(full);
	close(p[1]);
	waitpid(kid, &st, 0);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The state of process PID from /proc/PID/stat ('S', 'R', ...; 0: none). */
static char proc_state(pid_t pid)
{
	char path[64], buf[512];
	FILE *f;
	size_t n;
	const char *rp;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	rp = strrchr(buf, ')');
	return rp && rp[1] == ' ' ? rp[2] : 0;
}

/* PID's time on a CPU, ns, from its schedstat; 0 when unknown. */
static uint64_t task_cpu_ns(pid_t pid)
{
	char path[64];
	unsigned long long ns = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &ns) != 1)
		ns = 0;
	fclose(f);
	return ns;
}

/* Waits (up to 2 s) for PID to sleep. */
static bool wait_asleep(pid_t pid)
{
	struct timespec ms1 = { 0, 1000 * 1000 };

	for (int i = 0; i < 2000; i++) {
		if (proc_state(pid) == 'S')
			return true;
		nanosleep(&ms1, NULL);
	}
	return false;
}

/*
 * A switch-in the program does not see is counted when the switch-out
 * after it finds the slot off (missed_in): the soak's stall that read
 * "S in clock_nanosleep, run 0.0 ms" while its thread spun on its CPU.
 * Made here by taking the target away while a child sleeps: the child,
 * woken unseen, makes itself the target again while it is on its CPU (the
 * program's control map is shared with it), so its next switch-out is
 * seen, from a slot still off. Before that, in a round seen whole, none is
 * counted.
 */
static void test_missed_in(struct exact *x)
{
	struct timespec ms2 = { 0, 2 * 1000 * 1000 };
	struct exact_slot sl;
	uint64_t run0, cpu0, cpu1;
	int a[2], st;
	pid_t kid;
	char k = 'x';

	CHECK_INT(pipe(a), 0);
	kid = fork();
	if (kid == 0) {
		char y;

		close(a[1]);
		while (read(a[0], &y, 1) == 1) {	/* asleep: a switch-out */
			uint64_t end = mono_ns() + 20 * 1000 * 1000;

			exact_set_target(x, 2, (uint32_t)getpid());	/* on its CPU */
			while (mono_ns() < end)	/* 20 ms on a CPU (or waiting for one) */
				;
		}
		_exit(0);
	}
	close(a[0]);
	CHECK(wait_asleep(kid));
	exact_set_target(x, 2, (uint32_t)kid);
	/* one round seen whole: no switch missed */
	CHECK_INT(write(a[1], &k, 1), 1);
	nanosleep(&ms2, NULL);
	CHECK(wait_asleep(kid));
	nanosleep(&ms2, NULL);
	CHECK_INT(exact_read(x, 2, mono_ns(), &sl), 0);
	CHECK_INT(sl.state, XS_OFF);
	CHECK_INT(sl.missed_in, 0);
	run0 = sl.run_ns;
	cpu0 = task_cpu_ns(kid);
	/* its wake-up and switch-in unseen */
	exact_set_target(x, 2, 0);
	CHECK_INT(write(a[1], &k, 1), 1);
	nanosleep(&ms2, NULL);
	CHECK(wait_asleep(kid));
	nanosleep(&ms2, NULL);
	CHECK_INT(exact_read(x, 2, mono_ns(), &sl), 0);
	if (sl.missed_in < 1)
		T_FAIL("missed_in %llu after a switch-in taken away, expected >= 1",
		       (unsigned long long)sl.missed_in);
	/* and the time it ran then is run time, as the kernel counted it
	 * (its schedstat: the spin and the little after its wake-up) */
	cpu1 = task_cpu_ns(kid);
	if (cpu0 && cpu1 > cpu0 && sl.run_ns - run0 + 2000000 < cpu1 - cpu0)
		T_FAIL("run %.1f ms after the unseen switch-in, the kernel says %.1f",
		       (sl.run_ns - run0) / 1e6, (cpu1 - cpu0) / 1e6);
	if (cpu1 - cpu0 < 5000000ull)
		T_FAIL("the child ran %.1f ms by its schedstat, expected >= 5",
		       (cpu1 - cpu0) / 1e6);
	close(a[1]);
	waitpid(kid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	exact_set_target(x, 2, 0);
}

int main(void)
{
	struct strbuf why = STRBUF_INIT;
	struct exact_opts o = { 0 };
	struct exact *x = NULL;
	struct exact_slot sl;
	struct seen s = { 0 };
	struct timespec ms30 = { 0, 30 * 1000 * 1000 }, ms1 = { 0, 1000 * 1000 };
	int p[2], r, st;
	pid_t kid;
	char c;

	if (exact_check(&why) < 0) {
		char msg[600];

		snprintf(msg, sizeof(msg), "exact mode cannot work here: %s", why.buf);
		t_skip(msg);
	}
	r = exact_open(&o, &x, &why);
	if (r < 0) {
		/* exact_check said it could: a failure, with libbpf's reason */
		T_FAIL("exact_open: %s", why.buf);
		return t_exit();
	}
	CHECK(!strcmp(exact_flavour(x), "tp_btf") || !strcmp(exact_flavour(x), "raw_tp"));
	CHECK(strstr(exact_hooks(x), "sched_switch") != NULL);
	s.tid = (uint32_t)syscall(SYS_gettid);
	s.x = x;
	exact_set_target(x, 0, s.tid);
	nanosleep(&ms1, NULL);	/* a switch: the slot takes its target */
	nanosleep(&ms30, NULL);
	CHECK_INT(pipe(p), 0);
	kid = fork();
	if (kid == 0) {
		/* once the parent sleeps in its read (a loaded machine may take
		 * a while to get it there), 30 ms more */
		char path[64], stat[512];
		pid_t parent = getppid();

		snprintf(path, sizeof(path), "/proc/%d/stat", (int)parent);
		for (int i = 0; i < 2000; i++) {
			FILE *f = fopen(path, "r");
			const char *rp;
			size_t n = f ? fread(stat, 1, sizeof(stat) - 1, f) : 0;

			if (f)
				fclose(f);
			stat[n] = 0;
			rp = strrchr(stat, ')');
			if (rp && rp[1] == ' ' && rp[2] == 'S')
				break;
			nanosleep(&ms1, NULL);
		}
		nanosleep(&ms30, NULL);
		_exit(write(p[1], "x", 1) == 1 ? 0 : 1);
	}
	CHECK_INT(read(p[0], &c, 1), 1);
	waitpid(kid, &st, 0);
	r = exact_read(x, 0, mono_ns(), &sl);
	CHECK_INT(r, 0);
	if (r == 0) {
		CHECK_INT(sl.tid, s.tid);
		if (sl.off_ns[X_SLEEP] < 28000000ull)
			T_FAIL("slot: %.1f ms asleep, expected >= 28", sl.off_ns[X_SLEEP] / 1e6);
		if (sl.off_ns[X_SOCKET] < 20000000ull)
			T_FAIL("slot: %.1f ms on the pipe, expected >= 20", sl.off_ns[X_SOCKET] / 1e6);
		CHECK(sl.switches >= 3);
		CHECK_INT(sl.missed_in, 0);
	}
	CHECK(exact_drain(x, on_interval, &s) >= 2);
	CHECK(s.sleep >= 1 && s.sleep_ns >= 28000000ull);
	CHECK(s.pipe >= 1 && s.pipe_ns >= 20000000ull);
	CHECK(s.named >= 1);
	/* another slot, never targeted: no counters yet */
	CHECK_INT(exact_read(x, 1, mono_ns(), &sl), -ESRCH);
	test_missed_in(x);
	exact_close(x);
	/* a fresh program: its slots all zero, as at a recording's start */
	x = NULL;
	r = exact_open(&o, &x, &why);
	if (r < 0)
		T_FAIL("exact_open again: %s", why.buf);
	else
		test_quiet_unseen(x);
	exact_close(x);
	exact_close(NULL);
	close(p[0]);
	close(p[1]);
	sb_release(&why);
	fprintf(stderr, "%s test_exact_loader\n", t_failed ? "FAIL" : "ok  ");
	intern_free();
	return t_exit();
}
