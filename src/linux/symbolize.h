/* SPDX-License-Identifier: MIT */
/*
 * symbolize.h: names for places in ELF files, at analysis time
 * (docs/WHERE.md, "Symbols"): a record's user frames are (the mapped file's
 * path and build-id, a file offset), and this finds the function there.
 *
 * The file is the one at the recorded path when its build-id is the
 * recorded one, else the separate debug file under
 * /usr/lib/debug/.build-id/; names come from .symtab (the file's, else the
 * debug file's), then .dynsym; C++ and Rust (legacy) names are demangled.
 * A record is untrusted and this may run as root: every file is opened
 * O_NONBLOCK|O_NOCTTY (core/file.h), taken only when it is a regular file
 * of at most SYM_FILE_MAX bytes and a whole ELF file, its build-id checked
 * before anything else of it is used, and its symbols capped. A cache keyed
 * by build-id reads each file once per process.
 */
#ifndef SS_LINUX_SYMBOLIZE_H
#define SS_LINUX_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"

#define SYM_FILE_MAX ((uint64_t)4 << 30)	/* a larger file is not read */
#define SYM_SYMS_MAX (4u << 20)		/* function symbols kept per file */

struct symbolizer;

/* 0 and *RET, or -ENOMEM; -ENOTSUP when this build has no libelf (then
 * every frame is "[unknown]"). */
int symbolizer_new(struct symbolizer **ret);
void symbolizer_free(struct symbolizer *s);	/* NULL-safe */

/*
 * Appends to RET the name of file offset OFF of the file mapped from PATH
 * whose build-id is BID (LEN bytes): its function's name (demangled), or
 * "BASENAME+0xADDR" (ADDR the ELF virtual address, as addr2line and objdump
 * take it) where no symbol covers it. Returns 1 (a symbol), 0 (no symbol),
 * or a negative errno when no file of that build-id can be read: RET then
 * gets "[unknown]" and WHY (not NULL) the reason ("no such file", "its
 * build-id is 0a1b...", "a FIFO, not a regular file", ...), the same for
 * every call on that build-id.
 */
int symbolizer_name(struct symbolizer *s, const char *path, const uint8_t *bid, size_t len,
		    uint64_t off, struct strbuf *ret, struct strbuf *why);

/* Appends SYM as shown: demangled when it is a C++ or Rust legacy name
 * (_Z...) and libstdc++'s __cxa_demangle (looked up with dlopen, so that
 * stallscope does not link the C++ library) takes it; else as it is. */
void sym_demangle(struct strbuf *sb, const char *sym);

#endif
