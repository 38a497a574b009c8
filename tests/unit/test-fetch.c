// SPDX-License-Identifier: MIT
/*
 * test-fetch.c: prefetch's fetch (run/fetch.h): the budget arithmetic (the
 * --mb cap, MemAvailable less the reserve, nothing under the reserve); the
 * listed bytes; a list whose program changed refused as stale, naming it;
 * and a fetch of a file written here, its pages dropped where the kernel
 * lets us: what was read and what was resident add up to the list, a
 * budget of 0 reads nothing, a small budget is not overrun, a file gone
 * is no error.
 */
#include "t.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/prefetch.h"
#include "run/fetch.h"

#define MIB 1048576ull

static char dir[] = "/tmp/ss-test-fetch-XXXXXX";

static void test_budget(void)
{
	/* plenty of memory: --mb decides */
	CHECK_INT(fetch_budget(8 * 1024 * 1024, 64, 48), 64 * MIB);
	/* 100 MB available, 48 reserved: 52 MB left, under --mb 64 */
	CHECK_INT(fetch_budget(100 * 1024, 64, 48), 52 * MIB);
	/* exactly the reserve, or under it: nothing */
	CHECK_INT(fetch_budget(48 * 1024, 64, 48), 0);
	CHECK_INT(fetch_budget(10 * 1024, 64, 48), 0);
	/* no reserve, no cap in the way */
	CHECK_INT(fetch_budget(1024, 64, 0), MIB);
	CHECK_INT(fetch_budget(1024, 0, 0), 0);
	/* fractions of a MB */
	CHECK_INT(fetch_budget(1024 * 1024, 0.5, 0), MIB / 2);
}

/* A list of PATH, one range [0, LEN). */
static void one_file_list(struct prefetch_list *l, const char *path, uint64_t len)
{
	struct prefetch_file *f;

	memset(l, 0, sizeof(*l));
	f = prefetch_list_file(l, path);
	CHECK(f != NULL);
	if (!f)
		return;
	f->r = calloc(1, sizeof(*f->r));
	CHECK(f->r != NULL);
	if (!f->r)
		return;
	f->r[0] = (struct prefetch_range){ .off = 0, .len = len, .phys = PREFETCH_NO_PHYS };
	f->n = f->cap = 1;
}

/* PATH written with LEN bytes, synced and its pages dropped (where the
 * file system keeps it in the page cache only, they stay). */
static void write_file(const char *path, size_t len)
{
	char *buf = malloc(len);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	CHECK(buf && fd >= 0);
	if (buf && fd >= 0) {
		memset(buf, 'x', len);
		CHECK(write(fd, buf, len) == (ssize_t)len);
		fsync(fd);
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	}
	if (fd >= 0)
		close(fd);
	free(buf);
}

static void test_fetch(void)
{
	struct fetch_opts o = { .mb = 64, .reserve_mb = 0, .io = "be7" };
	struct strbuf err = STRBUF_INIT;
	struct fetch_result res;
	struct prefetch_list l;
	char path[4200];
	struct stat st;

	snprintf(path, sizeof(path), "%s/data", dir);
	write_file(path, 1 << 20);
	one_file_list(&l, path, 1 << 20);
	CHECK_INT(fetch_listed_bytes(&l), 1 << 20);

	/* the whole file fits: read, or resident already, together the list */
	CHECK_INT(fetch_run(NULL, &l, &o, &res, &err), 0);
	CHECK_INT(res.listed, 1 << 20);
	CHECK_INT(res.budget, 64 * MIB);
	if (res.why == PREFETCH_STOP_DONE)	/* not stopped by the machine's memory */
		CHECK_INT(res.got + res.already, 1 << 20);
	CHECK(res.got <= res.budget);
	CHECK(res.files <= 1);

	/* a budget of 0 reads nothing */
	o.mb = 0;
	CHECK_INT(fetch_run(NULL, &l, &o, &res, &err), 0);
	CHECK_INT(res.budget, 0);
	CHECK_INT(res.got, 0);
	CHECK_INT(res.reads, 0);

	/* a small budget is not overrun (cut at a page) */
	write_file(path, 1 << 20);
	o.mb = 0.1;
	CHECK_INT(fetch_run(NULL, &l, &o, &res, &err), 0);
	CHECK(res.got <= res.budget);
	CHECK_INT(res.budget, (uint64_t)(0.1 * MIB));

	/* the program changed since the list was learnt: stale, nothing read */
	CHECK_INT(stat(path, &st), 0);
	l.exe_size = (uint64_t)st.st_size + 1;
	l.exe_mtime = st.st_mtime;
	CHECK_INT(fetch_run(path, &l, &o, &res, &err), -ESTALE);
	CHECK(strstr(err.buf, "changed since its list was learnt") != NULL);
	CHECK(strstr(err.buf, path) != NULL);
	CHECK_INT(res.got, 0);
	/* the same program: fetched */
	l.exe_size = (uint64_t)st.st_size;
	sb_reset(&err);
	CHECK_INT(fetch_run(path, &l, &o, &res, &err), 0);

	/* a listed file gone: no error, nothing read, none opened */
	unlink(path);
	o.mb = 64;
	CHECK_INT(fetch_run(NULL, &l, &o, &res, &err), 0);
	CHECK_INT(res.got, 0);
	CHECK_INT(res.files, 0);
	CHECK_INT(res.already, 0);
	prefetch_list_free(&l);
	sb_release(&err);
}

int main(void)
{
	t_tmpdir(dir);
	T_RUN(test_budget);
	T_RUN(test_fetch);
	t_rmtree(dir);
	return t_exit();
}
