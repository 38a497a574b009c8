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
 *     ring_stats agree; pending is never over capacity.
 * A reader that loops for ever shows as a libFuzzer timeout. Seeds in
 * fuzz/corpus/ring/ (README there). Built and run by
 * scripts/fuzz.sh (`make fuzz`) and tests/e2e/fuzz-ring.sh.
 *
 * fuzz-sources: src/frames/ring.c
 * fuzz-reader: src/frames/ring.c
 */
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
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

	if (ring_new(cap, &r) < 0)
		return 0;	/* no /dev/shm: nothing to fuzz */
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
			why = ring_broken(r, NULL);
			if (n > max || !why != !st.broken || st.pending > cap ||
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
		case 10:	/* the object truncated under the reader, rarely */
			if (take(&in, 1) == 0xa5) {
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
	return 0;
}
