/* SPDX-License-Identifier: MIT */
/*
 * discover.h: what the sampler watches, found once when it opens: the disks
 * under the program's root file system, the swap devices and every zram, the
 * display server, kswapd0 and kcompactd0, the program's cgroup pressure files.
 *
 * Every path starts with ROOT (NULL or "" for the live system), so the tests
 * point discovery at a fake tree under tests/fixtures (tree/proc, tree/sys,
 * with the relative symlinks sysfs has). Discovery runs once, before the
 * first sample: it may open, read and close files freely.
 *
 * Reasons why something was not found are appended to WHY (a strbuf; one line
 * each, "what: why"), for run.ini; WHY may be NULL.
 */
#ifndef SS_LINUX_DISCOVER_H
#define SS_LINUX_DISCOVER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/strbuf.h"

/* Formats ROOT followed by FMT into BUF (SIZE bytes). Returns 0, or
 * -ENAMETOOLONG when it does not fit. */
int discover_path(char *buf, size_t size, const char *root, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Reads the whole file PATH (up to SIZE - 1 bytes) into BUF and
 * NUL-terminates it. Returns its length, or a negative errno. */
ssize_t discover_read(const char *path, char *buf, size_t size);

enum {
	DISC_ROOT = 1 << 0, /* under the root file system */
	DISC_SWAP = 1 << 1, /* under a swap area */
	DISC_ZRAM = 1 << 2, /* a zram device */
};

struct disc_disk {
	char name[64];	/* the block device's name in /sys/class/block ("vda", "dm-0") */
	unsigned roles; /* DISC_* */
};

/*
 * Finds the block devices worth watching for process PID: the device of its
 * root file system (from ROOT/proc/PID/mountinfo, then /proc/self/mountinfo),
 * the swap areas in ROOT/proc/swaps, and every initialized zramN. A partition
 * is replaced by its whole disk; a dm or md device brings its slaves,
 * recursively. Fills up to MAX entries of RET, each device once with the union
 * of its roles, and sets *ret_n. Returns 0 (possibly with *ret_n == 0 and the
 * reasons in WHY) or -ENOMEM.
 */
int discover_disks(const char *root, int pid, struct disc_disk *ret, size_t max, size_t *ret_n,
		   struct strbuf *why);

/* Writes ROLES as "root,swap,zram" (the present ones) into BUF. */
void discover_roles(unsigned roles, char *buf, size_t size);

/*
 * Scans ROOT/proc once for processes whose comm is one of NAMES[0..N); sets
 * PIDS[i] to the lowest such pid, 0 if none. Returns how many names were
 * found, or a negative errno when ROOT/proc cannot be read.
 */
int discover_by_comm(const char *root, const char *const *names, size_t n, int *pids);

/* The display servers and compositors looked for, in order of preference,
 * NULL-terminated ("gamescope-wl", "Xwayland", "Xorg", ..., "gnome-shell"). */
extern const char *const discover_display_servers[];

/*
 * Finds the display server: the first of discover_display_servers that runs.
 * Sets *ret_pid and copies its name into RET_NAME. Returns 0, -ENOENT (none
 * runs; a reason in WHY), or a negative errno.
 */
int discover_display_server(const char *root, int *ret_pid, char *ret_name, size_t size,
			    struct strbuf *why);

/*
 * Finds the directory holding the cgroup v2 pressure files of process PID
 * (ROOT + the cgroup2 mount + its "0::" path) and copies it into RET_DIR.
 * Returns 0, or -ENOENT with the reason in WHY: no v2 hierarchy, the program
 * in the v2 root (as in a v1/v2 hybrid, whose pressure would be the system's),
 * no *.pressure files there.
 */
int discover_cgroup(const char *root, int pid, char *ret_dir, size_t size, struct strbuf *why);

#endif
