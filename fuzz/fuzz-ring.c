// SPDX-License-Identifier: MIT
/*
 * fuzz-ring.c: a libFuzzer target for the frame ring's reader (ring_drain,
 * src/frames/ring.c) against a producer that writes anything: the input is
 * a script of what the recorded program does to the shared memory (proper
 * pushes, reserves never committed, any value into head, tail, a slot's
 * seq or fields, the header's constants, a truncation of the object)
 * between drains at times it also supplies. After every drain the reader's
 * promises must hold, else abort():
 *   - a drain copies at most its MAX and only entries of slots it could
 *     have read (each copy's t_ns as some write put it there), each push
 *     once at most;
 *   - the drains of one sample (one now) read at most capacity slots;
 *   - a broken ring stays broken and gives nothing; ring_broken and
 *     ring_stats agree, and it broke at a drain's time; pending is never
 *     over capacity.
 * The script may also leave names in a scratch shared-memory directory (a
 * dead recorder's ring, a live one's, ours, any bytes: /dev/shm is every
 * user's to write), which ring_reap_stale then reads: it must remove the
 * rings of dead recorders and nothing else, and count what it removed.
 * A reader that loops for ever shows as a libFuzzer timeout. Seeds in
 * fuzz/corpus/ring/ (README there). Built and run by
 * scripts/fuzz.sh (`make fuzz`) and tests/e2e/fuzz-ring.sh.
 *
 * fuzz-sources: src/frames/ring.c
 * fuzz-reader: src/frames/ring.c
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "frames/ring.h"
#include "stallscope-ring.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct in {
	const uint8_t *p, *end;
};

static uint64_t take(struct in *in, unsigned bytes)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < bytes && in->p < in->end; i++)
		v |= (uint64_t)*in->p++ << (8 * i);
	return v;
}

/* Every t_ns any write put into the ring (pushes and entry writes): a
 * drained entry's stamp must be one of them (or 0, a slot never written).
 * A push's stamp is PUSHED | its number and no other write makes one, so
 * the reader, which reads each slot once, hands each out once at most (a
 * reader that followed a rewound tail would hand them out again). */
#define MAXT 4096
#define PUSHED (1ull << 63)
static uint64_t written[MAXT];
static size_t nwritten;
static uint64_t npushed;
static uint8_t handed[MAXT];	/* pushes handed out, by number */

static void wrote(uint64_t t)
{
	if (nwritten < MAXT)
		written[nwritten++] = t;
}

static int was_written(uint64_t t)
{
	if (t == 0 || nwritten >= MAXT)
		return 1;
	for (size_t i = 0; i < nwritten; i++)
		if (written[i] == t)
			return 1;
	return 0;
}

/* ss_ring_push with the capacity we made the ring with: the header's may
 * have been overwritten by an earlier op, and the producer (this target)
 * must not write past the mapping itself. */
static void push(struct ss_ring *s, uint32_t cap, uint64_t t, uint32_t tid)
{
	uint64_t h = atomic_load(&s->hdr.head);

	do {
		if (h - atomic_load(&s->hdr.tail) >= cap) {
			atomic_fetch_add(&s->hdr.overruns, 1);
			return;
		}
	} while (!atomic_compare_exchange_weak(&s->hdr.head, &h, h + 1));
	s->e[h & (cap - 1)].t_ns = t;
	s->e[h & (cap - 1)].tid = tid;
	s->e[h & (cap - 1)].source = SS_SRC_MARKER;
	atomic_store_explicit(&s->e[h & (cap - 1)].seq, h + 1, memory_order_release);
}

/* ------------------------------------------------ stale names */

static char shm_dir[] = "/dev/shm/ss-fuzz-ring-XXXXXX";
static int made_dir;

/* The names left in the scratch directory: KEEP, whether ring_reap_stale
 * must leave it (ours, a live process's, not a ring's name); GONE, whether
 * it must remove it (a dead recorder's ring); neither: its choice. */
#define MAXNAMES 16
static struct {
	char name[80];
	int keep, gone;
} names[MAXNAMES];
static int nnames;

