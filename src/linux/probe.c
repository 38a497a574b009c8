// SPDX-License-Identifier: MIT
/*
 * probe.c: the timer wake-up probe engine of probe.h: pinned sleepers on
 * absolute deadlines, a histogram each, late wake-ups through a
 * single-producer ring per CPU that the caller drains.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "linux/probe.h"
#include "linux/sched.h"

#define STACK_SIZE (256 * 1024)

struct probe_thread {
	struct probe *p;
	pthread_t tid;
	bool started;		/* pthread_create succeeded */
	int start_err;		/* pinning failed: negative errno */
	struct probe_cpu res;
	/* live figures for probe_progress, written by the thread */
	_Atomic uint64_t live_n, live_max, live_late;
	/* the late ring: the thread writes head, the poller tail */
	_Atomic uint64_t head, tail;
	struct probe_late ring[PROBE_RING];
};

struct probe {
	struct probe_opts o;
	size_t n;
	struct probe_thread *th;	/* n of them */
	int lock_result;
	bool stopped;
	_Atomic bool stop;
	_Atomic uint64_t first_deadline;	/* 0 until every thread is ready */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	size_t ready;				/* threads done with their setup */
};

static void *probe_main(void *arg)
{
	struct probe_thread *t = arg;
	struct probe *p = t->p;
	uint64_t next, now, late, interval = p->o.interval_ns;
	volatile char stack_touch[16384];
	int r;

	memset((char *)stack_touch, 0, sizeof(stack_touch));	/* fault the stack in now */
	/* no timer slack: a SCHED_OTHER sleeper would otherwise wake up to 50 us
	 * after its deadline by design (SCHED_FIFO has none anyway) */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	r = sched_pin_self(t->res.cpu);
	if (r < 0)
		t->start_err = r;
	else if (p->o.prio > 0) {
		r = sched_fifo_self(p->o.prio);
		t->res.fifo = r == 0;
		t->res.fifo_err = r;
	}
	pthread_mutex_lock(&p->lock);
	p->ready++;
	pthread_cond_broadcast(&p->cond);
	while (!atomic_load(&p->first_deadline) && !atomic_load(&p->stop))
		pthread_cond_wait(&p->cond, &p->lock);
	pthread_mutex_unlock(&p->lock);
	if (t->start_err)
		return NULL;

	next = atomic_load(&p->first_deadline);
	while (!atomic_load_explicit(&p->stop, memory_order_relaxed)) {
		if (sched_sleep_until(next) == -EINTR)
			continue;
		now = sched_now_ns();
		late = now > next ? now - next : 0;
		hdrhist_add(&t->res.hist, late);
		atomic_store_explicit(&t->live_n, t->res.hist.n, memory_order_relaxed);
		if (late > atomic_load_explicit(&t->live_max, memory_order_relaxed))
			atomic_store_explicit(&t->live_max, late, memory_order_relaxed);
		if (p->o.late_ns && late >= p->o.late_ns) {
			uint64_t h = atomic_load_explicit(&t->head, memory_order_relaxed);
			uint64_t tl = atomic_load_explicit(&t->tail, memory_order_acquire);

			atomic_fetch_add_explicit(&t->live_late, 1, memory_order_relaxed);
			if (h - tl < PROBE_RING) {
				struct probe_late *w = &t->ring[h % PROBE_RING];

				w->t_mono_ns = now;
				w->late_ns = late;
				w->cpu = t->res.cpu;
				atomic_store_explicit(&t->head, h + 1, memory_order_release);
			} else {
				t->res.dropped++;
			}
		}
		next += interval;
		while (next <= now) {
			next += interval;
			t->res.missed++;
		}
	}
	t->res.cpu_ns = sched_thread_cpu_ns();
	return NULL;
}

static void stop_threads(struct probe *p)
{
	size_t i;

	pthread_mutex_lock(&p->lock);
	atomic_store(&p->stop, true);
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	for (i = 0; i < p->n; i++) {
		if (p->th[i].started)
			pthread_join(p->th[i].tid, NULL);
		p->th[i].started = false;
	}
}

