// SPDX-License-Identifier: MIT
/*
 * test-strbuf.c: the growable string every layer uses (core/strbuf.h): the
 * invariants its header states (buf never NULL, always NUL-terminated, an
 * empty buffer owns nothing), growth across the first allocation and many
 * doublings with the bytes intact (NUL bytes inside too), formatted
 * appends, reset keeping the allocation, detach handing it over,
 * sb_add_path's slashes, and sb_error's message and return value.
 */
#include "t.h"

#include <errno.h>
#include <stdarg.h>

#include "core/strbuf.h"

static void test_empty(void)
{
	struct strbuf sb = STRBUF_INIT;

	CHECK(sb.buf != NULL);
	CHECK_STR(sb.buf, "");
	CHECK_INT(sb.alloc, 0);
	sb_reset(&sb);		/* on the shared empty string: must not write it */
	CHECK_STR(sb.buf, "");
	sb_release(&sb);
	CHECK(sb.buf == strbuf_empty);
	sb_release(NULL);	/* NULL-safe */
	sb_init(&sb);
	CHECK_INT(sb.len, 0);
	CHECK_INT(sb.alloc, 0);
	CHECK(sb.buf == strbuf_empty);
}

/* Appends one byte at a time past many doublings: every byte kept, the
 * length right, always terminated, and alloc above len each time. */
static void test_grow(void)
{
	struct strbuf sb = STRBUF_INIT;
	int bad = 0;

	for (int i = 0; i < 5000; i++) {
		CHECK_INT(sb_addc(&sb, (char)('a' + i % 26)), 0);
		if (sb.len != (size_t)i + 1 || sb.buf[sb.len] != '\0' || sb.alloc <= sb.len)
			bad++;
	}
	CHECK_INT(bad, 0);
	for (int i = 0; i < 5000; i++)
		if (sb.buf[i] != (char)('a' + i % 26))
			bad++;
	CHECK_INT(bad, 0);
	/* a grow that fits does not move the buffer */
	{
		char *before = sb.buf;
		size_t room = sb.alloc - sb.len - 1;

		CHECK_INT(sb_grow(&sb, room), 0);
		CHECK(sb.buf == before);
	}
	/* a size that wraps is refused, the buffer untouched (SIZE_MAX
	 * wrapped len + extra + 1 to len itself, and was let through) */
	CHECK_INT(sb_grow(&sb, (size_t)-1), -ENOMEM);
	CHECK_INT(sb_grow(&sb, (size_t)-1 - 5000), -ENOMEM);
	CHECK_INT(sb_grow(&sb, (size_t)-1 - 4999), -ENOMEM);
	CHECK_INT(sb.len, 5000);
	sb_release(&sb);
	CHECK_INT(sb.len, 0);
	CHECK_STR(sb.buf, "");
}

static void test_add(void)
{
	struct strbuf sb = STRBUF_INIT;
	static const char bin[] = { 'x', '\0', 'y' };

	CHECK_INT(sb_adds(&sb, "frame"), 0);
	CHECK_INT(sb_add(&sb, bin, sizeof(bin)), 0);
	CHECK_INT(sb.len, 8);
	CHECK(memcmp(sb.buf, "framex\0y", 9) == 0);	/* the NUL inside kept, one after */
	CHECK_INT(sb_add(&sb, "", 0), 0);
	CHECK_INT(sb.len, 8);
	sb_reset(&sb);
	CHECK_INT(sb.len, 0);
	CHECK_STR(sb.buf, "");
	CHECK(sb.alloc > 0);	/* reset keeps the allocation */
	CHECK_INT(sb_addf(&sb, "%s=%d %.2f%%", "stalls", 42, 12.345), 0);
	CHECK_STR(sb.buf, "stalls=42 12.35%");
	CHECK_INT(sb_addf(&sb, "%s", ""), 0);
	CHECK_INT(sb.len, strlen("stalls=42 12.35%"));
	/* a long formatted append, past the first allocation at once */
	sb_reset(&sb);
	CHECK_INT(sb_addf(&sb, "%0300d|%s", 7, "end"), 0);
	CHECK_INT(sb.len, 304);
	CHECK(sb.buf[298] == '0' && sb.buf[299] == '7');
	CHECK_STR(sb.buf + 300, "|end");
	sb_release(&sb);
}

static int vadd(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = sb_vaddf(sb, fmt, ap);
	va_end(ap);
	return r;
}

static void test_vaddf(void)
{
	struct strbuf sb = STRBUF_INIT;

	CHECK_INT(vadd(&sb, "%s:%u", "cpu", 3u), 0);
	CHECK_INT(vadd(&sb, ",%lld", -9000000000LL), 0);
	CHECK_STR(sb.buf, "cpu:3,-9000000000");
	sb_release(&sb);
}

static void test_detach(void)
{
	struct strbuf sb = STRBUF_INIT;
	char *s;

	/* an empty buffer detaches as a string the caller may free */
	s = sb_detach(&sb);
	CHECK(s != NULL && s != strbuf_empty);
	CHECK_STR(s, "");
	free(s);
	CHECK_INT(sb_adds(&sb, "owned"), 0);
	s = sb_detach(&sb);
	CHECK_STR(s, "owned");
	CHECK(sb.buf == strbuf_empty);	/* re-inited */
	CHECK_INT(sb.len, 0);
	CHECK_INT(sb.alloc, 0);
	free(s);
}

static void check_path(const char *dir, const char *name, const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	CHECK_INT(sb_add_path(&sb, dir, name), 0);
	CHECK_STR(sb.buf, want);
	sb_release(&sb);
}

static void test_add_path(void)
{
	struct strbuf sb = STRBUF_INIT;

	check_path("runs/x", "run.ini", "runs/x/run.ini");
	check_path("runs/x/", "run.ini", "runs/x/run.ini");
	check_path("runs/x///", "run.ini", "runs/x/run.ini");
	check_path("/", "run.ini", "/run.ini");
	check_path("///", "run.ini", "/run.ini");
	check_path(".", "a", "./a");
	/* appends to what is there */
	CHECK_INT(sb_adds(&sb, "> "), 0);
	CHECK_INT(sb_add_path(&sb, "/tmp/", "x"), 0);
	CHECK_STR(sb.buf, "> /tmp/x");
	sb_release(&sb);
}

static void test_error(void)
{
	struct strbuf err = STRBUF_INIT;

	CHECK_INT(sb_adds(&err, "an old message"), 0);
	CHECK_INT(sb_error(&err, -ENOENT, "cannot read '%s'", "run.ini"), -ENOENT);
	CHECK_STR(err.buf, "cannot read 'run.ini': No such file or directory");
	/* e >= 0: the message alone, and -EINVAL returned */
	CHECK_INT(sb_error(&err, 0, "line %d: expected a number", 7), -EINVAL);
	CHECK_STR(err.buf, "line 7: expected a number");
	CHECK_INT(sb_error(&err, 5, "x"), -EINVAL);
	CHECK_STR(err.buf, "x");
	/* no message wanted: only the return */
	CHECK_INT(sb_error(NULL, -EACCES, "ignored %s", "here"), -EACCES);
	sb_release(&err);
}

int main(void)
{
	T_RUN(test_empty);
	T_RUN(test_grow);
	T_RUN(test_add);
	T_RUN(test_vaddf);
	T_RUN(test_detach);
	T_RUN(test_add_path);
	T_RUN(test_error);
	return t_exit();
}
