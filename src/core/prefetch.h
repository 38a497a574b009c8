/* SPDX-License-Identifier: MIT */
/*
 * prefetch.h: what `stallscope prefetch` learns a program reads and how it
 * reads it back, as pure code: resident pages (a mincore vector) into
 * ranges, ranges onto the disk (FIEMAP extents), a list learnt over several
 * runs (the union, first-use order, a file dropped after 3 learns without a
 * resident page, stale when the program changed), its text form, the
 * residency-aware choice of what fits a budget in disk order, and when a
 * fetch must stop. The system calls are src/linux/prefetch.c's.
 *
 * Sizes and offsets are bytes; a range is [off, off + len) of a file.
 */
#ifndef SS_CORE_PREFETCH_H
#define SS_CORE_PREFETCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"

#define PREFETCH_HOLE_FILL (128u * 1024)	/* holes under this between resident runs are read too */
#define PREFETCH_MAX_MISSES 3			/* learns with no resident page before a file goes */
#define PREFETCH_NO_PHYS UINT64_MAX		/* a range with no disk address (no FIEMAP) */

struct prefetch_range {
	uint64_t off, len;
	uint64_t phys;		/* the disk address of off, or PREFETCH_NO_PHYS */
};

/*
 * The resident runs of a file of SIZE bytes from its mincore vector VEC
 * (NPAGES entries, bit 0 set for a resident page of PAGE bytes), holes
 * shorter than HOLE bytes filled, the last range cut at SIZE, appended to
 * *R (*N ranges, *CAP room; ARRAY_GROW's rules). 0 or -ENOMEM.
 */
int prefetch_ranges_from_mincore(const unsigned char *vec, size_t npages, size_t page, uint64_t size,
			   uint64_t hole, struct prefetch_range **r, size_t *n, size_t *cap);

/* A FIEMAP extent: logical and physical start, length (bytes). */
struct prefetch_extent {
	uint64_t logical, physical, len;
};

/* Each range's disk address: where the extent holding its first byte puts
 * it; PREFETCH_NO_PHYS for a range in a hole (a sparse file) or with no extents.
 * EXT sorted by logical. */
void prefetch_ranges_map(struct prefetch_range *r, size_t n, const struct prefetch_extent *ext, size_t next);

struct prefetch_file {
	char *path;
	uint32_t order;		/* first use: lower first (the program and its libraries) */
	uint32_t misses;	/* learns in a row it had no resident page */
	struct prefetch_range *r;	/* sorted by off, disjoint */
	size_t n, cap;
};

struct prefetch_list {
	char *key;		/* the executable (a script's: the script) */
	uint64_t exe_size;
	int64_t exe_mtime;	/* seconds */
	uint32_t learns;	/* how many learns it holds */
	struct prefetch_file *f;
	size_t n, cap;
};

void prefetch_list_free(struct prefetch_list *l);	/* the contents; NULL-safe */

/* The list's file PATH, added (at the end of the order) when new. NULL on
 * ENOMEM. */
struct prefetch_file *prefetch_list_file(struct prefetch_list *l, const char *path);

/*
 * One learn into L: SEEN, N files as this learn found them (their order is
 * the order of first use in this learn; ranges may be empty: no resident
 * page), merged into L: each file's ranges the union with what L had (holes
 * under PREFETCH_HOLE_FILL between them filled); a file new to L comes after L's
 * files, in SEEN's order; a file of L not in SEEN or without a resident
 * page counts a miss, and goes at PREFETCH_MAX_MISSES. 0 or -ENOMEM.
 */
int prefetch_list_learn(struct prefetch_list *l, const struct prefetch_file *seen, size_t n);

/* The list as text (docs/PREFETCH.md): "stallscope-prefetch 1" and the
 * key's line, then a line per file and a line per range. */
int prefetch_list_format(const struct prefetch_list *l, struct strbuf *out);
/* Parses it (NAME for messages). 0, or -EINVAL with "NAME line N: ..." in
 * ERR (*ret untouched), -ENOMEM. */
int prefetch_list_parse(const char *buf, size_t len, const char *name, struct prefetch_list *ret,
		  struct strbuf *err);

/* What a fetch reads: a range of a file, with the pages it holds that are
 * not resident now. */
struct prefetch_read {
	size_t file;		/* index in the list */
	uint64_t off, len;
	uint64_t phys;
	uint64_t missing;	/* bytes not resident */
};

/*
 * The choice: ranges of L in first-use order (files by order, two of the
 * same order by their place in L; then each file's ranges by offset),
 * each with MISSING[k] bytes not resident (k over all ranges in that
 * order), taken while the missing bytes fit BUDGET (a range that does not
 * fit is cut to what does, at a page boundary PAGE); ranges with nothing
 * missing are skipped. The chosen ones sorted by disk address (those
 * without one after, in file order) into *RET (*N). Returns the missing
 * bytes chosen, or a negative errno.
 */
int64_t prefetch_choose(const struct prefetch_list *l, const uint64_t *missing, uint64_t budget,
		  size_t page, struct prefetch_read **ret, size_t *n);

/* The system as a fetch watches it. */
struct prefetch_sys {
	uint64_t mem_avail_kb;
	uint64_t allocstall, compact_stall, pswpin, pswpout;
};

enum prefetch_stop {
	PREFETCH_GO = 0, PREFETCH_STOP_MEM, PREFETCH_STOP_RECLAIM, PREFETCH_STOP_SWAP, PREFETCH_STOP_TIME, PREFETCH_STOP_EXIT,
	PREFETCH_STOP_DONE,
};

/* Whether to stop now: MemAvailable under RESERVE_KB, direct reclaim or
 * compaction (allocstall, compact_stall moved since START), swapping
 * (pswpin or pswpout moved), ELAPSED_S over LIMIT_S, or the program gone. */
enum prefetch_stop prefetch_should_stop(const struct prefetch_sys *start, const struct prefetch_sys *now,
			    uint64_t reserve_kb, double elapsed_s, double limit_s, bool exited);
/* "memory under the reserve", ... for the log line. */
const char *prefetch_stop_name(enum prefetch_stop s);

#endif
