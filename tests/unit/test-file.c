// SPDX-License-Identifier: MIT
/*
 * test-file.c: core/file.h, the reader of files someone else put there: a
 * regular file read whole; a directory, a FIFO (which would hang a plain
 * open), a character device (/dev/zero, which would never end) and a
 * symbolic link under FILE_NOFOLLOW refused with a message naming the file
 * and what it is; a file one byte past the cap refused and one at the cap
 * read; RET untouched by a failure. Each open of a FIFO runs under an alarm,
 * so that a regression fails instead of hanging the suite.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/file.h"
#include "t.h"

static char dir[] = "/tmp/test-file-XXXXXX";

static void path_of(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", dir, name);
}

static void put(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(text, 1, len, f) != len)
		T_FAIL("cannot write '%s'", path);
	if (f)
		fclose(f);
}

static void on_alarm(int sig)
{
	static const char m[] = "test-file: an open or read blocked (a FIFO hangs the reader)\n";

	(void)sig;
	if (write(2, m, sizeof(m) - 1) < 0)
		_exit(1);
	_exit(1);
}

static void test_regular(void)
{
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	char p[256];
	uint64_t size = 0;
	int fd;

	path_of(p, sizeof(p), "a.ini");
	put(p, "program=x\nstate=done\n", 21);
	CHECK_INT(file_read_text(p, NULL, FILE_TEXT_MAX, &sb, &err), 0);
	CHECK_STR(sb.buf, "program=x\nstate=done\n");
	CHECK_INT(sb.len, 21);
	/* appended, as the header says */
	CHECK_INT(file_read_text(p, NULL, FILE_TEXT_MAX, &sb, &err), 0);
	CHECK_INT(sb.len, 42);
	fd = file_open_regular(p, NULL, FILE_NOFOLLOW | FILE_NOATIME, &size, &err);
	CHECK(fd >= 0);
	CHECK_INT(size, 21);
	if (fd >= 0) {
		/* O_NONBLOCK and O_CLOEXEC on what we hold */
		CHECK(fcntl(fd, F_GETFL) & O_NONBLOCK);
		CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC);
		close(fd);
	}
	/* an empty file is an empty text */
	path_of(p, sizeof(p), "empty");
	put(p, "", 0);
	sb_reset(&sb);
	CHECK_INT(file_read_text(p, NULL, FILE_TEXT_MAX, &sb, &err), 0);
	CHECK_INT(sb.len, 0);
	sb_release(&sb);
	sb_release(&err);
}

static void test_refused(void)
{
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT, want = STRBUF_INIT;
	char p[256], link[256];

	sb_adds(&sb, "kept");
	CHECK_INT(file_read_text(dir, "the rules file", FILE_TEXT_MAX, &sb, &err), -EISDIR);
	sb_addf(&want, "the rules file '%s' is a directory", dir);
	CHECK_STR(err.buf, want.buf);

	CHECK_INT(file_read_text("/dev/zero", NULL, FILE_TEXT_MAX, &sb, &err), -EINVAL);
	CHECK_STR(err.buf, "'/dev/zero' is not a regular file (a character device)");

	path_of(p, sizeof(p), "fifo");
	if (mkfifo(p, 0600) < 0) {
		T_FAIL("mkfifo '%s'", p);
	} else {
		/* no writer: a blocking open would wait for ever */
		alarm(10);
		CHECK_INT(file_read_text(p, "the recipe", FILE_TEXT_MAX, &sb, &err), -EINVAL);
		CHECK(file_open_regular(p, NULL, 0, NULL, NULL) == -EINVAL);
		alarm(0);
		sb_reset(&want);
		sb_addf(&want, "the recipe '%s' is not a regular file (a FIFO)", p);
		CHECK_STR(err.buf, want.buf);
	}

	CHECK_INT(file_read_text("/nonexistent/x", "the recipe", FILE_TEXT_MAX, &sb, &err),
		  -ENOENT);
	CHECK_STR(err.buf, "cannot open the recipe '/nonexistent/x': No such file or directory");

	/* a link: followed by default, refused under FILE_NOFOLLOW */
	path_of(p, sizeof(p), "a.ini");
	path_of(link, sizeof(link), "link.ini");
	if (symlink(p, link) < 0) {
		T_FAIL("symlink '%s'", link);
	} else {
		int fd = file_open_regular(link, NULL, 0, NULL, &err);

		CHECK(fd >= 0);
		if (fd >= 0)
			close(fd);
		CHECK_INT(file_open_regular(link, NULL, FILE_NOFOLLOW, NULL, &err), -ELOOP);
		sb_reset(&want);
		sb_addf(&want, "'%s' is a symbolic link, not a file", link);
		CHECK_STR(err.buf, want.buf);
	}
	/* nothing of a failed read was left in RET */
	CHECK_STR(sb.buf, "kept");
	sb_release(&sb);
	sb_release(&err);
	sb_release(&want);
}

static void test_cap(void)
{
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT, want = STRBUF_INIT;
	char p[256], *big;
	size_t max = 100000;

	big = malloc(max + 1);
	if (!big) {
		T_FAIL("out of memory");
		return;
	}
	memset(big, 'x', max + 1);
	path_of(p, sizeof(p), "big");
	/* exactly the cap: read */
	put(p, big, max);
	CHECK_INT(file_read_text(p, NULL, max, &sb, &err), 0);
	CHECK_INT(sb.len, max);
	/* one byte past it: refused, RET as it was */
	put(p, big, max + 1);
	CHECK_INT(file_read_text(p, NULL, max, &sb, &err), -EFBIG);
	CHECK_INT(sb.len, max);
	sb_addf(&want, "'%s' is larger than 100000 bytes", p);
	CHECK_STR(err.buf, want.buf);
	/* a sparse file far past the cap costs the cap, not its size */
	if (truncate(p, (off_t)64 << 30) == 0) {
		sb_reset(&sb);
		CHECK_INT(file_read_text(p, "run.ini", FILE_TEXT_MAX, &sb, &err), -EFBIG);
		sb_reset(&want);
		sb_addf(&want, "run.ini '%s' is larger than 4 MiB", p);
		CHECK_STR(err.buf, want.buf);
		/* empty before, empty after, and nothing held: a caller that
		 * returns on the error leaks nothing */
		CHECK_INT(sb.len, 0);
		CHECK_INT(sb.alloc, 0);
	}
	unlink(p);
	free(big);
	sb_release(&sb);
	sb_release(&err);
	sb_release(&want);
}

int main(void)
{
	char p[256];

	signal(SIGALRM, on_alarm);
	if (!mkdtemp(dir))
		t_skip("cannot make a temporary directory");
	T_RUN(test_regular);
	T_RUN(test_refused);
	T_RUN(test_cap);
	for (const char *const *n =
		 (const char *const[]){"a.ini", "empty", "fifo", "link.ini", NULL};
	     *n; n++) {
		path_of(p, sizeof(p), *n);
		unlink(p);
	}
	rmdir(dir);
	return t_exit();
}
