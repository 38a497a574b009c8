/* SPDX-License-Identifier: MIT */
/*
 * display.h: text as a terminal shows it: bytes that would break a line or
 * a column escaped, and the width a string takes in columns.
 *
 * Program names, paths and run.ini values come from programs and users, so
 * they may hold newlines, escape sequences or bytes that are not UTF-8;
 * tables and messages show them through display_escape, so that a row
 * stays a row and no escape sequence reaches the terminal (src/cli.h:
 * cli_shown for a value; every message is escaped once more as it is
 * printed), and align by display_width, so that "Café" and "ゲーム" take
 * the columns they do. Pure; the width table is the usual East Asian Wide
 * and emoji ranges (UAX #11), combining marks 0: close enough for names,
 * and never wrong by more than a column per character.
 */
#ifndef SS_CORE_DISPLAY_H
#define SS_CORE_DISPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"

/*
 * Appends the N bytes at S to SB as shown: valid UTF-8 as it is; \n, \t,
 * \r as those two characters; other control bytes (ESC, and so every
 * terminal escape sequence), DEL, the C1 controls and bytes that are not
 * valid UTF-8 as \xHH; the bidirectional controls (U+200E, U+200F,
 * U+202A..U+202E, U+2066..U+2069) as \uHHHH. A backslash stays as it is,
 * so escaping what is already escaped changes nothing. At most MAX bytes of
 * S are shown (0: all), then "...". Returns 0 or -ENOMEM.
 */
int display_escape(struct strbuf *sb, const char *s, size_t n, size_t max);

/* As display_escape (MAX 0), but newlines and tabs kept: for a whole
 * message of several lines whose values were escaped each on their own. */
int display_escape_text(struct strbuf *sb, const char *s, size_t n);

/* The length (1..4) of the valid, shortest UTF-8 sequence at S (N > 0
 * bytes left), its code point into *CP when not NULL; 0 when invalid
 * (overlong, a surrogate, past U+10FFFF, cut short). */
size_t display_utf8(const unsigned char *s, size_t n, uint32_t *cp);

/* The columns the NUL-terminated, already escaped S takes. */
size_t display_width(const char *s);

#endif
