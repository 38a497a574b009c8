// SPDX-License-Identifier: MIT
/*
 * discover.c: finds what the sampler watches (see discover.h).
 *
 * Block devices are named as sysfs names them. ROOT/sys/dev/block/MAJ:MIN and
 * ROOT/sys/class/block/NAME are symlinks into ROOT/sys/devices/.../block/
 * DISK[/PART]; a partition has a "partition" file and its disk is the
 * directory above it; a dm or md device lists what it is built on in
 * "slaves/". Only the links' text is used (never realpath), so a fake tree
 * with the same relative links behaves as the real one.
 */
#include "linux/discover.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "linux/procparse.h"

#define PATH_SIZE 4096

int discover_path(char *buf, size_t size, const char *root, const char *fmt, ...)
{
	va_list ap;
	int n, m;

	n = snprintf(buf, size, "%s", root ? root : "");
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	va_start(ap, fmt);
	m = vsnprintf(buf + n, size - (size_t)n, fmt, ap);
	va_end(ap);
	if (m < 0 || (size_t)m >= size - (size_t)n)
		return -ENAMETOOLONG;
	return 0;
}

ssize_t discover_read(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	int fd;

	if (size == 0)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len < size - 1) {
		ssize_t r = read(fd, buf + len, size - 1 - len);

		if (r < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			close(fd);
			return -e;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	buf[len] = '\0';
	return (ssize_t)len;
}

static void why_add(struct strbuf *why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void why_add(struct strbuf *why, const char *fmt, ...)
{
	va_list ap;

	if (!why)
		return;
	va_start(ap, fmt);
	(void)sb_vaddf(why, fmt, ap);
	va_end(ap);
	(void)sb_addc(why, '\n');
}

/* The last path component of S (S itself if it has no '/'). */
static const char *base_name(const char *s)
{
	const char *slash = strrchr(s, '/');

	return slash ? slash + 1 : s;
}

/* Copies S into BUF (SIZE bytes); -ENAMETOOLONG, BUF untouched, if it does
 * not fit. */
static int set_name(char *buf, size_t size, const char *s)
{
	size_t n = strlen(s);

	if (n >= size)
		return -ENAMETOOLONG;
	memcpy(buf, s, n + 1);
	return 0;
}

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* readlink into BUF (NUL-terminated); 0 or a negative errno. */
static int read_link(const char *path, char *buf, size_t size)
{
	ssize_t n = readlink(path, buf, size - 1);

	if (n < 0)
		return -errno;
	if ((size_t)n >= size - 1)
		return -ENAMETOOLONG;
	buf[n] = '\0';
	return 0;
}

/* ---------------------------------------------------------------- disks */

struct disk_list {
	struct disc_disk *v;
	size_t max, n;
	bool full;
};

static void list_add(struct disk_list *l, const char *name, unsigned roles)
{
	for (size_t i = 0; i < l->n && i < l->max; i++) {
		if (strcmp(l->v[i].name, name) == 0) {
			l->v[i].roles |= roles;
			return;
		}
	}
	if (l->n >= l->max || strlen(name) >= sizeof(l->v[0].name)) {
		l->full = true;
		return;
	}
	snprintf(l->v[l->n].name, sizeof(l->v[0].name), "%s", name);
	l->v[l->n].roles = roles;
	l->n++;
}

/* Adds block device NAME (a partition becomes its disk) and, recursively,
 * what it is built on (slaves/). */
static void add_block(const char *root, const char *name, unsigned roles, struct disk_list *l,
		      int depth)
{
	char path[PATH_SIZE], link[PATH_SIZE], disk[64];
	DIR *d;
	struct dirent *e;

	if (depth > 8)
		return;
	if (set_name(disk, sizeof(disk), name) < 0)
		return;
	if (discover_path(path, sizeof(path), root, "/sys/class/block/%s/partition", name) == 0 &&
	    exists(path)) {
		/* .../block/DISK/PART: the disk is the component before the last. */
		char *slash;

		if (discover_path(path, sizeof(path), root, "/sys/class/block/%s", name) < 0 ||
		    read_link(path, link, sizeof(link)) < 0)
			return;
		slash = strrchr(link, '/');
		if (!slash)
			return;
		*slash = '\0';
		if (set_name(disk, sizeof(disk), base_name(link)) < 0)
			return;
	}
	list_add(l, disk, roles);
	if (discover_path(path, sizeof(path), root, "/sys/class/block/%s/slaves", disk) < 0)
		return;
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			add_block(root, e->d_name, roles, l, depth + 1);
	closedir(d);
}

/* The sysfs name of block device MAJOR:MINOR into NAME; 0 or -ENOENT. */
static int devnum_name(const char *root, unsigned major, unsigned minor, char *name, size_t size)
{
	char path[PATH_SIZE], link[PATH_SIZE];

	if (discover_path(path, sizeof(path), root, "/sys/dev/block/%u:%u", major, minor) < 0 ||
	    read_link(path, link, sizeof(link)) < 0)
		return -ENOENT;
	return set_name(name, size, base_name(link)) < 0 ? -ENOENT : 0;
}

/* The sysfs name of the block device at device path DEV ("/dev/vda2",
 * "/dev/mapper/root"); 0 or -ENOENT. */
static int dev_path_name(const char *root, const char *dev, char *name, size_t size)
{
	char path[PATH_SIZE], link[PATH_SIZE];
	struct stat st;

	if (strncmp(dev, "/dev/", 5) != 0)
		return -ENOENT;
	if (discover_path(path, sizeof(path), root, "/sys/class/block/%s", base_name(dev)) == 0 &&
	    exists(path))
		return set_name(name, size, base_name(dev)) < 0 ? -ENOENT : 0;
	/* /dev/mapper/NAME and /dev/disk/by-... are links to ../dm-N, ../../sda2. */
	if (discover_path(path, sizeof(path), root, "%s", dev) == 0 &&
	    read_link(path, link, sizeof(link)) == 0) {
		char p2[PATH_SIZE];

		if (discover_path(p2, sizeof(p2), root, "/sys/class/block/%s", base_name(link)) ==
			0 &&
		    exists(p2))
			return set_name(name, size, base_name(link)) < 0 ? -ENOENT : 0;
	}
	if (discover_path(path, sizeof(path), root, "%s", dev) == 0 && stat(path, &st) == 0 &&
	    S_ISBLK(st.st_mode))
		return devnum_name(root, major(st.st_rdev), minor(st.st_rdev), name, size);
	return -ENOENT;
}

static int add_root(const char *root, int pid, struct disk_list *l, struct strbuf *why)
{
	static char buf[1 << 16];
	char path[PATH_SIZE], name[64];
	struct pp_mount m;
	const char *which[2] = {NULL, "/proc/self/mountinfo"};
	char pidpath[64];

	snprintf(pidpath, sizeof(pidpath), "/proc/%d/mountinfo", pid);
	which[0] = pidpath;
	for (int i = 0; i < 2; i++) {
		ssize_t n;

		if (discover_path(path, sizeof(path), root, "%s", which[i]) < 0)
			continue;
		n = discover_read(path, buf, sizeof(buf));
		if (n < 0 || pp_mountinfo_find(buf, (size_t)n, "/", NULL, &m) < 0)
			continue;
		if (m.major != 0 && devnum_name(root, m.major, m.minor, name, sizeof(name)) == 0) {
			add_block(root, name, DISC_ROOT, l, 0);
			return 0;
		}
		/* btrfs and others show an anonymous 0:N: try the source. */
		if (dev_path_name(root, m.source, name, sizeof(name)) == 0) {
			add_block(root, name, DISC_ROOT, l, 0);
			return 0;
		}
	}
	why_add(why, "root disk: the root file system is not on a block device found in sysfs");
	return -ENOENT;
}

static void add_swaps(const char *root, struct disk_list *l, struct strbuf *why)
{
	static char buf[1 << 14];
	struct pp_swap sw[32];
	char path[PATH_SIZE], name[64];
	ssize_t n;
	int count;

	if (discover_path(path, sizeof(path), root, "/proc/swaps") < 0)
		return;
	n = discover_read(path, buf, sizeof(buf));
	if (n < 0) {
		why_add(why, "swap devices: cannot read /proc/swaps: %s", strerror((int)-n));
		return;
	}
	count = pp_swaps(buf, (size_t)n, sw, 32);
	if (count < 0) {
		why_add(why, "swap devices: /proc/swaps: unexpected format");
		return;
	}
	for (int i = 0; i < count && i < 32; i++) {
		struct stat st;

		if (!sw[i].is_file && dev_path_name(root, sw[i].path, name, sizeof(name)) == 0) {
			add_block(root, name, DISC_SWAP, l, 0);
			continue;
		}
		if (sw[i].is_file &&
		    discover_path(path, sizeof(path), root, "%s", sw[i].path) == 0 &&
		    stat(path, &st) == 0 &&
		    devnum_name(root, major(st.st_dev), minor(st.st_dev), name, sizeof(name)) ==
			0) {
			add_block(root, name, DISC_SWAP, l, 0);
			continue;
		}
		why_add(why, "swap '%s': its block device was not found in sysfs", sw[i].path);
	}
}

static void add_zram(const char *root, struct disk_list *l, struct strbuf *why)
{
	char path[PATH_SIZE], buf[64];
	DIR *d;
	struct dirent *e;

	if (discover_path(path, sizeof(path), root, "/sys/block") < 0)
		return;
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "zram", 4) != 0 || !isdigit((unsigned char)e->d_name[4]))
			continue;
		if (discover_path(path, sizeof(path), root, "/sys/block/%s/disksize", e->d_name) <
		    0)
			continue;
		/* An uninitialized zram (disksize 0) can do no I/O: not watched. */
		if (discover_read(path, buf, sizeof(buf)) > 0 && strtoull(buf, NULL, 10) == 0) {
			why_add(why, "%s: not initialized (disksize 0), not watched", e->d_name);
			continue;
		}
		list_add(l, e->d_name, DISC_ZRAM);
	}
	closedir(d);
}

