/* SPDX-License-Identifier: MIT */
/*
 * stallscope.h: the frame-marker API, for programs that mark their own
 * frames. Call stallscope_frame() once per frame, right after the frame is
 * handed to the display. Under `stallscope record` the call appends a
 * CLOCK_MONOTONIC stamp and the calling thread's id to the run's frame ring;
 * without a recorder it costs one branch.
 *
 * Header-only: each translation unit that calls it maps the ring on its first
 * call. Link with -lrt on C libraries older than glibc 2.34. C (GNU C, the
 * compilers' default; under a strict -std=c11 or c17 define _DEFAULT_SOURCE
 * or _GNU_SOURCE before any #include, for clock_gettime, pread and syscall)
 * and C++11 or later (g++ and clang++).
 *
 * The ring's name comes from the environment, which the person who starts a
 * program controls. A setuid or setgid program (or one with file
 * capabilities) must not be steered by it: in such a program ("secure
 * execution", the kernel's AT_SECURE) the variable is not read and every
 * call is a no-op, as secure_getenv(3) does.
 */
#ifndef STALLSCOPE_H
#define STALLSCOPE_H

#if defined(__STRICT_ANSI__) && !defined(_DEFAULT_SOURCE) && !defined(_GNU_SOURCE) && \
	!defined(__cplusplus)
#error "stallscope.h needs POSIX and syscall(): compile with -std=gnu11 (the default), or define _DEFAULT_SOURCE before any #include"
#endif

#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "stallscope-ring.h"

/* $NAME, or NULL when it is unset or the program runs in secure execution
 * (setuid, setgid, capabilities): secure_getenv(3) where the C library
 * declares it (glibc with _GNU_SOURCE), else the same test by hand. */
static inline const char *stallscope_getenv(const char *name)
{
#if defined(__GLIBC__) && defined(__USE_GNU)
	return secure_getenv(name);
#else
	return getauxval(AT_SECURE) ? NULL : getenv(name);
#endif
}

/* Maps the ring named in $STALLSCOPE_RING; NULL when there is none, the
 * program runs in secure execution (stallscope_getenv) or it is not a ring
 * of this version. */
static inline struct ss_ring *stallscope_ring_attach(void)
{
	const char *name = stallscope_getenv(SS_RING_ENV);
	struct ss_ring_hdr hdr;
	struct ss_ring *r;
	int fd;

	if (!name || !*name)
		return NULL;
	fd = shm_open(name, O_RDWR | O_CLOEXEC, 0);
	if (fd < 0)
		return NULL;
	if (pread(fd, &hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr) ||
	    hdr.magic != SS_RING_MAGIC || hdr.version != SS_RING_VERSION || hdr.capacity == 0 ||
	    (hdr.capacity & (hdr.capacity - 1))) {
		close(fd);
		return NULL;
	}
	r = (struct ss_ring *)mmap(NULL, ss_ring_size(hdr.capacity), PROT_READ | PROT_WRITE,
				   MAP_SHARED, fd, 0);
	close(fd);
	return r == (struct ss_ring *)MAP_FAILED ? NULL : r;
}

/* Marks the end of a frame; returns 0, or -1 when no recorder listens or
 * the ring was full. */
static inline int stallscope_frame(void)
{
	static struct ss_ring *ring;
	static int tried;

	if (!tried) {
		ring = stallscope_ring_attach();
		tried = 1;
	}
	if (!ring)
		return -1;
	return ss_ring_push(ring, ss_now_ns(), (uint32_t)syscall(SYS_gettid), SS_SRC_MARKER);
}

#endif
