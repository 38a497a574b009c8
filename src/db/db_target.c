// SPDX-License-Identifier: MIT
/*
 * db_target.c: what a --db TARGET names (db.h): an SQLite file or a
 * PostgreSQL server, decided by libpq's own parser (PQconninfoParse), and
 * the target as messages show it.
 *
 * A connection string may hold a password (a password keyword, a URI's
 * user:password@, a percent-encoded %70assword parameter, quoted or
 * backslash-escaped values, tab-separated pairs): only libpq knows its
 * grammar, so nothing here takes one apart by hand. The shown form is
 * rebuilt from libpq's fields, leaving out every field libpq marks as
 * secret (dispchar "*": password, sslpassword, and any later one), and is
 * itself a connection string libpq accepts. A string libpq refuses is a
 * file unless it has the shape of a connection string (a "://", or an '='
 * before its first '/'): then it is a broken connection string, refused and
 * never shown, since libpq's own parse errors echo pieces of it. Without
 * libpq the same shape says "server" (and the open says libpq is missing).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "db/db_int.h"

#include "db/db_libpq.h"

/* The shape of a connection string that no parse accepted. */
static bool looks_like_conninfo(const char *target)
{
	const char *slash = strchr(target, '/'), *eq = strchr(target, '=');

	return strstr(target, "://") || (eq && (!slash || eq < slash));
}

#ifdef SS_HAVE_LIBPQ

static bool blank(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return !*s;
}

/* libpq's URI designators (conninfo_uri_parse's; case matters to it). */
static bool is_uri(const char *s)
{
	return !strncmp(s, "postgresql://", 13) || !strncmp(s, "postgres://", 11);
}

/* TARGET parsed by libpq when it is a connection string: its fields
 * (PQconninfoFree), or NULL. */
static PQconninfoOption *parse(const char *target)
{
	PQconninfoOption *opts;
	char *msg = NULL;
	bool any = false;

	/* libpq refuses what has not this shape (no URI designator, no '='
	 * before a '/': a keyword holds no '/'), so a file is a file without
	 * loading it */
	if (blank(target) || !looks_like_conninfo(target) || pq_load(NULL) < 0)
		return NULL;
	opts = pq.PQconninfoParse(target, &msg);
	pq.PQfreemem(msg);	/* never shown: it can quote a piece of a password */
	for (PQconninfoOption *o = opts; o && o->keyword && !any; o++)
		any = o->val != NULL;
	if (opts && !any && !is_uri(target)) {
		pq.PQconninfoFree(opts);
		return NULL;
	}
	return opts;
}

static bool secret(const PQconninfoOption *o)
{
	return o->dispchar && o->dispchar[0] == '*';
}

enum db_target_kind db_target_kind(const char *target)
{
	PQconninfoOption *opts = parse(target);

	if (opts) {
		pq.PQconninfoFree(opts);
		return DB_TARGET_SERVER;
	}
	if (!looks_like_conninfo(target))
		return DB_TARGET_FILE;
	/* without libpq, the shape says "server" and the open says why not */
	return pq_load(NULL) < 0 ? DB_TARGET_SERVER : DB_TARGET_BROKEN;
}

/* Appends VALUE as libpq reads a keyword's value: as it is, or in single
 * quotes with \ and ' escaped when empty or holding a space, quote or
 * backslash. */
static void add_value(struct strbuf *sb, const char *v)
{
	bool quote = !*v;

	for (const char *p = v; *p && !quote; p++)
		quote = isspace((unsigned char)*p) || *p == '\'' || *p == '\\';
	if (!quote) {
		sb_adds(sb, v);
		return;
	}
	sb_addc(sb, '\'');
	for (const char *p = v; *p; p++) {
		if (*p == '\'' || *p == '\\')
			sb_addc(sb, '\\');
		sb_addc(sb, *p);
	}
	sb_addc(sb, '\'');
}