int discover_disks(const char *root, int pid, struct disc_disk *ret, size_t max, size_t *ret_n,
		   struct strbuf *why)
{
	struct disk_list l = {.v = ret, .max = max};

	(void)add_root(root, pid, &l, why);
	add_swaps(root, &l, why);
	add_zram(root, &l, why);
	if (l.full)
		why_add(why, "disks: more than %zu, the rest not watched", max);
	*ret_n = l.n;
	return 0;
}

void discover_roles(unsigned roles, char *buf, size_t size)
{
	size_t n = 0;
	const char *names[] = {"root", "swap", "zram"};

	if (size == 0)
		return;
	buf[0] = '\0';
	for (int i = 0; i < 3; i++) {
		if (!(roles & (1u << i)))
			continue;
		int w = snprintf(buf + n, size - n, "%s%s", n ? "," : "", names[i]);

		if (w < 0 || (size_t)w >= size - n)
			return;
		n += (size_t)w;
	}
}

/* ---------------------------------------------------------------- processes */

const char *const discover_display_servers[] = {
    /* A nested or session compositor made for games shows the game. */
    "gamescope-wl",
    "gamescope",
    /* X servers: most games (and Proton) talk X11, on Xwayland or Xorg. */
    "Xwayland",
    "Xorg",
    "X",
    "Xvfb",
    "Xephyr",
    /* Wayland compositors, for native Wayland programs. */
    "gnome-shell",
    "kwin_wayland",
    "kwin_x11",
    "sway",
    "weston",
    "Hyprland",
    "labwc",
    "wayfire",
    "river",
    "niri",
    "cage",
    "cosmic-comp",
    "mutter",
    NULL,
};

