/* SPDX-License-Identifier: MIT */
/*
 * t-sampler.h: what the sampler's unit tests share (test-sampler,
 * test-sampler-switch, test-exactbpf): an interning table for the
 * sampler's intern callback, a field's index by name, a source's cost
 * counters, the notes, two samples compared field by field, and a
 * sleeping child to sample. Include after t.h and linux/sampler.h.
 */
#ifndef SS_TEST_T_SAMPLER_H
#define SS_TEST_T_SAMPLER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* A tiny interning table: ids are 1 + the index. */
static char *t_strs[4096];
static uint32_t t_nstrs;

static inline uint32_t intern(void *ctx, const char *s)
{
	(void)ctx;
	if (!s || !*s)
		return 0;
	for (uint32_t i = 0; i < t_nstrs; i++)
		if (strcmp(t_strs[i], s) == 0)
			return i + 1;
	if (t_nstrs == 4096)
		return 0;
	t_strs[t_nstrs] = strdup(s);
	return ++t_nstrs;
}

/* Frees the table (at the end of main, for the leak checker). */
static inline void intern_free(void)
{
	for (uint32_t i = 0; i < t_nstrs; i++)
		free(t_strs[i]);
	t_nstrs = 0;
}

/* The string of interned ID ("" for none). */
static inline const char *str(int64_t id)
{
	return id > 0 && (uint32_t)id <= t_nstrs ? t_strs[id - 1] : "";
}

/* The index of field NAME in S's samples; -1 when it has none. */
static inline int field(struct sampler *s, const char *name)
{
	const struct sampler_field *f;
	size_t n = sampler_fields(s, &f);

	for (size_t i = 0; i < n; i++)
		if (strcmp(f[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* Does a note of S hold PART? */
static inline bool has_note(struct sampler *s, const char *part)
{
	const char *const *notes;
	size_t n = sampler_notes(s, &notes);

	for (size_t i = 0; i < n; i++)
		if (strstr(notes[i], part))
			return true;
	return false;
}

/* The cost counters (o.profile) of source SRC; a zeroed one when none. */
static inline struct sampler_cost cost_of(struct sampler *s, const char *src)
{
	const struct sampler_cost *c;
	size_t n = sampler_costs(s, &c);

	for (size_t i = 0; i < n; i++)
		if (strcmp(c[i].source, src) == 0)
			return c[i];
	return (struct sampler_cost){ 0 };
}

/* Do V and W (two samplers' samples) agree on every field whose name
 * starts with PREFIX? The ones that do not are printed. */
static inline bool same_fields(struct sampler *s, const int64_t *v, const int64_t *w,
			       const char *prefix)
{
	const struct sampler_field *f;
	size_t nf = sampler_fields(s, &f), np = strlen(prefix);
	bool same = true;

	for (size_t i = 0; i < nf; i++) {
		if (strncmp(f[i].name, prefix, np))
			continue;
		if (v[i] != w[i]) {
			fprintf(stderr, "%s: %lld against %lld\n", f[i].name, (long long)v[i],
				(long long)w[i]);
			same = false;
		}
	}
	return same;
}

static inline void t_woken(int sig)
{
	(void)sig;
}

/* A child that touches PAGES fresh pages (minor faults), then sleeps in
 * pause() until killed (SIGUSR1 runs it for a moment); returned once it
 * is done touching them, or -1. */
static inline pid_t sleeper(int pages)
{
	int sync[2];
	pid_t pid;
	char c;

	if (pipe(sync) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		volatile char *m = malloc((size_t)pages * 4096 + 4096);

		signal(SIGUSR1, t_woken);	/* a run on demand */
		for (int i = 0; m && i < pages; i++)
			m[(size_t)i * 4096] = 1;
		if (write(sync[1], "x", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(sync[1]);
	if (pid < 0 || read(sync[0], &c, 1) != 1) {
		close(sync[0]);
		return -1;
	}
	close(sync[0]);
	return pid;
}

#endif
