// SPDX-License-Identifier: MIT
/*
 * runini.c: run.ini's key=value lines (runini.h). A run.ini holds tens of
 * keys, so lookups are linear scans.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/display.h"
#include "core/grow.h"
#include "core/runini.h"

void runini_free(struct runini *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->n; i++) {
		free(r->kv[i].key);
		free(r->kv[i].value);
	}
	free(r->kv);
	free(r);
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static char *dup_trimmed(const char *s, size_t n)
{
	char *c;

	while (n && is_blank(*s)) {
		s++;
		n--;
	}
	while (n && is_blank(s[n - 1]))
		n--;
	c = malloc(n + 1);
	if (c) {
		memcpy(c, s, n);
		c[n] = '\0';
	}
	return c;
}

int runini_parse(const char *buf, size_t len, const char *name, struct runini **ret,
		 struct strbuf *err)
{
	struct runini *r = calloc(1, sizeof(*r));
	size_t i = 0, alloc = 0;
	int lineno = 0;

	if (!r)
		return -ENOMEM;
	while (i < len) {
		const char *line = buf + i, *nl = memchr(line, '\n', len - i), *eq;
		size_t ll = nl ? (size_t)(nl - line) : len - i, j = 0;
		struct runini_kv kv;

		i += ll + (nl ? 1 : 0);
		lineno++;
		while (j < ll && is_blank(line[j]))
			j++;
		if (j == ll || line[j] == '#' || line[j] == ';')
			continue;
		eq = memchr(line, '=', ll);
		if (!eq || eq == line + j || memchr(line, '\0', ll)) {
			sb_addf(err, "'%s' line %d: expected key=value, got '", name, lineno);
			display_escape(err, line, ll, 60);
			sb_addc(err, '\'');
			runini_free(r);
			return -EINVAL;
		}
		kv.key = dup_trimmed(line, (size_t)(eq - line));
		kv.value = dup_trimmed(eq + 1, ll - (size_t)(eq - line) - 1);
		kv.line = lineno;
		if (ARRAY_GROW(r->kv, alloc, r->n + 1) < 0) {
			free(kv.key);
			free(kv.value);
			runini_free(r);
			return -ENOMEM;
		}
		r->kv[r->n++] = kv;
		if (!kv.key || !kv.value) {
			runini_free(r);
			return -ENOMEM;
		}
	}
	*ret = r;
	return 0;
}

static const struct runini_kv *find(const struct runini *r, const char *key)
{
	size_t i;

	for (i = r->n; i-- > 0;)
		if (!strcmp(r->kv[i].key, key))
			return &r->kv[i];
	return NULL;
}

const char *runini_get(const struct runini *r, const char *key)
{
	const struct runini_kv *kv = r ? find(r, key) : NULL;

	return kv ? kv->value : NULL;
}

static int to_double(const char *s, double *ret)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v))
		return -EINVAL;
	*ret = v;
	return 0;
}

int runini_get_double(const struct runini *r, const char *name, const char *key, double *ret,
		      struct strbuf *err)
{
	const struct runini_kv *kv = r ? find(r, key) : NULL;

	if (!kv)
		return -ENOENT;
	if (to_double(kv->value, ret) < 0) {
		sb_addf(err, "'%s' line %d: %s: expected a number, got '", name, kv->line, key);
		display_escape(err, kv->value, strlen(kv->value), 60);
		sb_addc(err, '\'');
		return -EINVAL;
	}
	return 0;
}

struct pass {
	long n;
	double t;
};

static int cmp_pass(const void *a, const void *b)
{
	const struct pass *x = a, *y = b;

	return (x->n > y->n) - (x->n < y->n);
}

int runini_passes(const struct runini *r, const char *name, double **ret, struct strbuf *err)
{
	struct pass *ps;
	double *out;
	size_t i, k = 0;

	*ret = NULL;
	if (!r || !r->n)
		return 0;
	ps = malloc(r->n * sizeof(*ps));
	if (!ps)
		return -ENOMEM;
	for (i = 0; i < r->n; i++) {
		const struct runini_kv *kv = &r->kv[i];
		char *end;
		long n;
		size_t j;

		if (strncmp(kv->key, "pass", 4) || !kv->key[4])
			continue;
		errno = 0;
		n = strtol(kv->key + 4, &end, 10);
		if (*end)
			continue;	/* passes=, pass_note=: not a stamp */
		if (errno || n < 1 || to_double(kv->value, &ps[k].t) < 0) {
			sb_addf(err, "'%s' line %d: %s: expected pass<N>=seconds with N >= 1, got '",
				name, kv->line, kv->key);
			display_escape(err, kv->value, strlen(kv->value), 60);
			sb_addc(err, '\'');
			free(ps);
			return -EINVAL;
		}
		for (j = 0; j < k && ps[j].n != n; j++)
			;
		ps[j].n = n;	/* a later pass<N> wins */
		if (j == k)
			k++;
		else
			ps[j].t = ps[k].t;
	}
	if (!k) {
		free(ps);
		return 0;
	}
	qsort(ps, k, sizeof(*ps), cmp_pass);
	out = malloc(k * sizeof(*out));
	if (!out) {
		free(ps);
		return -ENOMEM;
	}
	for (i = 0; i < k; i++)
		out[i] = ps[i].t;
	free(ps);
	*ret = out;
	return (int)k;
}

