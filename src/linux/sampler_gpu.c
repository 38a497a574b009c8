// SPDX-License-Identifier: MIT
/*
 * sampler_gpu.c: the program's GPU engine busy time from DRM fdinfo
 * (Documentation/gpu/drm-usage-stats.rst): its /dev/dri fds found by
 * readlink, rescanned when the fd count moves, summed per engine over DRM
 * clients (gpu.<engine>_ns, gpu.other_ns). A slow source.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/grow.h"
#include "linux/discover.h"
#include "linux/procparse.h"
#include "linux/sampler_int.h"

/* DRM fds are looked for again when the fd count moved, at most this
 * often (a scan readlinks every fd, and a loading game opens many), and
 * at least this often anyway: by time, whatever the sampling period. */
#define DRM_SCAN_MIN_NS 1000000000ull
#define DRM_SCAN_EVERY_NS 10000000000ull

void sampler_drm_close_all(struct sampler *s)
{
	for (size_t i = 0; i < s->ndrm; i++)
		sampler_src_close(&s->drm[i].info);
	s->ndrm = 0;
}

/* (Re)finds the program's /dev/dri fds and opens their fdinfo. */
static void drm_scan(struct sampler *s)
{
	char path[PATH_SIZE], link[256];
	struct dirent *e;
	DIR *d;

	sampler_drm_close_all(s);
	snprintf(path, sizeof(path), "%s/fd", s->proc);
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d))) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);
		ssize_t n;

		if (*end || fd < 0 || e->d_name[0] == '\0')
			continue;
		snprintf(path, sizeof(path), "%s/fd/%ld", s->proc, fd);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		if (strncmp(link, "/dev/dri/", 9) != 0)
			continue;
		if (ARRAY_GROW(s->drm, s->adrm, s->ndrm + 1) < 0)
			break;
		sampler_src_init(&s->drm[s->ndrm].info);
		s->drm[s->ndrm].fd = (int)fd;
		if (sampler_src_openf(s, &s->drm[s->ndrm].info, "%s/fdinfo/%ld", s->proc, fd) == 0)
			s->ndrm++;
		else
			sampler_src_close(&s->drm[s->ndrm].info);
	}
	closedir(d);
}

int64_t sampler_fd_count(struct sampler *s)
{
	struct stat st;

	if (s->drm_dirfd < 0 || fstat(s->drm_dirfd, &st) != 0)
		return -1;
	return (int64_t)st.st_size;
}

void sampler_sample_gpu(struct sampler *s, uint64_t t_ns)
{
	uint64_t seen_clients[64];
	size_t nseen = 0;
	int64_t sums[MAX_GPU_ENGINES + 1];
	int64_t count = sampler_fd_count(s);
	bool any = false;

	if (s->f_gpu_other < 0)
		return;
	/* The fd count (st_size of /proc/PID/fd, Linux >= 6.2) is the cheap
	 * signal that fds came or went; rescan then (at most once a second: a
	 * scan readlinks every fd, and a loading game opens many), and every
	 * 10 s anyway. */
	if (((count != s->drm_fdcount || count < 0) && t_ns >= s->drm_last_scan_ns + DRM_SCAN_MIN_NS) ||
	    t_ns >= s->drm_scan_at_ns) {
		drm_scan(s);
		s->drm_fdcount = count;
		s->drm_last_scan_ns = t_ns;
		s->drm_scan_at_ns = t_ns + DRM_SCAN_EVERY_NS;
	}
	memset(sums, 0, sizeof(sums));
	for (size_t i = 0; i < s->ndrm; i++) {
		struct pp_drm d;
		ssize_t n = sampler_src_read(s, &s->drm[i].info, 4096, C_DRM);
		bool dup = false;

		if (n < 0 || pp_drm_fdinfo(s->buf, (size_t)n, &d) < 0 || d.nengines == 0)
			continue;
		/* fds of one DRM client (dup, fork) report the same counters. */
		if (d.has_client_id) {
			for (size_t k = 0; k < nseen; k++)
				dup |= seen_clients[k] == d.client_id;
			if (dup)
				continue;
			if (nseen < 64)
				seen_clients[nseen++] = d.client_id;
		}
		for (size_t k = 0; k < d.nengines; k++) {
			size_t g;

			for (g = 0; g < s->ngpu; g++)
				if (strcmp(s->gpu_names[g], d.engines[k].name) == 0)
					break;
			sums[g < s->ngpu ? g : MAX_GPU_ENGINES] += (int64_t)d.engines[k].ns;
		}
		any = true;
	}
	if (!any)
		return;
	for (size_t g = 0; g < s->ngpu; g++)
		s->cur[s->gpu_field[g]] = sums[g];
	s->cur[s->f_gpu_other] = sums[MAX_GPU_ENGINES];
}

