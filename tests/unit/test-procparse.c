// SPDX-License-Identifier: MIT
/*
 * test-procparse.c: the /proc and /sys parsers on text captured from this
 * machine (kernel 6.18, the .txt files of tests/fixtures/proc) and on hand-made edge cases
 * (made-*.txt: comm with ") (", truncated buffers, missing fields, formats of
 * drivers and setups this machine does not have). Every parser is also fed
 * every prefix of its fixture, under ASan, to show it never reads past LEN.
 */
#include "t.h"

#include <errno.h>

#include "linux/procparse.h"

static char fbuf[65536];

/* Reads fixture proc/NAME into fbuf; returns its length. */
static size_t load(const char *name)
{
	char rel[256];
	FILE *f;
	size_t n;

	snprintf(rel, sizeof(rel), "proc/%s", name);
	f = fopen(t_fixture(rel), "r");
	if (!f) {
		T_FAIL("cannot open fixture '%s'", rel);
		return 0;
	}
	n = fread(fbuf, 1, sizeof(fbuf), f);
	fclose(f);
	return n;
}

/* Copies fbuf[0..n) into an exact-size heap block, so ASan catches a read
 * one past the end. */
static char *exact(size_t n)
{
	char *p = malloc(n ? n : 1);

	memcpy(p, fbuf, n);
	return p;
}

static void test_task_stat(void)
{
	struct pp_task_stat st;
	size_t n = load("task-stat-sleep.txt");

	CHECK_INT(pp_task_stat(fbuf, n, &st), 0);
	CHECK_STR(st.comm, "sleep");
	CHECK_INT(st.state, 'S');
	CHECK_INT(st.minflt, 133);
	CHECK_INT(st.majflt, 0);
	CHECK_INT(st.utime, 0);
	CHECK_INT(st.stime, 1);
	CHECK_INT(st.num_threads, 1);
	CHECK_INT(st.processor, 1);

	n = load("task-stat-running.txt");
	CHECK_INT(pp_task_stat(fbuf, n, &st), 0);
	CHECK_INT(st.state, 'R');
	CHECK_INT(st.utime, 54);
	CHECK_INT(st.minflt, 125);

	/* comm "a) (b c", captured from a process that set it. */
	n = load("task-stat-parens.txt");
	CHECK_INT(pp_task_stat(fbuf, n, &st), 0);
	CHECK_STR(st.comm, "a) (b c");
	CHECK_INT(st.state, 'S');
	CHECK_INT(st.minflt, 2869);
	CHECK_INT(st.majflt, 0);
	CHECK_INT(st.utime, 6);
	CHECK_INT(st.stime, 4);
	CHECK_INT(st.processor, 1);

	n = load("made-task-stat-truncated.txt");
	CHECK_INT(pp_task_stat(fbuf, n, &st), -EINVAL);
	n = load("made-task-stat-noparen.txt");
	CHECK_INT(pp_task_stat(fbuf, n, &st), -EINVAL);
	CHECK_INT(pp_task_stat("", 0, &st), -EINVAL);
	CHECK_INT(pp_task_stat("1 (x) R 1 2 x", 13, &st), -EINVAL);
}

static void test_schedstat(void)
{
	struct pp_schedstat s;
	size_t n = load("schedstat.txt");

	CHECK_INT(pp_schedstat(fbuf, n, &s), 0);
	CHECK_INT(s.run_ns, 10514577);
	CHECK_INT(s.wait_ns, 8224901);
	CHECK_INT(s.slices, 3);
	n = load("made-schedstat-short.txt");
	CHECK_INT(pp_schedstat(fbuf, n, &s), -EINVAL);
}

static void test_syscall(void)
{
	struct pp_syscall s;
	size_t n = load("syscall-nanosleep.txt");

	CHECK_INT(pp_syscall(fbuf, n, &s), 0);
	CHECK_INT(s.nr, 230); /* clock_nanosleep on x86_64 */
	CHECK(!s.running);
	CHECK_INT(s.args[0], 0);
	CHECK_INT(s.args[2], 0x7fffafb3efb0);

	n = load("syscall-read-pipe.txt");
	CHECK_INT(pp_syscall(fbuf, n, &s), 0);
	CHECK_INT(s.nr, 0);	 /* read */
	CHECK_INT(s.args[0], 3); /* its fd */
	CHECK_INT(s.args[2], 1);

	n = load("syscall-openat-fifo.txt");
	CHECK_INT(pp_syscall(fbuf, n, &s), 0);
	CHECK_INT(s.nr, 257);
	CHECK_INT(s.args[0], 0xffffff9c); /* AT_FDCWD as the kernel prints it */

	n = load("syscall-running.txt");
	CHECK_INT(pp_syscall(fbuf, n, &s), 0);
	CHECK(s.running);
	CHECK_INT(s.nr, -1);

	n = load("made-syscall-fault.txt");
	CHECK_INT(pp_syscall(fbuf, n, &s), 0);
	CHECK(!s.running);
	CHECK_INT(s.nr, -1);

	CHECK_INT(pp_syscall("0 0x3 0x1", 9, &s), -EINVAL);
	CHECK_INT(pp_syscall("", 0, &s), -EINVAL);
	CHECK_INT(pp_syscall("-7", 2, &s), -EINVAL);
}

