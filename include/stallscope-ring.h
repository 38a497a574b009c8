/* SPDX-License-Identifier: MIT */
/*
 * stallscope-ring.h: the frame ring, shared by everything that stamps a
 * present (the marker API, the GL/EGL shim, the Vulkan layer) and the
 * recorder that drains it. docs/FORMAT.md describes the same layout.
 *
 * The ring lives in a POSIX shared-memory object whose name the recorder puts
 * in the environment variable STALLSCOPE_RING ("/stallscope-<pid>-<n>"); a
 * ring belongs to one run. Producers are any threads of the program (several
 * may present), the consumer is the recorder alone. Producers never block:
 * a full ring counts an overrun and drops the stamp. Each entry is committed
 * by writing its sequence number last, so the consumer never reads a
 * half-written entry.
 *
 * Layout (little-endian, as the machine; both sides run on one machine):
 *   header, 64 bytes: magic "SSRING01", version 1, capacity (entries, a power
 *   of two), head (next slot a producer reserves), tail (next slot the
 *   consumer reads), overruns; then capacity entries of 24 bytes:
 *   seq (slot index + 1 once committed), t_ns (CLOCK_MONOTONIC), tid, source.
 *
 * An entry whose source has SS_SRC_SPAN set is not a present but an API
 * call that took SS_SPAN_MIN_NS or more (glLinkProgram, vkWaitForFences,
 * ...): t_ns is when the call began, bits 24..30 of source the call
 * (enum ss_api_call), bits 0..23 its duration in microseconds (saturated
 * at SS_SPAN_US_MAX, about 16.8 s). A recorder from before spans drops and
 * counts such an entry (frames_bad), as any unknown source.
 */
#ifndef STALLSCOPE_RING_H
#define STALLSCOPE_RING_H

#include <stdint.h>
#include <time.h>

/*
 * The shared words are C11 atomics in C. C++ has no _Atomic (and
 * std::atomic<uint64_t> is not promised to be laid out as one), so there
 * they are plain words that the GCC/Clang __atomic builtins act on: the
 * same 8 bytes, the same instructions.
 */
#ifdef __cplusplus
#define SS_ATOMIC_U64 uint64_t
#define SS_MO_RELAXED __ATOMIC_RELAXED
#define SS_MO_ACQUIRE __ATOMIC_ACQUIRE
#define SS_MO_RELEASE __ATOMIC_RELEASE
#define SS_MO_ACQ_REL __ATOMIC_ACQ_REL
#define ss_atomic_load(p, mo) __atomic_load_n((p), (mo))
#define ss_atomic_store(p, v, mo) __atomic_store_n((p), (v), (mo))
#define ss_atomic_add(p, v, mo) __atomic_fetch_add((p), (v), (mo))
#define ss_atomic_cas_weak(p, expected, desired, ok, fail) \
	__atomic_compare_exchange_n((p), (expected), (desired), true, (ok), (fail))
#else
#include <stdatomic.h>
#define SS_ATOMIC_U64 _Atomic uint64_t
#define SS_MO_RELAXED memory_order_relaxed
#define SS_MO_ACQUIRE memory_order_acquire
#define SS_MO_RELEASE memory_order_release
#define SS_MO_ACQ_REL memory_order_acq_rel
#define ss_atomic_load(p, mo) atomic_load_explicit((p), (mo))
#define ss_atomic_store(p, v, mo) atomic_store_explicit((p), (v), (mo))
#define ss_atomic_add(p, v, mo) atomic_fetch_add_explicit((p), (v), (mo))
#define ss_atomic_cas_weak(p, expected, desired, ok, fail) \
	atomic_compare_exchange_weak_explicit((p), (expected), (desired), (ok), (fail))
#endif

#define SS_RING_MAGIC 0x3130474e49525353ULL	/* "SSRING01" read as little-endian u64 */
#define SS_RING_VERSION 1
#define SS_RING_ENV "STALLSCOPE_RING"

