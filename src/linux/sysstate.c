// SPDX-License-Identifier: MIT
/*
 * sysstate.c: sysstate.h's looks at the machine, for bench's quiet step:
 * reads /proc/stat, /proc/vmstat and /proc/loadavg whole (each is a few KiB,
 * read once a second at most), parsed by procparse.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linux/procparse.h"
#include "linux/sysstate.h"

/* Reads PATH into BUF (NUL-terminated); the length or a negative errno. */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	while (len + 1 < size && (n = read(fd, buf + len, size - 1 - len)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			n = -errno;
			close(fd);
			return n;
		}
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return (ssize_t)len;
}

int sysstate_sample(struct sysstate_sample *ret)
{
	static const char *const names[] = { "pgpgin", "pgpgout" };
	char buf[16384];
	struct pp_cpustat cs;
	int64_t io[2] = { 0, 0 };
	ssize_t n;
	int r;

	n = read_small("/proc/stat", buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	r = pp_cpustat(buf, (size_t)n, &cs);
	if (r < 0)
		return r;
	ret->busy_ticks = cs.user + cs.nice + cs.system + cs.irq + cs.softirq + cs.steal;
	ret->all_ticks = ret->busy_ticks + cs.idle + cs.iowait;
	n = read_small("/proc/vmstat", buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	r = pp_keyed(buf, (size_t)n, names, 2, io);
	if (r < 0)
		return r;
	ret->io_kib = (uint64_t)(io[0] + io[1]);
	n = read_small("/proc/loadavg", buf, sizeof(buf));
	ret->load1 = n > 0 ? strtod(buf, NULL) : -1;
	return 0;
}

void sysstate_busy(const struct sysstate_sample *a, const struct sysstate_sample *b,
		   double seconds, double *ret_cpu_pct, double *ret_io_mibs)
{
	uint64_t all = b->all_ticks - a->all_ticks;

	*ret_cpu_pct = all ? 100.0 * (double)(b->busy_ticks - a->busy_ticks) / (double)all : 0;
	*ret_io_mibs = seconds > 0 ? (double)(b->io_kib - a->io_kib) / 1024.0 / seconds : 0;
}

int sysstate_drop_caches(void)
{
	int fd, r = 0;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, "3\n", 2) != 2)
		r = -errno;
	close(fd);
	return r;
}

int sysstate_self_exe(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);

	if (n < 0)
		return -errno;
	if ((size_t)n >= size - 1)
		return -ENAMETOOLONG;
	buf[n] = '\0';
	return 0;
}