static int shown_server(const char *target, char **ret)
{
	PQconninfoOption *opts = parse(target);
	struct strbuf sb = STRBUF_INIT;

	if (!opts && pq_load(NULL) < 0) {
		*ret = strdup("(a PostgreSQL connection string, not shown)");
		return *ret ? 0 : -ENOMEM;
	}
	if (!opts)
		return -ENOMEM;
	for (PQconninfoOption *o = opts; o->keyword; o++) {
		if (!o->val || secret(o))
			continue;
		sb_addf(&sb, "%s%s=", sb.len ? " " : "", o->keyword);
		add_value(&sb, o->val);
	}
	if (!sb.len)	/* libpq's defaults alone: the URI that says so */
		sb_adds(&sb, "postgresql://");
	/* a password that is also another field's value (user=x password=x)
	 * is not shown there either */
	for (PQconninfoOption *o = opts; o->keyword; o++)
		if (o->val && secret(o)) {
			char *one[2] = { o->val, NULL };

			db_scrub(one, &sb, 0);
		}
	pq.PQconninfoFree(opts);
	*ret = sb_detach(&sb);
	return *ret ? 0 : -ENOMEM;
}

int db_target_secrets(const char *target, char ***ret)
{
	PQconninfoOption *opts = parse(target);
	char **list = NULL;
	size_t n = 0;
	int r = 0;

	for (PQconninfoOption *o = opts; o && o->keyword && r == 0; o++)
		if (o->val && *o->val && secret(o))
			r = db_list_add(&list, &n, o->val);
	if (opts)
		pq.PQconninfoFree(opts);
	if (r == 0 && !list && !(list = calloc(1, sizeof(*list))))
		r = -ENOMEM;
	if (r < 0) {
		db_free_list(list);
		return r;
	}
	*ret = list;
	return 0;
}

#else /* !SS_HAVE_LIBPQ */

/* No parser: the shape decides, and nothing of a connection string is
 * shown (no server can be reached without libpq anyway). */
enum db_target_kind db_target_kind(const char *target)
{
	return looks_like_conninfo(target) ? DB_TARGET_SERVER : DB_TARGET_FILE;
}

static int shown_server(const char *target, char **ret)
{
	(void)target;
	*ret = strdup("(a PostgreSQL connection string, not shown)");
	return *ret ? 0 : -ENOMEM;
}

int db_target_secrets(const char *target, char ***ret)
{
	(void)target;
	*ret = calloc(1, sizeof(**ret));
	return *ret ? 0 : -ENOMEM;
}

#endif

bool db_target_is_server(const char *target)
{
	return db_target_kind(target) != DB_TARGET_FILE;
}

int db_target_safe(const char *target, char **ret)
{
	switch (db_target_kind(target)) {
	case DB_TARGET_SERVER:
		return shown_server(target, ret);
	case DB_TARGET_BROKEN:
		*ret = strdup("(a connection string libpq cannot parse, not shown)");
		break;
	default:
		*ret = strdup(target);
		break;
	}
	return *ret ? 0 : -ENOMEM;
}

void db_scrub(char *const *secrets, struct strbuf *sb, size_t from)
{
	static const char mask[] = "***";

	for (char *const *s = secrets; s && *s; s++) {
		size_t n = strlen(*s), at = from;
		char *hit;

		if (!n)
			continue;
		while (at <= sb->len && (hit = strstr(sb->buf + at, *s))) {
			size_t tail;

			at = (size_t)(hit - sb->buf);
			tail = sb->len - at - n;
			/* "***" is never longer than what it covers but for a
			 * secret of one or two characters: grow first */
			if (n < sizeof(mask) - 1 && sb_grow(sb, sizeof(mask) - 1 - n) < 0) {
				memset(sb->buf + at, '*', n);	/* cannot grow: mask in place */
				at += n;
				continue;
			}
			memmove(sb->buf + at + sizeof(mask) - 1, sb->buf + at + n, tail + 1);
			memcpy(sb->buf + at, mask, sizeof(mask) - 1);
			sb->len = sb->len - n + sizeof(mask) - 1;
			at += sizeof(mask) - 1;
		}
	}
}
