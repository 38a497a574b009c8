// SPDX-License-Identifier: MIT
/*
 * test-pfl.c: prefetch's side of the kernel (linux/prefetch.h; the pure
 * part, core/prefetch.h, is test-prefetch). pfl_open's refusals (a FIFO
 * without hanging, a device node, a link, a directory); a file on a disk
 * (/var/tmp) whose pages are dropped, then two of them read: pfl_missing
 * and pfl_file_ranges see exactly that; pfl_read's chunked reads bring the
 * rest back; this process's own files (its executable first, its libc, a
 * file it holds open, its working directory); a directory walked without
 * following links; the I/O priority values of linux/ioprio.h; and
 * MemAvailable against /proc/meminfo read apart. Where /var/tmp is not on
 * a disk (tmpfs: pages cannot be dropped) the page cases are skipped (77)
 * at the end, saying so.
 */
#include "t.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "linux/prefetch.h"

static char dir[] = "/var/tmp/ss-test-pfl-XXXXXX";

static const char *in_dir(const char *name)
{
	static char p[2][4200];
	static int k;

	k ^= 1;
	snprintf(p[k], sizeof(p[k]), "%s/%s", dir, name);
	return p[k];
}

static void make_file(const char *path, size_t size)
{
	static char block[65536];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	for (size_t i = 0; i < sizeof(block); i++)
		block[i] = (char)(i * 7);
	for (size_t done = 0; fd >= 0 && done < size; done += sizeof(block))
		if (write(fd, block, sizeof(block)) != (ssize_t)sizeof(block))
			break;
	if (fd < 0 || fsync(fd) < 0) {
		perror(path);
		exit(1);
	}
	close(fd);
}

static void test_open(void)
{
	int fd;

	make_file(in_dir("data"), 65536);
	fd = pfl_open(in_dir("data"));
	CHECK(fd >= 0);
	if (fd >= 0) {
		int fl = fcntl(fd, F_GETFL);

		CHECK((fl & O_NONBLOCK) != 0);
		CHECK((fl & O_ACCMODE) == O_RDONLY);
		close(fd);
	}
	CHECK_INT(mkfifo(in_dir("fifo"), 0600), 0);
	CHECK_INT(pfl_open(in_dir("fifo")), -EINVAL);	/* returns, does not wait for a writer */
	CHECK_INT(symlink(in_dir("data"), in_dir("link")), 0);
	CHECK_INT(pfl_open(in_dir("link")), -ELOOP);
	CHECK_INT(pfl_open("/dev/null"), -EINVAL);
	CHECK_INT(pfl_open(dir), -EISDIR);	/* core/file.h's errno for a directory */
	CHECK_INT(pfl_open(in_dir("absent")), -ENOENT);
	CHECK_INT(pfl_page(), sysconf(_SC_PAGESIZE));
}

static bool on_disk(void)
{
	struct statfs sf;

	return statfs(dir, &sf) == 0 && sf.f_type != 0x01021994 /* tmpfs */ &&
	       sf.f_type != 0x858458f6 /* ramfs */ && sf.f_type != 0x794c7630 /* overlayfs */;
}

/* 1 MiB dropped; two pages read with readahead off: missing is 1 MiB less
 * two pages, and the resident ranges are those pages, their 508 KiB gap
 * not filled (over PREFETCH_HOLE_FILL); pfl_read brings back the rest. */
static void test_pages(void)
{
	const uint64_t mib = 1 << 20, page = pfl_page();
	struct prefetch_range *r = NULL;
	size_t n = 0, cap = 0;
	uint64_t missing = 0, size = 0;
	char *buf = malloc(PFL_CHUNK), one[8];
	int fd;

	make_file(in_dir("big"), mib);
	fd = pfl_open(in_dir("big"));
	CHECK(fd >= 0 && buf);
	if (fd < 0 || !buf) {
		free(buf);
		return;
	}
	CHECK_INT(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	CHECK_INT(pfl_missing(fd, 0, mib, &missing), 0);
	CHECK_INT(missing, mib);
	CHECK_INT(pfl_file_ranges(in_dir("big"), &r, &n, &cap, &size), 0);
	CHECK_INT(size, mib);
	CHECK_INT(n, 0);
	posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	CHECK_INT(pread(fd, one, 1, 0), 1);
	CHECK_INT(pread(fd, one, 1, 512 * 1024), 1);
	CHECK_INT(pfl_missing(fd, 0, mib, &missing), 0);
	CHECK_INT(missing, mib - 2 * page);
	CHECK_INT(pfl_missing(fd, 0, page, &missing), 0);
	CHECK_INT(missing, 0);
	CHECK_INT(pfl_file_ranges(in_dir("big"), &r, &n, &cap, &size), 0);
	CHECK_INT(n, 2);
	if (n == 2) {
		CHECK_INT(r[0].off, 0);
		CHECK_INT(r[0].len, page);
		CHECK_INT(r[1].off, 512 * 1024);
		CHECK_INT(r[1].len, page);
	}
	/* the rest read back in 256 KiB reads: 4 of them, nothing missing */
	CHECK_INT(pfl_read(fd, 0, mib, buf), 4);
	CHECK_INT(pfl_missing(fd, 0, mib, &missing), 0);
	CHECK_INT(missing, 0);
	/* past the end: one read of 0 bytes, the file got shorter */
	CHECK_INT(pfl_read(fd, mib, PFL_CHUNK, buf), 1);
	close(fd);
	/* on a fresh open (readahead on): pfl_read turns it off, so reading
	 * the first 256 KiB brings in no more than that */
	fd = pfl_open(in_dir("big"));
	CHECK(fd >= 0);
	if (fd >= 0) {
		CHECK_INT(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
		CHECK_INT(pfl_read(fd, 0, PFL_CHUNK, buf), 1);
		CHECK_INT(pfl_missing(fd, 0, mib, &missing), 0);
		CHECK_INT(missing, mib - PFL_CHUNK);
		close(fd);
	}
	free(r);
	free(buf);
}

static bool listed(char **paths, size_t n, const char *p)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(paths[i], p))
			return true;
	return false;
}

