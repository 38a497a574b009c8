// SPDX-License-Identifier: MIT
/*
 * test-prefetch.c: the prefetch list's arithmetic (core/prefetch.h): ranges
 * from mincore vectors with holes filled, FIEMAP extents to disk addresses
 * (a sparse file too), learning over made-up sessions (union, first-use
 * order, a file dropped after 3 misses), the text form and its errors, the
 * residency-aware choice in disk order, every early stop.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/prefetch.h"
#include "t.h"

#define PG 4096u

static void test_mincore(void)
{
	/* resident: 0-1, 3 (a 1-page hole: filled), 40-41 (a 36-page hole of
	 * 144 KiB before: not), 50 (8 pages, 32 KiB after 41: filled; the
	 * last page, cut at the file's size) */
	unsigned char vec[51] = { 0 };
	struct prefetch_range *r = NULL;
	size_t n = 0, cap = 0;

	vec[0] = vec[1] = vec[3] = vec[40] = vec[41] = 1;
	vec[50] = 1 | 0x80;	/* only bit 0 counts */
	CHECK_INT(prefetch_ranges_from_mincore(vec, 51, PG, 50 * PG + 100, PREFETCH_HOLE_FILL, &r, &n, &cap), 0);
	CHECK_INT(n, 2);
	CHECK_INT(r[0].off, 0);
	CHECK_INT(r[0].len, 4 * PG);
	CHECK_INT(r[1].off, 40 * PG);
	CHECK_INT(r[1].len, 10 * PG + 100);
	free(r);
	r = NULL;
	n = cap = 0;
	vec[50] = 0;
	CHECK_INT(prefetch_ranges_from_mincore(vec, 51, PG, 51 * PG, PREFETCH_HOLE_FILL, &r, &n, &cap), 0);
	CHECK_INT(n, 2);
	CHECK_INT(r[1].len, 2 * PG);
	/* a second file's ranges never merge with the first's */
	{
		unsigned char v2[2] = { 1, 1 };

		CHECK_INT(prefetch_ranges_from_mincore(v2, 2, PG, 2 * PG, PREFETCH_HOLE_FILL, &r, &n, &cap), 0);
		CHECK_INT(n, 3);
		CHECK_INT(r[2].off, 0);
		CHECK_INT(r[2].len, 2 * PG);
	}
	/* nothing resident: no range */
	free(r);
	r = NULL;
	n = cap = 0;
	memset(vec, 0, sizeof(vec));
	CHECK_INT(prefetch_ranges_from_mincore(vec, 51, PG, 51 * PG, PREFETCH_HOLE_FILL, &r, &n, &cap), 0);
	CHECK_INT(n, 0);
	free(r);
}

static void test_map(void)
{
	/* a sparse file: extents at 0..64K and 1M..2M; a range in the hole
	 * between has no disk address */
	struct prefetch_extent ext[] = {
		{ 0, 1000000, 65536 },
		{ 1 << 20, 5000000, 1 << 20 },
	};
	struct prefetch_range r[] = {
		{ 4096, 4096, 0 }, { 200000, 4096, 0 }, { (1 << 20) + 8192, 4096, 0 },
		{ 3 << 20, 4096, 0 },
	};

	prefetch_ranges_map(r, 4, ext, 2);
	CHECK_INT(r[0].phys, 1000000 + 4096);
	CHECK(r[1].phys == PREFETCH_NO_PHYS);
	CHECK_INT(r[2].phys, 5000000 + 8192);
	CHECK(r[3].phys == PREFETCH_NO_PHYS);
	prefetch_ranges_map(r, 4, NULL, 0);	/* no FIEMAP: file order */
	CHECK(r[0].phys == PREFETCH_NO_PHYS);
}

static struct prefetch_file seen_file(const char *path, struct prefetch_range *r, size_t n)
{
	return (struct prefetch_file){ .path = (char *)path, .r = r, .n = n };
}