static void test_wchan(void)
{
	char w[64];
	size_t n = load("wchan-sleep.txt");

	CHECK_INT(pp_wchan(fbuf, n, w, sizeof(w)), 0);
	CHECK_STR(w, "hrtimer_nanosleep");
	n = load("wchan-pipe-read.txt");
	CHECK_INT(pp_wchan(fbuf, n, w, sizeof(w)), 0);
	CHECK_STR(w, "anon_pipe_read");
	n = load("wchan-running.txt");
	CHECK_INT(pp_wchan(fbuf, n, w, sizeof(w)), 0);
	CHECK_STR(w, "");
	CHECK_INT(pp_wchan("hrtimer_nanosleep", 17, w, 8), -EINVAL);
	CHECK_INT(pp_wchan("a b", 3, w, sizeof(w)), -EINVAL);
}

static void test_vmstat_meminfo(void)
{
	const char *vm[] = {"pgmajfault",
			    "pswpin",
			    "pgscan_direct",
			    "allocstall_normal",
			    "workingset_refault_file",
			    "no_such_counter"};
	int64_t v[6] = {-5, -5, -5, -5, -5, -5};
	size_t n = load("vmstat.txt");

	CHECK_INT(pp_keyed(fbuf, n, vm, 6, v), 5);
	CHECK(v[0] > 0);    /* this machine has had major faults since boot */
	CHECK_INT(v[1], 0); /* and no swap */
	CHECK(v[2] >= 0);
	CHECK(v[3] >= 0);
	CHECK(v[4] >= 0);
	CHECK_INT(v[5], -5); /* absent: left alone */
	/* A name must match whole: "pgscan_direct" is not "pgscan_direct_throttle". */
	{
		const char *nm[] = {"pgscan_direct"};
		int64_t x = -1;
		const char *txt = "pgscan_direct_throttle 7\npgscan_direct 3\n";

		CHECK_INT(pp_keyed(txt, strlen(txt), nm, 1, &x), 1);
		CHECK_INT(x, 3);
		CHECK_INT(pp_keyed("pgscan_direct x\n", 16, nm, 1, &x), -EINVAL);
	}

	{
		const char *mi[] = {"MemAvailable", "MemTotal"};
		int64_t m[2] = {0, 0};

		n = load("meminfo.txt");
		CHECK_INT(pp_keyed(fbuf, n, mi, 2, m), 2);
		CHECK_INT(m[0], 24339768);
		CHECK_INT(m[1], 24683620);
	}
}

static void test_blkstat(void)
{
	struct pp_blkstat b;
	size_t n = load("blkstat-vda.txt");

	CHECK_INT(pp_blkstat(fbuf, n, &b), 0);
	CHECK_INT(b.rd_ios, 45511);
	CHECK_INT(b.rd_sectors, 3662562);
	CHECK_INT(b.rd_ticks, 13655);
	CHECK_INT(b.wr_ios, 9688);
	CHECK_INT(b.wr_sectors, 922112);
	CHECK_INT(b.in_flight, 0);
	CHECK_INT(b.io_ticks, 8492);
	n = load("blkstat-zram0.txt");
	CHECK_INT(pp_blkstat(fbuf, n, &b), 0);
	CHECK_INT(b.rd_ios, 0);
	n = load("made-blkstat-short.txt");
	CHECK_INT(pp_blkstat(fbuf, n, &b), -EINVAL);
}

