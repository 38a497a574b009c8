// SPDX-License-Identifier: MIT
/*
 * rig.c: the machine's id and facts for the results database (rig.h).
 */
#include <dirent.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/file.h"
#include "linux/rig.h"

static void read_line(const char *root, const char *path, const char *key, char *buf,
		      size_t size)
{
	char p[PATH_MAX], line[512];
	size_t klen = key ? strlen(key) : 0;
	FILE *f;
	int fd;

	snprintf(p, sizeof(p), "%s%s", root, path);
	buf[0] = 0;
	fd = file_open_regular(p, NULL, 0, NULL, NULL);	/* never a FIFO's hang */
	f = fd >= 0 ? fdopen(fd, "re") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		char *v = line;

		if (key) {
			if (strncmp(line, key, klen))
				continue;
			v = line + klen + strspn(line + klen, " \t:");
		}
		{
			size_t n = strcspn(v, "\n");

			if (n >= size)
				n = size - 1;
			memcpy(buf, v, n);
			buf[n] = 0;
		}
		break;
	}
	fclose(f);
}

static void drm_drivers(const char *root, char *buf, size_t size)
{
	char dir[PATH_MAX];
	struct dirent *e;
	DIR *d;

	buf[0] = 0;
	snprintf(dir, sizeof(dir), "%s/sys/class/drm", root);
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		char link[PATH_MAX], target[PATH_MAX];
		const char *name;
		ssize_t n;

		if (strncmp(e->d_name, "card", 4) || strchr(e->d_name, '-'))
			continue;
		if (snprintf(link, sizeof(link), "%s/%s/device/driver", dir, e->d_name) >=
		    (int)sizeof(link))
			continue;
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = 0;
		name = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
		if (strstr(buf, name))
			continue;
		if (buf[0])
			strncat(buf, ",", size - strlen(buf) - 1);
		strncat(buf, name, size - strlen(buf) - 1);
	}
	closedir(d);
}

void rig_probe(const char *root, const char *name, struct rig_facts *ret)
{
	struct utsname u;
	char mid[128], mem[64];
	long n;

	memset(ret, 0, sizeof(*ret));
	if (gethostname(ret->host, sizeof(ret->host) - 1) < 0)
		ret->host[0] = 0;
	if (uname(&u) == 0)
		snprintf(ret->kernel, sizeof(ret->kernel), "%s", u.release);
	read_line(root, "/proc/cpuinfo", "model name", ret->cpu, sizeof(ret->cpu));
	read_line(root, "/proc/meminfo", "MemTotal", mem, sizeof(mem));
	ret->mem_kb = strtoll(mem, NULL, 10);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	ret->cpus = n > 0 ? (int)n : 0;
	drm_drivers(root, ret->gpu, sizeof(ret->gpu));
	if (name && *name) {
		snprintf(ret->id, sizeof(ret->id), "%s", name);
		return;
	}
	read_line(root, "/etc/machine-id", NULL, mid, sizeof(mid));
	if (mid[0]) {
		uint64_t h = 0xcbf29ce484222325ull;

		for (const char *p = "stallscope rig:"; *p; p++)
			h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
		for (const char *p = mid; *p; p++)
			h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
		snprintf(ret->id, sizeof(ret->id), "m-%016llx", (unsigned long long)h);
	} else {
		snprintf(ret->id, sizeof(ret->id), "host-%s", ret->host[0] ? ret->host : "unknown");
	}
}
