// SPDX-License-Identifier: MIT
/*
 * kick.c: the kicker of kick.h. Waiters block in FUTEX_WAIT on a sequence
 * number; the kicker bumps it and calls FUTEX_WAKE, which sends the IPI when
 * the waiter's CPU is not the kicker's. A waiter counts the wake-ups it saw.
 */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux/kick.h"
#include "linux/sched.h"

#define STACK_SIZE (128 * 1024)

struct kick_waiter {
	struct kick *k;
	pthread_t tid;
	bool started;
	int cpu;
	int err;		/* setup failed: negative errno */
	int fifo_err;
	_Atomic uint32_t seq;	/* bumped by the kicker */
	uint64_t wakeups;
	uint64_t cpu_ns;
};

struct kick {
	struct kick_opts o;
	size_t n;			/* waiters */
	struct kick_waiter *w;
	pthread_t kicker;
	bool kicker_started;
	int kicker_err, kicker_fifo_err;
	_Atomic bool stop;
	bool stopped;
	uint64_t t_start;
	struct kick_result res;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	size_t ready;
	bool go;
};

static long futex(_Atomic uint32_t *addr, int op, uint32_t val)
{
	return syscall(SYS_futex, (uint32_t *)addr, op, val, NULL, NULL, 0);
}

/* Marks the caller ready and waits for the go (or a stop). */
static void ready_wait(struct kick *k)
{
	pthread_mutex_lock(&k->lock);
	k->ready++;
	pthread_cond_broadcast(&k->cond);
	while (!k->go && !atomic_load(&k->stop))
		pthread_cond_wait(&k->cond, &k->lock);
	pthread_mutex_unlock(&k->lock);
}

static void *waiter_main(void *arg)
{
	struct kick_waiter *w = arg;
	struct kick *k = w->k;
	uint32_t seen = 0, now;

	w->err = sched_pin_self(w->cpu);
	if (!w->err && k->o.prio > 0)
		w->fifo_err = sched_fifo_self(k->o.prio);
	ready_wait(k);
	if (w->err)
		return NULL;
	while (!atomic_load_explicit(&k->stop, memory_order_relaxed)) {
		now = atomic_load_explicit(&w->seq, memory_order_acquire);
		if (now == seen) {
			futex(&w->seq, FUTEX_WAIT_PRIVATE, seen);
			continue;
		}
		seen = now;
		w->wakeups++;
	}
	w->cpu_ns = sched_thread_cpu_ns();
	return NULL;
}

static void *kicker_main(void *arg)
{
	struct kick *k = arg;
	uint64_t next, now, late;
	size_t i;

	if (k->res.kicker_cpu >= 0)
		k->kicker_err = sched_pin_self(k->res.kicker_cpu);
	if (!k->kicker_err && k->o.prio > 0)
		k->kicker_fifo_err = sched_fifo_self(k->o.prio);
	ready_wait(k);
	if (k->kicker_err)
		return NULL;
	next = sched_now_ns() + k->o.interval_ns;
	while (!atomic_load_explicit(&k->stop, memory_order_relaxed)) {
		if (sched_sleep_until(next) == -EINTR)
			continue;
		now = sched_now_ns();
		late = now > next ? now - next : 0;
		hdrhist_add(&k->res.late, late);
		k->res.periods++;
		for (i = 0; i < k->n; i++) {
			atomic_fetch_add_explicit(&k->w[i].seq, 1, memory_order_release);
			futex(&k->w[i].seq, FUTEX_WAKE_PRIVATE, 1);
		}
		next += k->o.interval_ns;
		while (next <= now) {
			next += k->o.interval_ns;
			k->res.missed++;
		}
	}
	k->res.cpu_ns += sched_thread_cpu_ns();
	return NULL;
}

static void stop_threads(struct kick *k)
{
	size_t i;

	pthread_mutex_lock(&k->lock);
	atomic_store(&k->stop, true);
	pthread_cond_broadcast(&k->cond);
	pthread_mutex_unlock(&k->lock);
	if (k->kicker_started)
		pthread_join(k->kicker, NULL);
	k->kicker_started = false;
	for (i = 0; i < k->n; i++) {
		if (!k->w[i].started)
			continue;
		atomic_fetch_add(&k->w[i].seq, 1);
		futex(&k->w[i].seq, FUTEX_WAKE_PRIVATE, 1);
		pthread_join(k->w[i].tid, NULL);
		k->w[i].started = false;
	}
}

