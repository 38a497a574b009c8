// SPDX-License-Identifier: MIT
/*
 * sampler_switch.c: a sleeping thread watched by its switch-ins, not by
 * reading /proc (issue 31: the snapshot sampler's idle cost).
 *
 * A thread that was blocked at its last full read has not changed until it
 * runs, and it runs only after being switched in. The snapshot sampler
 * tells that from schedstat (run time and slices, sampler_thread_quiet):
 * one pread a sample, about 12 us on a VM when it is the first system call
 * after the recorder's wake-up, most of a sleeping program's sample. A perf
 * event on the thread (the software "dummy" event: it counts nothing)
 * with its first page mapped gives the same answer in memory: the kernel
 * rewrites that page, moving its sequence ("lock", perf_event_open(2),
 * struct perf_event_mmap_page), each time it switches the thread in. While
 * the sequence is what it was before the read that found the thread
 * quiet, the thread has not run since, and schedstat would say so again.
 *
 * The event costs the thread about 0.75 us a switch (measured here: a pipe
 * ping-pong's round trip 8.4 -> 9.9 us with one on one side), so a thread
 * gets one only after sleeping SWITCH_AFTER samples in a row (0.5 s at 10
 * ms) and loses it after SWITCH_BUSY samples in a row in which it ran: a
 * game's frame thread, running every frame, never has one.
 *
 * Trust, checked: the slow samples read schedstat regardless. One that
 * finds a thread ran while its sequence stood (the kernel switched it in
 * without moving the page, or the read raced the switch-in) marks it; when
 * the sequence still stands at the next sample, the page is not moved by
 * switch-ins on this kernel and the sampler stops using it, saying so. A
 * thread can then have been read as quiet for at most slow_every samples,
 * once in a recording.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "core/hot.h"
#include "linux/sampler_int.h"

#define SWITCH_AFTER 50 /* samples asleep in a row before a thread is watched */
#define SWITCH_BUSY 10	/* samples run in a row before it no longer is */

void sampler_switch_init(struct thr *t)
{
	t->sw_fd = -1;
	t->sw_pg = NULL;
	t->sw_set = false;
	t->sw_check = false;
	t->sw_idle = t->sw_busy = 0;
	t->sw_run = t->sw_slices = -1;
}

void sampler_switch_close(struct thr *t)
{
	if (t->sw_pg)
		munmap((void *)t->sw_pg, (size_t)sysconf(_SC_PAGESIZE));
	if (t->sw_fd >= 0)
		close(t->sw_fd);
	sampler_switch_init(t);
}

/* The page's sequence now; 0 without a page (an open page's is even and
 * at least 2 once the kernel has written it). */
SS_HOT static uint32_t seq_now(const struct thr *t)
{
	return t->sw_pg ? __atomic_load_n(&t->sw_pg->lock, __ATOMIC_ACQUIRE) : 0;
}

SS_HOT void sampler_switch_before(struct thr *t)
{
	t->sw_pre = seq_now(t);
}

SS_HOT void sampler_switch_mark(struct thr *t, bool quiet)
{
	t->sw_set = quiet && t->sw_pg && t->sw_pre;
	t->sw_seq = t->sw_pre;
}

SS_HOT bool sampler_switch_still(const struct sampler *s, const struct thr *t)
{
	return s->gate && t->quiet_ok && t->sw_set && seq_now(t) == t->sw_seq;
}

SS_HOT void sampler_switch_ran(const struct sampler *s, struct thr *t)
{
	/* schedstat moved with the sequence read before it unmoved */
	if (t->sw_set && t->quiet_ok && t->sw_pre == t->sw_seq) {
		t->sw_check = true;
		t->sw_check_seq = t->sw_seq;
		t->sw_check_at = s->nsample;
	}
	t->sw_set = false;
}

/* Every thread's watch closed and never opened again in this sampler;
 * run.ini says WHY (sampler_switch_stats). */
static void switch_off(struct sampler *s, const char *why)
{
	s->sw_off = true;
	snprintf(s->sw_why, sizeof(s->sw_why), "%s", why);
	for (int i = 0; i < TH_N; i++)
		sampler_switch_close(&s->th[i]);
}

void sampler_switch_stats(const struct sampler *s, struct sampler_switch_stats *ret)
{
	*ret = (struct sampler_switch_stats){
		.used = !s->o.exact && s->live && s->gate,
		.opens = s->sw_opens,
		.saved = s->sw_still,
		.off = s->sw_off ? s->sw_why : "",
	};
}

static void switch_open(struct sampler *s, struct thr *t)
{
	struct perf_event_attr a;
	long page = sysconf(_SC_PAGESIZE);
	void *pg;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.exclude_kernel = 1; /* what perf_event_paranoid 2 lets a user have */
	a.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, t->tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		char why[96];

		snprintf(why, sizeof(why), "perf_event_open on thread %d: %s", t->tid,
			 strerror(errno));
		/* a thread that has just gone says nothing of the others */
		if (errno != ESRCH)
			switch_off(s, why);
		t->sw_idle = 0;
		return;
	}
	pg = mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED, fd, 0);
	if (pg == MAP_FAILED) {
		char why[96];

		snprintf(why, sizeof(why), "mmap of thread %d's perf event: %s", t->tid,
			 strerror(errno));
		close(fd);
		switch_off(s, why);
		return;
	}
	t->sw_fd = fd;
	t->sw_pg = pg;
	t->sw_set = false; /* the next schedstat read sets the sequence */
	s->sw_opens++;
}

SS_HOT void sampler_switch_tend(struct sampler *s, struct thr *t)
{
	const int64_t *v = s->cur + t->base;
	bool idle;

	if (s->o.exact || !s->live || !s->gate || s->sw_off || !t->tid || t->gone)
		return;
	if (t->sw_check && s->nsample != t->sw_check_at) {
		t->sw_check = false;
		if (t->sw_pg && seq_now(t) == t->sw_check_seq) {
			char why[96];

			snprintf(why, sizeof(why), "thread %d ran with its perf page unmoved",
				 t->tid);
			s->sw_misses++;
			switch_off(s, why);
			return;
		}
	}
	idle = t->quiet_ok && v[TF_RUN] == t->sw_run && v[TF_SLICES] == t->sw_slices;
	t->sw_run = v[TF_RUN];
	t->sw_slices = v[TF_SLICES];
	if (idle) {
		t->sw_busy = 0;
		if (t->sw_idle < SWITCH_AFTER)
			t->sw_idle++;
		if (t->sw_idle >= SWITCH_AFTER && t->sw_fd < 0)
			switch_open(s, t);
	} else {
		t->sw_idle = 0;
		if (t->sw_busy < SWITCH_BUSY)
			t->sw_busy++;
		if (t->sw_busy >= SWITCH_BUSY && t->sw_fd >= 0 && !t->sw_check)
			sampler_switch_close(t);
	}
}
