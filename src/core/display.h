/* SPDX-License-Identifier: MIT */
/*
 * display.h: text as a terminal shows it: bytes that would break a line or
 * a column escaped, and the width a string takes in columns.
 *
 * Program names, paths and run.ini values come from programs and users, so
 * they may hold newlines, escape sequences or bytes that are not UTF-8;
 * tables and messages show them through display_escape so that a row stays
 * a row, and align by display_width so that "Café" and "ゲーム" take the
 * columns they do. Pure; the width table is the usual East Asian Wide and
 * emoji ranges (UAX #11), combining marks 0: close enough for names, and
 * never wrong by more than a column per character.
 */
#ifndef SS_CORE_DISPLAY_H
#define SS_CORE_DISPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"

/*
 * Appends the N bytes at S to SB as shown: valid UTF-8 as it is; \n, \t,
 * \r as those two characters; other control bytes, DEL and bytes that are
 * not valid UTF-8 as \xHH. At most MAX bytes of S are shown (0: all), then
 * "...". Returns 0 or -ENOMEM.
 */
int display_escape(struct strbuf *sb, const char *s, size_t n, size_t max);

/* The length (1..4) of the valid, shortest UTF-8 sequence at S (N > 0
 * bytes left), its code point into *CP when not NULL; 0 when invalid
 * (overlong, a surrogate, past U+10FFFF, cut short). */
size_t display_utf8(const unsigned char *s, size_t n, uint32_t *cp);

/* The columns the NUL-terminated, already escaped S takes. */
size_t display_width(const char *s);

#endif
