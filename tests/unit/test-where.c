// SPDX-License-Identifier: MIT
/*
 * test-where.c: a stall's user stacks summed from the record's ustack events
 * (core/where.h): only the events of the stall's window, counts added over
 * events, recursion shown once, stacks cut and merged, symbol versions off;
 * the second thread's (ustack2) and an exact interval's (ivstack, matched
 * by its out time and tid) apart from the frame thread's.
 */
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
	{ 1500, 3, (char *)"ustack2", (char *)"5\tpoll\tmain_events\tmain\n" },
	{ 1700, 7, (char *)"ivstack", (char *)"1\tk:schedule\tsyscall\tstall_wait\tmain\n" },
	{ 1700, 8, (char *)"ivstack", (char *)"1\tother_thread\n" },	/* another tid */
	{ 1701, 7, (char *)"ivstack", (char *)"1\tlater\n" },	/* another interval */
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

/* The second thread's and the intervals' stacks: kept apart from the
 * frame thread's, found by kind, time and tid. */
static void test_kinds(void)
{
	struct rec r = { .nevents = sizeof(ev) / sizeof(ev[0]), .events = ev };
	struct rec_interval iv = { .out_ns = 1700, .wake_ns = 1800, .in_ns = 1900, .tid = 7 };
	struct where w;
	struct strbuf sb = STRBUF_INIT;

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
	iv.tid = 9;	/* no event of its thread */
	CHECK_INT(where_interval(&r, &iv, &w), 0);
	CHECK_INT((int)w.total, 0);
	where_free(&w);
	iv.tid = 0;
	CHECK_INT(where_interval(&r, &iv, &w), 0);
	CHECK_INT((int)w.total, 0);
	where_free(&w);
	sb_release(&sb);
}

int main(void)
{
	T_RUN(test_window);
	T_RUN(test_kinds);
	return t_exit();
}
