/* SPDX-License-Identifier: MIT */
/*
 * logstamp.h: stamping a program's output line by line as it arrives, for a
 * run's program.log: every line starts "[S] " with S the seconds since t0
 * (three decimals) at which its first byte was read, then the line as the
 * program wrote it. The recorder reads the program's output once a sample,
 * so a stamp is within one period of the read, and a program that buffers
 * its output is stamped when it flushes. Report's reload rules match these
 * lines (core/reload.h).
 *
 * Pure: bytes in, stamped bytes out; a line split across reads keeps the
 * stamp of its first part.
 */
#ifndef SS_CORE_LOGSTAMP_H
#define SS_CORE_LOGSTAMP_H

#include <stdbool.h>
#include <stddef.h>

#include "core/strbuf.h"

struct logstamp {
	bool mid_line;		/* the last byte fed was not a newline */
};

#define LOGSTAMP_INIT { false }

/* Appends BUF (LEN bytes) read at T_S seconds since t0 to OUT, a stamp
 * before each line's first byte. Returns 0 or -ENOMEM (OUT then holds a
 * prefix of the result). */
int logstamp_feed(struct logstamp *ls, const char *buf, size_t len, double t_s,
		  struct strbuf *out);

/*
 * The stamp of one line of a stamped log (LEN bytes at LINE, no newline),
 * the one parser every reader of such logs uses (reload rules, bench's
 * window regexes, watch's rules, the X server's log):
 *
 *   line  := blank* "[" blank* digits ("." digits?)? blank* "]" " "? text
 *
 * which takes what logstamp_feed writes ("[12.345] text") and the X
 * server's and the kernel's padded stamps ("[  1234.567] (II) ..."). No
 * sign, exponent, hex, inf or nan. Returns 1 with the seconds in *RET_T and
 * the offset of the text in *RET_TEXT (after the ']' and one blank), or 0
 * when the line has no stamp (*RET_TEXT 0: the text is the whole line).
 */
int logstamp_parse(const char *line, size_t len, double *ret_t, size_t *ret_text);

#endif
