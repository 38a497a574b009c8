/* SPDX-License-Identifier: MIT */
/*
 * recipe.h: what a bench recipe file holds (docs/BENCH.md, "Recipes"): an
 * INI file, with an optional [recipe] section, of what the command line
 * would give: the command, variants, rounds, warm-up, window, duration, the
 * stop file, the frame source, the window's start and end regexes on the
 * program's log, and the reload rule.
 */
#ifndef SS_CORE_RECIPE_H
#define SS_CORE_RECIPE_H

#include "core/strbuf.h"

/* Strings owned; NaN, 0 or NULL: not given. */
struct recipe {
	const char *path;
	char *command, *variants, *stop_file, *frames;
	char *start_re, *end_re;	/* the window's start and end on program.log */
	char *reload_re, *reload_after, *reload_fixed;
	double warmup_s, window_s, duration_s;
	long rounds;
	struct strbuf err;	/* the handler's message */
};

/* An empty recipe: nothing given. */
void recipe_init(struct recipe *r);

/* Loads the recipe at PATH into R (recipe_init'ed): a regular file of
 * FILE_TEXT_MAX at most (core/file.h). 0, or a negative errno with the
 * message in ERR, naming the file and the line: an unknown section or key,
 * a number that is not decimal or out of range, a window regex that does
 * not compile; and, naming the file, a reload rule that would not hold
 * (reload_rule_from_overrides). All before any run. */
int recipe_load(const char *path, struct recipe *r, struct strbuf *err);

/* Frees R's strings and makes it empty again. */
void recipe_release(struct recipe *r);

#endif
