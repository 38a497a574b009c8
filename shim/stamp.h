/* SPDX-License-Identifier: MIT */
/*
 * stamp.h: what the GL/EGL preload library and the Vulkan layer share: map
 * the run's frame ring once at load (nothing at all when STALLSCOPE_RING is
 * not set) and stamp one present into it.
 *
 * A stamp is a vDSO clock read, the thread id (cached per thread; a fork
 * clears the forking thread's copy) and one compare-exchange on the ring's
 * head. The thread-local model is set by the includer: initial-exec for the
 * preloaded library (loaded at start, so static TLS is there), the default
 * for the layer the Vulkan loader dlopens.
 */
#ifndef SS_SHIM_STAMP_H
#define SS_SHIM_STAMP_H

#include <pthread.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "stallscope.h"

#ifndef SS_SHIM_TLS
#define SS_SHIM_TLS
#endif

#define SS_EXPORT __attribute__((visibility("default")))

static struct ss_ring *ss_shim_ring;	/* NULL: no recorder, do nothing */
static __thread uint32_t ss_shim_tid SS_SHIM_TLS;

static void ss_shim_after_fork(void)
{
	ss_shim_tid = 0;
}

/* Maps the ring named in the environment; call once, at load. */
static void ss_shim_attach(void)
{
	ss_shim_ring = stallscope_ring_attach();
	if (ss_shim_ring)
		pthread_atfork(NULL, NULL, ss_shim_after_fork);
}

/* Stamps one present of SOURCE now; nothing without a ring. */
static inline void ss_shim_stamp(uint32_t source)
{
	struct ss_ring *r = ss_shim_ring;
	uint64_t t;

	if (!r)
		return;
	t = ss_now_ns();
	if (__builtin_expect(!ss_shim_tid, 0))
		ss_shim_tid = (uint32_t)syscall(SYS_gettid);
	ss_ring_push(r, t, ss_shim_tid, source);
}

/* A call of CALL (enum ss_api_call) that began at T0 and ends now: a span
 * in the ring when it took SS_SPAN_MIN_NS or more; nothing without a ring
 * (T0 is then 0: the caller read no clock). */
static inline void ss_shim_span(uint32_t call, uint64_t t0)
{
	struct ss_ring *r = ss_shim_ring;
	uint64_t t1;

	if (!r || !t0)
		return;
	t1 = ss_now_ns();
	if (t1 - t0 < SS_SPAN_MIN_NS)
		return;
	if (__builtin_expect(!ss_shim_tid, 0))
		ss_shim_tid = (uint32_t)syscall(SYS_gettid);
	ss_ring_push(r, t0, ss_shim_tid, ss_span_source(call, t1 - t0));
}

/* The start of a timed call: 0 (no clock read) without a ring. */
static inline uint64_t ss_shim_span_begin(void)
{
	return ss_shim_ring ? ss_now_ns() : 0;
}

#endif
