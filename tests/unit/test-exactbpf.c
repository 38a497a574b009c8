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
 */
#include "t.h"

#include <errno.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "linux/exact.h"

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

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
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
	}
	CHECK(exact_drain(x, on_interval, &s) >= 2);
	CHECK(s.sleep >= 1 && s.sleep_ns >= 28000000ull);
	CHECK(s.pipe >= 1 && s.pipe_ns >= 20000000ull);
	CHECK(s.named >= 1);
	/* another slot, never targeted: no counters yet */
	CHECK_INT(exact_read(x, 1, mono_ns(), &sl), -ESRCH);
	exact_close(x);
	exact_close(NULL);
	close(p[0]);
	close(p[1]);
	sb_release(&why);
	fprintf(stderr, "%s test_exact_loader\n", t_failed ? "FAIL" : "ok  ");
	return t_exit();
}
