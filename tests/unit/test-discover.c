// SPDX-License-Identifier: MIT
/*
 * test-discover.c: discovery on fake trees under tests/fixtures and on the
 * live system.
 *
 * tree-lvm: root on /dev/mapper/root (dm-0 built on nvme0n1p2), swap on zram0
 * and on sda1, an uninitialized zram1, Xwayland and gnome-shell running, the
 * game in a cgroup v2 group. tree-hybrid: this machine's shape (captured
 * mountinfo and cgroup: v1/v2 hybrid, the program in the v2 root), where
 * cgroup pressure must be refused with a reason.
 */
#include "t.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linux/discover.h"

static const char *tree(const char *name)
{
	static char path[4096];

	snprintf(path, sizeof(path), "%s", t_fixture(name));
	return path;
}

static const struct disc_disk *find(const struct disc_disk *d, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(d[i].name, name) == 0)
			return &d[i];
	return NULL;
}

static void test_disks_lvm(void)
{
	struct disc_disk d[16];
	struct strbuf why = STRBUF_INIT;
	const struct disc_disk *x;
	size_t n = 99;
	char roles[64];

	CHECK_INT(discover_disks(tree("tree-lvm"), 1234, d, 16, &n, &why), 0);
	/* dm-0 (root), nvme0n1 (its slave's disk), zram0 (swap, zram), sda (swap). */
	CHECK_INT(n, 4);
	x = find(d, n, "dm-0");
	CHECK(x && x->roles == DISC_ROOT);
	x = find(d, n, "nvme0n1");
	CHECK(x && x->roles == DISC_ROOT);
	CHECK(find(d, n, "nvme0n1p2") == NULL); /* a partition becomes its disk */
	x = find(d, n, "sda");
	CHECK(x && x->roles == DISC_SWAP);
	x = find(d, n, "zram0");
	CHECK(x && x->roles == (DISC_SWAP | DISC_ZRAM));
	if (x) {
		discover_roles(x->roles, roles, sizeof(roles));
		CHECK_STR(roles, "swap,zram");
	}
	CHECK(find(d, n, "zram1") == NULL);
	CHECK(strstr(why.buf, "zram1: not initialized") != NULL);

	/* Room for two: the rest is said, not written past the end. */
	sb_reset(&why);
	CHECK_INT(discover_disks(tree("tree-lvm"), 1234, d, 2, &n, &why), 0);
	CHECK_INT(n, 2);
	CHECK(strstr(why.buf, "more than 2") != NULL);
	sb_release(&why);
}

static void test_disks_missing(void)
{
	struct disc_disk d[4];
	struct strbuf why = STRBUF_INIT;
	size_t n = 99;

	/* tree-hybrid has mountinfo naming 254:0 but no sysfs: said, not fatal. */
	CHECK_INT(discover_disks(tree("tree-hybrid"), 5, d, 4, &n, &why), 0);
	CHECK_INT(n, 0);
	CHECK(strstr(why.buf, "root disk:") != NULL);
	sb_release(&why);
}

static void test_procs(void)
{
	const char *names[] = {"kswapd0", "kcompactd0", "nosuchthing"};
	struct strbuf why = STRBUF_INIT;
	int pids[3], pid = 0;
	char name[32];

	CHECK_INT(discover_by_comm(tree("tree-lvm"), names, 3, pids), 2);
	CHECK_INT(pids[0], 45);
	CHECK_INT(pids[1], 36);
	CHECK_INT(pids[2], 0);
	/* Xwayland is preferred over gnome-shell; the lowest pid of two wins. */
	CHECK_INT(discover_display_server(tree("tree-lvm"), &pid, name, sizeof(name), &why), 0);
	CHECK_INT(pid, 800);
	CHECK_STR(name, "Xwayland");
	CHECK_INT(discover_display_server(tree("tree-hybrid"), &pid, name, sizeof(name), &why),
		  -ENOENT);
	CHECK(strstr(why.buf, "display server:") != NULL);
	CHECK(discover_by_comm("/nonexistent-root", names, 3, pids) < 0);
	sb_release(&why);
}