static void test_learn(void)
{
	struct prefetch_list l = { 0 };
	struct prefetch_range a1 = { 0, 8192, 0 }, a2 = { 65536, 4096, 0 }, b1 = { 0, 4096, 0 };
	struct prefetch_range c1 = { 1 << 20, 4096, 0 };
	struct prefetch_file s1[] = { seen_file("/usr/bin/game", &a1, 1), seen_file("/data/b", &b1, 1) };
	struct prefetch_file s2[] = { seen_file("/data/c", &c1, 1), seen_file("/usr/bin/game", &a2, 1),
				seen_file("/data/b", NULL, 0) };
	struct prefetch_file s3[] = { seen_file("/usr/bin/game", &a1, 1) };

	CHECK_INT(prefetch_list_learn(&l, s1, 2), 0);
	CHECK_INT(l.n, 2);
	CHECK_STR(l.f[0].path, "/usr/bin/game");
	CHECK_INT(l.f[0].order, 0);
	CHECK_INT(l.f[1].order, 1);
	/* the second learn: game's ranges united (the 56 KiB hole filled), c new
	 * and after the known ones, b missed once */
	CHECK_INT(prefetch_list_learn(&l, s2, 3), 0);
	CHECK_INT(l.n, 3);
	CHECK_INT(l.f[0].n, 1);
	CHECK_INT(l.f[0].r[0].off, 0);
	CHECK_INT(l.f[0].r[0].len, 65536 + 4096);
	CHECK_STR(l.f[2].path, "/data/c");
	CHECK_INT(l.f[2].order, 2);
	CHECK_INT(l.f[1].misses, 1);
	/* then only the program: b goes at its third miss (learn 4), c at its
	 * third (learn 5) */
	CHECK_INT(prefetch_list_learn(&l, s3, 1), 0);
	CHECK_INT(l.n, 3);
	CHECK_INT(l.f[1].misses, 2);
	CHECK_INT(prefetch_list_learn(&l, s3, 1), 0);
	CHECK_INT(l.n, 2);
	CHECK_STR(l.f[1].path, "/data/c");
	CHECK_INT(l.f[1].misses, 2);
	CHECK_INT(prefetch_list_learn(&l, s3, 1), 0);
	CHECK_INT(l.n, 1);
	CHECK_INT(l.f[0].misses, 0);
	CHECK_INT(l.learns, 5);
	prefetch_list_free(&l);
}

static void test_text(void)
{
	struct prefetch_list l = { .key = strdup("/usr/games/x"), .exe_size = 123, .exe_mtime = 456 };
	struct prefetch_list back = { 0 };
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	struct prefetch_file *f = prefetch_list_file(&l, "/usr/share/games/x/data one.pak");
	static const char *const bad[] = {
		"stallscope-prefetch 2\nexe 1 2 3 /x\n",
		"stallscope-prefetch 1\nfile 0 0 /a\n",
		"stallscope-prefetch 1\nexe 1 2 3 /x\nr 0 4096 -\n",
		"stallscope-prefetch 1\nexe 1 2 3 /x\nfile 0 0 /a\nr 0 0 -\n",
		"stallscope-prefetch 1\nexe 1 2 3 /x\nfile 0 0 /a\nr x 1 -\n",
		"stallscope-prefetch 1\nexe 1 2 3 /x\nfile 0 0 /a\nr 1 2 3 4\n",
		"stallscope-prefetch 1\nexe 1 2 3 /x\nwhat\n",
		/* an mtime past int64 was written back negative, a list that
		 * reads no more (make fuzz-long, fuzz-prefetch); learns past
		 * uint32 was cut */
		"stallscope-prefetch 1\nexe 1 17000170000061500615 3 /x\n",
		"stallscope-prefetch 1\nexe 1 2 4294967296 /x\n",
		"",
	};

	f->r = calloc(2, sizeof(*f->r));
	f->r[0] = (struct prefetch_range){ 0, 4096, 777 };
	f->r[1] = (struct prefetch_range){ 1 << 20, 8192, PREFETCH_NO_PHYS };
	f->n = f->cap = 2;
	l.learns = 2;
	CHECK_INT(prefetch_list_format(&l, &sb), 0);
	CHECK_INT(prefetch_list_parse(sb.buf, sb.len, "t.list", &back, &err), 0);
	CHECK_STR(back.key, "/usr/games/x");
	CHECK_INT(back.exe_size, 123);
	CHECK_INT(back.exe_mtime, 456);
	CHECK_INT(back.learns, 2);
	CHECK_INT(back.n, 1);
	CHECK_STR(back.f[0].path, "/usr/share/games/x/data one.pak");
	CHECK_INT(back.f[0].n, 2);
	CHECK_INT(back.f[0].r[0].phys, 777);
	CHECK(back.f[0].r[1].phys == PREFETCH_NO_PHYS);
	prefetch_list_free(&back);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		sb_reset(&err);
		CHECK_INT(prefetch_list_parse(bad[i], strlen(bad[i]), "bad.list", &back, &err), -EINVAL);
		CHECK(strstr(err.buf, "'bad.list' line ") != NULL);
	}
	prefetch_list_free(&l);
	sb_release(&sb);
	sb_release(&err);
}

