/* SPDX-License-Identifier: MIT */
/*
 * procparse.h: pure parsers of the /proc and /sys files the sampler reads.
 *
 * Each takes the file's text as read (BUF, LEN bytes, not necessarily
 * NUL-terminated: a pread into a fixed buffer) and fills a struct with only
 * the fields the recorder needs. They make no system calls, so the tests feed
 * them text captured from a real kernel (tests/fixtures/proc/). Formats are
 * the kernel's (Documentation/filesystems/proc.rst, Documentation/block/
 * stat.rst, Documentation/accounting/psi.rst, Documentation/gpu/
 * drm-usage-stats.rst, Documentation/admin-guide/cgroup-v2.rst).
 *
 * Conventions: return 0 and fill *ret on success (ret_ written only then);
 * -EINVAL when the text is not what the format says (truncated, a field
 * missing or not a number); -ENOENT when the thing looked for is absent.
 */
#ifndef SS_LINUX_PROCPARSE_H
#define SS_LINUX_PROCPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* /proc/PID/stat and /proc/PID/task/TID/stat. */
struct pp_task_stat {
	char comm[64];	     /* between the first '(' and the last ')' */
	char state;	     /* 'R', 'S', 'D', 'Z', 'T', 't', 'X', 'I', ... */
	uint64_t minflt;     /* field 10 */
	uint64_t majflt;     /* field 12 */
	uint64_t utime;	     /* field 14, clock ticks (USER_HZ) */
	uint64_t stime;	     /* field 15, clock ticks */
	int64_t num_threads; /* field 20 */
	int32_t processor;   /* field 39, the CPU it last ran on */
};
/* comm may hold spaces and parentheses: the fields start after the last ')'. */
int pp_task_stat(const char *buf, size_t len, struct pp_task_stat *ret);

/* /proc/PID/task/TID/schedstat: "run_ns wait_ns slices". */
struct pp_schedstat {
	uint64_t run_ns;  /* time on the CPU */
	uint64_t wait_ns; /* time runnable, waiting in a run queue */
	uint64_t slices;  /* timeslices run on this CPU */
};
int pp_schedstat(const char *buf, size_t len, struct pp_schedstat *ret);

/* /proc/PID/task/TID/syscall: "running", "-1 SP PC" (blocked outside a
 * system call, e.g. in a page fault) or "NR ARG1..ARG6 SP PC". */
struct pp_syscall {
	bool running;	  /* the text was "running" */
	int64_t nr;	  /* the syscall number; -1 when not in one (or running) */
	uint64_t args[6]; /* valid when nr >= 0 */
};
int pp_syscall(const char *buf, size_t len, struct pp_syscall *ret);

/* /proc/PID/task/TID/wchan: a symbol, or "0" when none. Copies the symbol
 * into RET (SIZE bytes, NUL-terminated, "" for none); -EINVAL if it does not
 * fit or is not a symbol. */
int pp_wchan(const char *buf, size_t len, char *ret, size_t size);

/*
 * "name value" per line files (/proc/vmstat) and "Name: value kB" ones
 * (/proc/meminfo): for each line whose name is one of NAMES[0..N) (without
 * the ':'), sets VALS[i]. Other entries of VALS are left alone. Returns how
 * many names were found (>= 0), or -EINVAL for a value that is not a number.
 */
int pp_keyed(const char *buf, size_t len, const char *const *names, size_t n, int64_t *vals);

/* /sys/class/block/DEV/stat (Documentation/block/stat.rst). */
struct pp_blkstat {
	uint64_t rd_ios, rd_merges, rd_sectors, rd_ticks; /* ticks in ms */
	uint64_t wr_ios, wr_merges, wr_sectors, wr_ticks;
	uint64_t in_flight, io_ticks, time_in_queue;
};
int pp_blkstat(const char *buf, size_t len, struct pp_blkstat *ret);

/* /proc/pressure/{cpu,memory,io} and cgroup v2 *.pressure files. */
struct pp_psi {
	bool has_some, has_full;
	uint64_t some_us; /* "some ... total=" */
	uint64_t full_us; /* "full ... total=" */
};
int pp_psi(const char *buf, size_t len, struct pp_psi *ret);

/* The "cpu " line of /proc/stat, in clock ticks. */
struct pp_cpustat {
	uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
};
int pp_cpustat(const char *buf, size_t len, struct pp_cpustat *ret);

/* One line of /proc/PID/mountinfo (escapes such as \040 decoded). */
struct pp_mount {
	unsigned major, minor; /* st_dev of the file system (0:N for btrfs, tmpfs...) */
	char root[256];	       /* the mount's root within its file system */
	char point[256];       /* the mount point */
	char fstype[32];
	char source[256]; /* "/dev/vda", "none", ... */
};
/*
 * Finds the mount whose mount point is POINT (when POINT is not NULL) and
 * whose file system type is FSTYPE (when not NULL); the last such line wins,
 * as a later mount hides an earlier one. Returns 0, -ENOENT, or -EINVAL for a
 * malformed line.
 */
int pp_mountinfo_find(const char *buf, size_t len, const char *point, const char *fstype,
		      struct pp_mount *ret);

/* /proc/swaps: the swap areas in use. */
struct pp_swap {
	char path[256]; /* "/dev/zram0", "/swapfile" (escapes decoded) */
	bool is_file;	/* type "file" rather than "partition" */
};
/* Fills up to MAX entries of RET; returns how many areas there are (which
 * may exceed MAX), or -EINVAL when the header line is missing. */
int pp_swaps(const char *buf, size_t len, struct pp_swap *ret, size_t max);

/* DRM fdinfo (/proc/PID/fdinfo/N of a /dev/dri fd). */
#define PP_DRM_MAX_ENGINES 16
struct pp_drm {
	char driver[32];    /* drm-driver; "" if absent */
	uint64_t client_id; /* drm-client-id; 0 if absent */
	bool has_client_id;
	size_t nengines;
	struct {
		char name[32]; /* drm-engine-NAME */
		uint64_t ns;   /* busy time, ns */
	} engines[PP_DRM_MAX_ENGINES];
};
/* Fills *ret; an fdinfo without drm-* keys gives driver "" and no engines.
 * Engines not in ns ("drm-engine-capacity-*", other units) are skipped. */
int pp_drm_fdinfo(const char *buf, size_t len, struct pp_drm *ret);

/* /proc/PID/cgroup. */
struct pp_cgroup {
	bool has_v2;	   /* a "0::PATH" line */
	bool has_v1;	   /* other lines: a v1 or hybrid hierarchy */
	char v2_path[512]; /* the v2 path ("/" for the root) */
};
int pp_cgroup(const char *buf, size_t len, struct pp_cgroup *ret);

#endif
