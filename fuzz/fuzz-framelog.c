// SPDX-License-Identifier: MIT
/*
 * fuzz-framelog.c: a libFuzzer target for the frame-log readers
 * (framelog_parse): MangoHud CSV, PresentMon CSV (quoted fields included)
 * and one frame time a line. Each input is parsed by content and as each
 * format forced; a parsed log is walked (every frame time and end, which
 * must be finite and in order) so that ASan and UBSan see any count or
 * pointer that disagrees with what was filled. The same bytes are also
 * written to a file and read by framelog_read (as report reads a log:
 * in blocks ahead of the parser, a PresentMon log mapped), whose answer
 * must be the parse's: the same refusal or the same frames, bit for bit,
 * and the same format. The first line, as a --format value, goes through
 * framelog_format_parse and framelog_format_name. Seeds: the framelog
 * fixtures and hand-made logs in fuzz/corpus/framelog/ (README there);
 * words of the formats in fuzz/framelog.dict. Built and run by
 * scripts/fuzz.sh (`make fuzz`) and tests/e2e/fuzz-rec.sh.
 *
 * fuzz-sources: src/frames/framelog*.c src/core/file.c src/core/frames.c src/core/strbuf.c
 * fuzz-reader: src/frames/framelog.c src/frames/framelog_lex.c src/frames/framelog_mangohud.c src/frames/framelog_presentmon.c
 * fuzz-dict: fuzz/framelog.dict
 */
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/strbuf.h"
#include "frames/framelog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[] = "/dev/shm/ss-fuzz-framelog-XXXXXX";
static char path[sizeof(dir) + 8];

static void cleanup(void)
{
	unlink(path);
	rmdir(dir);
}

/* The file framelog_read reads: on tmpfs where there is one. */
static const char *as_file(const uint8_t *data, size_t size)
{
	int fd;

	if (!path[0]) {
		if (!mkdtemp(dir)) {
			memcpy(dir, "/tmp/ss-fuzz-framelog-XXXXXX", sizeof(dir));
			if (!mkdtemp(dir))
				abort();
		}
		snprintf(path, sizeof(path), "%s/log", dir);
		atexit(cleanup);
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
	return path;
}

/* Whether two answers (return codes R1, R2; frames F1, F2) are one. */
static int same(int r1, const struct frames *f1, int r2, const struct frames *f2)
{
	if (r1 != r2)
		return 0;
	if (r1 < 0)
		return 1;
	return f1->n == f2->n && !strcmp(f1->format, f2->format) &&
	       !memcmp(f1->ft_ms, f2->ft_ms, f1->n * sizeof(double)) &&
	       !memcmp(f1->t_s, f2->t_s, f1->n * sizeof(double));
}

/* The first line as a --format value: a name parses to what it names. */
static void format_names(const uint8_t *data, size_t size)
{
	char s[32];
	size_t n = 0;
	enum framelog_format fmt;

	while (n < size && n < sizeof(s) - 1 && data[n] != '\n')
		n++;
	memcpy(s, data, n);
	s[n] = '\0';
	if (framelog_format_parse(s, &fmt) == 0 && strcmp(framelog_format_name(fmt), s))
		abort();
	if (strcmp(framelog_format_name((enum framelog_format)(99 + n)), "unknown"))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *file = as_file(data, size);

	static const enum framelog_format fmts[] = { FRAMELOG_AUTO, FRAMELOG_MANGOHUD,
						     FRAMELOG_PRESENTMON, FRAMELOG_PLAIN };

	for (size_t k = 0; k < sizeof(fmts) / sizeof(fmts[0]); k++) {
		struct strbuf msg = STRBUF_INIT;
		struct frames *f = NULL, *g = NULL;
		int r = framelog_parse((const char *)data, size, "fuzz", fmts[k], &f, &msg);
		int rr = framelog_read(file, fmts[k], &g, &msg);

		if (r == 0) {
			for (size_t i = 0; i < f->n; i++)
				if (!isfinite(f->ft_ms[i]) || !isfinite(f->t_s[i]) ||
				    (i && f->t_s[i] < f->t_s[i - 1]))
					abort();	/* a reader handed out a wrong number */
		}
		if (!same(r, f, rr, g))
			abort();	/* the file's read is not the buffer's */
		frames_free(f);
		frames_free(g);
		sb_release(&msg);
	}
	format_names(data, size);
	return 0;
}
