/* SPDX-License-Identifier: MIT */
/*
 * framelog_int.h: what the frame-log readers share (framelog.c: detection,
 * the plain reader, the buffer and the file; framelog_lex.c: fields,
 * numbers, messages; framelog_mangohud.c; framelog_presentmon.c). The
 * helpers every line or field goes through are static inline here: a call
 * per line measured as a tenth of the parse (bench/framelog.sh). Not for use
 * outside src/frames/framelog*.c and their unit test (which checks num_parse
 * against strtod and next_row against next_line + split_fields).
 */
#ifndef SS_FRAMES_FRAMELOG_INT_H
#define SS_FRAMES_FRAMELOG_INT_H

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/frames.h"
#include "core/strbuf.h"


/*
 * Where the parser is. RELEASE, when set, is called with each further 8 MB
 * of the buffer the parser has read past (framelog_read drops those pages
 * of its mapping, so an hour's log never sits in memory whole); the parser
 * may still read released bytes again, they are only dropped from memory.
 */
struct cursor {
	const char *p;		/* next unread byte */
	const char *end;
	size_t lineno;		/* number of the line last returned, 1-based */
	bool last_had_nl;	/* the line last returned ended in '\n' */
	void (*release)(const char *from, const char *to);
	const char *released;	/* RELEASE was called up to here */
	/*
	 * A buffer read as the parse goes (framelog_read: pread into fresh
	 * memory is read from cache; a file mapping costs a miss a page). With
	 * FILL set, only the bytes before AVAIL are there yet; FILL(c) reads
	 * more (AVAIL grows) or returns false and sets END to AVAIL (the
	 * reader says why). Without FILL, the whole buffer is there.
	 */
	const char *avail;
	bool (*fill)(struct cursor *c);
	void *fill_arg;
};

/* The end of what C can scan now. */
static inline const char *cursor_lim(const struct cursor *c)
{
	return c->fill ? c->avail : c->end;
}

/* Fills C until the line at FROM is whole: a '\n' at or after FROM is
 * there, or all is (END may have come down to AVAIL on a failed read). */
static inline void cursor_fill_line(struct cursor *c, const char *from)
{
	while (c->fill && c->avail < c->end &&
	       !memchr(from, '\n', (size_t)(c->avail - from))) {
		const char *was = c->avail;

		if (!c->fill(c))
			break;
		from = was;
	}
}

#define RELEASE_STEP (8u << 20)

struct span {
	const char *s;
	size_t len;
};

/* Counts the line that starts at LINE (C->p already past it) and releases
 * what is behind it every RELEASE_STEP bytes. */
static inline void cursor_step(struct cursor *c, const char *line)
{
	c->lineno++;
	if (c->release && (size_t)(c->p - c->released) >= RELEASE_STEP) {
		c->release(c->released, line);
		c->released = line;
	}
}

/* The next line without its "\n" or "\r\n"; false at the end of the buffer. */
static inline bool next_line(struct cursor *c, struct span *line)
{
	const char *nl;

	if (c->p >= c->end)
		return false;
	nl = memchr(c->p, '\n', (size_t)(cursor_lim(c) - c->p));
	if (!nl && c->fill && c->avail < c->end) {
		cursor_fill_line(c, c->p);
		if (c->p >= c->end)
			return false;
		nl = memchr(c->p, '\n', (size_t)(c->avail - c->p));
	}
	line->s = c->p;
	if (nl) {
		line->len = (size_t)(nl - c->p);
		c->p = nl + 1;
		c->last_had_nl = true;
	} else {
		line->len = (size_t)(c->end - c->p);
		c->p = c->end;
		c->last_had_nl = false;
	}
	if (line->len && line->s[line->len - 1] == '\r')
		line->len--;
	cursor_step(c, line->s);
	return true;
}

static inline struct span trim(struct span v)
{
	while (v.len && (v.s[0] == ' ' || v.s[0] == '\t'))
		v.s++, v.len--;
	while (v.len && (v.s[v.len - 1] == ' ' || v.s[v.len - 1] == '\t'))
		v.len--;
	return v;
}

static inline bool span_eq(struct span v, const char *s)
{
	size_t n = strlen(s);

	return v.len == n && memcmp(v.s, s, n) == 0;
}

static inline bool span_starts(struct span v, const char *s)
{
	size_t n = strlen(s);

	return v.len >= n && memcmp(v.s, s, n) == 0;
}

/*
 * The end of the field that starts at P (the ',' after it, or END). A field
 * that starts with '"' is quoted (RFC 4180): commas inside it do not end it
 * and "" is a quote inside it; an unterminated one runs to END.
 */