static void test_cgroup(void)
{
	struct strbuf why = STRBUF_INIT;
	char dir[4096], want[4096];

	CHECK_INT(discover_cgroup(tree("tree-lvm"), 1234, dir, sizeof(dir), &why), 0);
	snprintf(want, sizeof(want), "%s/sys/fs/cgroup/user.slice/app-steam.scope",
		 tree("tree-lvm"));
	CHECK_STR(dir, want);
	CHECK_INT(why.len, 0);

	CHECK_INT(discover_cgroup(tree("tree-hybrid"), 5, dir, sizeof(dir), &why), -ENOENT);
	CHECK(strstr(why.buf, "hybrid") != NULL);
	sb_reset(&why);
	CHECK_INT(discover_cgroup(tree("tree-hybrid"), 6, dir, sizeof(dir), &why), -ENOENT);
	CHECK(strstr(why.buf, "cannot read") != NULL);
	sb_release(&why);
}

static void test_path(void)
{
	char small[8], buf[64];

	CHECK_INT(discover_path(buf, sizeof(buf), NULL, "/proc/%d/stat", 12), 0);
	CHECK_STR(buf, "/proc/12/stat");
	CHECK_INT(discover_path(buf, sizeof(buf), "/t", "/proc/%d/stat", 12), 0);
	CHECK_STR(buf, "/t/proc/12/stat");
	CHECK_INT(discover_path(small, sizeof(small), "/t", "/proc/%d/stat", 12), -ENAMETOOLONG);
	CHECK_INT(discover_read("/nonexistent", buf, sizeof(buf)), -ENOENT);
}

/* The source of the mount on "/" this process sees (the last line of
 * /proc/self/mountinfo whose mount point is "/"), read here independently
 * of discover.c: "-" when there is none. */
static void root_source(char *ret, size_t size)
{
	char line[4096];
	FILE *f = fopen("/proc/self/mountinfo", "r");

	snprintf(ret, size, "-");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char mnt[1024], src[1024];
		const char *dash = strstr(line, " - ");

		if (sscanf(line, "%*s %*s %*s %*s %1023s", mnt) != 1 || strcmp(mnt, "/") != 0 ||
		    !dash || sscanf(dash + 3, "%*s %1023s", src) != 1)
			continue;
		snprintf(ret, size, "%s", src);
	}
	fclose(f);
}

/* The live system: whatever it has, discovery must not fail, and where the
 * root file system's source is a block device, it must be found as the
 * root disk. Where it is not (overlay, tmpfs: a container), the case
 * cannot be judged here: skipped (77), saying what "/" is. */
static void test_live(void)
{
	struct disc_disk d[32];
	struct strbuf why = STRBUF_INIT;
	char src[1024];
	struct stat st;
	size_t n;
	bool root = false;

	CHECK_INT(discover_disks(NULL, getpid(), d, 32, &n, &why), 0);
	for (size_t i = 0; i < n; i++)
		root |= (d[i].roles & DISC_ROOT) != 0;
	root_source(src, sizeof(src));
	if (!root && !(stat(src, &st) == 0 && S_ISBLK(st.st_mode)) && t_failed == 0) {
		char msg[1200];

		snprintf(msg, sizeof(msg), "test_live: the root file system's source '%s' is not a "
			 "block device here, so no root disk can be found", src);
		sb_release(&why);
		t_skip(msg);
	}
	if (!root)
		T_FAIL("no root disk found, but '/' is on block device '%s': %s", src, why.buf);
	t_checks++;
	sb_release(&why);
}

int main(void)
{
	T_RUN(test_disks_lvm);
	T_RUN(test_disks_missing);
	T_RUN(test_procs);
	T_RUN(test_cgroup);
	T_RUN(test_path);
	T_RUN(test_live);
	return t_exit();
}