/* Engines each driver reports (Documentation/gpu/drm-usage-stats.rst and the
 * drivers' fdinfo code), so the fields exist before the program opens the GPU. */
static const struct {
	const char *driver;
	const char *engines[9];
} drm_engines[] = {
    {"i915", {"render", "copy", "video", "video-enhance", "compute", NULL}},
    {"amdgpu", {"gfx", "compute", "dma", "dec", "enc", "enc_1", "jpeg", "vpe", NULL}},
    {"msm", {"gpu", NULL}},
    {"panfrost", {"fragment", "vertex-tiler", NULL}},
    {"panthor", {"panthor", NULL}},
    {"v3d", {"bin", "render", "tfu", "csd", "cache_clean", NULL}},
    {"etnaviv", {"3d", "2d", NULL}},
};

static void gpu_add_engine(struct sampler *s, const char *name)
{
	for (size_t g = 0; g < s->ngpu; g++)
		if (strcmp(s->gpu_names[g], name) == 0)
			return;
	if (s->ngpu >= MAX_GPU_ENGINES || strlen(name) >= sizeof(s->gpu_names[0]))
		return;
	snprintf(s->gpu_names[s->ngpu], sizeof(s->gpu_names[0]), "%s", name);
	s->ngpu++;
}

int sampler_setup_gpu(struct sampler *s)
{
	char path[PATH_SIZE], link[PATH_SIZE], drivers[256] = "";
	struct dirent *e;
	DIR *d;
	int r;

	s->f_gpu_other = -1;
	if (discover_path(path, sizeof(path), s->root, "/sys/class/drm") < 0)
		return 0;
	d = opendir(path);
	if (!d) {
		sampler_note(s, false, 0, "gpu: no DRM devices (/sys/class/drm)");
		return 0;
	}
	while ((e = readdir(d))) {
		ssize_t n;
		const char *drv;

		if (strncmp(e->d_name, "renderD", 7) != 0 && strncmp(e->d_name, "card", 4) != 0)
			continue;
		if (strchr(e->d_name, '-'))
			continue; /* connectors: card0-HDMI-A-1 */
		if (discover_path(path, sizeof(path), s->root, "/sys/class/drm/%s/device/driver",
				  e->d_name) < 0)
			continue;
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		drv = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
		if (!strstr(drivers, drv) && strlen(drivers) + strlen(drv) + 2 < sizeof(drivers)) {
			if (drivers[0])
				strcat(drivers, ",");
			strcat(drivers, drv);
		}
		for (size_t i = 0; i < sizeof(drm_engines) / sizeof(drm_engines[0]); i++)
			if (strcmp(drm_engines[i].driver, drv) == 0)
				for (int k = 0; drm_engines[i].engines[k]; k++)
					gpu_add_engine(s, drm_engines[i].engines[k]);
	}
	closedir(d);
	if (!drivers[0]) {
		sampler_note(s, false, 0, "gpu: no DRM devices");
		return 0;
	}
	/* Engines the program already uses (attaching to a running program). */
	drm_scan(s);
	for (size_t i = 0; i < s->ndrm; i++) {
		struct pp_drm dd;
		ssize_t n = sampler_src_read(s, &s->drm[i].info, 4096, C_DRM);

		if (n >= 0 && pp_drm_fdinfo(s->buf, (size_t)n, &dd) == 0)
			for (size_t k = 0; k < dd.nengines; k++)
				gpu_add_engine(s, dd.engines[k].name);
	}
	for (size_t g = 0; g < s->ngpu; g++) {
		r = sampler_add_field(s, REC_INT, "gpu.%s_ns", s->gpu_names[g]);
		if (r < 0)
			return r;
		s->gpu_field[g] = r;
	}
	r = sampler_add_field(s, REC_INT, "gpu.other_ns");
	if (r < 0)
		return r;
	s->f_gpu_other = r;
	snprintf(path, sizeof(path), "%s/fd", s->proc);
	s->drm_dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	s->drm_fdcount = sampler_fd_count(s);
	sampler_add_meta(s, "gpu.drivers", "%s", drivers);
	if (s->ngpu == 0)
		sampler_note(s, false, 0,
			 "gpu: driver '%s' reports no drm-engine-* busy time known here; "
			 "engines seen later count in gpu.other_ns",
			 drivers);
	return 0;
}
