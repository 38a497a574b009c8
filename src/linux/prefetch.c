// SPDX-License-Identifier: MIT
/*
 * prefetch.c: the system side of prefetch (linux/prefetch.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/file.h"
#include "core/grow.h"
#include "linux/prefetch.h"

size_t pfl_page(void)
{
	long p = sysconf(_SC_PAGESIZE);

	return p > 0 ? (size_t)p : 4096;
}

/* The file's extents, sorted by logical offset; *N 0 where FIEMAP is not
 * supported (tmpfs, some network file systems). */
static int fiemap(int fd, struct prefetch_extent **ret, size_t *n)
{
	enum { BATCH = 256 };
	struct fiemap *fm = calloc(1, sizeof(*fm) + BATCH * sizeof(struct fiemap_extent));
	struct prefetch_extent *ext = NULL;
	size_t cap = 0;
	uint64_t start = 0;
	bool last = false;

	*n = 0;
	if (!fm)
		return -ENOMEM;
	while (!last) {
		fm->fm_start = start;
		fm->fm_length = FIEMAP_MAX_OFFSET - start;
		fm->fm_flags = 0;
		fm->fm_extent_count = BATCH;
		if (ioctl(fd, FS_IOC_FIEMAP, fm) < 0 || !fm->fm_mapped_extents)
			break;
		for (unsigned i = 0; i < fm->fm_mapped_extents; i++) {
			const struct fiemap_extent *e = &fm->fm_extents[i];

			last = last || (e->fe_flags & FIEMAP_EXTENT_LAST);
			start = e->fe_logical + e->fe_length;
			if (e->fe_flags & (FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_DELALLOC))
				continue;	/* no address yet */
			if (ARRAY_GROW(ext, cap, *n + 1) < 0) {
				free(fm);
				free(ext);
				*n = 0;
				return -ENOMEM;
			}
			ext[(*n)++] = (struct prefetch_extent){ e->fe_logical, e->fe_physical, e->fe_length };
		}
	}
	free(fm);
	*ret = ext;
	return 0;
}

/* mincore of [OFF, OFF + LEN) of FD (a mapping of it, never touched) into
 * *VEC (the caller frees); *NPAGES. */
static int resident(int fd, uint64_t off, uint64_t len, unsigned char **vec, size_t *npages)
{
	size_t page = pfl_page(), skip = off % page;
	uint64_t start = off - skip, span = len + skip;
	void *m;

	*npages = (size_t)((span + page - 1) / page);
	*vec = calloc(*npages ? *npages : 1, 1);
	if (!*vec)
		return -ENOMEM;
	if (!span)
		return 0;
	m = mmap(NULL, span, PROT_READ, MAP_SHARED, fd, (off_t)start);
	if (m == MAP_FAILED) {
		free(*vec);
		*vec = NULL;
		return -errno;
	}
	if (mincore(m, span, *vec) < 0) {
		int r = -errno;

		munmap(m, span);
		free(*vec);
		*vec = NULL;
		return r;
	}
	munmap(m, span);
	return 0;
}

int pfl_open(const char *path)
{
	return file_open_regular(path, NULL, FILE_NOFOLLOW | FILE_NOATIME, NULL, NULL);
}

int pfl_file_ranges(const char *path, struct prefetch_range **r, size_t *n, size_t *cap,
		    uint64_t *ret_size)
{
	struct prefetch_extent *ext = NULL;
	unsigned char *vec = NULL;
	size_t npages, next = 0, first = *n;
	struct stat st;
	int fd, ret;

	fd = pfl_open(path);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return -EINVAL;
	}
	*ret_size = (uint64_t)st.st_size;
	ret = st.st_size ? resident(fd, 0, (uint64_t)st.st_size, &vec, &npages) : 0;
	if (!ret && st.st_size)
		ret = prefetch_ranges_from_mincore(vec, npages, pfl_page(), (uint64_t)st.st_size,
					     PREFETCH_HOLE_FILL, r, n, cap);
	if (!ret && *n > first && fiemap(fd, &ext, &next) == 0)
		prefetch_ranges_map(*r + first, *n - first, ext, next);
	free(ext);
	free(vec);
	close(fd);
	return ret;
}

int pfl_missing(int fd, uint64_t off, uint64_t len, uint64_t *ret)
{
	unsigned char *vec;
	size_t npages, page = pfl_page();
	uint64_t have = 0;
	int r = resident(fd, off, len, &vec, &npages);

	if (r < 0)
		return r;
	for (size_t i = 0; i < npages; i++)
		if (vec[i] & 1)
			have += page;
	free(vec);
	*ret = have >= len ? 0 : len - have;
	return 0;
}

int pfl_add_path(char ***paths, size_t *n, const char *p)
{
	char **v;

	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*paths)[i], p))
			return 0;
	/* grown by one, NULL-terminated, no room kept apart: the list is
	 * searched whole for each path anyway, which costs more */
	v = realloc(*paths, (*n + 2) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	*paths = v;
	v[*n] = strdup(p);
	if (!v[*n])
		return -ENOMEM;
	v[++*n] = NULL;
	return 0;
}

