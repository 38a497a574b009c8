// SPDX-License-Identifier: MIT
/*
 * ring.c: the consumer side of the frame ring (ring.h). Creates the POSIX
 * shared-memory object, lays out the header of include/stallscope-ring.h,
 * and drains committed slots in order, skipping slots whose producer died
 * between reserve and commit.
 *
 * Assumes one consumer thread per ring (tail is written by it alone, so its
 * loads of tail are plain) and producers that follow ss_ring_push(): reserve
 * by compare-exchange on head, write the entry, publish seq = slot + 1 with
 * release order.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
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
	char name[64];
	uint32_t mask;		/* capacity - 1 */
	uint64_t stuck_ns;	/* how long a slot may stay uncommitted behind others */
	uint64_t stuck_slot;	/* the slot being timed, when stuck_armed */
	uint64_t stuck_since;	/* when it was first seen stuck, ns */
	int stuck_armed;
	uint64_t drained;
	uint64_t stuck;
};

/* Makes each name of this process unique; the pid makes it unique on the machine. */
static _Atomic unsigned ring_serial;

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
	r->shared = mmap(NULL, r->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
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
	r->mask = capacity - 1;
	r->stuck_ns = RING_STUCK_NS_DEFAULT;
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

static int slot_committed(const struct ring *r, uint64_t slot)
{
	const struct ss_ring_entry *e = &r->shared->e[slot & r->mask];

	return atomic_load_explicit(&e->seq, memory_order_acquire) == slot + 1;
}

/* Whether any slot after TAIL, before HEAD, is committed. */
static int later_committed(const struct ring *r, uint64_t tail, uint64_t head)
{
	for (uint64_t s = tail + 1; s < head; s++)
		if (slot_committed(r, s))
			return 1;
	return 0;
}

size_t ring_drain(struct ring *r, uint64_t now_ns, struct ring_frame *out, size_t max)
{
	struct ss_ring_hdr *h = &r->shared->hdr;
	uint64_t tail = atomic_load_explicit(&h->tail, memory_order_relaxed);
	size_t n = 0;

	while (n < max) {
		uint64_t head = atomic_load_explicit(&h->head, memory_order_acquire);

		if (tail == head)
			break;
		if (slot_committed(r, tail)) {
			const struct ss_ring_entry *e = &r->shared->e[tail & r->mask];

			out[n].t_ns = e->t_ns;
			out[n].tid = e->tid;
			out[n].source = e->source;
			n++;
			/* Read before release: a producer may refill the slot
			 * once tail has moved past it. */
			atomic_store_explicit(&h->tail, ++tail, memory_order_release);
			r->stuck_armed = 0;
			continue;
		}
		/* Not committed yet. A producer in the middle of its push is
		 * the common case: wait, unless later slots are committed and
		 * this one has been waited on for longer than stuck_ns. */
		if (!later_committed(r, tail, head))
			break;
		if (!r->stuck_armed || r->stuck_slot != tail) {
			r->stuck_armed = 1;
			r->stuck_slot = tail;
			r->stuck_since = now_ns;
			break;
		}
		if (now_ns - r->stuck_since < r->stuck_ns)
			break;
		atomic_store_explicit(&h->tail, ++tail, memory_order_release);
		r->stuck++;
		r->stuck_armed = 0;
	}
	r->drained += n;
	return n;
}

void ring_stats(const struct ring *r, struct ring_stats *ret)
{
	const struct ss_ring_hdr *h = &r->shared->hdr;
	uint64_t head = atomic_load_explicit(&h->head, memory_order_acquire);
	uint64_t tail = atomic_load_explicit(&h->tail, memory_order_relaxed);

	ret->drained = r->drained;
	ret->overruns = atomic_load_explicit(&h->overruns, memory_order_relaxed);
	ret->stuck = r->stuck;
	ret->pending = head - tail;
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
