// SPDX-License-Identifier: MIT
/*
 * ring.c: the consumer side of the frame ring (ring.h). Creates the POSIX
 * shared-memory object, lays out the header of include/stallscope-ring.h,
 * and drains committed slots in order, skipping slots whose producer died
 * between reserve and commit.
 *
 * Assumes one consumer thread per ring and producers that follow
 * ss_ring_push(): reserve by compare-exchange on head, write the entry,
 * publish seq = slot + 1 with release order. Assumes nothing of what the
 * producers actually write: the ring is the recorded program's memory as
 * much as ours. The consumer keeps its own tail (the shared one is only
 * told, for the producers), bounds its work per sample, checks head and the
 * header against what a producer of ours can make of them, and turns a
 * fault on the mapping (the object truncated under it) into a broken ring
 * instead of a SIGBUS. A broken ring is never read again.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frames/ring.h"
#include "stallscope-ring.h"

struct ring {
	struct ss_ring *shared;	/* the mapping, ss_ring_size(capacity) bytes */
	size_t size;
	int fd;			/* the shared-memory object, kept for ring_chown */
	bool lazy;		/* its pages not reserved at creation (/dev/shm short) */
	char name[64];
	uint32_t capacity;	/* ours: the header's copy is the producers' */
	uint32_t mask;		/* capacity - 1 */
	uint64_t created_ns;	/* CLOCK_MONOTONIC when the ring was made */
	uint64_t tail;		/* the next slot to read (the shared tail is a copy) */
	uint64_t head;		/* the highest head seen */
	uint64_t overruns;	/* the producers' count, as last read */
	uint64_t stuck_ns;	/* how long a slot may stay uncommitted behind others */
	uint64_t stuck_slot;	/* the slot being timed, when stuck_armed */
	uint64_t stuck_since;	/* when it was first seen stuck, ns */
	int stuck_armed;
	uint64_t budget_now;	/* the NOW_NS (the sample) the budget is for */
	uint32_t budget;	/* slot reads left to it */
	uint64_t drained;
	uint64_t stuck;
	uint64_t examined;	/* slot reads, all drains together */
	uint64_t broken_ns;	/* the NOW_NS of the drain that found it broken */
	char broken[200];	/* why the ring is no longer read; "" while it is */
};

/* Makes each name of this process unique; the pid makes it unique on the machine. */
static _Atomic unsigned ring_serial;

/* ------------------------------------------------------------ the guard */

/*
 * A producer may ftruncate the shared-memory object: the pages of our
 * mapping past its new end then raise SIGBUS when read. While a thread
 * reads the ring, ring_jb points at where it resumes; the handler jumps
 * there, and the read ends with the ring broken. A SIGBUS anywhere else
 * goes to the action that was there before ours.
 */
static __thread sigjmp_buf *volatile ring_jb;
static struct sigaction ring_old_bus;
static pthread_once_t ring_guard_once = PTHREAD_ONCE_INIT;

static void ring_on_bus(int sig, siginfo_t *si, void *uc)
{
	if (ring_jb && si->si_code > 0)	/* a fault, not a SIGBUS sent */
		siglongjmp(*ring_jb, 1);
	if (ring_old_bus.sa_flags & SA_SIGINFO) {
		ring_old_bus.sa_sigaction(sig, si, uc);
		return;
	}
	if (ring_old_bus.sa_handler != SIG_DFL && ring_old_bus.sa_handler != SIG_IGN) {
		ring_old_bus.sa_handler(sig);
		return;
	}
	/* the default: put it back; a fault comes again on return, a sent
	 * signal is sent again (it is blocked until we return) */
	sigaction(SIGBUS, &ring_old_bus, NULL);
	if (si->si_code <= 0)
		raise(sig);
}

static void ring_guard_install(void)
{
	struct sigaction sa = { .sa_sigaction = ring_on_bus, .sa_flags = SA_SIGINFO };

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, &ring_old_bus) < 0)
		ring_old_bus.sa_handler = SIG_DFL;
}

/* ------------------------------------------------------------ the ring */

