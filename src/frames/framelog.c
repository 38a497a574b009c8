// SPDX-License-Identifier: MIT
/*
 * framelog.c: the frame-log readers of framelog.h: MangoHud CSV (0.6.x to
 * 0.8.x), PresentMon CSV (v1, v2, current) and one frame time a line.
 *
 * One pass over the buffer, a line at a time, with no allocation per line:
 * a CSV row's end and its commas are found in one scan, sixteen bytes at a
 * time (next_row: SSE2 masks; only the commas around the wanted fields are
 * looked at one by one), numbers are read by a small decimal reader, eight
 * digits a step (exact for up to 15 significant digits and powers of ten up
 * to 22, strtod on a stack copy beyond that; test-framelog checks it
 * against strtod). Values go
 * straight into the arrays of struct frames, sized up front from the line
 * density of the first 64 KB; unit decisions that need the whole log
 * (MangoHud's microseconds or milliseconds) scale them afterwards in place.
 * framelog_read reads a regular file in blocks just ahead of the parser
 * (maps it for PresentMon) and drops the pages the parser has read past, so
 * an hour's log (45 MB of MangoHud CSV) costs about the frames' arrays in
 * memory, not the file.
 *
 * Assumptions, each checked and reported rather than trusted:
 *   - MangoHud writes no quoting and no blank lines; a row has as many
 *     fields as the header (a shorter last line without a newline is a
 *     write cut short by a crash: left out with a note);
 *   - MangoHud's elapsed column is ns since logging started and never
 *     decreases; when it does not hold, times come from the frame times;
 *   - PresentMon rows of several processes or swap chains may be mixed in
 *     one file; the swap chain with the most rows is kept (a note says so).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/file.h"
#include "frames/framelog.h"
#include "frames/framelog_int.h"

/* ------------------------------------------------------------------ */
/* plain: one frame time in ms a line */

/* LINE without a '#' comment and blanks. */
static struct span plain_value(struct span line)
{
	const char *hash = memchr(line.s, '#', line.len);

	if (hash)
		line.len = (size_t)(hash - line.s);
	return trim(line);
}

static int parse_plain(struct parse *ps, struct cursor *c)
{
	struct span line;
	size_t lines = 0;
	int r;

	while (next_line(c, &line)) {
		struct span v = plain_value(line);
		double ft = 0;
		bool is_int;

		lines++;
		if (!v.len)
			continue;
		r = fl_read_ft(ps, c->lineno, v, "a frame time in ms", &ft, &is_int);
		if (r < 0)
			return r;
		if (r > 0 && (r = push_ft(ps, ft)) < 0)
			return r;
	}
	if (!lines)
		return fl_perr(ps, 0, "empty file: expected a frame log");
	if (!ps->f->n && !ps->zero_rows)
		return fl_perr(ps, 0, "no frames: only comments and blank lines");
	snprintf(ps->f->format, sizeof(ps->f->format), "plain");
	return 0;
}

/* ------------------------------------------------------------------ */
/* detection and the API */

/*
 * Sizes F's arrays (still empty) for the frames [P, END) likely holds, so
 * that they rarely grow by copying (an hour's log would otherwise copy 8 MB
 * about ten times). The line count of the first 64 KB, scaled to the whole,
 * plus a quarter: counting every line would read the whole buffer twice.
 * Untouched capacity costs address space, not memory. frames_push() grows
 * the arrays as usual past the estimate. Uses struct frames' fields.
 */
/*
 * An array of N doubles for frames_free() to free(). Big ones are aligned to
 * 2 MB and asked for transparent huge pages: filling 8 MB of fresh 4 KB
 * pages took a fault each, most of the parse time of an hour's log here.
 */
static double *alloc_array(size_t n)
{
	const size_t huge = 2u << 20;
	size_t bytes = n * sizeof(double);
	void *p;

	if (bytes < 2 * huge)
		return malloc(bytes);
	bytes = (bytes + huge - 1) & ~(huge - 1);
	if (posix_memalign(&p, huge, bytes) != 0)
		return NULL;
	madvise(p, bytes, MADV_HUGEPAGE);
	return p;
}

static int frames_reserve_lines(struct frames *f, const char *p, const char *end)
{
	size_t len = (size_t)(end - p), head = len < 65536 ? len : 65536, lines = 1, n;
	const char *q = p, *hend = p + head;
	double *a, *b;

	while (q < hend && (q = memchr(q, '\n', (size_t)(hend - q)))) {
		lines++;
		q++;
	}
	n = (size_t)((double)lines * ((double)len / (double)(head ? head : 1)) * 1.25) + 1024;
	a = alloc_array(n);
	b = alloc_array(n);
	if (!a || !b) {
		free(a);
		free(b);
		return -ENOMEM;
	}
	free(f->ft_ms);
	free(f->t_s);
	f->ft_ms = a;
	f->t_s = b;
	f->alloc = n;
	return 0;
}

