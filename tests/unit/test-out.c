// SPDX-License-Identifier: MIT
/* test-out.c: the JSON writer, tables and CSV, and the strbuf under them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/strbuf.h"
#include "out/json.h"
#include "out/table.h"
#include "t.h"

/* Runs FN on a memory stream and returns what it wrote (caller frees). */
static char *capture(void (*fn)(FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fn(f);
	fclose(f);
	return buf;
}

static void write_json(FILE *f)
{
	struct json j;

	json_init(&j, f, false);
	json_obj_begin(&j);
	json_kstr(&j, "s", "a\"b\\c\n\x01\xff");
	json_knum(&j, "n", 1.5);
	json_knum(&j, "i", 3);
	json_knum(&j, "nan", NAN);
	json_knum(&j, "inf", INFINITY);
	json_knum(&j, "big", 1e300);
	json_key(&j, "a");
	json_arr_begin(&j);
	json_int(&j, -2);
	json_bool(&j, true);
	json_null(&j);
	json_obj_begin(&j);
	json_obj_end(&j);
	json_arr_end(&j);
	json_obj_end(&j);
}

static void test_json(void)
{
	char *s = capture(write_json);

	CHECK_STR(s, "{\"s\":\"a\\\"b\\\\c\\n\\u0001\xef\xbf\xbd\",\"n\":1.5,\"i\":3,"
		     "\"nan\":null,\"inf\":null,\"big\":1e+300,\"a\":[-2,true,null,{}]}");
	free(s);
}

static void write_table(FILE *f)
{
	static const char *const h[] = { "name", "fps", "note" };
	struct table *t = table_new(3, h);

	table_add(t, "a");
	table_add_num(t, 59.94, 1);
	table_add(t, "x,y");
	table_add(t, "long name");
	table_add_num(t, NAN, 1);
	table_add(t, NULL);
	table_print(t, f);
	table_print_csv(t, f);
	table_free(t);
}

static void test_table(void)
{
	char *s = capture(write_table);

	CHECK_STR(s, "name        fps  note\n"
		     "a          59.9  x,y\n"
		     "long name     -  -\n"
		     "name,fps,note\n"
		     "a,59.9,\"x,y\"\n"
		     "long name,-,-\n");
	free(s);
}

/* A newline in a path stays in its row (escaped), a multibyte name takes
 * its columns, not its bytes; CSV keeps the cells as they are. */
static void write_table_hygiene(FILE *f)
{
	static const char *const h[] = { "source", "frames" };
	struct table *t = table_new(2, h);

	table_add(t, "runs/a\nb");
	table_add(t, "12");
	table_add(t, "runs/\xe3\x82\xb2\xe3\x83\xbc\xe3\x83\xa0");	/* ゲーム */
	table_add(t, "3");
	table_add(t, "runs/Caf\xc3\xa9");
	table_add(t, "456");
	table_print(t, f);
	table_print_csv(t, f);
	table_free(t);
}

static void test_table_hygiene(void)
{
	char *s = capture(write_table_hygiene);

	CHECK_STR(s, "source       frames\n"
		     "runs/a\\nb        12\n"
		     "runs/\xe3\x82\xb2\xe3\x83\xbc\xe3\x83\xa0       3\n"
		     "runs/Caf\xc3\xa9       456\n"
		     "source,frames\n"
		     "\"runs/a\nb\",12\n"
		     "runs/\xe3\x82\xb2\xe3\x83\xbc\xe3\x83\xa0,3\n"
		     "runs/Caf\xc3\xa9,456\n");
	free(s);
}

static void test_strbuf(void)
{
	struct strbuf sb = STRBUF_INIT;
	char *d;
	int i;

	CHECK_STR(sb.buf, "");
	for (i = 0; i < 1000; i++)
		CHECK_INT(sb_addf(&sb, "%d,", i), 0);
	CHECK_INT(sb.len, 3890);
	CHECK(sb.buf[sb.len] == '\0');
	sb_reset(&sb);
	CHECK_INT(sb.len, 0);
	CHECK_INT(sb_add_path(&sb, "runs/x//", "run.ini"), 0);
	CHECK_STR(sb.buf, "runs/x/run.ini");
	sb_reset(&sb);
	CHECK_INT(sb_add_path(&sb, "/", "run.ini"), 0);
	CHECK_STR(sb.buf, "/run.ini");
	sb_reset(&sb);
	CHECK_INT(sb_add_path(&sb, "d", "f"), 0);
	CHECK_STR(sb.buf, "d/f");
	sb_reset(&sb);
	sb_adds(&sb, "ok");
	d = sb_detach(&sb);
	CHECK_STR(d, "ok");
	CHECK_STR(sb.buf, "");
	free(d);
	d = sb_detach(&sb);	/* an empty buffer detaches as an owned "" */
	CHECK_STR(d, "");
	free(d);
	sb_release(&sb);
	sb_release(NULL);
}

int main(void)
{
	T_RUN(test_json);
	T_RUN(test_table);
	T_RUN(test_table_hygiene);
	T_RUN(test_strbuf);
	return t_exit();
}