static bool regular(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

int pfl_proc_files(pid_t pid, char ***paths, size_t *n, struct strbuf *cwd)
{
	char p[64], target[PATH_MAX], line[PATH_MAX + 256];
	struct dirent *e;
	ssize_t len;
	FILE *f;
	DIR *d;
	int r = 0;

	snprintf(p, sizeof(p), "/proc/%d/exe", (int)pid);
	len = readlink(p, target, sizeof(target) - 1);
	if (len < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	target[len] = 0;
	if (regular(target))
		r = pfl_add_path(paths, n, target);
	snprintf(p, sizeof(p), "/proc/%d/maps", (int)pid);
	f = fopen(p, "re");
	while (!r && f && fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/');

		if (!path)
			continue;
		path[strcspn(path, "\n")] = 0;
		if (strstr(path, " (deleted)") || !regular(path))
			continue;
		r = pfl_add_path(paths, n, path);
	}
	if (f)
		fclose(f);
	snprintf(p, sizeof(p), "/proc/%d/fd", (int)pid);
	d = opendir(p);
	while (!r && d && (e = readdir(d))) {
		char fd[PATH_MAX];

		if (e->d_name[0] == '.')
			continue;
		snprintf(fd, sizeof(fd), "/proc/%d/fd/%s", (int)pid, e->d_name);
		len = readlink(fd, target, sizeof(target) - 1);
		if (len <= 0 || target[0] != '/')
			continue;
		target[len] = 0;
		if (regular(target))
			r = pfl_add_path(paths, n, target);
	}
	if (d)
		closedir(d);
	snprintf(p, sizeof(p), "/proc/%d/cwd", (int)pid);
	len = readlink(p, target, sizeof(target) - 1);
	if (!r && len > 0 && cwd) {
		target[len] = 0;
		sb_reset(cwd);
		r = sb_adds(cwd, target);
	}
	return r;
}

static int walk(const char *dir, int depth, size_t max, char ***paths, size_t *n)
{
	struct dirent *e;
	DIR *d;
	int r = 0;

	if (depth > 16)
		return 0;
	d = opendir(dir);
	if (!d)
		return errno == ENOENT || errno == EACCES || errno == ENOTDIR ? 0 : -errno;
	while (!r && *n < max && (e = readdir(d))) {
		char p[PATH_MAX];

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (snprintf(p, sizeof(p), "%s/%s", dir, e->d_name) >= (int)sizeof(p))
			continue;
		if (e->d_type == DT_DIR)
			r = walk(p, depth + 1, max, paths, n);
		else if (e->d_type == DT_REG || (e->d_type == DT_UNKNOWN && regular(p)))
			r = pfl_add_path(paths, n, p);
	}
	closedir(d);
	return r;
}

int pfl_dir_files(const char *dir, size_t max, char ***paths, size_t *n)
{
	return walk(dir, 0, max, paths, n);
}

int pfl_sys(struct prefetch_sys *ret)
{
	char line[256];
	FILE *f;

	memset(ret, 0, sizeof(*ret));
	f = fopen("/proc/meminfo", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu", (unsigned long long *)&ret->mem_avail_kb) == 1)
			break;
	fclose(f);
	f = fopen("/proc/vmstat", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char key[64];
		unsigned long long v;

		if (sscanf(line, "%63s %llu", key, &v) != 2)
			continue;
		if (!strncmp(key, "allocstall", 10))
			ret->allocstall += v;	/* allocstall_dma32, _normal, _movable, ... */
		else if (!strcmp(key, "compact_stall"))
			ret->compact_stall = v;
		else if (!strcmp(key, "pswpin"))
			ret->pswpin = v;
		else if (!strcmp(key, "pswpout"))
			ret->pswpout = v;
	}
	fclose(f);
	return 0;
}

int pfl_ioprio(const char *spec)
{
	/* linux/ioprio.h: class << 13 | data; 1 RT, 2 BE, 3 IDLE */
	if (!strcmp(spec, "idle"))
		return 3 << 13;
	if (!strncmp(spec, "be", 2) && spec[2] >= '0' && spec[2] <= '7' && !spec[3])
		return 2 << 13 | (spec[2] - '0');
	return -EINVAL;
}

int pfl_lower_priority(const char *spec)
{
	int prio = pfl_ioprio(spec);

	if (prio < 0)
		return prio;
	if (setpriority(PRIO_PROCESS, 0, 10) < 0)
		return -errno;
	return syscall(SYS_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, 0, prio) < 0 ? -errno : 0;
}

long pfl_read(int fd, uint64_t off, uint64_t len, void *buf)
{
	long reads = 0;

	posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);	/* no readahead beyond our reads */
	while (len) {
		size_t want = len < PFL_CHUNK ? (size_t)len : PFL_CHUNK;
		ssize_t got = pread(fd, buf, want, (off_t)off);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		reads++;
		if (!got)
			break;	/* the file got shorter */
		off += (uint64_t)got;
		len -= (uint64_t)got;
	}
	return reads;
}