int discover_by_comm(const char *root, const char *const *names, size_t n, int *pids)
{
	char path[PATH_SIZE], comm[64];
	struct dirent *e;
	int found = 0;
	DIR *d;

	for (size_t i = 0; i < n; i++)
		pids[i] = 0;
	if (discover_path(path, sizeof(path), root, "/proc") < 0)
		return -ENAMETOOLONG;
	d = opendir(path);
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		ssize_t len;

		if (*end || pid <= 0)
			continue;
		if (discover_path(path, sizeof(path), root, "/proc/%ld/comm", pid) < 0)
			continue;
		len = discover_read(path, comm, sizeof(comm));
		if (len <= 0)
			continue;
		if (comm[len - 1] == '\n')
			comm[len - 1] = '\0';
		for (size_t i = 0; i < n; i++) {
			if (strcmp(comm, names[i]) != 0)
				continue;
			if (pids[i] == 0)
				found++;
			if (pids[i] == 0 || pid < pids[i])
				pids[i] = (int)pid;
		}
	}
	closedir(d);
	return found;
}

int discover_display_server(const char *root, int *ret_pid, char *ret_name, size_t size,
			    struct strbuf *why)
{
	size_t n = 0;
	int pids[32];
	int r;

	while (discover_display_servers[n] && n < 32)
		n++;
	r = discover_by_comm(root, discover_display_servers, n, pids);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		if (pids[i]) {
			*ret_pid = pids[i];
			snprintf(ret_name, size, "%s", discover_display_servers[i]);
			return 0;
		}
	}
	why_add(why, "display server: none of Xorg, Xwayland, gamescope, gnome-shell, kwin, "
		     "sway, weston, ... runs");
	return -ENOENT;
}

