// SPDX-License-Identifier: MIT
/*
 * test-sampler-switch.c: a sleeping thread watched by its switch-ins
 * (src/linux/sampler_switch.c) on a real sleeping child. White-box: it
 * includes sampler_int.h to see the watch and to put a page in its place
 * that never moves, a kernel that lies. Checks: after SWITCH_AFTER quiet
 * samples the thread has a watch and only the slow samples read its
 * schedstat, its fields sample for sample those of the ungated sampler; a
 * run is seen at the next sample; a page that does not move when the
 * thread runs is caught by the next slow sample and the sampler stops
 * watching, saying so, and reads schedstat every sample again.
 */
#include "t.h"

#include <errno.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "linux/sampler.h"
#include "linux/sampler_int.h"
#include "t-sampler.h"

/* Why the sampler stopped watching, "" when it did not. */
static const char *off_why(struct sampler *s)
{
	struct sampler_switch_stats st;

	sampler_switch_stats(s, &st);
	return st.off;
}

/* The frame thread's fields of two samplers' samples agree? */
static bool same_thread(struct sampler *s, const int64_t *v, const int64_t *w)
{
	return same_fields(s, v, w, "ft.");
}

struct pair {
	pid_t pid;
	struct sampler *g, *ng; /* gated, ungated */
	int64_t *v, *w;
	uint64_t k;		/* samples taken */
};

static bool pair_open(struct pair *p)
{
	struct sampler_opts o = {.intern = intern, .slow_every = 10, .profile = true};
	const struct sampler_field *f;

	memset(p, 0, sizeof(*p));
	p->pid = sleeper(0);
	usleep(20000); /* into pause() */
	if (p->pid < 0) {
		T_FAIL("cannot start a sleeping child");
		return false;
	}
	o.pid = p->pid;
	CHECK_INT(sampler_new(&o, &p->g), 0);
	o.no_gate = true;
	CHECK_INT(sampler_new(&o, &p->ng), 0);
	if (!p->g || !p->ng)
		return false;
	p->v = calloc(sampler_fields(p->g, &f), sizeof(*p->v));
	p->w = calloc(sampler_fields(p->ng, &f), sizeof(*p->w));
	return p->v && p->w;
}

static void pair_close(struct pair *p)
{
	free(p->v);
	free(p->w);
	sampler_free(p->g);
	sampler_free(p->ng);
	if (p->pid > 0) {
		kill(p->pid, SIGKILL);
		waitpid(p->pid, NULL, 0);
	}
}

/* One sample of each; false when they disagree on the thread. */
static bool pair_sample(struct pair *p)
{
	p->k++;
	CHECK_INT(sampler_sample(p->g, p->k, p->v), 0);
	CHECK_INT(sampler_sample(p->ng, p->k, p->w), 0);
	return same_thread(p->g, p->v, p->w);
}

/* One sample of each, the gated one expected to be wrong (not compared). */
static void pair_sample_blind(struct pair *p)
{
	p->k++;
	CHECK_INT(sampler_sample(p->g, p->k, p->v), 0);
	CHECK_INT(sampler_sample(p->ng, p->k, p->w), 0);
}

/* Samples until the frame thread has a watch (at most 80); false (and a
 * skip when the machine refuses perf events) when it does not. */
static bool watched(struct pair *p)
{
	struct thr *t = &p->g->th[TH_FT];
	bool same = true;

	while (p->k < 80 && !t->sw_pg)
		same &= pair_sample(p);
	CHECK(same);
	if (t->sw_pg)
		return true;
	if (p->g->sw_off && strstr(off_why(p->g), "perf_event_open")) {
		pair_close(p);
		t_skip("no perf events on this machine (perf_event_paranoid, or none in the "
		       "kernel): the switch watch is off, which the sampler said");
	}
	T_FAIL("no watch after %llu samples of a sleeping thread", (unsigned long long)p->k);
	return false;
}

