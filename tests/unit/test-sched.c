// SPDX-License-Identifier: MIT
/* test-sched.c: the CPU lists read from a sysfs directory (this machine's,
 * captured under fixtures/sys-cpu, and broken or offline ones made here),
 * the checks of sched_cpus_choose, and the clocks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/cpulist.h"
#include "core/strbuf.h"
#include "linux/sched.h"
#include "t.h"

static char tmpdir[] = "/tmp/test-sched-XXXXXX";

static void put(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
}

static void remove_tmp(void)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/online", tmpdir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/possible", tmpdir);
	unlink(path);
	rmdir(tmpdir);
}

static void test_read_fixture(void)
{
	struct cpulist on, pos;
	struct strbuf err = STRBUF_INIT;

	CHECK_INT(sched_cpus_read(t_fixture("sys-cpu"), &on, &pos, &err), 0);
	CHECK_INT(cpulist_count(&on), 2);
	CHECK(cpulist_has(&on, 0) && cpulist_has(&on, 1));
	CHECK_INT(cpulist_count(&pos), 2);
	sb_release(&err);
}

static void test_read_errors(void)
{
	struct cpulist on, pos;
	struct strbuf err = STRBUF_INIT;
	char want[512];

	put("online", "0-x\n");
	CHECK_INT(sched_cpus_read(tmpdir, &on, &pos, &err), -EINVAL);
	snprintf(want, sizeof(want), "'%s/online': position 3: expected a CPU number, got 'x'",
		 tmpdir);
	CHECK_STR(err.buf, want);
	sb_reset(&err);

	/* no "possible" file: it reads as equal to online */
	put("online", "0,2\n");
	CHECK_INT(sched_cpus_read(tmpdir, &on, &pos, &err), 0);
	CHECK(cpulist_has(&pos, 2) && !cpulist_has(&pos, 1));

	CHECK_INT(sched_cpus_read("/nonexistent-dir", &on, &pos, &err), -ENOENT);
	CHECK_STR(err.buf, "'/nonexistent-dir/online': No such file or directory");
	sb_release(&err);
}

static void test_choose(void)
{
	struct cpulist want, got, allowed;
	struct strbuf err = STRBUF_INIT;

	CHECK_INT(sched_cpus_allowed(&allowed), 0);
	CHECK(cpulist_has(&allowed, 0));
	/* the live machine: the default is every online, allowed CPU */
	CHECK_INT(sched_cpus_choose(NULL, NULL, &got, &err), 0);
	CHECK(cpulist_count(&got) >= 1);

	/* CPU 0 online, CPU 1 offline, CPU 9 absent */
	put("online", "0\n");
	put("possible", "0-1\n");
	cpulist_clear(&want);
	cpulist_set(&want, 0);
	CHECK_INT(sched_cpus_choose(tmpdir, &want, &got, &err), 0);
	CHECK_INT(cpulist_count(&got), 1);
	cpulist_set(&want, 1);
	CHECK_INT(sched_cpus_choose(tmpdir, &want, &got, &err), -ENODEV);
	CHECK_STR(err.buf, "cpu 1 is offline (online: 0)");
	sb_reset(&err);
	cpulist_clear(&want);
	cpulist_set(&want, 9);
	CHECK_INT(sched_cpus_choose(tmpdir, &want, &got, &err), -ENODEV);
	CHECK_STR(err.buf, "cpu 9 does not exist (cpus: 0-1)");
	sb_reset(&err);
	/* default with the fake lists: only CPU 0 */
	CHECK_INT(sched_cpus_choose(tmpdir, NULL, &got, &err), 0);
	CHECK_INT(cpulist_count(&got), 1);
	CHECK(cpulist_has(&got, 0));
	sb_release(&err);
}

static void test_clocks(void)
{
	struct rec_clock c;
	uint64_t a = sched_now_ns(), b;

	CHECK_INT(sched_sleep_until(a + 1000000), 0);
	b = sched_now_ns();
	CHECK(b >= a + 1000000); /* an absolute deadline is never early */
	sched_clock_pair(&c);
	CHECK(c.mono_ns >= b && c.real_ns > c.mono_ns);
	/* BOOTTIME is MONOTONIC plus the time suspended: never behind it (the
	 * boot read comes after the first monotonic read of the pair, within
	 * the pair's spread) */
	CHECK(c.boot_ns + 1000000 >= c.mono_ns);
	b = sched_thread_cpu_ns();
	CHECK(b > 0);
	CHECK(sched_process_cpu_ns() >= b); /* read after: the process holds the thread */
}

int main(void)
{
	if (!mkdtemp(tmpdir))
		t_skip("no temporary directory");
	T_RUN(test_read_fixture);
	T_RUN(test_read_errors);
	T_RUN(test_choose);
	T_RUN(test_clocks);
	remove_tmp();
	return t_exit();
}
