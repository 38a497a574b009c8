/* SPDX-License-Identifier: MIT */
/*
 * file.h: opening and reading a file that someone else may have put there
 * (a run directory, a recipe, a rules file, a frame log, a list of paths).
 * Every layer reads such files, so this one file of src/core may make the
 * POSIX calls it needs (open, fstat, read, close; docs/LAYOUT.md).
 *
 * The rules, the same at every reader:
 *   - the open never blocks and never takes a terminal (O_NONBLOCK,
 *     O_NOCTTY): a FIFO or a device node at the path does not hang us;
 *   - what was opened must be a regular file, checked with fstat on the
 *     open file, not on the path before (no gap between check and use);
 *   - a file read whole is read up to a cap, and a larger one is refused,
 *     never cut: a file that is /dev/zero, or a sparse file of a terabyte,
 *     costs at most the cap.
 *
 * Messages name the file, and WHAT it was meant to be when the caller says
 * ("the recipe" gives "cannot open the recipe 'x.ini': ..."; NULL: just the
 * file): "cannot open WHAT 'P': <strerror>" (or "cannot read" when a read
 * failed), "WHAT 'P' is a directory",
 * "WHAT 'P' is not a regular file (a FIFO)", "WHAT 'P' is larger than 4 MiB".
 */
#ifndef SS_CORE_FILE_H
#define SS_CORE_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"

/* The cap for a text file read whole: run.ini, rules, recipes, lists. The
 * largest we write is a few KB; 4 MiB leaves room and bounds the rest. */
#define FILE_TEXT_MAX ((size_t)4 << 20)
/* The cap for a log read whole (program.log, a saved kernel or X log): an
 * hour of a chatty program's output fits; a hostile one costs this. */
#define FILE_LOG_MAX ((size_t)512 << 20)

enum {
	FILE_NOFOLLOW = 1 << 0, /* refuse a symbolic link as the last component */
	FILE_NOATIME = 1 << 1,	/* leave the access time (where allowed; else without) */
};

/*
 * Opens PATH for reading, as the rules above say, with FLAGS (FILE_*).
 * Returns the open fd (O_CLOEXEC; the caller closes it) and, when RET_SIZE
 * is not NULL, the file's size then; or a negative errno with the message in
 * ERR (NULL: none): the open's own (-ENOENT, -EACCES, ...; -ELOOP for a link
 * under FILE_NOFOLLOW), -EISDIR for a directory, -EINVAL for anything else
 * that is not a regular file (a FIFO, a device node, a socket).
 */
int file_open_regular(const char *path, const char *what, unsigned flags, uint64_t *ret_size,
		      struct strbuf *err);

/*
 * Reads the open file FD (from file_open_regular; not closed) from where it
 * stands to its end, appending to RET, at most MAX bytes: 0, or -EFBIG when
 * there was more, -ENOMEM, or the read's errno, with the message (naming
 * PATH and WHAT) in ERR. On an error RET is left as it was (an empty one
 * holds no allocation: nothing to release).
 */
int file_read_fd(int fd, const char *path, const char *what, size_t max, struct strbuf *ret,
		 struct strbuf *err);

/* file_open_regular (no FLAGS), then file_read_fd, then close: PATH whole
 * into RET (appended), at most MAX bytes. 0 or a negative errno with ERR. */
int file_read_text(const char *path, const char *what, size_t max, struct strbuf *ret,
		   struct strbuf *err);

#endif