int probe_start(const struct probe_opts *o, struct probe **ret, struct strbuf *err)
{
	struct probe *p;
	pthread_attr_t attr;
	sigset_t all, old;
	size_t i;
	int cpu, r = 0;

	if (!o->interval_ns || cpulist_count(&o->cpus) == 0 || o->prio < 0 || o->prio > 99)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->o = *o;
	p->n = (size_t)cpulist_count(&o->cpus);
	p->lock_result = 1;
	p->th = calloc(p->n, sizeof(*p->th));
	if (!p->th) {
		free(p);
		return -ENOMEM;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	cpu = cpulist_next(&o->cpus, 0);
	for (i = 0; i < p->n; i++, cpu = cpulist_next(&o->cpus, cpu + 1)) {
		p->th[i].p = p;
		p->th[i].res.cpu = cpu;
		hdrhist_init(&p->th[i].res.hist);	/* touches the pages before mlockall */
	}
	if (o->lock_memory)
		p->lock_result = sched_lock_memory();

	/* the threads take no signals: SIGINT belongs to the caller */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, STACK_SIZE);
	for (i = 0; i < p->n; i++) {
		r = -pthread_create(&p->th[i].tid, &attr, probe_main, &p->th[i]);
		if (r < 0) {
			sb_addf(err, "cpu %d: unable to start a thread: %s", p->th[i].res.cpu,
				strerror(-r));
			break;
		}
		p->th[i].started = true;
	}
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);

	if (r == 0) {
		pthread_mutex_lock(&p->lock);
		while (p->ready < p->n)
			pthread_cond_wait(&p->cond, &p->lock);
		pthread_mutex_unlock(&p->lock);
		for (i = 0; i < p->n; i++) {
			if (p->th[i].start_err) {
				r = p->th[i].start_err;
				sb_addf(err, "cpu %d: unable to pin a thread there: %s",
					p->th[i].res.cpu, strerror(-r));
				break;
			}
		}
	}
	if (r < 0) {
		stop_threads(p);
		p->stopped = true;
		probe_free(p);
		return r;
	}
	pthread_mutex_lock(&p->lock);
	atomic_store(&p->first_deadline, sched_now_ns() + o->interval_ns);
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	*ret = p;
	return 0;
}

size_t probe_poll(struct probe *p)
{
	size_t i, n = 0;

	for (i = 0; i < p->n; i++) {
		struct probe_thread *t = &p->th[i];
		uint64_t tl = atomic_load_explicit(&t->tail, memory_order_relaxed);
		uint64_t h = atomic_load_explicit(&t->head, memory_order_acquire);

		for (; tl != h; tl++, n++) {
			struct probe_late w = t->ring[tl % PROBE_RING];

			atomic_store_explicit(&t->tail, tl + 1, memory_order_release);
			if (p->o.on_late)
				p->o.on_late(p->o.ctx, &w);
		}
	}
	return n;
}

void probe_progress(const struct probe *p, uint64_t *ret_wakeups, uint64_t *ret_max_ns,
		    uint64_t *ret_late)
{
	uint64_t n = 0, max = 0, late = 0, v;
	size_t i;

	for (i = 0; i < p->n; i++) {
		struct probe_thread *t = &p->th[i];

		n += atomic_load_explicit(&t->live_n, memory_order_relaxed);
		late += atomic_load_explicit(&t->live_late, memory_order_relaxed);
		v = atomic_load_explicit(&t->live_max, memory_order_relaxed);
		if (v > max)
			max = v;
	}
	*ret_wakeups = n;
	*ret_max_ns = max;
	*ret_late = late;
}

int probe_stop(struct probe *p)
{
	if (p->stopped)
		return 0;
	stop_threads(p);
	p->stopped = true;
	probe_poll(p);
	return 0;
}

int probe_lock_result(const struct probe *p)
{
	return p->lock_result;
}

size_t probe_ncpus(const struct probe *p)
{
	return p->n;
}

const struct probe_cpu *probe_cpu(const struct probe *p, size_t i)
{
	return i < p->n ? &p->th[i].res : NULL;
}

int probe_late_text(const struct probe_late *w, char *buf, size_t size)
{
	return snprintf(buf, size, "cpu=%d late_us=%llu", w->cpu,
			(unsigned long long)(w->late_ns / 1000));
}

void probe_free(struct probe *p)
{
	if (!p)
		return;
	if (!p->stopped)
		probe_stop(p);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	free(p->th);
	free(p);
}
