// SPDX-License-Identifier: MIT
/*
 * test-where.c: a stall's user stacks summed from the record's ustack events
 * (core/where.h): only the events of the stall's window, counts added over
 * events, recursion shown once, stacks cut and merged, symbol versions off;
 * the second thread's and an exact interval's windows (2.3, matched by
 * kind, time and tid) apart from the frame thread's; a window of very many
 * distinct stacks sums in linear time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/where.h"
#include "t.h"

static struct rec_event ev[] = {
	{ 1000, 7, (char *)"ustack", (char *)"3\tspin\tstall_cpu\tmain\n1\tvdso\tspin\tstall_cpu\tmain\n" },
	{ 2000, 7, (char *)"ustack", (char *)"2\tspin\tstall_cpu\tmain\n1\tk:schedule\tk:do_syscall_64\tspin\tstall_cpu\tmain\n" },
	{ 2500, 7, (char *)"stack", (char *)"1\tkernel\n" },	/* another kind */
	{ 5000, 7, (char *)"ustack", (char *)"9\tother\n" },	/* another stall */
	{ 6000, 7, (char *)"ustack", (char *)"4\tcmp\tmsort\tmsort\tmsort\tqsort@@GLIBC_2.2.5\tf\tg\n"
					      "1\tcmp\tmsort\tqsort@@GLIBC_2.2.5\tf\tg\nx\tbad line\n" },
};

static void test_window(void)
{
	struct rec r = { .nevents = sizeof(ev) / sizeof(ev[0]), .events = ev };
	struct where w;
	struct strbuf sb = STRBUF_INIT;

	CHECK_INT(where_any(&r), 1);
	CHECK_INT(where_stall(&r, 900, 3000, &w), 0);
	CHECK_INT((int)w.total, 7);
	CHECK_INT((int)w.n, 3);
	CHECK_INT((int)w.st[0].n, 5);
	CHECK_STR(w.st[0].frames[0], "spin");
	CHECK_INT((int)w.st[0].nkframes, 0);
	/* the kernel frames apart, the user ones as the stack without them */
	CHECK_INT((int)w.st[1].n, 1);
	CHECK_INT((int)w.st[1].nkframes, 2);
	CHECK_STR(w.st[1].kframes[0], "schedule");
	CHECK_STR(w.st[1].frames[0], "spin");
	where_line(&sb, &w.st[0], w.total, 2);
	CHECK_STR(sb.buf, "71 % spin <- stall_cpu <- ...");
	/* shown: kernel frames dropped, so that stack joins the first */
	CHECK_INT(where_merge(&w, 0), 0);
	CHECK_INT((int)w.n, 2);
	CHECK_INT((int)w.st[0].n, 6);
	where_free(&w);
	CHECK_INT((int)w.n, 0);

	CHECK_INT(where_stall(&r, 3001, 4999, &w), 0);
	CHECK_INT((int)w.total, 0);
	where_free(&w);

	/* recursion once, cut at 3 frames and merged, versions off */
	CHECK_INT(where_stall(&r, 5500, 7000, &w), 0);
	CHECK_INT((int)w.total, 5);
	CHECK_INT((int)w.n, 2);
	CHECK_INT(where_merge(&w, 3), 0);
	CHECK_INT((int)w.n, 1);
	sb_reset(&sb);
	where_line(&sb, &w.st[0], w.total, 0);
	CHECK_STR(sb.buf, "100 % cmp <- msort <- qsort <- ...");
	where_free(&w);

	sb_reset(&sb);
	where_frame_name(&sb, "@odd");
	CHECK_STR(sb.buf, "@odd");
	sb_release(&sb);
}

/* The second thread's and the intervals' stacks (2.3 USTACK windows of
 * their kinds): kept apart from the frame thread's, found by kind, time and
 * tid. */