/* KEY as a number, NaN when absent, "-" or not one. */
static double num_or_nan(const struct runini *r, const char *key)
{
	const char *v = runini_get(r, key);
	double x;

	return v && to_double(v, &x) == 0 ? x : NAN;
}

/* Whether SIG, a signal's name from run.ini ("TERM"), names a signal. */
static bool a_signal(const char *sig)
{
	return sig && *sig && strcmp(sig, "-");
}

/* runini.h */
int runini_end_judge(const char *stop_sig, double status, const char *sig, struct strbuf *why)
{
	size_t len = why->len;
	bool own;

	if (!stop_sig) {	/* it ended by itself: how it ended is its own */
		if (!isnan(status) && status != 0)
			sb_addf(why, "the program exited with status %g", status);
		else if (a_signal(sig))
			sb_addf(why, "the program was killed by SIG%s", sig);
		else
			return RUNINI_END_OK;
		return why->len > len ? RUNINI_END_FAILED : -ENOMEM;
	}
	/* stopped: any status is its answer; a signal the stop sent (or the
	 * SIGKILL after its grace) is the stop itself */
	if (!a_signal(sig))
		return RUNINI_END_OK;
	if (*stop_sig)
		own = !strcmp(sig, stop_sig) || !strcmp(sig, "KILL");
	else	/* before stop_signal=: a stop sent INT, TERM or HUP */
		own = !strcmp(sig, "INT") || !strcmp(sig, "TERM") || !strcmp(sig, "HUP") ||
		      !strcmp(sig, "KILL");
	if (own)
		return RUNINI_END_OK;
	if (*stop_sig)
		sb_addf(why, "the program was killed by SIG%s after the stop's SIG%s", sig,
			stop_sig);
	else
		sb_addf(why, "the program was killed by SIG%s after the stop", sig);
	return why->len > len ? RUNINI_END_NOTE : -ENOMEM;
}

/* runini.h */
int runini_stopped(const struct runini *r, const char **ret_sig)
{
	const char *s = runini_get(r, "stop_signal"), *end = runini_get(r, "end");

	if (s) {
		if (!a_signal(s))
			return 0;
		*ret_sig = s;
		return 1;
	}
	/* a run.ini from before stop_signal=: end= says whether the run
	 * stopped the program (the recorder's loop saw it running one period
	 * before), not with which signal */
	if (end && (!strcmp(end, "duration") || !strcmp(end, "stop-file") ||
		    !strcmp(end, "signal"))) {
		*ret_sig = "";
		return 1;
	}
	return 0;
}

