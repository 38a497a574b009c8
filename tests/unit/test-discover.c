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

/* The live system: whatever it has, discovery must not fail, and a root file
 * system on a block device must be found. */
static void test_live(void)
{
	struct disc_disk d[32];
	struct strbuf why = STRBUF_INIT;
	size_t n;
	bool root = false;

	CHECK_INT(discover_disks(NULL, getpid(), d, 32, &n, &why), 0);
	for (size_t i = 0; i < n; i++)
		root |= (d[i].roles & DISC_ROOT) != 0;
	if (!root)
		fprintf(stderr, "note: no root disk here: %s", why.buf);
	CHECK(root || strstr(why.buf, "root disk:") != NULL);
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
