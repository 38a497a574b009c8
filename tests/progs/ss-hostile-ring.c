// SPDX-License-Identifier: MIT
/*
 * ss-hostile-ring: a recorded program that attacks the recorder through the
 * frame ring (include/stallscope-ring.h) instead of presenting through it,
 * for tests/e2e/ring-hostile.sh. It maps the ring named in STALLSCOPE_RING
 * as the shim would, presents a few frames the proper way so that the
 * recorder has started reading, then does what --mode says until it is
 * stopped (SIGTERM, the default action):
 *
 *   far-ahead  head set to tail + 2^62 with one later slot committed
 *   rewind     tail set back in a loop, so that old entries look new
 *   order      slots reserved in batches and committed last to first (legal)
 *   stamps     entries with impossible stamps, sources and tids beside good
 *              ones; and API spans: a good one, one of an unknown call, one
 *              under 1 ms, one that ends after it was pushed, one of tid 0
 *   flood      proper pushes as fast as it can (millions a second)
 *   tid        presents stamped with the thread id given by --tid, a
 *              process that is not the run's (the recorder must not follow it)
 *   truncate   the shared-memory object truncated to 0 bytes
 *
 * Prints "ss-hostile-ring: mode=M pushed=N" at the start of its attack, N
 * the proper frames it pushed before. Exits 2 when there is no ring to
 * attack. Not sanitized, links nothing of ours: it is the program.
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "stallscope-ring.h"

#define WARMUP_FRAMES 50

static struct ss_ring *ring;
static int ring_fd = -1;
static uint32_t me;

static void sleep_ns(long ns)
{
	struct timespec ts = { ns / 1000000000L, ns % 1000000000L };

	nanosleep(&ts, NULL);
}

/* Maps the ring the way include/stallscope.h does. 0, or -1. */
static int map_ring(void)
{
	const char *name = getenv(SS_RING_ENV);
	struct stat st;
	void *p;

	if (!name)
		return -1;
	ring_fd = shm_open(name, O_RDWR | O_CLOEXEC, 0);
	if (ring_fd < 0 || fstat(ring_fd, &st) < 0 || (size_t)st.st_size < ss_ring_size(2))
		return -1;
	p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, ring_fd, 0);
	if (p == MAP_FAILED)
		return -1;
	ring = p;
	return ring->hdr.magic == SS_RING_MAGIC ? 0 : -1;
}

/* Reserves one slot as a producer does; returns it, or UINT64_MAX when full. */
static uint64_t reserve(void)
{
	uint64_t h = atomic_load(&ring->hdr.head);

	for (;;) {
		if (h - atomic_load(&ring->hdr.tail) >= ring->hdr.capacity)
			return UINT64_MAX;
		if (atomic_compare_exchange_weak(&ring->hdr.head, &h, h + 1))
			return h;
	}
}

static void commit(uint64_t slot, uint64_t t_ns, uint32_t tid, uint32_t source)
{
	struct ss_ring_entry *e = &ring->e[slot & (ring->hdr.capacity - 1)];

	e->t_ns = t_ns;
	e->tid = tid;
	e->source = source;
	atomic_store_explicit(&e->seq, slot + 1, memory_order_release);
}

/* Proper presents at about 1000 a second until the recorder has taken them. */
static long warm_up(void)
{
	long n = 0;

	for (int i = 0; i < WARMUP_FRAMES; i++) {
		n += ss_ring_push(ring, ss_now_ns(), me, SS_SRC_MARKER) == 0;
		sleep_ns(1000000);
	}
	for (int i = 0; i < 200; i++) {
		if (atomic_load(&ring->hdr.tail) == atomic_load(&ring->hdr.head))
			break;
		sleep_ns(10000000);
	}
	return n;
}

static void far_ahead(void)
{
	uint64_t t = atomic_load(&ring->hdr.tail);

	atomic_store(&ring->hdr.head, t + (1ull << 62));
	commit(t + 1, ss_now_ns(), me, SS_SRC_MARKER);
	for (;;)
		pause();
}

/* Fills the ring once, then sets tail back by most of a lap every 0.1 ms:
 * the slots behind it still hold their entries and their seq, so a reader
 * that trusted tail would read them again and again. */
static void rewind_tail(void)
{
	uint64_t back = ring->hdr.capacity - 1024;

	while (atomic_load(&ring->hdr.head) < ring->hdr.capacity)
		if (ss_ring_push(ring, ss_now_ns(), me, SS_SRC_MARKER) < 0)
			sleep_ns(1000000);
	for (;;) {
		uint64_t t = atomic_load(&ring->hdr.tail);

		atomic_store(&ring->hdr.tail, t > back ? t - back : 0);
		sleep_ns(100000);
	}
}