static void test_psi(void)
{
	struct pp_psi p;
	size_t n = load("pressure-io.txt");

	CHECK_INT(pp_psi(fbuf, n, &p), 0);
	CHECK(p.has_some && p.has_full);
	CHECK_INT(p.some_us, 4607469);
	CHECK_INT(p.full_us, 4175033);
	n = load("pressure-cpu.txt");
	CHECK_INT(pp_psi(fbuf, n, &p), 0);
	CHECK_INT(p.some_us, 40139390);
	n = load("cgroup-cpu-pressure.txt");
	CHECK_INT(pp_psi(fbuf, n, &p), 0);
	CHECK_INT(p.some_us, 40148451);
	/* Kernels before 5.13 have no "full" line for cpu. */
	n = load("made-pressure-cpu-old.txt");
	CHECK_INT(pp_psi(fbuf, n, &p), 0);
	CHECK(!p.has_full);
	CHECK_INT(p.some_us, 12);
	n = load("made-pressure-nototal.txt");
	CHECK_INT(pp_psi(fbuf, n, &p), -EINVAL);
}

static void test_cpustat(void)
{
	struct pp_cpustat c;
	size_t n = load("stat.txt");

	CHECK_INT(pp_cpustat(fbuf, n, &c), 0);
	CHECK_INT(c.user, 11362);
	CHECK_INT(c.system, 10669);
	CHECK_INT(c.idle, 102780);
	CHECK_INT(c.iowait, 518);
	CHECK_INT(c.softirq, 286);
	CHECK_INT(pp_cpustat("cpu0 1 2 3", 10, &c), -EINVAL);
}

static void test_mountinfo(void)
{
	struct pp_mount m;
	size_t n = load("mountinfo.txt");

	CHECK_INT(pp_mountinfo_find(fbuf, n, "/", NULL, &m), 0);
	CHECK_INT(m.major, 254);
	CHECK_INT(m.minor, 0);
	CHECK_STR(m.fstype, "ext4");
	CHECK_STR(m.source, "/dev/vda");
	CHECK_INT(pp_mountinfo_find(fbuf, n, NULL, "cgroup2", &m), 0);
	CHECK_STR(m.point, "/sys/fs/cgroup/unified");
	CHECK_INT(pp_mountinfo_find(fbuf, n, "/nonexistent", NULL, &m), -ENOENT);
	{
		/* Escaped mount point; a later mount over "/" wins. */
		const char *t = "30 1 8:2 / / rw - ext4 /dev/sda2 rw\n"
				"31 30 0:40 / /mnt/my\\040disk rw shared:5 - btrfs /dev/sdb1 rw\n"
				"40 30 0:45 / / rw - overlay overlay rw\n";

		CHECK_INT(pp_mountinfo_find(t, strlen(t), "/mnt/my disk", NULL, &m), 0);
		CHECK_STR(m.fstype, "btrfs");
		CHECK_INT(m.major, 0);
		CHECK_INT(m.minor, 40);
		CHECK_INT(pp_mountinfo_find(t, strlen(t), "/", NULL, &m), 0);
		CHECK_STR(m.fstype, "overlay");
		CHECK_INT(pp_mountinfo_find("30 1 8:2 / /", 12, "/", NULL, &m), -EINVAL);
	}
}

static void test_swaps(void)
{
	struct pp_swap s[2];
	size_t n = load("swaps-empty.txt");

	CHECK_INT(pp_swaps(fbuf, n, s, 2), 0);
	n = load("made-swaps.txt");
	CHECK_INT(pp_swaps(fbuf, n, s, 2), 3); /* three areas, two fit */
	CHECK_STR(s[0].path, "/dev/zram0");
	CHECK(!s[0].is_file);
	CHECK_STR(s[1].path, "/dev/nvme0n1p3");
	{
		struct pp_swap all[4];

		CHECK_INT(pp_swaps(fbuf, n, all, 4), 3);
		CHECK_STR(all[2].path, "/my swap");
		CHECK(all[2].is_file);
	}
	CHECK_INT(pp_swaps("garbage\n", 8, s, 2), -EINVAL);
}

static void test_drm(void)
{
	struct pp_drm d;
	size_t n = load("made-fdinfo-i915.txt");

	CHECK_INT(pp_drm_fdinfo(fbuf, n, &d), 0);
	CHECK_STR(d.driver, "i915");
	CHECK(d.has_client_id);
	CHECK_INT(d.client_id, 7);
	CHECK_INT(d.nengines, 4); /* capacity-video is not an engine time */
	CHECK_STR(d.engines[0].name, "render");
	CHECK_INT(d.engines[0].ns, 25662044495);
	CHECK_STR(d.engines[3].name, "video-enhance");

	n = load("made-fdinfo-amdgpu.txt");
	CHECK_INT(pp_drm_fdinfo(fbuf, n, &d), 0);
	CHECK_STR(d.driver, "amdgpu");
	CHECK_INT(d.nengines, 3);
	CHECK_STR(d.engines[0].name, "gfx");
	CHECK_INT(d.engines[0].ns, 1423775212);
	CHECK_STR(d.engines[2].name, "dma");

	/* A captured fdinfo of a non-DRM fd: no driver, no engines. */
	n = load("fdinfo-nodrm.txt");
	CHECK_INT(pp_drm_fdinfo(fbuf, n, &d), 0);
	CHECK_STR(d.driver, "");
	CHECK_INT(d.nengines, 0);
	CHECK_INT(pp_drm_fdinfo("drm-engine-gfx: x ns\n", 21, &d), -EINVAL);
}

