// SPDX-License-Identifier: MIT
/* json.c: the streaming JSON writer of json.h. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "core/display.h"
#include "out/json.h"

void json_init(struct json *j, FILE *f, bool pretty)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->pretty = pretty;
}

static void indent(struct json *j)
{
	int i;

	if (!j->pretty)
		return;
	fputc('\n', j->f);
	for (i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* Before any value or key: the comma and the line break it needs. */
static void before_value(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->depth > 0) {
		if (j->need_comma[j->depth])
			fputc(',', j->f);
		indent(j);
		j->need_comma[j->depth] = true;
	}
}

static void open_nest(struct json *j, char c)
{
	before_value(j);
	fputc(c, j->f);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->need_comma[j->depth] = false;
}

static void close_nest(struct json *j, char c)
{
	bool had = j->need_comma[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (had)
		indent(j);
	fputc(c, j->f);
}

void json_obj_begin(struct json *j)
{
	open_nest(j, '{');
}

void json_obj_end(struct json *j)
{
	close_nest(j, '}');
}

void json_arr_begin(struct json *j)
{
	open_nest(j, '[');
}

void json_arr_end(struct json *j)
{
	close_nest(j, ']');
}


static void write_string(FILE *f, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, l;
	uint32_t cp;

	fputc('"', f);
	while (i < n) {
		unsigned char c = s[i];

		switch (c) {
		case '"': fputs("\\\"", f); i++; continue;
		case '\\': fputs("\\\\", f); i++; continue;
		case '\n': fputs("\\n", f); i++; continue;
		case '\r': fputs("\\r", f); i++; continue;
		case '\t': fputs("\\t", f); i++; continue;
		}
		if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
			i++;
			continue;
		}
		l = display_utf8((const unsigned char *)s + i, n - i, &cp);
		if (!l) {
			fputs("\xef\xbf\xbd", f);
			i++;
			continue;
		}
		if (cp >= 0x80 && cp < 0xa0)	/* a C1 control: escaped as C0 ones are */
			fprintf(f, "\\u%04x", (unsigned)cp);
		else
			fwrite(s + i, 1, l, f);
		i += l;
	}
	fputc('"', f);
}

void json_key(struct json *j, const char *key)
{
	before_value(j);
	write_string(j->f, key, strlen(key));
	fputs(j->pretty ? ": " : ":", j->f);
	j->after_key = true;
}

void json_strn(struct json *j, const char *s, size_t len)
{
	before_value(j);
	write_string(j->f, s, len);
}

void json_str(struct json *j, const char *s)
{
	if (!s) {
		json_null(j);
		return;
	}
	json_strn(j, s, strlen(s));
}

void json_num(struct json *j, double v)
{
	before_value(j);
	if (!isfinite(v))
		fputs("null", j->f);
	else if (fabs(v) < 1e15 && v == floor(v))
		fprintf(j->f, "%lld", (long long)v);
	else
		fprintf(j->f, "%.10g", v);
}

void json_numf(struct json *j, double v, int decimals)
{
	before_value(j);
	if (!isfinite(v))
		fputs("null", j->f);
	else
		fprintf(j->f, "%.*f", decimals, v);
}

void json_int(struct json *j, long long v)
{
	before_value(j);
	fprintf(j->f, "%lld", v);
}

void json_uint(struct json *j, uint64_t v)
{
	before_value(j);
	fprintf(j->f, "%" PRIu64, v);
}

void json_bool(struct json *j, bool v)
{
	before_value(j);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j)
{
	before_value(j);
	fputs("null", j->f);
}

void json_value_begin(struct json *j)
{
	before_value(j);
}

void json_raw(struct json *j, const char *s, size_t len)
{
	before_value(j);
	fwrite(s, 1, len, j->f);
}

void json_end(struct json *j)
{
	fputc('\n', j->f);
}

void json_kstr(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_str(j, s);
}

void json_knum(struct json *j, const char *key, double v)
{
	json_key(j, key);
	json_num(j, v);
}

void json_knumf(struct json *j, const char *key, double v, int decimals)
{
	json_key(j, key);
	json_numf(j, v, decimals);
}

void json_kint(struct json *j, const char *key, long long v)
{
	json_key(j, key);
	json_int(j, v);
}

void json_kuint(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	json_uint(j, v);
}

void json_kbool(struct json *j, const char *key, bool v)
{
	json_key(j, key);
	json_bool(j, v);
}

void json_knull(struct json *j, const char *key)
{
	json_key(j, key);
	json_null(j);
}
