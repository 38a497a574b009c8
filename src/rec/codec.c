// SPDX-License-Identifier: MIT
/*
 * codec.c: the sample predictor that the record's writer and reader share
 * (codec.h), so that both sides predict every value the same way.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/hot.h"
#include "core/record.h"
#include "rec/codec.h"

int samp_state_init(struct samp_state *s, size_t nf, const uint8_t *kinds, uint64_t period)
{
	*s = (struct samp_state){ .nf = nf, .period = period };
	s->fs = calloc(nf ? nf : 1, sizeof(*s->fs));
	if (!s->fs)
		return -ENOMEM;
	for (size_t f = 0; f < nf; f++)
		s->fs[f].is_str = kinds[f] == REC_STR;
	return 0;
}

void samp_state_release(struct samp_state *s)
{
	free(s->fs);
	*s = (struct samp_state){ 0 };
}

SS_HOT void samp_state_update(struct samp_state *s, uint64_t t, const int64_t *vals)
{
	for (size_t f = 0; f < s->nf; f++) {
		struct samp_field *sf = &s->fs[f];

		/* A quiet field that holds still: the update is a no-op. */
		if (samp_quiet(sf) && (uint64_t)vals[f] == sf->p1)
			continue;
		samp_field_update(sf, (uint64_t)vals[f]);
	}
	samp_time_update(s, t);
}

uint64_t rec_parse_u64(const char *s)
{
	uint64_t v = 0;

	if (!s || !*s)
		return 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10)
			return 0;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	return v;
}