static void rm_names(void)
{
	DIR *d = opendir(shm_dir);
	struct dirent *e;
	char p[200];

	if (!d)
		return;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(p, sizeof(p), "%s/%s", shm_dir, e->d_name);
			unlink(p);
		}
	closedir(d);
}

static void cleanup(void)
{
	rm_names();
	rmdir(shm_dir);
}

/* A name the script leaves: a ring of ours, of a dead recorder, of init
 * (alive), or any bytes. */
static void leave_name(struct in *in)
{
	unsigned kind = (unsigned)take(in, 1) % 4, serial = (unsigned)take(in, 1);
	char *n;
	char p[200];
	int fd;

	if (!made_dir) {
		if (!mkdtemp(shm_dir)) {
			memcpy(shm_dir, "/tmp/ss-fuzz-ring-XXXXXX", sizeof(shm_dir));
			if (!mkdtemp(shm_dir))
				abort();
		}
		atexit(cleanup);
		made_dir = 1;
	}
	if (nnames == MAXNAMES)
		return;
	n = names[nnames].name;
	names[nnames].keep = names[nnames].gone = 0;
	switch (kind) {
	case 0:
		snprintf(n, 80, "stallscope-%ld-%u", (long)getpid(), serial);
		names[nnames].keep = 1;
		break;
	case 1:	/* past any pid_max (2^22): no such process */
		snprintf(n, 80, "stallscope-%ld-%u", 2000000000L + (long)serial, serial);
		names[nnames].gone = 1;
		break;
	case 2:
		snprintf(n, 80, "stallscope-1-%u", serial);
		names[nnames].keep = 1;
		break;
	default: {
		size_t len = 1 + (size_t)take(in, 1) % 40, i;

		for (i = 0; i < len && in->p < in->end; i++) {
			char c = (char)*in->p++;

			n[i] = c == '/' || c == '\0' ? '_' : c;
		}
		n[i] = '\0';
		if (!strcmp(n, ".") || !strcmp(n, ".."))
			return;
		/* not stallscope-<pid>-<digits>: not a ring */
		names[nnames].keep = strncmp(n, "stallscope-", 11) != 0;
		break;
	}
	}
	snprintf(p, sizeof(p), "%s/%s", shm_dir, n);
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		return;	/* made already */
	close(fd);
	nnames++;
}

/* ring_reap_stale on the names left: what it must remove, removed; what
 * it must leave, there; its count, what went. */
