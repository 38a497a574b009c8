// SPDX-License-Identifier: MIT
/* test-hud.c: following a HUD line file: appends, partial lines, a file that
 * appears late, is truncated, replaced, or rewritten past its old size, and
 * lines that were there before the follower started. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "frames/hud.h"
#include "t.h"

static char dir[] = "/tmp/test-hud-XXXXXX";
static char path[256];

static void put(const char *mode, const char *s)
{
	FILE *f = fopen(path, mode);

	if (!f) {
		T_FAIL("cannot write '%s'", path);
		return;
	}
	fputs(s, f);
	fclose(f);
}

static uint64_t poll1(struct hud *h)
{
	uint64_t n = 999;

	CHECK_INT(hud_poll(h, &n), 0);
	return n;
}

static void test_appear_append(void)
{
	struct hud *h;

	unlink(path);
	CHECK_INT(hud_new(path, &h), 0);
	CHECK_INT(poll1(h), 0);
	put("w", "a\nb\n");
	CHECK_INT(poll1(h), 2);
	put("a", "c\npart");
	CHECK_INT(poll1(h), 1);
	CHECK_INT(poll1(h), 0);
	put("a", "ial\nd\n");
	CHECK_INT(poll1(h), 2);
	CHECK_INT(hud_lines(h), 5);
	CHECK_INT(hud_restarts(h), 0);
	hud_free(h);
}

static void test_old_lines_skipped(void)
{
	struct hud *h;

	put("w", "old1\nold2\nold3\n");
	CHECK_INT(hud_new(path, &h), 0);
	CHECK_INT(poll1(h), 0);
	put("a", "new\n");
	CHECK_INT(poll1(h), 1);
	hud_free(h);
}

static void test_truncate(void)
{
	struct hud *h;

	put("w", "old1\nold2\nold3\n");
	CHECK_INT(hud_new(path, &h), 0);
	put("w", "x\n");	/* the program truncates at its start */
	CHECK_INT(poll1(h), 1);
	CHECK_INT(hud_restarts(h), 1);
	put("a", "y\nz\n");
	CHECK_INT(poll1(h), 2);
	hud_free(h);
}

static void test_rewrite_past_old_size(void)
{
	struct hud *h;

	put("w", "run 1\n");
	CHECK_INT(hud_new(path, &h), 0);
	/* truncated and written past the old size between two polls */
	put("w", "run 2\nf\nf\nf\n");
	CHECK_INT(poll1(h), 4);
	CHECK_INT(hud_restarts(h), 1);
	hud_free(h);
}

static void test_replace(void)
{
	char tmp[300];
	struct hud *h;

	put("w", "a\nb\n");
	CHECK_INT(hud_new(path, &h), 0);
	put("a", "c\n");
	CHECK_INT(poll1(h), 1);
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	FILE *f = fopen(tmp, "w");
	CHECK(f != NULL);
	if (f) {
		fputs("1\n2\n3\n", f);
		fclose(f);
	}
	CHECK_INT(rename(tmp, path), 0);
	CHECK_INT(poll1(h), 3);
	CHECK_INT(hud_restarts(h), 1);
	unlink(path);
	CHECK_INT(poll1(h), 0);
	put("w", "q\n");
	CHECK_INT(poll1(h), 1);
	CHECK_INT(hud_lines(h), 5);
	hud_free(h);
}

/* A program that grows its HUD file by megabytes at once (a sparse file,
 * or a flood of lines) costs each poll 1 MiB of reading at most; the lines
 * beyond are counted at the next polls, none lost. */
static void test_bounded_poll(void)
{
	size_t len = (size_t)3 << 20;
	char *big = malloc(len + 1);
	struct hud *h;

	if (!big) {
		T_FAIL("out of memory");
		return;
	}
	for (size_t i = 0; i < len; i += 2)
		memcpy(big + i, "a\n", 2);
	big[len] = '\0';
	put("w", "");
	CHECK_INT(hud_new(path, &h), 0);
	put("a", big);
	CHECK_INT(poll1(h), (1 << 20) / 2);
	CHECK_INT(poll1(h), (1 << 20) / 2);
	CHECK_INT(poll1(h), (1 << 20) / 2);
	CHECK_INT(poll1(h), 0);
	CHECK_INT(hud_lines(h), len / 2);
	CHECK_INT(hud_restarts(h), 0);
	hud_free(h);
	free(big);
}

int main(void)
{
	if (!mkdtemp(dir))
		t_skip("cannot make a temporary directory");
	snprintf(path, sizeof(path), "%s/hud.log", dir);
	T_RUN(test_appear_append);
	T_RUN(test_old_lines_skipped);
	T_RUN(test_truncate);
	T_RUN(test_rewrite_past_old_size);
	T_RUN(test_replace);
	T_RUN(test_bounded_poll);
	hud_free(NULL);
	unlink(path);
	rmdir(dir);
	return t_exit();
}