static inline const char *field_end(const char *p, const char *end)
{
	if (p < end && *p == '"') {
		for (p++; p < end; p++)
			if (*p == '"') {
				if (p + 1 < end && p[1] == '"')
					p++;
				else
					break;
			}
		if (p < end)
			p++;	/* past the closing quote */
	}
	while (p < end && *p != ',')
		p++;
	return p;
}

/* V without the quotes of a quoted field ("" inside stays as two). */
static inline struct span unquote(struct span v)
{
	if (v.len >= 2 && v.s[0] == '"' && v.s[v.len - 1] == '"')
		return (struct span){ v.s + 1, v.len - 2 };
	return v;
}
/*
 * Splits LINE at commas in one byte loop (fields are short: a memchr call
 * per field costs more than it saves); a quoted field (RFC 4180) is one
 * field whatever commas it holds. Field WANT[k] (k < 3, -1 for none) is
 * stored in OUT[k], without its quotes. Returns the number of fields.
 */
static inline int split_fields(struct span line, const int want[3], struct span out[3])
{
	const char *p = line.s, *end = line.s + line.len, *start = p;
	int i = 0;

	for (;; p++) {
		if (p == start && p < end && *p == '"')
			p = field_end(p, end);
		if (p == end || *p == ',') {
			struct span f = { start, (size_t)(p - start) };

			if (i == want[0])
				out[0] = unquote(f);
			else if (i == want[1])
				out[1] = unquote(f);
			else if (i == want[2])
				out[2] = unquote(f);
			i++;
			if (p == end)
				return i;
			start = p + 1;
		}
	}
}

/*
 * next_line() then split_fields() in one pass over the bytes, for the rows
 * of a CSV log (an hour of MangoHud is 518,400 of them, 14 fields each:
 * finding the newline and then the commas read each byte twice, and a test
 * of every comma against WANT cost a third of the parse). Sixteen bytes at
 * a time (SSE2; eight with a bit trick elsewhere), each ',' '\n' and '"'
 * found as a bit of a mask: the commas of a chunk that ends no wanted field
 * are only counted (popcount) and the last one remembered; only a chunk
 * where a wanted field ends is walked comma by comma. A line with a '"'
 * anywhere is handed to next_line() and split_fields() (quoted fields:
 * never in MangoHud, rare in PresentMon), so what comes back is always
 * exactly theirs: *LINE, the field count in *NFIELDS and OUT[k] for field
 * WANT[k] (the first k when two name one field). False at the end of the
 * buffer (nothing written).
 */
#define ROW_ONES 0x0101010101010101ull
#define ROW_LOW7 0x7f7f7f7f7f7f7f7full

/* 0x80 in each byte of W that equals the byte of PAT (repeated), else 0;
 * exact (no carry between bytes). */
static inline uint64_t row_bytes_eq(uint64_t w, uint64_t pat)
{
	uint64_t x = w ^ pat, t = (x & ROW_LOW7) + ROW_LOW7;

	return ~(t | x | ROW_LOW7);
}

/*
 * The masks of ',' '\n' and '"' in the ROW_CHUNK bytes at Q: byte b is bit
 * b << ROW_SHIFT (SSE2: one bit a byte; the bit trick: bit 7 of each byte).
 */
#if defined(__SSE2__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#include <emmintrin.h>
#define ROW_CHUNK 16
#define ROW_SHIFT 0
/* The set bits of 16-bit mask M: the instruction where the build may use
 * it, else two looks into a table (a call into libgcc per chunk was a tenth
 * of the parse, its shifts and adds the wait of the branch after them). */