/* ---------------------------------------------------------------- cgroup */

int discover_cgroup(const char *root, int pid, char *ret_dir, size_t size, struct strbuf *why)
{
	static char buf[1 << 16];
	char path[PATH_SIZE], dir[PATH_SIZE];
	struct pp_cgroup g;
	struct pp_mount m;
	ssize_t n;

	if (discover_path(path, sizeof(path), root, "/proc/%d/cgroup", pid) < 0)
		return -ENAMETOOLONG;
	n = discover_read(path, buf, sizeof(buf));
	if (n < 0) {
		why_add(why, "cgroup pressure: cannot read /proc/%d/cgroup: %s", pid,
			strerror((int)-n));
		return -ENOENT;
	}
	if (pp_cgroup(buf, (size_t)n, &g) < 0) {
		why_add(why, "cgroup pressure: /proc/%d/cgroup: unexpected format", pid);
		return -ENOENT;
	}
	if (!g.has_v2) {
		why_add(why, "cgroup pressure: cgroup v1 only, pressure files need cgroup v2");
		return -ENOENT;
	}
	if (strcmp(g.v2_path, "/") == 0) {
		why_add(why, g.has_v1 ? "cgroup pressure: cgroup v1/v2 hybrid with the program in "
					"the v2 root: its pressure would be the system's"
				      : "cgroup pressure: the program is in the root cgroup: its "
					"pressure is the system's");
		return -ENOENT;
	}
	if (discover_path(path, sizeof(path), root, "/proc/self/mountinfo") < 0)
		return -ENAMETOOLONG;
	n = discover_read(path, buf, sizeof(buf));
	if (n < 0 || pp_mountinfo_find(buf, (size_t)n, NULL, "cgroup2", &m) < 0) {
		why_add(why, "cgroup pressure: no cgroup2 file system mounted");
		return -ENOENT;
	}
	if (discover_path(dir, sizeof(dir), root, "%s%s", m.point, g.v2_path) < 0 ||
	    discover_path(path, sizeof(path), NULL, "%s/memory.pressure", dir) < 0)
		return -ENAMETOOLONG;
	if (!exists(path)) {
		why_add(why, "cgroup pressure: '%s' has no memory.pressure", dir);
		return -ENOENT;
	}
	if (strlen(dir) >= size)
		return -ENAMETOOLONG;
	memcpy(ret_dir, dir, strlen(dir) + 1);
	return 0;
}
