// SPDX-License-Identifier: MIT
/*
 * codec.c: the sample predictor that the record's writer and reader share
 * (codec.h), so that both sides predict every value the same way.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/record.h"
#include "rec/codec.h"

int samp_state_init(struct samp_state *s, size_t nf, const uint8_t *kinds, uint64_t period)
{
	size_t n = nf ? nf : 1;

	*s = (struct samp_state){ .nf = nf, .period = period };
	s->is_str = calloc(n, 1);
	s->lin = calloc(n, 1);
	s->chg = calloc(n, 1);
	s->p1 = calloc(n, sizeof(*s->p1));
	s->p2 = calloc(n, sizeof(*s->p2));
	if (!s->is_str || !s->lin || !s->chg || !s->p1 || !s->p2) {
		samp_state_release(s);
		return -ENOMEM;
	}
	for (size_t f = 0; f < nf; f++)
		s->is_str[f] = kinds[f] == REC_STR;
	return 0;
}

void samp_state_release(struct samp_state *s)
{
	free(s->is_str);
	free(s->lin);
	free(s->chg);
	free(s->p1);
	free(s->p2);
	*s = (struct samp_state){ 0 };
}

void samp_state_update(struct samp_state *s, uint64_t t, const int64_t *vals)
{
	for (size_t f = 0; f < s->nf; f++) {
		uint64_t v = (uint64_t)vals[f], p1 = s->p1[f];

		if (!s->is_str[f]) {
			uint64_t ec = zz_enc((int64_t)(v - p1));
			uint64_t el = zz_enc((int64_t)(v - (2 * p1 - s->p2[f])));

			if (el < ec)
				s->lin[f] = 1;
			else if (ec < el)
				s->lin[f] = 0;
		}
		s->p2[f] = p1;
		s->p1[f] = v;
	}
	s->dt_prev = s->n ? t - s->t_prev : 0;
	s->t_prev = t;
	s->n++;
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