int ring_new(uint32_t capacity, struct ring **ret)
{
	struct ring *r;
	int fd = -1, err;

	if (capacity == 0)
		capacity = RING_CAPACITY_DEFAULT;
	if (capacity < 2 || capacity > (1u << 24) || (capacity & (capacity - 1)))
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	/* A stale object of a dead recorder with our pid may exist: try the next n. */
	for (int tries = 0; tries < 64; tries++) {
		snprintf(r->name, sizeof(r->name), "/stallscope-%ld-%u", (long)getpid(),
			 atomic_fetch_add(&ring_serial, 1));
		fd = shm_open(r->name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0) {
		err = -errno;
		free(r);
		return err;
	}
	r->fd = fd;
	r->size = ss_ring_size(capacity);
	if (ftruncate(fd, (off_t)r->size) < 0)
		goto fail;
	/* The pages are allocated now, not as the program's first lap writes
	 * them: no page is allocated and zeroed in its present path, and the
	 * recorder's memory is what it will be from the start (a 60 fps run
	 * took 18 minutes to fill the 1.5 MB; the soak read that as growth).
	 * Where /dev/shm cannot hold it now, they are allocated as they are
	 * first written, as before. */
	if (posix_fallocate(fd, 0, (off_t)r->size) != 0)
		r->lazy = true;
	r->shared = mmap(NULL, r->size, PROT_READ | PROT_WRITE,
			 MAP_SHARED | (r->lazy ? 0 : MAP_POPULATE), fd, 0);
	if (r->shared == MAP_FAILED) {
		r->shared = NULL;
		goto fail;
	}
	/* ftruncate zero-filled the object: every seq is 0, so no slot reads as
	 * committed (slot s is committed when seq == s + 1). */
	r->shared->hdr.version = SS_RING_VERSION;
	r->shared->hdr.capacity = capacity;
	atomic_store(&r->shared->hdr.head, 0);
	atomic_store(&r->shared->hdr.tail, 0);
	atomic_store(&r->shared->hdr.overruns, 0);
	atomic_thread_fence(memory_order_release);
	r->shared->hdr.magic = SS_RING_MAGIC;
	r->capacity = capacity;
	r->mask = capacity - 1;
	r->stuck_ns = RING_STUCK_NS_DEFAULT;
	r->budget = capacity;
	r->created_ns = ss_now_ns();
	pthread_once(&ring_guard_once, ring_guard_install);
	*ret = r;
	return 0;

fail:
	err = -errno;
	shm_unlink(r->name);
	close(fd);
	free(r);
	return err;
}

void ring_free(struct ring *r)
{
	if (!r)
		return;
	if (r->shared)
		munmap(r->shared, r->size);
	shm_unlink(r->name);
	close(r->fd);
	free(r);
}

const char *ring_name(const struct ring *r)
{
	return r->name;
}

int ring_chown(struct ring *r, uid_t uid, gid_t gid)
{
	return fchown(r->fd, uid, gid) < 0 ? -errno : 0;
}

void ring_set_stuck_ns(struct ring *r, uint64_t ns)
{
	r->stuck_ns = ns ? ns : RING_STUCK_NS_DEFAULT;
}

struct ss_ring *ring_shared(struct ring *r)
{
	return r->shared;
}

uint64_t ring_created_ns(const struct ring *r)
{
	return r->created_ns;
}

const char *ring_broken(const struct ring *r, uint64_t *ret_ns)
{
	if (!r->broken[0])
		return NULL;
	if (ret_ns)
		*ret_ns = r->broken_ns;
	return r->broken;
}

static void ring_break(struct ring *r, uint64_t now_ns, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void ring_break(struct ring *r, uint64_t now_ns, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->broken, sizeof(r->broken), fmt, ap);
	va_end(ap);
	r->broken_ns = now_ns;
}

/* Reads slot SLOT's seq, one read of the sample's budget. Committed: 1. */
static int slot_committed(struct ring *r, uint64_t slot)
{
	const struct ss_ring_entry *e = &r->shared->e[slot & r->mask];

	r->budget--;
	r->examined++;
	return atomic_load_explicit(&e->seq, memory_order_acquire) == slot + 1;
}

/* Whether any slot after TAIL, before HEAD, is committed; as far as the
 * budget goes (not found within it: 0, and the next sample looks again). */
static int later_committed(struct ring *r, uint64_t tail, uint64_t head)
{
	for (uint64_t s = tail + 1; s < head && r->budget; s++)
		if (slot_committed(r, s))
			return 1;
	return 0;
}

/* What a producer of ours can do to the header: head moves on, at most
 * capacity ahead of our tail; tail, magic, version and capacity stay as we
 * wrote them. 0, or -1 with the ring broken. */
static int check_header(struct ring *r, uint64_t now_ns)
{
	const struct ss_ring_hdr *h = &r->shared->hdr;
	uint64_t tail = atomic_load_explicit(&h->tail, memory_order_relaxed);

	if (h->magic != SS_RING_MAGIC || h->version != SS_RING_VERSION ||
	    h->capacity != r->capacity) {
		ring_break(r, now_ns, "its header was overwritten (magic, version or capacity)");
		return -1;
	}
	if (tail != r->tail) {
		ring_break(r, now_ns, "its tail was moved to %llu, the reader's being %llu "
			   "(only the reader moves it)", (unsigned long long)tail,
			   (unsigned long long)r->tail);
		return -1;
	}
	return 0;
}

/* Takes HEAD as read: 0, or -1 with the ring broken when no producer of
 * ours could have made it. */
static int check_head(struct ring *r, uint64_t now_ns, uint64_t head)
{
	if (head - r->tail > r->capacity) {
		ring_break(r, now_ns, "its head %llu is not within %u slots after its tail %llu",
			   (unsigned long long)head, r->capacity, (unsigned long long)r->tail);
		return -1;
	}
	if (head < r->head) {
		ring_break(r, now_ns, "its head went back from %llu to %llu",
			   (unsigned long long)r->head, (unsigned long long)head);
		return -1;
	}
	r->head = head;
	return 0;
}

/* ring_drain's loop, with the guard set. */
static size_t drain(struct ring *r, uint64_t now_ns, struct ring_frame *out, size_t max)
{
	struct ss_ring_hdr *h = &r->shared->hdr;
	size_t n = 0;

	if (check_header(r, now_ns) < 0)
		return 0;
	while (n < max && r->budget) {
		uint64_t head = atomic_load_explicit(&h->head, memory_order_acquire);

		if (check_head(r, now_ns, head) < 0)
			break;
		if (r->tail == head)
			break;
		if (slot_committed(r, r->tail)) {
			const struct ss_ring_entry *e = &r->shared->e[r->tail & r->mask];

			out[n].t_ns = e->t_ns;
			out[n].tid = e->tid;
			out[n].source = e->source;
			n++;
			/* Read before release: a producer may refill the slot
			 * once tail has moved past it. */
			atomic_store_explicit(&h->tail, ++r->tail, memory_order_release);
			r->stuck_armed = 0;
			continue;
		}
		/* Not committed yet. A producer in the middle of its push is
		 * the common case: wait, unless later slots are committed and
		 * this one has been waited on for longer than stuck_ns. */
		if (!later_committed(r, r->tail, head))
			break;
		if (!r->stuck_armed || r->stuck_slot != r->tail) {
			r->stuck_armed = 1;
			r->stuck_slot = r->tail;
			r->stuck_since = now_ns;
			break;
		}
		if (now_ns - r->stuck_since < r->stuck_ns)
			break;
		atomic_store_explicit(&h->tail, ++r->tail, memory_order_release);
		r->stuck++;
		r->stuck_armed = 0;
	}
	r->overruns = atomic_load_explicit(&h->overruns, memory_order_relaxed);
	r->drained += n;
	return n;
}

size_t ring_drain(struct ring *r, uint64_t now_ns, struct ring_frame *out, size_t max)
{
	sigjmp_buf jb;
	size_t n;

	if (r->broken[0])
		return 0;
	if (now_ns != r->budget_now) {
		r->budget_now = now_ns;
		r->budget = r->capacity;
	}
	if (sigsetjmp(jb, 1)) {
		ring_jb = NULL;
		ring_break(r, now_ns, "its memory went away under the reader (the shared-memory "
			   "object was truncated)");
		return 0;
	}
	ring_jb = &jb;
	n = drain(r, now_ns, out, max);
	ring_jb = NULL;
	return n;
}

void ring_stats(const struct ring *r, struct ring_stats *ret)
{
	const struct ss_ring_hdr *h = &r->shared->hdr;
	volatile uint64_t head = r->head, overruns = r->overruns;
	sigjmp_buf jb;

	/* the producers' figures as they are now, unless their memory has
	 * gone (then as last read) */
	if (!r->broken[0]) {
		if (sigsetjmp(jb, 1) == 0) {
			ring_jb = &jb;
			head = atomic_load_explicit(&h->head, memory_order_acquire);
			overruns = atomic_load_explicit(&h->overruns, memory_order_relaxed);
		}
		ring_jb = NULL;
	}
	ret->drained = r->drained;
	ret->overruns = overruns;
	ret->stuck = r->stuck;
	ret->pending = head - r->tail <= r->capacity ? head - r->tail : 0;
	ret->examined = r->examined;
	ret->broken = r->broken[0] != 0;
}

int ring_reap_stale(const char *shm_dir)
{
	struct dirent *e;
	int n = 0;
	DIR *d;

	d = opendir(shm_dir ? shm_dir : "/dev/shm");
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		char name[300], *end;
		long pid;

		if (strncmp(e->d_name, "stallscope-", 11))
			continue;
		pid = strtol(e->d_name + 11, &end, 10);
		/* a ring's name is exactly stallscope-<pid>-<n>: a record
		 * (.ssr) or a log beside it has a stamp and an extension */
		if (pid <= 0 || *end != '-' || !end[1] || strspn(end + 1, "0123456789") !=
								strlen(end + 1))
			continue;
		if (pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;	/* ours, or alive (or not ours to ask about) */
		if (shm_dir)
			snprintf(name, sizeof(name), "%s/%s", shm_dir, e->d_name);
		else
			snprintf(name, sizeof(name), "/%s", e->d_name);
		if ((shm_dir ? unlink(name) : shm_unlink(name)) == 0)
			n++;
	}
	closedir(d);
	return n;
}
