// SPDX-License-Identifier: MIT
/* display.c: escaping for terminals and display widths (display.h). */
#include <stdint.h>

#include "core/display.h"

size_t display_utf8(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t len, i;
	uint32_t c;

	if (s[0] < 0x80) {
		if (cp)
			*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		c = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		c = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		c = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) ||
	    (len == 4 && (c < 0x10000 || c > 0x10ffff)))
		return 0;
	if (cp)
		*cp = c;
	return len;
}

/* The bidirectional embedding, override and isolate controls: shown, not
 * obeyed, so that a name cannot reorder the rest of its line. */
static int bidi_control(uint32_t c)
{
	return c == 0x200e || c == 0x200f || (c >= 0x202a && c <= 0x202e) ||
	       (c >= 0x2066 && c <= 0x2069);
}

/* display_escape and display_escape_text: KEEP_LINES leaves \n and \t. */
static int escape(struct strbuf *sb, const char *s, size_t n, size_t max, int keep_lines)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	int r = 0;

	while (i < n && !r) {
		uint32_t cp;
		size_t len;

		if (max && i >= max)
			return sb_adds(sb, "...");
		len = display_utf8(p + i, n - i, &cp);
		if (len == 1 && keep_lines && (p[i] == '\n' || p[i] == '\t'))
			r = sb_add(sb, p + i, 1);
		else if (len == 1 && p[i] == '\n')
			r = sb_adds(sb, "\\n");
		else if (len == 1 && p[i] == '\t')
			r = sb_adds(sb, "\\t");
		else if (len == 1 && p[i] == '\r')
			r = sb_adds(sb, "\\r");
		else if (!len || (len == 1 && (p[i] < 0x20 || p[i] == 0x7f)))
			r = sb_addf(sb, "\\x%02x", p[i]);
		else if (cp >= 0x80 && cp < 0xa0)	/* a C1 control: both bytes */
			r = sb_addf(sb, "\\x%02x\\x%02x", p[i], p[i + 1]);
		else if (bidi_control(cp))
			r = sb_addf(sb, "\\u%04x", (unsigned)cp);
		else
			r = sb_add(sb, p + i, len);
		i += len ? len : 1;
	}
	return r;
}

int display_escape(struct strbuf *sb, const char *s, size_t n, size_t max)
{
	return escape(sb, s, n, max, 0);
}

int display_escape_text(struct strbuf *sb, const char *s, size_t n)
{
	return escape(sb, s, n, 0, 1);
}

static int wide(uint32_t c)
{
	return (c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0xa4cf && c != 0x303f) ||
	       (c >= 0xac00 && c <= 0xd7a3) || (c >= 0xf900 && c <= 0xfaff) ||
	       (c >= 0xfe30 && c <= 0xfe4f) || (c >= 0xff00 && c <= 0xff60) ||
	       (c >= 0xffe0 && c <= 0xffe6) || (c >= 0x1f300 && c <= 0x1faff) ||
	       (c >= 0x20000 && c <= 0x3fffd);
}

static int zero_width(uint32_t c)
{
	return (c >= 0x0300 && c <= 0x036f) || (c >= 0x200b && c <= 0x200f) ||
	       (c >= 0xfe00 && c <= 0xfe0f) || (c >= 0x20d0 && c <= 0x20ff);
}

size_t display_width(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0, left = 0, w = 0;

	while (p[left])
		left++;
	while (n < left) {
		uint32_t cp;
		size_t len = display_utf8(p + n, left - n, &cp);

		if (!len) {	/* not UTF-8 (display_escape leaves none): a column */
			w++;
			n++;
			continue;
		}
		w += zero_width(cp) ? 0 : wide(cp) ? 2 : 1;
		n += len;
	}
	return w;
}
