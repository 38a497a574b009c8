// SPDX-License-Identifier: MIT
/*
 * test-sysstate.c: bench's looks at the whole machine (linux/sysstate.h).
 * sysstate_busy's arithmetic on made counters; sysstate_sample against
 * /proc/stat's "cpu" line read here apart, and seeing this process's own
 * CPU burn and its own written and synced data move its counters;
 * /proc/loadavg; sysstate_self_exe against argv[0]; and drop_caches
 * refused to a user who is not root (the root case is not run: dropping
 * the page cache of a machine the tests share slows every other test).
 */
#include "t.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "linux/sysstate.h"

static void test_busy(void)
{
	struct sysstate_sample a = { .busy_ticks = 100, .all_ticks = 1000, .io_kib = 2048 };
	struct sysstate_sample b = { .busy_ticks = 400, .all_ticks = 2000, .io_kib = 2048 + 10240 };
	double cpu = -1, io = -1;

	sysstate_busy(&a, &b, 2.0, &cpu, &io);
	CHECK_NEAR(cpu, 30.0, 1e-9);	/* 300 busy of 1000 ticks */
	CHECK_NEAR(io, 5.0, 1e-9);	/* 10 MiB in 2 s */
	sysstate_busy(&a, &a, 0.0, &cpu, &io);	/* no time passed: 0, not NaN */
	CHECK_NEAR(cpu, 0.0, 0);
	CHECK_NEAR(io, 0.0, 0);
}

/* /proc/stat's "cpu" line, summed as sysstate.h documents, read here. */
static void proc_stat(uint64_t *busy, uint64_t *all)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");

	*busy = *all = 0;
	if (!f)
		return;
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]) == 8) {
		/* user nice system idle iowait irq softirq steal */
		*busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
		*all = *busy + v[3] + v[4];
	}
	fclose(f);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_sample(void)
{
	struct sysstate_sample a, b;
	uint64_t busy, all, ncpu = (uint64_t)sysconf(_SC_NPROCESSORS_ONLN);
	volatile double x = 1;
	double t;

	CHECK_INT(sysstate_sample(&a), 0);
	proc_stat(&busy, &all);
	/* the same counters, a moment later: at most a second's ticks more */
	CHECK(busy >= a.busy_ticks && busy - a.busy_ticks <= 100 * ncpu);
	CHECK(all >= a.all_ticks && all - a.all_ticks <= 100 * ncpu);
	CHECK(a.all_ticks > a.busy_ticks);
	CHECK(a.load1 >= 0);
	/* 200 ms of this process on a CPU: 20 ticks at USER_HZ 100 */
	t = now();
	while (now() - t < 0.2)
		x = x * 1.0000001 + 1e-9;
	CHECK_INT(sysstate_sample(&b), 0);
	if (b.busy_ticks - a.busy_ticks < 10)
		T_FAIL("busy ticks +%" PRIu64 " over 200 ms of CPU burnt here",
		       b.busy_ticks - a.busy_ticks);
	{
		double cpu, io;

		sysstate_busy(&a, &b, now() - t, &cpu, &io);
		CHECK(cpu > 100.0 / (double)ncpu * 0.4 && cpu <= 100.0);
	}
}

/* 4 MiB written and synced to a file on a disk: pgpgout moves by it. Where
 * /var/tmp is not on a disk (tmpfs, overlay), this cannot be seen: the
 * case is skipped (77) if all else passed. */
static void test_io(void)
{
	struct sysstate_sample a, b;
	struct statfs sf;
	char path[] = "/var/tmp/ss-test-sysstate-XXXXXX";
	static char block[1 << 20];
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	unlink(path);
	if (fstatfs(fd, &sf) == 0 && (sf.f_type == 0x01021994 /* tmpfs */ ||
				      sf.f_type == 0x794c7630 /* overlayfs */)) {
		close(fd);
		if (t_failed == 0)
			t_skip("test_io: /var/tmp is not on a disk: no write reaches a block device");
		return;
	}
	memset(block, 0x5a, sizeof(block));
	CHECK_INT(sysstate_sample(&a), 0);
	for (int i = 0; i < 4; i++)
		CHECK_INT(write(fd, block, sizeof(block)), (ssize_t)sizeof(block));
	CHECK_INT(fsync(fd), 0);
	close(fd);
	CHECK_INT(sysstate_sample(&b), 0);
	if (b.io_kib - a.io_kib < 4096)
		T_FAIL("io_kib +%" PRIu64 " after 4096 KiB written and synced", b.io_kib - a.io_kib);
}

static void test_self_exe(const char *argv0)
{
	char exe[PATH_MAX], want[PATH_MAX], small[4];

	CHECK_INT(sysstate_self_exe(exe, sizeof(exe)), 0);
	CHECK(realpath(argv0, want) != NULL);
	CHECK_STR(exe, want);
	CHECK_INT(sysstate_self_exe(small, sizeof(small)), -ENAMETOOLONG);
}

/* As nobody: drop_caches is refused with EACCES (the file is 0200 root). */
static void test_drop_refused(void)
{
	pid_t kid;
	int st = -1;

	if (geteuid() != 0) {
		int r = sysstate_drop_caches();

		CHECK(r == -EACCES || r == -EPERM);
		return;
	}
	kid = fork();
	if (kid == 0) {
		int r;

		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(3);
		r = sysstate_drop_caches();
		_exit(r == -EACCES || r == -EPERM ? 0 : 1);
	}
	CHECK_INT(waitpid(kid, &st, 0), kid);
	CHECK(WIFEXITED(st));
	CHECK_INT(WEXITSTATUS(st), 0);
}

int main(int argc, char **argv)
{
	(void)argc;
	T_RUN(test_busy);
	T_RUN(test_sample);
	{
		int before = t_failed;

		test_self_exe(argv[0]);
		fprintf(stderr, "%s test_self_exe\n", t_failed == before ? "ok  " : "FAIL");
	}
	T_RUN(test_drop_refused);
	T_RUN(test_io);		/* last: it may skip */
	return t_exit();
}