/* The format of the first meaningful line; -EINVAL with a message if none. */
static int detect(struct parse *ps, struct cursor c, enum framelog_format *ret)
{
	struct span line = { 0 };
	double d;

	while (next_line(&c, &line)) {
		struct span v = trim(line);

		if (!v.len || v.s[0] == '#')
			continue;
		if (fl_mh_is_start(v)) {
			*ret = FRAMELOG_MANGOHUD;
		} else if (fl_pm_is_header(v)) {
			*ret = FRAMELOG_PRESENTMON;
		} else if (num_parse(plain_value(v), &d, NULL) == 0) {
			*ret = FRAMELOG_PLAIN;
		} else {
			return fl_perr_got(ps, c.lineno, v,
					   "unknown frame log: expected a MangoHud CSV (os,cpu,... "
					   "or "
					   "fps,frametime,...), a PresentMon CSV header "
					   "(...,MsBetweenPresents,...) or a frame time in ms");
		}
		return 0;
	}
	if (c.lineno == 0 || (c.lineno == 1 && !line.len))
		return fl_perr(ps, 0, "empty file: expected a frame log");
	return fl_perr(ps, 0, "no frames: only comments and blank lines");
}

/*
 * A file read into an anonymous buffer as the parse goes (struct cursor's
 * FILL): FD at offset 0 is BASE[0]. ERR: the first failed read's negative
 * errno. A file that ends before its size at open (it shrank, or it is a
 * sysfs file whose size is a page) ends there, as a stream would.
 */
struct fill_src {
	int fd;
	char *base;
	int err;
};

#define FILL_BLOCK (256u << 10)	/* read at a time: stays in cache until parsed */

static bool fill_block(struct cursor *c)
{
	struct fill_src *src = c->fill_arg;
	size_t want = (size_t)(c->end - c->avail);
	ssize_t got;

	if (want > FILL_BLOCK)
		want = FILL_BLOCK;
	do
		got = pread(src->fd, src->base + (c->avail - src->base), want,
			    (off_t)(c->avail - src->base));
	while (got < 0 && errno == EINTR);
	if (got <= 0) {
		if (got < 0 && !src->err)
			src->err = -errno;
		c->end = c->avail;
		return false;
	}
	c->avail += got;
	return true;
}

/* framelog_parse, with RELEASE as in struct cursor (may be NULL) and, when
 * SRC is set, BUF read from SRC as the parse goes; -EAGAIN (nothing said)
 * then for a PresentMon log, which reads rows again: map it instead. */
static int parse_buf(const char *buf, size_t len, const char *name, enum framelog_format fmt,
		     struct frames **ret, struct strbuf *msg,
		     void (*release)(const char *from, const char *to), struct fill_src *src)
{
	struct parse ps = { .name = name ? name : "-", .msg = msg };
	struct cursor c = { buf, buf + len, 0, false, release, buf, buf, NULL, NULL };
	size_t mark = msg ? msg->len : 0;
	int r;

	sb_init(&ps.notes);
	if (src) {
		c.fill = fill_block;
		c.fill_arg = src;
		/* what detection and frames_reserve_lines look at */
		while (c.avail - buf < 65536 + 3 && c.avail < c.end && fill_block(&c))
			;
	}
	/* a UTF-8 byte order mark (PresentMon writes one) */
	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		c.p += 3;
	if (fmt == FRAMELOG_AUTO && (r = detect(&ps, c, &fmt)) < 0)
		goto read_failed;
	if (src && fmt == FRAMELOG_PRESENTMON)
		return -EAGAIN;
	ps.f = frames_new();
	if (!ps.f || frames_reserve_lines(ps.f, c.p, c.end) < 0) {
		frames_free(ps.f);
		if (msg)
			sb_addf(msg, "'%s': out of memory", ps.name);
		return -ENOMEM;
	}
	switch (fmt) {
	case FRAMELOG_MANGOHUD:
		r = fl_parse_mangohud(&ps, &c);
		break;
	case FRAMELOG_PRESENTMON:
		r = fl_parse_presentmon(&ps, &c);
		break;
	case FRAMELOG_PLAIN:
		r = parse_plain(&ps, &c);
		break;
	default:
		r = -EINVAL;
		fl_perr(&ps, 0, "unknown frame log format %d", (int)fmt);
		break;
	}
	if (r == 0 && !ps.f->n)
		r = fl_perr(&ps, 0, "no frames: every frame time is 0");
	if (r < 0 || (src && src->err)) {
		if (r == -ENOMEM && msg)
			sb_addf(msg, "'%s': out of memory", ps.name);
		frames_free(ps.f);
		sb_release(&ps.notes);
		goto read_failed;
	}
	if (ps.zero_rows)
		fl_note(&ps, "%zu frames with a frame time of 0 left out (the first on line %zu)",
			ps.zero_rows, ps.first_zero_line);
	if (msg)
		sb_add(msg, ps.notes.buf, ps.notes.len);
	sb_release(&ps.notes);
	*ret = ps.f;
	return 0;
read_failed:
	/* a failed read explains what the parse said about the bytes it missed */
	if (src && src->err) {
		r = src->err;
		if (msg) {
			if (msg->len > mark) {	/* (an empty one may be the static "") */
				msg->len = mark;
				msg->buf[mark] = '\0';
			}
			sb_addf(msg, "'%s': %s", ps.name, strerror(-r));
		}
	}
	sb_release(&ps.notes);
	return r;
}