/* runini.h */
int runini_stop_note(const struct runini *r, struct strbuf *note)
{
	const char *ss = NULL;
	double at = num_or_nan(r, "stop_s"), kill_s = num_or_nan(r, "stop_kill_s");
	double ended = num_or_nan(r, "stop_ended_s");
	size_t len = note->len;
	int k;

	if (!runini_stopped(r, &ss))
		return 0;
	k = runini_end_judge(ss, num_or_nan(r, "exit_status"), runini_get(r, "exit_signal"), note);
	if (k < 0)
		return k;
	if (k == RUNINI_END_NOTE) {
		if (!isnan(at) && !isnan(ended) && ended >= at)
			sb_addf(note, " (%.1f s after it)", ended - at);
		sb_adds(note, ": a crash during its shutdown, its answer to the stop, not a failure "
			      "of the run");
	} else if (!isnan(at) && !isnan(kill_s) && kill_s >= at) {
		sb_addf(note, "the program was still there %.1f s after the stop's SIG%s and was "
			      "killed (SIGKILL): its answer to the stop, not a failure of the run",
			kill_s - at, ss);
	} else {
		return 0;
	}
	return note->len > len ? 1 : -ENOMEM;
}

int runini_failure(const struct runini *r, size_t nframes, double origin_s, struct strbuf *why)
{
	const char *state = runini_get(r, "state"), *stop_sig = NULL;
	const char *fsrc = runini_get(r, "frame_source"), *ring = runini_get(r, "frames_ring");
	double over = num_or_nan(r, "frames_over_rate");
	bool stopped = runini_stopped(r, &stop_sig) == 1;
	double rec_s = num_or_nan(r, "duration_recorded_s");
	double want_s = num_or_nan(r, "duration_s"), to_s = num_or_nan(r, "window_to_s");
	double end_s = num_or_nan(r, "end_s");
	size_t len = why->len;
	bool short_of_window;
	int k;

	if (r && state && strcmp(state, "done")) {
		sb_addf(why, "the recorder did not finish (state %s: killed?)", state);
		return why->len > len ? 1 : -ENOMEM;
	}
	/* the window's end is after the first frame, the run's end after t0:
	 * compared on one clock, to the millisecond run.ini keeps (older
	 * run.ini files have no end_s: the recorded seconds stand for it) */
	if (!isnan(end_s) && !isnan(origin_s))
		short_of_window = !isnan(to_s) && end_s + 0.0015 < origin_s + to_s;
	else
		short_of_window = !isnan(rec_s) && !isnan(to_s) && rec_s < to_s;
	if (!stopped) {	/* stopped: how it ended is its answer (runini_stop_note) */
		k = runini_end_judge(NULL, num_or_nan(r, "exit_status"), runini_get(r, "exit_signal"),
				     why);
		if (k != RUNINI_END_OK)
			return k < 0 ? k : 1;
	}
	if (nframes == 0 && !(fsrc && !strcmp(fsrc, "none")))
		sb_adds(why, "no frames were recorded");
	else if (ring && !strncmp(ring, "broken", 6))
		sb_addf(why, "the frame ring was %s; the frames after that are missing", ring);
	else if (!isnan(over) && over > 0)
		sb_addf(why, "%.0f presents came faster than 20000 a second and were not recorded; "
			"the frame times around them are sums", over);
	else if (!stopped && short_of_window)
		sb_addf(why, "the program ended after %.1f s, before its window's end at %g s "
			     "after the first frame", rec_s, to_s);
	else if (!stopped && !isnan(rec_s) && !isnan(want_s) && rec_s < want_s / 2)
		sb_addf(why, "the program ended after %.1f s of the expected %g s", rec_s, want_s);
	else
		return 0;
	return why->len > len ? 1 : -ENOMEM;
}
