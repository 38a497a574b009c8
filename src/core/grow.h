/* SPDX-License-Identifier: MIT */
/*
 * grow.h: one way to grow an array (git's ALLOC_GROW is the model).
 *
 *	if (ARRAY_GROW(v, cap, n + 1) < 0)
 *		return -ENOMEM;
 *	v[n++] = x;
 *
 * makes room for at least NEED elements in the array V whose room is CAP
 * (a size_t, in elements): V and CAP are untouched when there is room
 * already, else the room at least doubles (16 elements at first). 0, or
 * -ENOMEM with V and CAP unchanged (V still valid, still the caller's).
 */
#ifndef SS_CORE_GROW_H
#define SS_CORE_GROW_H

#include <errno.h>
#include <stddef.h>

/* ARRAY_GROW's work: the grown array, or NULL (ARR untouched). */
void *array_grow(void *arr, size_t *cap, size_t need, size_t size);

#define ARRAY_GROW(v, cap, need)                                                  \
	__extension__({                                                           \
		__typeof__(v) *v_ = &(v);                                         \
		size_t need_ = (need);                                            \
		int r_ = 0;                                                       \
		if (need_ > (cap)) {                                              \
			void *n_ = array_grow(*v_, &(cap), need_, sizeof(**v_));  \
			if (n_)                                                   \
				*v_ = n_;                                         \
			else                                                      \
				r_ = -ENOMEM;                                     \
		}                                                                 \
		r_;                                                               \
	})

#endif
