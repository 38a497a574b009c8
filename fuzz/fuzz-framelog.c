// SPDX-License-Identifier: MIT
/*
 * fuzz-framelog.c: a libFuzzer target for the frame-log readers
 * (framelog_parse): MangoHud CSV, PresentMon CSV (quoted fields included)
 * and one frame time a line. Each input is parsed by content and as each
 * format forced; a parsed log is walked (every frame time and end, which
 * must be finite and in order) so that ASan and UBSan see any count or
 * pointer that disagrees with what was filled. Seeds: the framelog
 * fixtures in fuzz/corpus/framelog/. Built and run by
 * scripts/fuzz.sh (`make fuzz`) and tests/e2e/fuzz-rec.sh.
 *
 * fuzz-sources: src/frames/framelog*.c src/core/file.c src/core/frames.c src/core/strbuf.c
 * fuzz-reader: src/frames/framelog.c src/frames/framelog_lex.c src/frames/framelog_mangohud.c src/frames/framelog_presentmon.c
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/strbuf.h"
#include "frames/framelog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum framelog_format fmts[] = { FRAMELOG_AUTO, FRAMELOG_MANGOHUD,
						     FRAMELOG_PRESENTMON, FRAMELOG_PLAIN };

	for (size_t k = 0; k < sizeof(fmts) / sizeof(fmts[0]); k++) {
		struct strbuf msg = STRBUF_INIT;
		struct frames *f = NULL;

		if (framelog_parse((const char *)data, size, "fuzz", fmts[k], &f, &msg) == 0) {
			for (size_t i = 0; i < f->n; i++)
				if (!isfinite(f->ft_ms[i]) || !isfinite(f->t_s[i]) ||
				    (i && f->t_s[i] < f->t_s[i - 1]))
					abort();	/* a reader handed out a wrong number */
			frames_free(f);
		}
		sb_release(&msg);
	}
	return 0;
}