enum ss_frame_source {
	SS_SRC_MARKER = 1,	/* stallscope_frame() */
	SS_SRC_GLX = 2,		/* glXSwapBuffers */
	SS_SRC_EGL = 3,		/* eglSwapBuffers* */
	SS_SRC_VK = 4,		/* vkQueuePresentKHR */
	/* 5: the recorder's, for a HUD file's lines; never in the ring */
	SS_SRC_XSHM = 6,	/* XShmPutImage (docs/HOOKS.md: which puts count) */
	SS_SRC_XPUT = 7,	/* XPutImage */
	SS_SRC_WLSHM = 8,	/* a wl_surface commit of a wl_shm buffer */
};

#define SS_SRC_SPAN 0x80000000u	/* the entry is an API call's span (above) */
#define SS_SPAN_US_MAX 0xffffffu
#define SS_SPAN_MIN_NS 1000000ull	/* calls shorter than this are not written */

/* The calls a span can name; numbers are the ring's and never reused. */
enum ss_api_call {
	SS_API_GL_COMPILE_SHADER = 1,
	SS_API_GL_LINK_PROGRAM = 2,
	SS_API_GL_GET_PROGRAMIV = 3,
	SS_API_GL_GET_SHADERIV = 4,
	SS_API_GL_PROGRAM_BINARY = 5,
	SS_API_GL_FINISH = 6,
	SS_API_GL_READ_PIXELS = 7,
	SS_API_GL_CLIENT_WAIT_SYNC = 8,
	SS_API_VK_CREATE_GRAPHICS_PIPELINES = 9,
	SS_API_VK_CREATE_COMPUTE_PIPELINES = 10,
	SS_API_VK_CREATE_SHADER_MODULE = 11,
	SS_API_VK_WAIT_FOR_FENCES = 12,
	SS_API_VK_QUEUE_WAIT_IDLE = 13,
	SS_API_VK_DEVICE_WAIT_IDLE = 14,
	SS_API_VK_ACQUIRE_NEXT_IMAGE = 15,
	SS_API_VK_QUEUE_SUBMIT = 16,
	SS_API_N
};

/* The source word of a span of CALL that lasted DUR_NS. */
static inline uint32_t ss_span_source(uint32_t call, uint64_t dur_ns)
{
	uint64_t us = dur_ns / 1000;

	return SS_SRC_SPAN | (call & 0x7f) << 24 |
	       (uint32_t)(us > SS_SPAN_US_MAX ? SS_SPAN_US_MAX : us);
}

struct ss_ring_hdr {
	uint64_t magic;
	uint32_t version;
	uint32_t capacity;
	SS_ATOMIC_U64 head;
	SS_ATOMIC_U64 tail;
	SS_ATOMIC_U64 overruns;
	uint64_t reserved[3];
};

struct ss_ring_entry {
	SS_ATOMIC_U64 seq;
	uint64_t t_ns;
	uint32_t tid;
	uint32_t source;
};

/* __extension__: a flexible array member is C99, an extension of g++ and
 * clang++ that -Wpedantic would otherwise name in a C++ program */
__extension__ struct ss_ring {
	struct ss_ring_hdr hdr;
	struct ss_ring_entry e[];
};

static inline size_t ss_ring_size(uint32_t capacity)
{
	return sizeof(struct ss_ring_hdr) + (size_t)capacity * sizeof(struct ss_ring_entry);
}

static inline uint64_t ss_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Appends one stamp. Lock-free and wait-free but for the compare-exchange
 * retry against other presenting threads; returns 0, or -1 when the ring was
 * full (counted in overruns).
 */
static inline int ss_ring_push(struct ss_ring *r, uint64_t t_ns, uint32_t tid, uint32_t source)
{
	uint64_t h = ss_atomic_load(&r->hdr.head, SS_MO_RELAXED);
	struct ss_ring_entry *e;

	for (;;) {
		uint64_t t = ss_atomic_load(&r->hdr.tail, SS_MO_ACQUIRE);

		if (h - t >= r->hdr.capacity) {
			ss_atomic_add(&r->hdr.overruns, 1, SS_MO_RELAXED);
			return -1;
		}
		if (ss_atomic_cas_weak(&r->hdr.head, &h, h + 1, SS_MO_ACQ_REL, SS_MO_RELAXED))
			break;
	}
	e = &r->e[h & (r->hdr.capacity - 1)];
	e->t_ns = t_ns;
	e->tid = tid;
	e->source = source;
	ss_atomic_store(&e->seq, h + 1, SS_MO_RELEASE);
	return 0;
}

#endif
