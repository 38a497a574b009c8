// SPDX-License-Identifier: MIT
/* test-probe.c: the probe and kick engines as record will use them: start,
 * poll with a callback, stop, results. Nothing about timing is asserted:
 * only that threads ran, counted, and handed every late wake-up over once. */
#include <stdlib.h>
#include <time.h>

#include "core/cpulist.h"
#include "core/strbuf.h"
#include "linux/kick.h"
#include "linux/probe.h"
#include "linux/sched.h"
#include "t.h"

struct seen {
	size_t n;
	int bad_cpu;
};

static void on_late(void *ctx, const struct probe_late *w)
{
	struct seen *s = ctx;

	s->n++;
	if (w->cpu != 0 || w->late_ns < 1)
		s->bad_cpu++;
}

static void test_probe(void)
{
	struct probe_opts o = {0};
	struct strbuf err = STRBUF_INIT;
	struct seen s = {0};
	struct probe *p = NULL;
	uint64_t n, max, late;

	cpulist_set(&o.cpus, 0);
	o.interval_ns = 1000000;
	o.prio = 0;    /* SCHED_OTHER: runs anywhere */
	o.late_ns = 1; /* every wake-up is late by >= 1 ns */
	o.on_late = on_late;
	o.ctx = &s;
	CHECK_INT(probe_start(&o, &p, &err), 0);
	if (!p)
		return;
	sched_sleep_until(sched_now_ns() + 30000000);
	probe_poll(p);
	probe_progress(p, &n, &max, &late);
	CHECK_INT(probe_stop(p), 0);
	CHECK_INT(probe_stop(p), 0); /* twice is harmless */
	CHECK_INT(probe_ncpus(p), 1);
	CHECK_INT(probe_cpu(p, 0)->cpu, 0);
	CHECK(!probe_cpu(p, 0)->fifo);
	CHECK(probe_cpu(p, 0)->hist.n > 0);
	CHECK(probe_cpu(p, 0)->cpu_ns > 0);
	CHECK(probe_cpu(p, 1) == NULL);
	/* every wake-up handed over exactly once (none dropped at this rate) */
	CHECK_INT(s.n + probe_cpu(p, 0)->dropped, probe_cpu(p, 0)->hist.n);
	CHECK_INT(s.bad_cpu, 0);
	CHECK_INT(probe_lock_result(p), 1);
	probe_free(p);
	probe_free(NULL);
	sb_release(&err);
}

static void test_probe_bad_cpu(void)
{
	struct probe_opts o = {0};
	struct strbuf err = STRBUF_INIT;
	struct probe *p = NULL;

	cpulist_set(&o.cpus, CPULIST_MAX - 1); /* no machine here has it */
	o.interval_ns = 1000000;
	CHECK(probe_start(&o, &p, &err) < 0);
	CHECK(p == NULL);
	CHECK(strstr(err.buf, "cpu 4095: unable to pin a thread there") != NULL);
	sb_release(&err);
	o.interval_ns = 0;
	CHECK(probe_start(&o, &p, NULL) < 0);
}

static void test_kick(void)
{
	struct kick_opts o = {0};
	struct strbuf err = STRBUF_INIT;
	struct kick *k = NULL;
	struct kick_result *r = malloc(sizeof(*r));

	cpulist_set(&o.cpus, 0);
	o.interval_ns = 1000000;
	CHECK_INT(kick_start(&o, &k, &err), 0);
	if (!k || !r)
		return;
	sched_sleep_until(sched_now_ns() + 30000000);
	CHECK_INT(kick_stop(k, r), 0);
	CHECK(r->periods > 0);
	CHECK(r->wakeups > 0);
	CHECK(r->wakeups <= r->periods);
	CHECK(r->cpu_ns > 0);
	CHECK(!r->fifo);
	kick_free(k);

	o.mode = KICK_SLEEP;
	CHECK_INT(kick_start(&o, &k, &err), 0);
	sched_sleep_until(sched_now_ns() + 20000000);
	CHECK_INT(kick_stop(k, r), 0);
	CHECK(r->periods > 0);
	CHECK_INT(r->wakeups, 0);
	CHECK_INT(r->kicker_cpu, -1);
	kick_free(k);
	kick_free(NULL);
	free(r);
	sb_release(&err);
}

static void test_late_text(void)
{
	struct probe_late w = {.t_mono_ns = 5, .late_ns = 308387512, .cpu = 1};
	char buf[64];

	probe_late_text(&w, buf, sizeof(buf));
	CHECK_STR(buf, "cpu=1 late_us=308387");
}

int main(void)
{
	T_RUN(test_probe);
	T_RUN(test_probe_bad_cpu);
	T_RUN(test_kick);
	T_RUN(test_late_text);
	return t_exit();
}