static void test_watch(void)
{
	struct pair p;
	uint64_t reads, still;
	int64_t run;
	bool same = true;
	int f_run, nsame = 0;

	if (!pair_open(&p))
		goto out;
	if (!watched(&p))
		goto out;
	CHECK_INT(p.g->sw_opens, 1);
	same &= pair_sample(&p); /* its first read with the watch: the sequence */
	CHECK(p.g->th[TH_FT].sw_set);
	/* two slow samples in twenty: the only schedstat reads */
	reads = cost_of(p.g, "task schedstat").reads;
	still = p.g->sw_still;
	for (int i = 0; i < 20; i++) {
		same &= pair_sample(&p);
		nsame += sampler_same(p.g);
		usleep(500);
	}
	CHECK(same);
	CHECK_INT(cost_of(p.g, "task schedstat").reads - reads, 2);
	CHECK_INT(p.g->sw_still - still, 18);
	/* not a slow sample nor the one after it; with a display server its
	 * CPU clock is read every sample, so none is a repeat */
	if (field(p.g, "srv.cpu_ns") < 0)
		CHECK(nsame >= 16);

	/* it runs: the next sample, not a slow one, sees it */
	if (p.g->nsample % 10 == 0)
		same &= pair_sample(&p);
	f_run = field(p.g, "ft.run_ns");
	CHECK(f_run >= 0);
	run = p.v[f_run];
	kill(p.pid, SIGUSR1);
	usleep(20000);
	same &= pair_sample(&p);
	CHECK(same);
	CHECK(!sampler_same(p.g));
	CHECK(p.v[f_run] > run);
	CHECK(!p.g->sw_off);
	CHECK_STR(off_why(p.g), "");
	CHECK_INT(p.g->sw_misses, 0);
	/* one run is not busy: it keeps its watch */
	CHECK(p.g->th[TH_FT].sw_pg != NULL);
out:
	pair_close(&p);
}

static void test_lying_page(void)
{
	struct thr *t;
	struct pair p;
	struct perf_event_mmap_page *fake;
	long page = sysconf(_SC_PAGESIZE);
	uint64_t reads;
	int64_t run;
	int f_run, hidden = 0;

	if (!pair_open(&p))
		goto out;
	if (!watched(&p))
		goto out;
	t = &p.g->th[TH_FT];
	CHECK(pair_sample(&p)); /* a quiet read sets its sequence */
	CHECK(t->sw_set);
	/* a page the kernel never writes, holding the sequence the watch has */
	fake = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fake == MAP_FAILED) {
		T_FAIL("mmap: %s", strerror(errno));
		goto out;
	}
	fake->lock = t->sw_seq;
	munmap((void *)t->sw_pg, (size_t)page);
	t->sw_pg = fake;

	f_run = field(p.g, "ft.run_ns");
	run = p.v[f_run];
	kill(p.pid, SIGUSR1);
	usleep(20000);
	/* the run is hidden until the next slow sample, no longer */
	while (p.g->nsample % 10 != 0) {
		pair_sample_blind(&p);
		hidden += p.v[f_run] == run;
	}
	CHECK(hidden <= 9);
	CHECK(pair_sample(&p)); /* the slow sample: it agrees with the ungated */
	CHECK(p.v[f_run] > run);
	CHECK(t->sw_check);
	CHECK(!p.g->sw_off);
	pair_sample(&p); /* the page still unmoved 10 ms on: it lies */
	CHECK(p.g->sw_off);
	CHECK_INT(p.g->sw_misses, 1);
	CHECK(t->sw_pg == NULL && t->sw_fd < 0);
	CHECK(strstr(off_why(p.g), "ran with its perf page unmoved") != NULL);
	/* from now on, schedstat every sample, and no watch again */
	reads = cost_of(p.g, "task schedstat").reads;
	for (int i = 0; i < 60; i++)
		CHECK(pair_sample(&p));
	CHECK_INT(cost_of(p.g, "task schedstat").reads - reads, 60);
	CHECK(t->sw_pg == NULL);
out:
	pair_close(&p);
}

int main(void)
{
	T_RUN(test_watch);
	T_RUN(test_lying_page);
	intern_free();
	return t_exit();
}