static void out_of_order(void)
{
	for (;;) {
		uint64_t s[16];
		int n = 0;

		while (n < 16 && (s[n] = reserve()) != UINT64_MAX)
			n++;
		while (n--)
			commit(s[n], ss_now_ns(), me, SS_SRC_MARKER);
		sleep_ns(2000000);
	}
}

static void bad_stamps(void)
{
	static const uint64_t stamps[] = { 0, 1, UINT64_MAX, UINT64_MAX / 2, 1ull << 62 };
	unsigned k = 0;

	for (;;) {
		uint64_t now = ss_now_ns(), s;

		/* one good frame, then one of each kind of impossible entry */
		ss_ring_push(ring, now, me, SS_SRC_MARKER);
		ss_ring_push(ring, stamps[k++ % 5], me, SS_SRC_MARKER);
		ss_ring_push(ring, now + 3600ull * 1000000000ull, me, SS_SRC_MARKER);
		ss_ring_push(ring, now, me, k & 1 ? 0 : 99 + k);
		ss_ring_push(ring, now, 0x80000000u + k, SS_SRC_MARKER);
		ss_ring_push(ring, now - 2000000, me,
			     ss_span_source(SS_API_GL_LINK_PROGRAM, 2000000));
		ss_ring_push(ring, now - 2000000, me, SS_SRC_SPAN | 0x7fu << 24 | 2000);
		ss_ring_push(ring, now - 2000000, me, ss_span_source(SS_API_GL_FINISH, 999000));
		ss_ring_push(ring, now, me, ss_span_source(SS_API_GL_FINISH, 16000000000ull));
		ss_ring_push(ring, now - 2000000, 0, ss_span_source(SS_API_GL_FINISH, 2000000));
		/* a commit with the seq of a slot one lap ahead (not a frame),
		 * then the right one with a stamp from before the ring */
		if ((s = reserve()) != UINT64_MAX) {
			commit(s + ring->hdr.capacity, now, me, SS_SRC_MARKER);
			commit(s, 2, me, SS_SRC_MARKER);
		}
		sleep_ns(2000000);
	}
}

static void flood(void)
{
	for (;;)
		ss_ring_push(ring, ss_now_ns(), me, SS_SRC_MARKER);
}

static void foreign_tid(uint32_t tid)
{
	for (;;) {
		/* ten of the foreign thread for each of ours: it presents "most" */
		for (int i = 0; i < 10; i++)
			ss_ring_push(ring, ss_now_ns(), tid, SS_SRC_MARKER);
		ss_ring_push(ring, ss_now_ns(), me, SS_SRC_MARKER);
		sleep_ns(1000000);
	}
}

static void truncate_ring(void)
{
	if (ftruncate(ring_fd, 0) < 0)
		perror("ss-hostile-ring: ftruncate");
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "tid", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	const char *mode = NULL;
	uint32_t tid = 1;
	long pushed;
	int c;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c == 'm')
			mode = optarg;
		else if (c == 't')
			tid = (uint32_t)strtoul(optarg, NULL, 10);
		else
			return 2;
	}
	if (!mode) {
		fprintf(stderr, "usage: ss-hostile-ring --mode far-ahead|rewind|order|stamps|"
				"flood|tid|truncate [--tid TID]\n");
		return 2;
	}
	if (map_ring() < 0) {
		fprintf(stderr, "ss-hostile-ring: no frame ring in %s\n", SS_RING_ENV);
		return 2;
	}
	me = (uint32_t)gettid();
	pushed = warm_up();
	printf("ss-hostile-ring: mode=%s pushed=%ld\n", mode, pushed);
	fflush(stdout);
	if (!strcmp(mode, "far-ahead"))
		far_ahead();
	else if (!strcmp(mode, "rewind"))
		rewind_tail();
	else if (!strcmp(mode, "order"))
		out_of_order();
	else if (!strcmp(mode, "stamps"))
		bad_stamps();
	else if (!strcmp(mode, "flood"))
		flood();
	else if (!strcmp(mode, "tid"))
		foreign_tid(tid);
	else if (!strcmp(mode, "truncate"))
		truncate_ring();
	fprintf(stderr, "ss-hostile-ring: unknown mode '%s'\n", mode);
	return 2;
}
