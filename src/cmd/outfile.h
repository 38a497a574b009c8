/* SPDX-License-Identifier: MIT */
/*
 * outfile.h: a file a command writes for the user (html's page, export's
 * trace, matrix's CSVs, prefetch's list), through linux/safefile.h's
 * sf_out: whole or absent (a temporary renamed over it), a device, FIFO or
 * pipe written straight and never replaced, a symbolic link never
 * replaced, and under sudo made as the user who ran sudo. Errors are said
 * here, once, naming the file.
 */
#ifndef SS_CMD_OUTFILE_H
#define SS_CMD_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "linux/safefile.h"

/* Opens PATH ("-": standard output) for writing as a stdio stream; NULL
 * after saying why. O is outfile_close's. */
FILE *outfile_open(const char *path, struct sf_out *o);

/* As outfile_open, the descriptor (owned by the caller, a dup): for a
 * writer of its own (gzip). -1 after saying why. */
int outfile_open_fd(const char *path, struct sf_out *o);

/* Ends what outfile_open began: F (NULL: the caller closed its own
 * stream already) closed, and with OK the file put in place, else the
 * temporary removed. 0, or -1 after saying why. */
int outfile_close(const char *path, FILE *f, struct sf_out *o, bool ok);

struct db;
struct strbuf;

/*
 * Opens the results database TARGET to write (db_open's WRITE). Under sudo
 * an SQLite file that is absent is first made empty as the user who ran
 * sudo (sf_open_append: O_EXCL|O_NOFOLLOW in its directory), so that the
 * database is theirs, not root's (SQLite gives its journals the database's
 * owner); where that user cannot create it (a directory only root may
 * write), root's, as before. 0 and *RET, or db_open's error with ERR.
 */
int outfile_db_open(const char *target, struct db **ret, struct strbuf *err);

#endif