/* An allowed, online CPU outside the waiters' set for the kicker, or -1. */
static int kicker_cpu(const struct kick_opts *o)
{
	struct cpulist allowed, online, possible;
	int cpu;

	if (o->mode != KICK_KICK || sched_cpus_allowed(&allowed) < 0 ||
	    sched_cpus_read(NULL, &online, &possible, NULL) < 0)
		return -1;
	for (cpu = cpulist_next(&allowed, 0); cpu >= 0; cpu = cpulist_next(&allowed, cpu + 1))
		if (cpulist_has(&online, cpu) && !cpulist_has(&o->cpus, cpu))
			return cpu;
	return -1;
}

int kick_start(const struct kick_opts *o, struct kick **ret, struct strbuf *err)
{
	struct kick *k;
	pthread_attr_t attr;
	sigset_t all, old;
	size_t i, want;
	int cpu, r = 0;

	if (!o->interval_ns || o->prio < 0 || o->prio > 99 ||
	    (o->mode == KICK_KICK && cpulist_count(&o->cpus) == 0))
		return -EINVAL;
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	k->o = *o;
	k->n = o->mode == KICK_KICK ? (size_t)cpulist_count(&o->cpus) : 0;
	k->w = calloc(k->n ? k->n : 1, sizeof(*k->w));
	if (!k->w) {
		free(k);
		return -ENOMEM;
	}
	pthread_mutex_init(&k->lock, NULL);
	pthread_cond_init(&k->cond, NULL);
	hdrhist_init(&k->res.late);
	k->res.kicker_cpu = kicker_cpu(o);
	cpu = cpulist_next(&o->cpus, 0);
	for (i = 0; i < k->n; i++, cpu = cpulist_next(&o->cpus, cpu + 1)) {
		k->w[i].k = k;
		k->w[i].cpu = cpu;
	}

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, STACK_SIZE);
	for (i = 0; i < k->n && r == 0; i++) {
		r = -pthread_create(&k->w[i].tid, &attr, waiter_main, &k->w[i]);
		if (r < 0)
			sb_addf(err, "cpu %d: unable to start a thread: %s", k->w[i].cpu,
				strerror(-r));
		else
			k->w[i].started = true;
	}
	if (r == 0) {
		r = -pthread_create(&k->kicker, &attr, kicker_main, k);
		if (r < 0)
			sb_addf(err, "unable to start the kicker thread: %s", strerror(-r));
		else
			k->kicker_started = true;
	}
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);

	if (r == 0) {
		want = k->n + 1;
		pthread_mutex_lock(&k->lock);
		while (k->ready < want)
			pthread_cond_wait(&k->cond, &k->lock);
		pthread_mutex_unlock(&k->lock);
		for (i = 0; i < k->n && r == 0; i++) {
			if (k->w[i].err) {
				r = k->w[i].err;
				sb_addf(err, "cpu %d: unable to pin a thread there: %s",
					k->w[i].cpu, strerror(-r));
			}
		}
		if (r == 0 && k->kicker_err) {
			r = k->kicker_err;
			sb_addf(err, "cpu %d: unable to pin the kicker there: %s",
				k->res.kicker_cpu, strerror(-r));
		}
	}
	if (r < 0) {
		stop_threads(k);
		k->stopped = true;
		kick_free(k);
		return r;
	}
	k->res.fifo = o->prio > 0 && !k->kicker_fifo_err;
	k->res.fifo_err = k->kicker_fifo_err;
	for (i = 0; i < k->n; i++) {
		if (k->w[i].fifo_err) {
			k->res.fifo = false;
			k->res.fifo_err = k->w[i].fifo_err;
		}
	}
	k->t_start = sched_now_ns();
	pthread_mutex_lock(&k->lock);
	k->go = true;
	pthread_cond_broadcast(&k->cond);
	pthread_mutex_unlock(&k->lock);
	*ret = k;
	return 0;
}

int kick_stop(struct kick *k, struct kick_result *ret)
{
	size_t i;

	if (!k->stopped) {
		stop_threads(k);
		k->stopped = true;
		k->res.wall_ns = sched_now_ns() - k->t_start;
		for (i = 0; i < k->n; i++) {
			k->res.wakeups += k->w[i].wakeups;
			k->res.cpu_ns += k->w[i].cpu_ns;
		}
	}
	if (ret)
		*ret = k->res;
	return 0;
}

void kick_free(struct kick *k)
{
	if (!k)
		return;
	if (!k->stopped)
		kick_stop(k, NULL);
	pthread_mutex_destroy(&k->lock);
	pthread_cond_destroy(&k->cond);
	free(k->w);
	free(k);
}
