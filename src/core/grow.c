// SPDX-License-Identifier: MIT
/*
 * grow.c: grow.h's array_grow.
 */
#include <stdint.h>
#include <stdlib.h>

#include "core/grow.h"

void *array_grow(void *arr, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 16;
	void *p;

	while (n < need) {
		if (n > SIZE_MAX / 2)
			return NULL;
		n *= 2;
	}
	if (n == *cap)
		n = *cap > SIZE_MAX / 2 ? SIZE_MAX : *cap * 2;
	if (!size || n > SIZE_MAX / size)
		return NULL;
	p = realloc(arr, n * size);
	if (p)
		*cap = n;
	return p;
}
