// SPDX-License-Identifier: MIT
/*
 * fuzz-runini.c: a libFuzzer target for run.ini's parser and readers
 * (src/core/runini.c): runini_parse, then every key through runini_get and
 * runini_get_double, the pass stamps (runini_passes) and the failed-run rule
 * (runini_failure) with and without frames, and the stop's note
 * (runini_stop_note: how a stopped program ended). run.ini is written by the
 * recorder but lives in a directory its user owns (and report, stalls and
 * html may run as root), so it is input like any other. Aborts when an
 * answer contradicts the parse: a key not found or not the last given, an
 * empty key, a number that is not finite, passes not finite, a failure
 * without its reason, a stop note returned without its text (or text
 * without 1), an error message that quotes more than 60 bytes of a
 * value (the key it names is quoted whole). Seeds:
 * fuzz/corpus/runini/. Built and run by scripts/fuzz.sh
 * (`make fuzz`) and tests/e2e/fuzz-ring.sh.
 *
 * fuzz-sources: src/core/runini.c src/core/display.c src/core/grow.c src/core/strbuf.c
 * fuzz-reader: src/core/runini.c
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/runini.h"
#include "core/strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t longest_key(const struct runini *ri)
{
	size_t m = 0;

	for (size_t i = 0; i < ri->n; i++)
		if (strlen(ri->kv[i].key) > m)
			m = strlen(ri->kv[i].key);
	return m;
}

static void check(const struct runini *ri)
{
	struct strbuf err = STRBUF_INIT, why = STRBUF_INIT;
	double *passes = NULL, x;
	int np, f;

	for (size_t i = 0; i < ri->n; i++) {
		const struct runini_kv *kv = &ri->kv[i];
		const char *v = runini_get(ri, kv->key);
		size_t last = i;

		if (!kv->key[0] || strchr(kv->key, '\n') || strchr(kv->value, '\n') ||
		    kv->line < 1 || !v)
			abort();
		for (size_t j = i + 1; j < ri->n; j++)
			if (!strcmp(ri->kv[j].key, kv->key))
				last = j;
		if (v != ri->kv[last].value)
			abort();	/* a later key wins */
		sb_reset(&err);
		if (runini_get_double(ri, "fuzz", kv->key, &x, &err) == 0 && !isfinite(x))
			abort();
		if (err.len > 400 + strlen(kv->key))
			abort();	/* messages quote 60 characters of a value at most */
	}
	sb_reset(&err);
	np = runini_passes(ri, "fuzz", &passes, &err);
	for (int i = 0; i < np; i++)
		if (!isfinite(passes[i]))
			abort();
	if ((np > 0) != (passes != NULL) || err.len > 400 + longest_key(ri))
		abort();
	free(passes);
	for (size_t frames = 0; frames <= 100; frames += 100) {
		sb_reset(&why);
		/* the first frame's start unknown, and at 0.5 s after t0 */
		for (int o = 0; o < 2; o++) {
			sb_reset(&why);
			f = runini_failure(ri, frames, o ? 0.5 : NAN, &why);
			if (f < 0 || (f == 1) != (why.len > 0))
				abort();
		}
	}
	sb_reset(&why);
	f = runini_stop_note(ri, &why);
	if (f < 0 || (f == 1) != (why.len > 0))
		abort();
	sb_release(&err);
	sb_release(&why);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT;
	struct runini *ri = NULL;
	int e = runini_parse((const char *)data, size, "fuzz", &ri, &err);

	if (e == 0) {
		check(ri);
		runini_free(ri);
	} else if (e == -EINVAL && (!err.len || err.len > 400)) {
		abort();	/* a refusal says why, briefly */
	}
	sb_release(&err);
	return 0;
}
