/* SPDX-License-Identifier: MIT */
/*
 * json.h: a streaming JSON writer to a FILE.
 *
 * The writer inserts commas and, when pretty, newlines and indentation; the
 * caller opens and closes objects and arrays in order and gives a key before
 * each value inside an object. Numbers that are NaN or infinite are written
 * as null: a value that cannot be computed is never a fake number. Strings
 * are escaped per RFC 8259 (control characters as \u00XX, the C1 controls
 * U+0080..U+009F and DEL too, so that JSON shown on a terminal sends it no
 * escape sequence); bytes that are not valid UTF-8 are written as U+FFFD.
 */
#ifndef SS_OUT_JSON_H
#define SS_OUT_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

struct json {
	FILE *f;
	bool pretty;
	int depth;
	bool need_comma[JSON_MAX_DEPTH];
	bool after_key;
};

void json_init(struct json *j, FILE *f, bool pretty);
void json_obj_begin(struct json *j);
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j);
void json_arr_end(struct json *j);
void json_key(struct json *j, const char *key);
void json_str(struct json *j, const char *s);	/* NULL writes null */
void json_strn(struct json *j, const char *s, size_t len);
void json_num(struct json *j, double v);	/* NaN/inf write null */
void json_numf(struct json *j, double v, int decimals);
void json_int(struct json *j, long long v);
void json_uint(struct json *j, uint64_t v);
void json_bool(struct json *j, bool v);
void json_null(struct json *j);
/* A value the caller writes itself to j->f after this call (a long string
 * written piecewise, JSON text made earlier): the comma before it. */
void json_value_begin(struct json *j);
/* LEN bytes at S, one whole JSON value, written as they are. */
void json_raw(struct json *j, const char *s, size_t len);
/* Ends the document with a newline. */
void json_end(struct json *j);

/* key + value in one call */
void json_kstr(struct json *j, const char *key, const char *s);
void json_knum(struct json *j, const char *key, double v);
void json_knumf(struct json *j, const char *key, double v, int decimals);
void json_kint(struct json *j, const char *key, long long v);
void json_kuint(struct json *j, const char *key, uint64_t v);
void json_kbool(struct json *j, const char *key, bool v);
void json_knull(struct json *j, const char *key);

#endif