#define ROW_P2(n) n, n + 1, n + 1, n + 2
#define ROW_P4(n) ROW_P2(n), ROW_P2(n + 1), ROW_P2(n + 1), ROW_P2(n + 2)
#define ROW_P6(n) ROW_P4(n), ROW_P4(n + 1), ROW_P4(n + 1), ROW_P4(n + 2)
static const unsigned char row_popc8[256] = { ROW_P6(0), ROW_P6(1), ROW_P6(1), ROW_P6(2) };
#undef ROW_P2
#undef ROW_P4
#undef ROW_P6
static inline unsigned row_popcount(uint64_t m)
{
#ifdef __POPCNT__
	return (unsigned)__builtin_popcountll(m);
#else
	return (unsigned)row_popc8[m & 0xff] + row_popc8[(m >> 8) & 0xff];
#endif
}
static inline void row_masks(const char *q, uint64_t *mc, uint64_t *mn, uint64_t *mq)
{
	__m128i w = _mm_loadu_si128((const __m128i *)(const void *)q);

	*mc = (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(w, _mm_set1_epi8(',')));
	*mn = (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(w, _mm_set1_epi8('\n')));
	*mq = (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(w, _mm_set1_epi8('"')));
}
#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ROW_CHUNK 8
#define ROW_SHIFT 3
/* The set bits of M (bit 7 of a byte at most): the bytes' sum */
static inline unsigned row_popcount(uint64_t m)
{
	return (unsigned)(((m >> 7) * ROW_ONES) >> 56);
}
static inline void row_masks(const char *q, uint64_t *mc, uint64_t *mn, uint64_t *mq)
{
	uint64_t w;

	memcpy(&w, q, 8);
	*mc = row_bytes_eq(w, ',' * ROW_ONES);
	*mn = row_bytes_eq(w, '\n' * ROW_ONES);
	*mq = row_bytes_eq(w, '"' * ROW_ONES);
}
#endif

static inline bool next_row(struct cursor *c, struct span *line, const int want[3],
			    struct span out[3], int *nfields)
{
	const char *s = c->p, *end, *q, *fstart, *eol;
	const int w0 = want[0], w1 = want[1], w2 = want[2];
	int i;

again:
	if (s >= c->end)
		return false;
	end = cursor_lim(c);
	q = fstart = s;
	eol = NULL;
	i = 0;
#define ROW_FIELD(to)                                                                 \
	do {                                                                           \
		struct span f_ = { fstart, (size_t)((to) - fstart) };                  \
		if (i == w0)                                                           \
			out[0] = f_;                                                   \
		else if (i == w1)                                                      \
			out[1] = f_;                                                   \
		else if (i == w2)                                                      \
			out[2] = f_;                                                   \
		i++;                                                                   \
	} while (0)
#ifdef ROW_CHUNK
	for (; end - q >= ROW_CHUNK; q += ROW_CHUNK) {
		uint64_t mc, mn, mq, below = ~0ull;
		unsigned cnt;

		row_masks(q, &mc, &mn, &mq);
		if (mn)
			below = (mn & -mn) - 1;	/* the bytes before the newline */
		if (mq & below)
			goto quoted;
		mc &= below;
		cnt = row_popcount(mc);
		/* a wanted field ends at one of these commas: walk them */
		if ((unsigned)(w0 - i) < cnt || (unsigned)(w1 - i) < cnt ||
		    (unsigned)(w2 - i) < cnt) {
			for (; mc; mc &= mc - 1) {
				const char *b = q + (__builtin_ctzll(mc) >> ROW_SHIFT);

				ROW_FIELD(b);
				fstart = b + 1;
			}
		} else if (cnt) {
			i += (int)cnt;
			fstart = q + ((63 - __builtin_clzll(mc)) >> ROW_SHIFT) + 1;
		}
		if (mn) {
			eol = q + (__builtin_ctzll(mn) >> ROW_SHIFT);
			break;
		}
	}
#endif
	for (; !eol && q < end; q++) {
		if (*q == ',') {
			ROW_FIELD(q);
			fstart = q + 1;
		} else if (*q == '\n') {
			eol = q;
		} else if (*q == '"') {
			goto quoted;
		}
	}
	if (!eol && c->fill && c->avail < c->end) {
		/* the line goes on past what is read: read it whole, scan again */
		cursor_fill_line(c, s);
		goto again;
	}
	c->last_had_nl = eol != NULL;
	if (!eol)
		eol = end;
	c->p = c->last_had_nl ? eol + 1 : end;
	line->s = s;
	line->len = (size_t)(eol - s);
	if (line->len && eol[-1] == '\r')
		line->len--;
	ROW_FIELD(s + line->len);	/* the last field; '\r' is never a comma */
	*nfields = i;
	cursor_step(c, s);
	return true;
#undef ROW_FIELD
quoted:
	if (!next_line(c, line))
		return false;
	*nfields = split_fields(*line, want, out);
	return true;
}

/*
 * Whether the 8 bytes of W, as read little-endian from memory, are all
 * digits; if so *V is their value: byte k (from the lowest address) is
 * digit k. Each byte is a digit when its high nibble is 3 and adding 6
 * keeps it so; then pairs, fours and the eight are combined by three
 * multiplies, each folding a lane's higher-addressed (less significant)
 * half into it.
 */