static void test_choose(void)
{
	struct prefetch_list l = { 0 };
	struct prefetch_file *lib, *exe, *data;
	struct prefetch_read *rd = NULL;
	size_t n = 0;
	int64_t got;

	/* data first on the disk, the program and its library later: order
	 * of use picks, disk order reads */
	exe = prefetch_list_file(&l, "/usr/bin/game");
	lib = prefetch_list_file(&l, "/usr/lib/libgame.so");
	data = prefetch_list_file(&l, "/data/level.pak");
	exe->r = calloc(1, sizeof(*exe->r));
	exe->r[0] = (struct prefetch_range){ 0, 8 * PG, 9000000 };
	exe->n = 1;
	lib->r = calloc(1, sizeof(*lib->r));
	lib->r[0] = (struct prefetch_range){ 0, 4 * PG, 8000000 };
	lib->n = 1;
	data->r = calloc(2, sizeof(*data->r));
	data->r[0] = (struct prefetch_range){ 0, 16 * PG, 100 };
	data->r[1] = (struct prefetch_range){ 1 << 20, 16 * PG, PREFETCH_NO_PHYS };
	data->n = 2;
	{
		/* the program is resident already; 8 of the library's... */
		uint64_t missing[] = { 0, 4 * PG, 16 * PG, 16 * PG };

		/* a budget of 10 pages: the library (4), then 6 of the data's first */
		got = prefetch_choose(&l, missing, 10 * PG, PG, &rd, &n);
		CHECK_INT(got, 10 * PG);
		CHECK_INT(n, 2);
		/* disk order: the data (100) before the library (8000000) */
		CHECK_INT(rd[0].file, 2);
		CHECK_INT(rd[0].len, 6 * PG);
		CHECK_INT(rd[1].file, 1);
		free(rd);
		/* all of it: the range without an address last */
		got = prefetch_choose(&l, missing, 1 << 30, PG, &rd, &n);
		CHECK_INT(got, 36 * PG);
		CHECK_INT(n, 3);
		CHECK(rd[2].phys == PREFETCH_NO_PHYS && rd[2].off == 1 << 20);
		free(rd);
		/* no budget: nothing */
		got = prefetch_choose(&l, missing, 0, PG, &rd, &n);
		CHECK_INT(got, 0);
		CHECK_INT(n, 0);
		free(rd);
	}
	prefetch_list_free(&l);
}

static void test_stop(void)
{
	struct prefetch_sys s = { .mem_avail_kb = 1 << 20, .allocstall = 5, .compact_stall = 1,
			    .pswpin = 9, .pswpout = 9 };
	struct prefetch_sys now = s;

	CHECK_INT(prefetch_should_stop(&s, &now, 48 << 10, 1, 60, false), PREFETCH_GO);
	CHECK_INT(prefetch_should_stop(&s, &now, 48 << 10, 1, 60, true), PREFETCH_STOP_EXIT);
	CHECK_INT(prefetch_should_stop(&s, &now, 48 << 10, 61, 60, false), PREFETCH_STOP_TIME);
	now.mem_avail_kb = 40 << 10;
	CHECK_INT(prefetch_should_stop(&s, &now, 48 << 10, 1, 60, false), PREFETCH_STOP_MEM);
	now = s;
	now.allocstall++;
	CHECK_INT(prefetch_should_stop(&s, &now, 48 << 10, 1, 60, false), PREFETCH_STOP_RECLAIM);
	now = s;
	now.compact_stall++;
	CHECK_INT(prefetch_should_stop(&s, &now, 48 << 10, 1, 60, false), PREFETCH_STOP_RECLAIM);
	now = s;
	now.pswpout++;
	CHECK_INT(prefetch_should_stop(&s, &now, 48 << 10, 1, 60, false), PREFETCH_STOP_SWAP);
	now = s;
	now.pswpin++;
	CHECK_INT(prefetch_should_stop(&s, &now, 48 << 10, 1, 60, false), PREFETCH_STOP_SWAP);
	CHECK_STR(prefetch_stop_name(PREFETCH_STOP_SWAP), "swapping");
}

int main(void)
{
	T_RUN(test_mincore);
	T_RUN(test_map);
	T_RUN(test_learn);
	T_RUN(test_text);
	T_RUN(test_choose);
	T_RUN(test_stop);
	return t_exit();
}