static void test_cgroup(void)
{
	struct pp_cgroup g;
	size_t n = load("cgroup-hybrid.txt");

	CHECK_INT(pp_cgroup(fbuf, n, &g), 0);
	CHECK(g.has_v1);
	CHECK(g.has_v2);
	CHECK_STR(g.v2_path, "/");
	n = load("made-cgroup-v2.txt");
	CHECK_INT(pp_cgroup(fbuf, n, &g), 0);
	CHECK(!g.has_v1);
	CHECK_STR(g.v2_path,
		  "/user.slice/user-1000.slice/user@1000.service/app.slice/app-steam.scope");
	CHECK_INT(pp_cgroup("", 0, &g), -EINVAL);
	CHECK_INT(pp_cgroup("0::relative\n", 12, &g), -EINVAL);
}

/* Every prefix of every fixture through every parser: no crash, no read past
 * the end (ASan), and a truncated number is never taken for a whole one. */
static void test_prefixes(void)
{
	const char *files[] = {
	    "task-stat-parens.txt", "schedstat.txt",   "syscall-nanosleep.txt", "wchan-sleep.txt",
	    "vmstat.txt",	    "blkstat-vda.txt", "pressure-io.txt",	"stat.txt",
	    "mountinfo.txt",	    "made-swaps.txt",  "made-fdinfo-i915.txt",	"cgroup-hybrid.txt",
	    "meminfo.txt"};
	const char *vm[] = {"pgmajfault", "MemAvailable"};

	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		size_t n = load(files[f]);

		for (size_t k = 0; k <= n; k++) {
			char *p = exact(k);
			union {
				struct pp_task_stat a;
				struct pp_schedstat b;
				struct pp_syscall c;
				struct pp_blkstat d;
				struct pp_psi e;
				struct pp_cpustat g;
				struct pp_mount h;
				struct pp_swap i[4];
				struct pp_drm j;
				struct pp_cgroup k;
				char w[64];
			} u;
			int64_t v[2];

			(void)pp_task_stat(p, k, &u.a);
			(void)pp_schedstat(p, k, &u.b);
			(void)pp_syscall(p, k, &u.c);
			(void)pp_wchan(p, k, u.w, sizeof(u.w));
			(void)pp_keyed(p, k, vm, 2, v);
			(void)pp_blkstat(p, k, &u.d);
			(void)pp_psi(p, k, &u.e);
			(void)pp_cpustat(p, k, &u.g);
			(void)pp_mountinfo_find(p, k, "/", NULL, &u.h);
			(void)pp_swaps(p, k, u.i, 4);
			(void)pp_drm_fdinfo(p, k, &u.j);
			(void)pp_cgroup(p, k, &u.k);
			free(p);
		}
	}
	/* A task stat cut inside field 39 parses a shorter number, but one cut
	 * before it fails: the prefix that stops inside "2869" must not pass. */
	{
		struct pp_task_stat st;
		size_t n = load("task-stat-parens.txt");
		const char *cut = strstr(fbuf, " 2869 ");

		CHECK(cut != NULL);
		if (cut) {
			size_t k = (size_t)(cut - fbuf) + 3;

			CHECK(k < n);
			CHECK_INT(pp_task_stat(fbuf, k, &st), -EINVAL);
		}
	}
}

int main(void)
{
	T_RUN(test_task_stat);
	T_RUN(test_schedstat);
	T_RUN(test_syscall);
	T_RUN(test_wchan);
	T_RUN(test_vmstat_meminfo);
	T_RUN(test_blkstat);
	T_RUN(test_psi);
	T_RUN(test_cpustat);
	T_RUN(test_mountinfo);
	T_RUN(test_swaps);
	T_RUN(test_drm);
	T_RUN(test_cgroup);
	T_RUN(test_prefixes);
	return t_exit();
}
