// SPDX-License-Identifier: MIT
/*
 * test-rig.c: the machine a run is made on (linux/rig.h), on a fixture tree
 * made in a temporary directory from captured text (this machine's
 * /proc/cpuinfo, tests/fixtures/proc/cpuinfo.txt, and /proc/meminfo), a
 * made /etc/machine-id and /sys/class/drm cards linked to their drivers as
 * the kernel links them. The id is a hash of the machine id with our key,
 * a value later versions must give again (results databases key runs by
 * it; computed apart with python), and never the machine id itself; a
 * name given wins; no machine id (or a FIFO in its place: no hang) falls
 * back to the host name. The live machine: the counts that uname and
 * sysconf give.
 */
#include "t.h"

#include <errno.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "linux/rig.h"

static char dir[] = "/tmp/ss-test-rig-XXXXXX";

static void put(const char *rel, const char *text)
{
	char path[4300];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0) {
		perror(path);
		exit(1);
	}
	fclose(f);
}

static void copy_fixture(const char *name, const char *rel)
{
	char buf[65536];
	FILE *f = fopen(t_fixture(name), "r");
	size_t n;

	if (!f) {
		perror(t_fixture(name));
		exit(1);
	}
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	put(rel, buf);
}

/* Runs CMD in DIR/SUB. */
static void sh(const char *sub, const char *what)
{
	char cmd[8192];

	snprintf(cmd, sizeof(cmd), "cd '%s/%s' && %s", dir, sub, what);
	if (system(cmd) != 0) {
		fprintf(stderr, "failed: %s\n", cmd);
		exit(1);
	}
}

/* The tree: two cards on amdgpu (one reported once), one on i915, and a
 * connector (card0-DP-1) and a render node, which are not cards (their
 * device made nouveau's here, so that counting them shows). */
static void make_tree(void)
{
	sh(".", "mkdir -p proc etc sys/bus/pci/drivers/amdgpu sys/bus/pci/drivers/i915 "
	   "sys/bus/pci/drivers/nouveau sys/devices/a sys/devices/b sys/devices/c sys/devices/d sys/class/drm/card0 sys/class/drm/card1 "
	   "sys/class/drm/card2 sys/class/drm/card0-DP-1 sys/class/drm/renderD128");
	sh("sys/class/drm", "ln -s ../../../devices/a card0/device && "
	   "ln -s ../../../devices/b card1/device && ln -s ../../../devices/c card2/device && "
	   "ln -s ../../../devices/d card0-DP-1/device && ln -s ../../../devices/d renderD128/device");
	sh("sys/devices", "ln -s ../bus/pci/drivers/amdgpu a/driver && "
	   "ln -s ../bus/pci/drivers/i915 b/driver && ln -s ../bus/pci/drivers/amdgpu c/driver && "
	   "ln -s ../bus/pci/drivers/nouveau d/driver");
	copy_fixture("proc/cpuinfo.txt", "proc/cpuinfo");
	copy_fixture("proc/meminfo.txt", "proc/meminfo");
	put("etc/machine-id", "0123456789abcdef0123456789abcdef\n");
}

static void test_fixture(void)
{
	struct rig_facts r;
	char gpu[128];

	rig_probe(dir, NULL, &r);
	CHECK_STR(r.id, "m-2b031ce5ab422909");
	CHECK(strstr(r.id, "0123456789abcdef") == NULL);
	CHECK_STR(r.cpu, "AMD EPYC");
	CHECK_INT(r.mem_kb, 24683620);
	/* readdir's order: either card first, each driver once */
	snprintf(gpu, sizeof(gpu), "%s", r.gpu);
	CHECK(!strcmp(gpu, "amdgpu,i915") || !strcmp(gpu, "i915,amdgpu"));
	/* the same tree, the same id; another machine id, another */
	{
		struct rig_facts r2;

		rig_probe(dir, "", &r2);
		CHECK_STR(r2.id, r.id);
		put("etc/machine-id", "fedcba9876543210fedcba9876543210\n");
		rig_probe(dir, NULL, &r2);
		CHECK(strncmp(r2.id, "m-", 2) == 0 && strlen(r2.id) == 18);
		CHECK(strcmp(r2.id, r.id) != 0);
		put("etc/machine-id", "0123456789abcdef0123456789abcdef\n");
	}
	/* a name given wins */
	rig_probe(dir, "lab-amd-1", &r);
	CHECK_STR(r.id, "lab-amd-1");
	CHECK_STR(r.cpu, "AMD EPYC");	/* the facts still read */
}

static void test_missing(void)
{
	struct rig_facts r;
	char host[256] = "", want[300], path[4300];

	gethostname(host, sizeof(host) - 1);
	snprintf(want, sizeof(want), "host-%s", host[0] ? host : "unknown");
	/* no machine id: the host's name */
	snprintf(path, sizeof(path), "%s/etc/machine-id", dir);
	CHECK_INT(unlink(path), 0);
	rig_probe(dir, NULL, &r);
	CHECK_STR(r.id, want);
	/* a FIFO where it was: not opened to hang, the same fallback */
	CHECK_INT(mkfifo(path, 0600), 0);
	rig_probe(dir, NULL, &r);
	CHECK_STR(r.id, want);
	/* a tree with nothing: empty and 0, never a failure */
	snprintf(path, sizeof(path), "%s/empty", dir);
	CHECK_INT(mkdir(path, 0755), 0);
	rig_probe(path, NULL, &r);
	CHECK_STR(r.cpu, "");
	CHECK_STR(r.gpu, "");
	CHECK_INT(r.mem_kb, 0);
	CHECK_STR(r.id, want);
}

/* The live machine: the kernel, host and CPU count as uname, gethostname
 * and sysconf say; a memory size and an id of the documented shapes. */
static void test_live(void)
{
	struct rig_facts r;
	struct utsname u;
	char host[256] = "";

	rig_probe("", NULL, &r);
	CHECK_INT(uname(&u), 0);
	CHECK_STR(r.kernel, u.release);
	gethostname(host, sizeof(host) - 1);
	CHECK_STR(r.host, host);
	CHECK_INT(r.cpus, sysconf(_SC_NPROCESSORS_ONLN));
	CHECK(r.mem_kb > 0);
	CHECK((strncmp(r.id, "m-", 2) == 0 && strlen(r.id) == 18) || strncmp(r.id, "host-", 5) == 0);
}

int main(void)
{
	t_tmpdir(dir);
	make_tree();
	T_RUN(test_fixture);
	T_RUN(test_missing);
	T_RUN(test_live);
	t_rmtree(dir);
	return t_exit();
}
