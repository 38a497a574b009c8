/* SPDX-License-Identifier: MIT */
/*
 * ksyms.h: the kernel's text symbols (/proc/kallsyms), for naming the
 * addresses of a BPF stack and finding a function's range. Addresses read
 * as zero unless the reader may see them (root, or kptr_restrict 0).
 */
#ifndef SS_LINUX_KSYMS_H
#define SS_LINUX_KSYMS_H

#include <stdint.h>

struct ksyms;

/* Reads ROOT/proc/kallsyms (ROOT NULL: the live system). Returns 0 and
 * *ret, -EACCES when the addresses are hidden (all zero), or another
 * negative errno. */
int ksyms_load(const char *root, struct ksyms **ret);
void ksyms_free(struct ksyms *k);	/* NULL-safe */

/* The function ADDR is in, or NULL. */
const char *ksyms_find(const struct ksyms *k, uint64_t addr);

/* The start of function NAME and the start of the next symbol after it
 * (its end as far as kallsyms says). 0, or -ENOENT. */
int ksyms_range(const struct ksyms *k, const char *name, uint64_t *lo, uint64_t *hi);

#endif