static void free_list(char **paths, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}

static void test_proc_files(void)
{
	struct strbuf cwd = STRBUF_INIT;
	char **paths = NULL, exe[PATH_MAX], here[PATH_MAX], held[PATH_MAX];
	size_t n = 0;
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int fd = open(in_dir("data"), O_RDONLY);
	bool libc = false;

	CHECK(len > 0 && fd >= 0);
	exe[len > 0 ? len : 0] = 0;
	CHECK(realpath(in_dir("data"), held) != NULL);
	CHECK(getcwd(here, sizeof(here)) != NULL);
	CHECK_INT(pfl_proc_files(getpid(), &paths, &n, &cwd), 0);
	CHECK(n >= 3);
	if (n) {
		CHECK_STR(paths[0], exe);	/* the executable first */
		CHECK(paths[n] == NULL);
	}
	for (size_t i = 0; i < n; i++)
		libc |= strstr(paths[i], "/libc.so") != NULL || strstr(paths[i], "/libc-") != NULL;
	CHECK(libc);
	CHECK(listed(paths, n, held));	/* an open file */
	CHECK(!listed(paths, n, "/dev/null"));
	CHECK_STR(cwd.buf, here);
	/* each once: adding what is there adds nothing */
	{
		size_t before = n;

		CHECK_INT(pfl_add_path(&paths, &n, exe), 0);
		CHECK_INT(n, before);
	}
	free_list(paths, n);
	close(fd);
	sb_release(&cwd);
	paths = NULL;
	n = 0;
	/* a pid that is no process */
	CHECK_INT(pfl_proc_files(0x3fffffff, &paths, &n, &cwd), -ESRCH);
	free_list(paths, n);
	sb_release(&cwd);
}

static void test_dir_files(void)
{
	char **paths = NULL;
	size_t n = 0;
	char sub[4200];

	snprintf(sub, sizeof(sub), "%s/sub/deeper", dir);
	CHECK_INT(mkdir(in_dir("sub"), 0755), 0);
	CHECK_INT(mkdir(sub, 0755), 0);
	make_file(in_dir("sub/a"), 65536);
	make_file(in_dir("sub/deeper/b"), 65536);
	CHECK_INT(symlink(dir, in_dir("sub/loop")), 0);	/* a link to a directory: not walked */
	CHECK_INT(symlink(in_dir("data"), in_dir("sub/file-link")), 0);
	CHECK_INT(mkfifo(in_dir("sub/fifo"), 0600), 0);
	CHECK_INT(pfl_dir_files(in_dir("sub"), 100, &paths, &n), 0);
	CHECK_INT(n, 2);
	CHECK(listed(paths, n, in_dir("sub/a")));
	CHECK(listed(paths, n, in_dir("sub/deeper/b")));
	free_list(paths, n);
	/* at most MAX */
	paths = NULL;
	n = 0;
	CHECK_INT(pfl_dir_files(in_dir("sub"), 1, &paths, &n), 0);
	CHECK_INT(n, 1);
	free_list(paths, n);
	/* a directory that is not there: nothing, no error */
	paths = NULL;
	n = 0;
	CHECK_INT(pfl_dir_files(in_dir("absent"), 10, &paths, &n), 0);
	CHECK_INT(n, 0);
	free_list(paths, n);
}

static void test_ioprio_sys(void)
{
	struct prefetch_sys s;
	unsigned long long kb = 0;
	char line[256];
	FILE *f;

	CHECK_INT(pfl_ioprio("idle"), 3 << 13);
	CHECK_INT(pfl_ioprio("be0"), 2 << 13);
	CHECK_INT(pfl_ioprio("be7"), (2 << 13) | 7);
	CHECK_INT(pfl_ioprio("be8"), -EINVAL);
	CHECK_INT(pfl_ioprio("be"), -EINVAL);
	CHECK_INT(pfl_ioprio("be01"), -EINVAL);
	CHECK_INT(pfl_ioprio("rt0"), -EINVAL);
	CHECK_INT(pfl_ioprio(""), -EINVAL);
	CHECK_INT(pfl_sys(&s), 0);
	f = fopen("/proc/meminfo", "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	CHECK(kb > 0);
	/* read a moment apart: within 10 % */
	CHECK(s.mem_avail_kb > kb * 9 / 10 && s.mem_avail_kb < kb * 11 / 10);
}

int main(void)
{
	t_tmpdir(dir);
	T_RUN(test_open);
	T_RUN(test_proc_files);
	T_RUN(test_dir_files);
	T_RUN(test_ioprio_sys);
	if (on_disk()) {
		T_RUN(test_pages);
	} else if (!t_failed) {
		t_rmtree(dir);
		t_skip("test_pages: /var/tmp is not on a disk: its pages cannot be dropped");
	}
	t_rmtree(dir);
	return t_exit();
}