static inline bool digits_word(uint64_t w, uint64_t *v)
{
	if (((w & 0xf0f0f0f0f0f0f0f0ull) |
	     (((w + 0x0606060606060606ull) & 0xf0f0f0f0f0f0f0f0ull) >> 4)) !=
	    0x3333333333333333ull)
		return false;
	w -= 0x3030303030303030ull;
	w = (w * 10 + (w >> 8)) & 0x00ff00ff00ff00ffull;	/* 2-digit lanes */
	w = (w * 100 + (w >> 16)) & 0x0000ffff0000ffffull;	/* 4-digit lanes */
	*v = (w * 10000 + (w >> 32)) & 0xffffffffull;
	return true;
}

/* Whether the 8 bytes at P are all digits; their value in *V. */
static inline bool eight_digits(const char *p, uint64_t *v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t w;

	memcpy(&w, p, 8);
	return digits_word(w, v);
#else
	(void)p;
	(void)v;
	return false;
#endif
}

/* Whether the 1 to 7 bytes [P, END) are all digits, their value in *V; the
 * 8 bytes that end at END are read (the caller has 8 more before P), the
 * ones before P taken as '0'. */
static inline bool last_digits(const char *p, const char *end, uint64_t *v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t w, lead = (1ull << (8 * (8 - (end - p)))) - 1;

	memcpy(&w, end - 8, 8);
	return digits_word((w & ~lead) | (0x3030303030303030ull & lead), v);
#else
	(void)p;
	(void)end;
	(void)v;
	return false;
#endif
}

static const uint64_t pow10_int[8] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000 };