static void test_kinds(void)
{
	static char *strs[] = { (char *)"", (char *)"poll", (char *)"main_events",
				(char *)"main", (char *)"schedule", (char *)"syscall",
				(char *)"stall_wait", (char *)"other_thread", (char *)"later" };
	static struct rec_uframe uf[9];
	static uint32_t s1[] = { 1, 2, 3 }, s2[] = { 4, 5, 6, 3 }, s3[] = { 7 }, s4[] = { 8 };
	static struct rec_ustack us[] = { { 0, NULL }, { 3, s1 }, { 4, s2 }, { 1, s3 }, { 1, s4 } };
	static uint32_t id1 = 1, id2 = 2, id3 = 3, id4 = 4;
	static uint64_t c5 = 5, c1 = 1;
	static struct rec_uset set[] = {
		{ .t_ns = 1500, .tid = 3, .kind = REC_USET_THREAD2, .n = 1, .stack = &id1, .count = &c5 },
		{ .t_ns = 1700, .tid = 7, .kind = REC_USET_INTERVAL, .n = 1, .stack = &id2, .count = &c1 },
		{ .t_ns = 1700, .tid = 8, .kind = REC_USET_INTERVAL, .n = 1, .stack = &id3, .count = &c1 },
		{ .t_ns = 1701, .tid = 7, .kind = REC_USET_INTERVAL, .n = 1, .stack = &id4, .count = &c1 },
	};
	struct rec r = { .nstrs = 9, .strs = strs, .nuframes = 9, .uframes = uf, .nustacks = 5,
			 .ustacks = us, .nusets = 4, .usets = set };
	struct rec_interval iv = { .out_ns = 1700, .wake_ns = 1800, .in_ns = 1900, .tid = 7 };
	struct where w;
	struct strbuf sb = STRBUF_INIT;

	for (uint32_t i = 1; i < 9; i++)
		uf[i] = (struct rec_uframe){ .kind = i == 4 ? REC_UF_KERNEL : REC_UF_NAMED, .ref = i };
	/* no frame thread's window: nothing for where_stall, where_any */
	CHECK_INT(where_any(&r), 0);
	CHECK_INT(where_stall(&r, 900, 3000, &w), 0);
	CHECK_INT((int)w.total, 0);
	where_free(&w);

	CHECK_INT(where_kind(&r, WHERE_KIND_THREAD2, 900, 3000, 0, &w), 0);
	CHECK_INT((int)w.total, 5);
	CHECK_INT((int)w.tid, 3);
	CHECK_STR(w.st[0].frames[1], "main_events");
	where_free(&w);
	CHECK_INT(where_kind(&r, WHERE_KIND_THREAD2, 900, 3000, 7, &w), 0);
	CHECK_INT((int)w.total, 0);
	where_free(&w);

	CHECK_INT(where_interval(&r, &iv, &w), 0);
	CHECK_INT((int)w.total, 1);
	CHECK_INT((int)w.n, 1);
	CHECK_INT((int)w.st[0].nkframes, 1);
	where_chain(&sb, &w.st[0], 2);
	CHECK_STR(sb.buf, "syscall <- stall_wait <- ...");
	where_free(&w);
	iv.tid = 9;	/* no window of its thread */
	CHECK_INT(where_interval(&r, &iv, &w), 0);
	CHECK_INT((int)w.total, 0);
	where_free(&w);
	iv.tid = 0;
	CHECK_INT(where_interval(&r, &iv, &w), 0);
	CHECK_INT((int)w.total, 0);
	where_free(&w);
	sb_release(&sb);
}

/* A hostile record's window of 200,000 distinct stacks sums and merges
 * (an index by frames, not a walk over the stacks so far: that took
 * minutes; the test's own timeout is the bound, no clock is asserted). */
static void test_many(void)
{
	enum { N = 200000 };
	struct rec r = { 0 };
	struct rec_uset u = { .t_ns = 1, .tid = 1, .n = N };
	struct where w;

	r.nstrs = r.nuframes = r.nustacks = N + 1;
	r.strs = calloc(N + 1, sizeof(*r.strs));
	r.uframes = calloc(N + 1, sizeof(*r.uframes));
	r.ustacks = calloc(N + 1, sizeof(*r.ustacks));
	u.stack = calloc(N, sizeof(*u.stack));
	u.count = calloc(N, sizeof(*u.count));
	CHECK(r.strs && r.uframes && r.ustacks && u.stack && u.count);
	if (!r.strs || !r.uframes || !r.ustacks || !u.stack || !u.count)
		goto out;
	for (uint32_t i = 1; i <= N; i++) {
		char name[16];

		snprintf(name, sizeof(name), "f%u", i);
		r.strs[i] = strdup(name);
		r.uframes[i] = (struct rec_uframe){ .kind = REC_UF_NAMED, .ref = i };
		r.ustacks[i].n = 1;
		r.ustacks[i].frames = malloc(sizeof(uint32_t));
		if (r.ustacks[i].frames)
			r.ustacks[i].frames[0] = i;
		u.stack[i - 1] = i;
		u.count[i - 1] = 1;
	}
	r.nusets = 1;
	r.usets = &u;
	CHECK_INT(where_stall(&r, 0, 10, &w), 0);
	CHECK_INT((int)w.n, N);
	CHECK_INT(where_merge(&w, 3), 0);
	CHECK_INT((int)w.n, N);
	where_free(&w);
	r.usets = NULL;
	r.nusets = 0;
out:
	free(u.stack);
	free(u.count);
	for (size_t i = 0; i <= N; i++) {
		if (r.strs)
			free(r.strs[i]);
		if (r.ustacks)
			free(r.ustacks[i].frames);
	}
	free(r.strs);
	free(r.uframes);
	free(r.ustacks);
}

int main(void)
{
	T_RUN(test_window);
	T_RUN(test_kinds);
	T_RUN(test_many);
	return t_exit();
}