int framelog_parse(const char *buf, size_t len, const char *name, enum framelog_format fmt,
		   struct frames **ret, struct strbuf *msg)
{
	return parse_buf(buf, len, name, fmt, ret, msg, NULL, NULL);
}

/* Drops the whole pages of [FROM, TO) of a read-only file mapping from memory. */
static void release_pages(const char *from, const char *to)
{
	uintptr_t page = 4096, a = ((uintptr_t)from + page - 1) & ~(page - 1);
	uintptr_t b = (uintptr_t)to & ~(page - 1);

	if (b > a)
		madvise((void *)a, b - a, MADV_DONTNEED);
}

/* Reads all of FP into SB; 0 or a negative errno. */
static int read_stream(FILE *fp, struct strbuf *sb)
{
	for (;;) {
		size_t got;

		if (sb_grow(sb, sb->len < 65536 ? 65536 : sb->len) < 0)
			return -ENOMEM;
		got = fread(sb->buf + sb->len, 1, sb->alloc - sb->len - 1, fp);
		sb->len += got;
		sb->buf[sb->len] = '\0';
		if (got == 0)
			return ferror(fp) ? -EIO : 0;
	}
}

int framelog_read(const char *path, enum framelog_format fmt, struct frames **ret,
		  struct strbuf *msg)
{
	struct strbuf sb = STRBUF_INIT;
	uint64_t size;
	FILE *fp;
	int fd = -1, r;

	if (strcmp(path, "-") == 0) {
		fp = stdin;
		goto stream;
	}
	/* a regular file only ("-" is the way to give a stream), opened
	 * without blocking: a FIFO would hang us, /dev/zero grow without end */
	fd = file_open_regular(path, NULL, 0, &size, &sb);
	if (fd < 0) {
		if (msg)
			sb_addf(msg, "%s%s", sb.buf,
				fd == -EINVAL ? " ('-' reads a frame log from standard input)" : "");
		sb_release(&sb);
		return fd;
	}
	sb_reset(&sb);
	/*
	 * A regular file is read into address space reserved for all of it,
	 * 256 KB ahead of the parse, and dropped 8 MB behind it (the frames'
	 * arrays, not the file, are the memory): mapping the file instead
	 * cost a cache and TLB miss a page, half the parse of an hour's
	 * MangoHud log here. PresentMon reads rows again: mapped.
	 */
	if (size > 0) {
		size_t len = (size_t)size;
		void *map = mmap(NULL, len, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (map != MAP_FAILED) {
			struct fill_src src = { fd, map, 0 };

			madvise(map, len, MADV_HUGEPAGE);
			r = parse_buf(map, len, path, fmt, ret, msg, release_pages, &src);
			munmap(map, len);
			if (r != -EAGAIN) {
				close(fd);
				return r;
			}
		}
		map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);

		if (map != MAP_FAILED) {
			close(fd);
			madvise(map, len, MADV_SEQUENTIAL);
			r = parse_buf(map, len, path, fmt, ret, msg, release_pages, NULL);
			munmap(map, len);
			return r;
		}
	}
	fp = fdopen(fd, "rb");
	if (!fp) {
		r = -errno;
		goto fail;
	}
	fd = -1;	/* fp owns it now */
stream:
	r = read_stream(fp, &sb);
	if (fp != stdin)
		fclose(fp);
	if (r < 0)
		goto fail;
	r = framelog_parse(sb.buf, sb.len, path, fmt, ret, msg);
	sb_release(&sb);
	return r;
fail:
	if (fd >= 0)
		close(fd);
	if (msg)
		sb_addf(msg, "'%s': %s", path, strerror(-r));
	sb_release(&sb);
	return r;
}

static const char *const format_names[] = {
	[FRAMELOG_AUTO] = "auto",
	[FRAMELOG_MANGOHUD] = "mangohud",
	[FRAMELOG_PRESENTMON] = "presentmon",
	[FRAMELOG_PLAIN] = "plain",
};

int framelog_format_parse(const char *s, enum framelog_format *ret)
{
	for (size_t i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++) {
		if (s && strcmp(s, format_names[i]) == 0) {
			*ret = (enum framelog_format)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *framelog_format_name(enum framelog_format fmt)
{
	if ((unsigned)fmt < sizeof(format_names) / sizeof(format_names[0]))
		return format_names[fmt];
	return "unknown";
}
