// SPDX-License-Identifier: MIT
/*
 * recipe.c: a bench recipe (recipe.h), parsed with inih. docs/BENCH.md,
 * "Recipes", is the format. The file is read whole through core/file.h (a
 * regular file, FILE_TEXT_MAX at most), and everything in it that a run
 * would use is checked here, before the first run: numbers (decimal only,
 * core/num.h), the window's regexes, the reload rule.
 */
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/num.h"
#include "core/recipe.h"
#include "core/reload.h"

void recipe_init(struct recipe *r)
{
	memset(r, 0, sizeof(*r));
	r->warmup_s = r->window_s = r->duration_s = NAN;
	sb_init(&r->err);
}

static int recipe_set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = strdup(v);
	return *dst ? 0 : -ENOMEM;
}

static int recipe_set_num(struct recipe *r, const char *key, const char *v, double min,
			  double *dst)
{
	double x;

	if (num_parse_double(v, &x) < 0 || x < min) {
		sb_addf(&r->err, "%s: expected seconds >= %g, got '%s'", key, min, v);
		return -1;
	}
	*dst = x;
	return 0;
}

/* The command, or its next line: inih hands each indented continuation
 * line (and a repeated key) as another value of the same key, and a line
 * holds at most 200 characters, so a long command (a game's settings) goes
 * on several lines, joined here by a blank. */
static int recipe_add_command(struct recipe *r, const char *v)
{
	struct strbuf sb = STRBUF_INIT;

	if (!r->command)
		return recipe_set_str(&r->command, v);
	if (!*v)
		return 0;
	if (sb_addf(&sb, "%s %s", r->command, v) < 0) {
		sb_release(&sb);
		return -ENOMEM;
	}
	free(r->command);
	r->command = sb_detach(&sb);
	return r->command ? 0 : -ENOMEM;
}

/* A regex key: V must compile as bench will compile it (POSIX extended),
 * else the message in r->err. */
static int recipe_set_re(struct recipe *r, const char *key, const char *v, char **dst)
{
	regex_t re;
	char why[160];
	int e;

	if (reload_re_sane(v, &r->err) < 0) {
		sb_addf(&r->err, " (%s)", key);
		return -1;
	}
	e = regcomp(&re, v, REG_EXTENDED | REG_NOSUB);

	if (e) {
		regerror(e, &re, why, sizeof(why));
		sb_addf(&r->err, "%s: expected a POSIX extended regex, got '%s' (%s)", key, v, why);
		return -1;
	}
	regfree(&re);
	return recipe_set_str(dst, v);
}

/* inih's handler: 1 to go on, 0 on an error (message in r->err). */
static int recipe_handler(void *user, const char *section, const char *key, const char *v)
{
	struct recipe *r = user;
	double x;

	if (section[0] && strcmp(section, "recipe")) {
		sb_addf(&r->err, "unknown section [%s] (expected [recipe] or none)", section);
		return 0;
	}
	if (!strcmp(key, "command"))
		return recipe_add_command(r, v) == 0;
	if (!strcmp(key, "variants"))
		return recipe_set_str(&r->variants, v) == 0;
	if (!strcmp(key, "stop_file"))
		return recipe_set_str(&r->stop_file, v) == 0;
	if (!strcmp(key, "frames"))
		return recipe_set_str(&r->frames, v) == 0;
	if (!strcmp(key, "window_start_re"))
		return recipe_set_re(r, key, v, &r->start_re) == 0;
	if (!strcmp(key, "window_end_re"))
		return recipe_set_re(r, key, v, &r->end_re) == 0;
	if (!strcmp(key, "reload_re"))
		return recipe_set_re(r, key, v, &r->reload_re) == 0;
	if (!strcmp(key, "reload_after"))
		return recipe_set_str(&r->reload_after, v) == 0;
	if (!strcmp(key, "reload_fixed"))
		return recipe_set_str(&r->reload_fixed, v) == 0;
	if (!strcmp(key, "warmup"))
		return recipe_set_num(r, key, v, 0, &r->warmup_s) == 0;
	if (!strcmp(key, "window"))
		return recipe_set_num(r, key, v, 0.001, &r->window_s) == 0;
	if (!strcmp(key, "duration"))
		return recipe_set_num(r, key, v, 0.001, &r->duration_s) == 0;
	if (!strcmp(key, "rounds")) {
		if (recipe_set_num(r, key, v, 1, &x) < 0)
			return 0;
		if (x != floor(x) || x > 1000) {
			sb_addf(&r->err, "rounds: expected a whole number 1..1000, got '%s'", v);
			return 0;
		}
		r->rounds = (long)x;
		return 1;
	}
	sb_addf(&r->err, "unknown key '%s' (see docs/BENCH.md, \"Recipes\")", key);
	return 0;
}

void recipe_release(struct recipe *r)
{
	free(r->command);
	free(r->variants);
	free(r->stop_file);
	free(r->frames);
	free(r->start_re);
	free(r->end_re);
	free(r->reload_re);
	free(r->reload_after);
	free(r->reload_fixed);
	sb_release(&r->err);
	recipe_init(r);
}

int recipe_load(const char *path, struct recipe *r, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT, why = STRBUF_INIT;
	struct reload_rule rule;
	int line, e;

	r->path = path;
	e = file_read_text(path, "the recipe", FILE_TEXT_MAX, &text, err);
	if (e < 0) {
		sb_release(&text);
		return e;
	}
	line = ini_parse_string(text.buf, recipe_handler, r);
	sb_release(&text);
	if (line < 0)
		return sb_error(err, -ENOMEM, "'%s'", path);
	if (line > 0) {
		sb_error(err, 0, "'%s' line %d: %s", path, line,
			 r->err.len ? r->err.buf : "expected 'key = value' or '[recipe]'");
		return -EINVAL;
	}
	/* the reload rule each run's analysis will take from run.ini: its
	 * faults said now, once, not after every run */
	e = reload_rule_from_overrides(r->reload_re, r->reload_after, r->reload_fixed, &rule, &why);
	if (e > 0)
		reload_rule_release(&rule);
	if (e < 0) {
		if (e == -ENOMEM)
			sb_error(err, e, "'%s'", path);
		else
			sb_error(err, 0, "'%s': the reload rule: %s", path, why.buf);
		sb_release(&why);
		return e;
	}
	sb_release(&why);
	return 0;
}
