/* SPDX-License-Identifier: MIT */
/*
 * prefetch.h: the system side of `stallscope prefetch` (core/prefetch.h has
 * the arithmetic): a file's resident pages (mincore) and disk extents
 * (FIEMAP), the files a process has mapped and open, the memory and reclaim
 * counters a fetch watches, and a fetch's own reads (256 KiB at a time,
 * readahead off on our descriptor, at an I/O priority).
 */
#ifndef SS_LINUX_PREFETCH_H
#define SS_LINUX_PREFETCH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/prefetch.h"
#include "core/strbuf.h"

#define PFL_CHUNK (256u * 1024)

/* The page size the kernel's page cache uses here. */
size_t pfl_page(void);

/* Opens a file of a prefetch list (to learn or to fetch it) for reading: a
 * regular file only, opened O_NONBLOCK|O_NOFOLLOW|O_NOATIME (core/file.h),
 * so that a FIFO put in its place does not hang us, a device node is not
 * read (as root: a disk), a link is not followed. The fd, or a negative
 * errno (-EINVAL: not a regular file; -ELOOP: a link). */
int pfl_open(const char *path);

/* PATH's resident ranges (holes under PREFETCH_HOLE_FILL filled) with their disk
 * addresses where FIEMAP gives them, appended to *R; *RET_SIZE its size.
 * 0, or a negative errno (pfl_open's). */
int pfl_file_ranges(const char *path, struct prefetch_range **r, size_t *n, size_t *cap,
		    uint64_t *ret_size);

/* The bytes of [OFF, OFF + LEN) of the file FD that are not resident. */
int pfl_missing(int fd, uint64_t off, uint64_t len, uint64_t *ret);

/*
 * The regular files process PID uses: its executable first, then what it
 * has mapped (libraries, data), then its open files, each once, appended to
 * *PATHS (*N, NULL-terminated, the caller frees); its working directory into
 * CWD. 0 or a negative errno (-ESRCH: gone).
 */
int pfl_proc_files(pid_t pid, char ***paths, size_t *n, struct strbuf *cwd);

/* Appends P to *PATHS (*N) unless it is there. 0 or -ENOMEM. */
int pfl_add_path(char ***paths, size_t *n, const char *p);

/* The regular files under DIR, recursively (symbolic links not followed;
 * MAX at most), appended as pfl_proc_files does. 0 or a negative errno. */
int pfl_dir_files(const char *dir, size_t max, char ***paths, size_t *n);

/* MemAvailable and the reclaim and swap counters. 0 or a negative errno. */
int pfl_sys(struct prefetch_sys *ret);

/* The ioprio_set value of SPEC ("idle", "be0".."be7"), or -EINVAL. */
int pfl_ioprio(const char *spec);

/* I/O priority SPEC ("idle", "be0".."be7") and nice 10 for this process.
 * 0, -EINVAL (a bad SPEC), or the errno of ioprio_set. */
int pfl_lower_priority(const char *spec);

/* Reads [OFF, OFF + LEN) of FD in PFL_CHUNK reads into BUF (PFL_CHUNK
 * bytes), one in flight. Returns the reads made, or a negative errno. */
long pfl_read(int fd, uint64_t off, uint64_t len, void *buf);

#endif
