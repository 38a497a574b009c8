// SPDX-License-Identifier: MIT
/*
 * fuzz-recipe.c: a libFuzzer target for bench's recipe files
 * (src/core/recipe.c, recipe_load) and what bench then parses of them: the
 * variants list (variants_parse) and the command line (argsplit). The
 * input is the recipe's text, put in a memory file (memfd) and loaded
 * through /proc/self/fd as a recipe on disk is. Aborts when a refusal does
 * not say why, when a loaded number is out of the range the loader
 * promises, or when a split command's count and words disagree. Seeds: fuzz/corpus/recipe/
 * (the shipped recipes among them). Built and run by scripts/fuzz.sh
 * (`make fuzz`), tests/e2e/fuzz-readers.sh and scripts/fuzz-long.sh.
 *
 * fuzz-sources: src/core/recipe.c src/core/reload.c src/core/stats.c src/core/variants.c src/core/argsplit.c src/core/file.c src/core/num.c src/core/strbuf.c src/core/grow.c src/core/logstamp.c
 * fuzz-libs: -linih
 * fuzz-reader: src/core/recipe.c src/core/variants.c src/core/argsplit.c
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/argsplit.h"
#include "core/recipe.h"
#include "core/variants.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT;
	struct recipe r;
	char path[64];
	int fd = memfd_create("recipe", 0), e;

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	recipe_init(&r);
	e = recipe_load(path, &r, &err);
	if (e < 0 && !err.len)
		abort();	/* every refusal says why */
	if (e == 0) {
		if ((!isnan(r.warmup_s) && !(r.warmup_s >= 0)) ||
		    (!isnan(r.window_s) && !(r.window_s >= 0.001)) ||
		    (!isnan(r.duration_s) && !(r.duration_s >= 0.001)) || r.rounds < 0 ||
		    r.rounds > 1000)
			abort();
		if (r.variants) {
			struct variant v[16];
			int n;

			sb_reset(&err);
			n = variants_parse(r.variants, v, 16, &err);
			if (n < 0 && !err.len)
				abort();
			if (n > 0)
				variants_free(v, (size_t)n);
		}
		if (r.command) {
			char **argv = NULL;
			int n;

			sb_reset(&err);
			n = argsplit(r.command, &argv, &err);
			if (n >= 0) {
				for (int i = 0; i < n; i++)
					if (!argv[i])
						abort();
				if (argv[n])
					abort();	/* the count and the array agree */
				argsplit_free(argv);
			} else if (!err.len) {
				abort();
			}
		}
	}
	recipe_release(&r);
	close(fd);
	sb_release(&err);
	return 0;
}
