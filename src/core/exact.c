// SPDX-License-Identifier: MIT
/* exact.c: exact mode's slot arithmetic (exact.h). */
#include <errno.h>
#include <string.h>

#include "core/hot.h"
#include "core/exact.h"
#include "core/record.h"

_Static_assert(sizeof(struct exact_slot) % 8 == 0, "slots are arrays of u64 words");
_Static_assert(sizeof(struct exact_interval) == 168, "the ring record's size is the ABI");

static const char *const class_names[X_NCLASS] = {
	[X_FILE_FAULT] = "file_fault", [X_SWAP_FAULT] = "swap_fault", [X_IO_READ] = "io_read",
	[X_IO_WRITE] = "io_write", [X_IO_META] = "io_meta", [X_IO_SYNC] = "io_sync",
	[X_GPU] = "gpu", [X_FUTEX] = "futex", [X_POLL] = "poll", [X_SOCKET] = "socket",
	[X_SLEEP] = "sleep", [X_OTHER] = "other", [X_RECLAIM] = "reclaim_wait",
	[X_PREEMPT] = "preempt",
};

const char *exact_class_name(unsigned cls)
{
	return cls < X_NCLASS ? class_names[cls] : NULL;
}

SS_HOT static void copy_plain(void *ctx, struct exact_slot *dst, const volatile struct exact_slot *src)
{
	(void)ctx;
	/* volatile: the compiler must read the shared memory each time */
	memcpy(dst, (const void *)src, sizeof(*dst));
}

SS_HOT int exact_slot_read(const volatile struct exact_slot *src, struct exact_slot *dst,
		    unsigned tries,
		    void (*copy)(void *ctx, struct exact_slot *dst,
				 const volatile struct exact_slot *src),
		    void *ctx)
{
	if (!copy)
		copy = copy_plain;
	for (unsigned i = 0; i < tries; i++) {
		uint32_t s0 = __atomic_load_n(&src->seq, __ATOMIC_ACQUIRE);

		if (s0 & 1)
			continue;
		copy(ctx, dst, src);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&src->seq, __ATOMIC_RELAXED) == s0)
			return 0;
	}
	return -EAGAIN;
}

SS_HOT void exact_slot_close_open(struct exact_slot *s, uint64_t now, uint64_t slack)
{
	if (s->state == XS_RUNNING) {
		if (now > s->since_ns)
			s->run_ns += now - s->since_ns;
		s->since_ns = now;
		return;
	}
	if (s->state != XS_OFF || now <= s->out_ns || s->cls >= X_NCLASS)
		return;
	if (s->cls == X_PREEMPT) {
		s->off_ns[X_PREEMPT] += now - s->out_ns;
	} else if (s->wake_ns > s->out_ns && s->wake_ns < now) {
		/* woken, waiting for a CPU */
		uint64_t w = now - s->wake_ns, sl = slack < w ? slack : w;

		s->off_ns[s->cls] += s->wake_ns - s->out_ns + sl;
		s->runq_ns += w - sl;
	} else {
		s->off_ns[s->cls] += now - s->out_ns;
	}
}

int exact_interval_check(const void *p, size_t len, struct exact_interval *iv)
{
	struct exact_interval x;

	if (!p || len < sizeof(x))
		return -EINVAL;
	memcpy(&x, p, sizeof(x));
	if (x.wake_ns < x.out_ns || x.in_ns < x.wake_ns || x.cls >= X_NCLASS ||
	    x.nstack > EXACT_STACK || !x.tid ||
	    (x.state != 'R' && x.state != 'S' && x.state != 'D'))
		return -EINVAL;
	*iv = x;
	return 0;
}

void exact_interval_to_rec(const struct exact_interval *iv, struct rec_interval *o)
{
	memset(o, 0, sizeof(*o));
	o->out_ns = iv->out_ns;
	o->wake_ns = iv->wake_ns;
	o->in_ns = iv->in_ns;
	o->arg0 = iv->arg0;
	o->tid = iv->tid;
	o->waker_tid = iv->waker_tid;
	o->syscall = iv->syscall;
	o->cls = (uint8_t)iv->cls;
	o->state = iv->state;
	o->flags = iv->flags;
}

SS_HOT void exact_slot_fields(const struct exact_slot *s, int64_t *out)
{
	out[EF_TID] = s->tid;
	out[EF_RUN] = (int64_t)s->run_ns;
	out[EF_RUNQ] = (int64_t)s->runq_ns;
	for (unsigned c = 0; c < X_NCLASS; c++)
		out[EF_CLASS + c] = (int64_t)s->off_ns[c];
	out[EF_RECLAIM] = (int64_t)s->reclaim_ns;
	out[EF_SWITCHES] = (int64_t)s->switches;
	out[EF_PREEMPTS] = (int64_t)s->preempts;
	out[EF_MISSED] = (int64_t)s->missed;
	out[EF_BIO_STARTED] = (int64_t)s->bio_started;
	out[EF_BIO_DONE] = (int64_t)s->bio_done;
	out[EF_BIO_BYTES] = (int64_t)s->bio_bytes;
	out[EF_BIO_NS] = (int64_t)s->bio_ns;
	out[EF_FAULTS] = (int64_t)s->faults;
	out[EF_MISSED_IN] = (int64_t)s->missed_in;
}