static void reap(void)
{
	int gone = 0, n;
	char p[200];

	if (!nnames)
		return;
	n = ring_reap_stale(shm_dir);
	if (n < 0)
		abort();
	for (int i = 0; i < nnames; i++) {
		snprintf(p, sizeof(p), "%s/%s", shm_dir, names[i].name);
		if (access(p, F_OK) == 0) {
			if (names[i].gone)
				abort();	/* a dead recorder's ring left */
		} else {
			if (names[i].keep)
				abort();	/* a live ring, or not a ring, removed */
			gone++;
		}
	}
	if (n != gone)
		abort();
	rm_names();
	nnames = 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in in = { data, data + size };
	struct ring_frame out[64];
	struct ring_stats st, prev = { 0 };
	uint64_t now = 1, now_examined = 0;
	uint32_t cap = 2u << (take(&in, 1) % 10);	/* 2 .. 1024 */
	struct ss_ring *s;
	struct ring *r;
	int truncated = 0;

	if (ring_new(3, &r) != -EINVAL || ring_reap_stale("/nonexistent/ss-fuzz-ring") >= 0)
		abort();	/* a capacity not a power of two; a directory not there */
	if (ring_new(cap, &r) < 0)
		return 0;	/* no /dev/shm: nothing to fuzz */
	if (!ring_created_ns(r) || ring_chown(r, getuid(), getgid()) < 0)
		abort();
	s = ring_shared(r);
	nwritten = 0;
	npushed = 0;
	memset(handed, 0, sizeof(handed));
	ring_set_stuck_ns(r, 1 + take(&in, 1) * 1000);
	for (int ops = 0; ops < 4096 && in.p < in.end; ops++) {
		unsigned op = (unsigned)take(&in, 1) % 11;
		uint64_t v, k;

		if (truncated && op != 5 && op != 6)
			continue;	/* the program's writes would fault, its own problem */
		switch (op) {
		case 0:	/* a proper push */
			v = PUSHED | npushed++;
			push(s, cap, v, (uint32_t)take(&in, 1));
			break;
		case 1:	/* head set to anything, near it or far */
			v = take(&in, 1) & 1 ? atomic_load(&s->hdr.head) + take(&in, 2) - 32768
					     : take(&in, 8);
			atomic_store(&s->hdr.head, v);
			break;
		case 2:	/* tail set to anything, near it or far */
			v = take(&in, 1) & 1 ? atomic_load(&s->hdr.tail) + take(&in, 2) - 32768
					     : take(&in, 8);
			atomic_store(&s->hdr.tail, v);
			break;
		case 3:	/* slot tail + d committed (w 0), or given a later lap's
			 * seq, with a stamp of its own */
			k = atomic_load(&s->hdr.tail) + take(&in, 2) - 1024;
			v = take(&in, 1);
			s->e[k & (cap - 1)].t_ns = (k + 1) & ~PUSHED;
			wrote((k + 1) & ~PUSHED);
			atomic_store(&s->e[k & (cap - 1)].seq, k + 1 + cap * v);
			break;
		case 4:	/* an entry's fields */
			k = take(&in, 2) & (cap - 1);
			v = take(&in, 8) & ~PUSHED;
			wrote(v);
			s->e[k].t_ns = v;
			s->e[k].tid = (uint32_t)take(&in, 4);
			s->e[k].source = (uint32_t)take(&in, 4);
			break;
		case 5:	/* a drain in this sample */
		case 6:	/* a drain in the next sample */
		{
			size_t max = 1 + take(&in, 1) % 64, n;
			const char *why;

			if (op == 6) {
				now += 1 + take(&in, 2) * 1000;
				now_examined = prev.examined;
			}
			n = ring_drain(r, now, out, max);
			ring_stats(r, &st);
			uint64_t broke_ns = 0;

			why = ring_broken(r, &broke_ns);
			if (n > max || !why != !st.broken || st.pending > cap ||
			    (why && (!broke_ns || broke_ns > now)) ||
			    st.examined - now_examined > cap || (prev.broken && (n || !st.broken)))
				abort();
			for (size_t i = 0; i < n; i++) {
				uint64_t t = out[i].t_ns;

				if (!(t & PUSHED) && !was_written(t))
					abort();	/* a slot it had no business reading */
				if ((t & PUSHED) && ((t & ~PUSHED) >= npushed ||
						     handed[t & ~PUSHED]++))
					abort();	/* a push handed out twice */
			}
			prev = st;
			break;
		}
		case 7:	/* a reserve never committed */
			v = atomic_load(&s->hdr.head);
			atomic_compare_exchange_strong(&s->hdr.head, &v, v + 1);
			break;
		case 8:	/* the header's constants */
			k = take(&in, 1) % 3;
			v = take(&in, 4);
			if (k == 0)
				s->hdr.magic = v;
			else if (k == 1)
				s->hdr.version = (uint32_t)v;
			else
				s->hdr.capacity = (uint32_t)v;
			break;
		case 9:	/* the producers' own counter: theirs to lie about */
			atomic_store(&s->hdr.overruns, take(&in, 8));
			break;
		case 10:	/* the object truncated under the reader, rarely; or a
				 * name left in the shared-memory directory */
			v = take(&in, 1);
			if (v == 0x5a)
				leave_name(&in);
			if (v == 0xa5) {
				int fd = shm_open(ring_name(r), O_RDWR, 0);

				if (fd >= 0) {
					truncated = ftruncate(fd, 0) == 0;
					close(fd);
				}
			}
			break;
		}
	}
	ring_free(r);
	reap();
	return 0;
}