static const double pow10_exact[23] = {
	1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/*
 * Reads the decimal number that is exactly V ([+-]digits[.digits][e[+-]n],
 * at least one digit). Returns 0 and *ret (and *is_int: no '.' and no
 * exponent), or -1 for anything else, "nan" and "inf" included. Exact:
 * up to 15 significant digits with a power of ten up to 22 is one correctly
 * rounded operation; longer numbers go to strtod.
 */
static inline int num_parse(struct span v, double *ret, bool *is_int)
{
	const char *p = v.s, *end = v.s + v.len;
	uint64_t mant = 0;
	int digits = 0, exp10 = 0, any = 0;
	bool neg = false, integer = true;

	if (p < end && (*p == '+' || *p == '-'))
		neg = *p++ == '-';
	/*
	 * What MangoHud writes ("7.459", "149830510"): [digits][.digits], 15
	 * digits at most, leading zeros counted. The value is the digits as an
	 * integer (exact below 2^53) divided by an exact power of ten, one
	 * correctly rounded operation, as below; anything else (an exponent,
	 * more digits, no digit) takes the general path from the start.
	 */
	{
		const char *q = p;
		unsigned nd = 0, nf = 0;

		uint64_t eight;

		/* eight digits a step while 15 are not passed (elapsed has 13):
		 * the same MANT and ND as the byte loop below reaches */
		for (; end - q >= 8 && nd + 8 <= 15 && eight_digits(q, &eight); q += 8, nd += 8)
			mant = mant * 100000000 + eight;
		/* and a whole number's last 1 to 7 (elapsed's 5) in one step */
		if (nd == 8 && end - q >= 1 && end - q <= 7 && last_digits(q, end, &eight)) {
			mant = mant * pow10_int[end - q] + eight;
			nd += (unsigned)(end - q);
			q = end;
		}
		for (; q < end && (unsigned)(*q - '0') < 10 && nd < 16; q++, nd++)
			mant = mant * 10 + (uint64_t)(*q - '0');
		if (q < end && *q == '.') {
			integer = false;
			q++;
			for (; end - q >= 8 && nd + 8 <= 15 && eight_digits(q, &eight);
			     q += 8, nd += 8, nf += 8)
				mant = mant * 100000000 + eight;
			for (; q < end && (unsigned)(*q - '0') < 10 && nd < 16; q++, nd++, nf++)
				mant = mant * 10 + (uint64_t)(*q - '0');
		}
		if (q == end && nd && nd <= 15) {
			/* (x / 1 is x: no division for a whole number) */
			double d = nf ? (double)mant / pow10_exact[nf] : (double)mant;

			if (is_int)
				*is_int = integer;
			*ret = neg ? -d : d;
			return 0;
		}
		mant = 0;
		integer = true;
	}
	for (; p < end && *p >= '0' && *p <= '9'; p++, any++) {
		if (mant == 0 && *p == '0')
			continue;
		if (digits < 19) {
			mant = mant * 10 + (uint64_t)(*p - '0');
			digits++;
		} else {
			exp10++;
		}
	}
	if (p < end && *p == '.') {
		integer = false;
		for (p++; p < end && *p >= '0' && *p <= '9'; p++, any++) {
			if (mant == 0 && *p == '0') {
				exp10--;
				continue;
			}
			if (digits < 19) {
				mant = mant * 10 + (uint64_t)(*p - '0');
				digits++;
				exp10--;
			}
		}
	}
	if (!any)
		return -1;
	if (p < end && (*p == 'e' || *p == 'E')) {
		bool eneg = false;
		int e = 0, edigits = 0;

		integer = false;
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			eneg = *p++ == '-';
		for (; p < end && *p >= '0' && *p <= '9'; p++, edigits++)
			if (e < 10000)
				e = e * 10 + (*p - '0');
		if (!edigits)
			return -1;
		exp10 += eneg ? -e : e;
	}
	if (p != end)
		return -1;
	if (is_int)
		*is_int = integer;
	if (mant == 0) {
		*ret = neg ? -0.0 : 0.0;
		return 0;
	}
	if (digits <= 15 && exp10 >= -22 && exp10 <= 22) {
		double d = (double)mant;

		d = exp10 < 0 ? d / pow10_exact[-exp10] : d * pow10_exact[exp10];
		*ret = neg ? -d : d;
		return 0;
	}
	{
		char tmp[80];
		double d;

		if (v.len >= sizeof(tmp))
			return -1;
		memcpy(tmp, v.s, v.len);
		tmp[v.len] = '\0';
		d = strtod(tmp, NULL);
		if (!isfinite(d))
			return -1;
		*ret = d;
	}
	return 0;
}


/* ------------------------------------------------------------------ */
/* the parse state shared by the formats */

struct parse {
	const char *name;	/* the file, for messages */
	struct strbuf *msg;	/* errors go here (may be NULL) */
	struct strbuf notes;	/* notes, handed to msg on success */
	struct frames *f;
	size_t zero_rows;	/* rows left out for a frame time of 0 */
	size_t first_zero_line;
};


/* framelog_lex.c */
/* Whether LINE (a header) has the field NAME. */
bool fl_has_field(struct span line, const char *name);
/* The index of NAME in header LINE and the number of fields; -1 absent. */
int fl_field_index(struct span line, const char *name, int *nfields);
void fl_sb_add_quoted(struct strbuf *sb, struct span v);
/* Appends "'NAME' line N: " + FMT to the error message; returns -EINVAL. */
int fl_perr(struct parse *ps, size_t lineno, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* As fl_perr, ending in ", got 'V'". */
int fl_perr_got(struct parse *ps, size_t lineno, struct span v, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void fl_note(struct parse *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Fills t_s with the running sum of the frame times (first frame from 0). */
void fl_times_from_sum(struct frames *f);


/*
 * Reads frame time V (in the log's unit, WHAT names it for messages) into
 * *ret. Returns 1 for a usable value, 0 for a zero frame time (counted and
 * left out), or -EINVAL with the message. Inline: it runs once a row.
 */
static inline int fl_read_ft(struct parse *ps, size_t lineno, struct span v, const char *what,
			     double *ret, bool *is_int)
{
	v = trim(v);
	if (num_parse(v, ret, is_int) < 0)
		return fl_perr_got(ps, lineno, v, "expected %s", what);
	if (*ret < 0)
		return fl_perr_got(ps, lineno, v, "expected %s (not negative)", what);
	if (*ret == 0) {
		if (!ps->zero_rows++)
			ps->first_zero_line = lineno;
		return 0;
	}
	return 1;
}

/*
 * Appends a frame: straight into the arrays while the reserved capacity
 * lasts (the hot path: a call into frames.c per frame cost a tenth of the
 * parse), through frames_push() beyond it.
 */
static inline int push(struct parse *ps, double t_s, double ft)
{
	struct frames *f = ps->f;

	if (f->n < f->alloc && !f->tid) {
		f->ft_ms[f->n] = ft;
		f->t_s[f->n] = t_s;
		f->n++;
		return 0;
	}
	return frames_push(f, t_s, ft);
}

/* Appends a frame time only; its end is the previous end plus FT (ms). */
static inline int push_ft(struct parse *ps, double ft)
{
	struct frames *f = ps->f;

	return push(ps, (f->n ? f->t_s[f->n - 1] : 0.0) + ft / 1000.0, ft);
}

/* framelog_mangohud.c, framelog_presentmon.c: the parsers, and the lines
 * detection knows them by */
bool fl_mh_is_start(struct span line);
bool fl_pm_is_header(struct span line);
int fl_parse_mangohud(struct parse *ps, struct cursor *c);
int fl_parse_presentmon(struct parse *ps, struct cursor *c);

#endif
