// SPDX-License-Identifier: MIT
/*
 * opts.c: the option tables' parser and help (opts.h). Tables are short (a
 * few dozen entries), so each option is looked up by a walk of the table and
 * of the tables it joins; nothing is allocated but the operands' list.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "opts.h"

#define HELP_COL_MAX 22	/* the help text's column, at most; a longer left
			 * column puts its help on the next line */

/* ------------------------------------------------------------------ lookup */

static const struct opt *find_long(const struct opt *t, const char *name, size_t len)
{
	for (; t->kind != OPTK_END; t++) {
		if (t->kind == OPTK_CONCAT) {
			const struct opt *o = find_long(t->value, name, len);

			if (o)
				return o;
		} else if (t->long_name && strlen(t->long_name) == len &&
			   !strncmp(t->long_name, name, len)) {
			return t;
		}
	}
	return NULL;
}

static const struct opt *find_short(const struct opt *t, int c)
{
	for (; t->kind != OPTK_END; t++) {
		if (t->kind == OPTK_CONCAT) {
			const struct opt *o = find_short(t->value, c);

			if (o)
				return o;
		} else if (t->short_name && t->short_name == c) {
			return t;
		}
	}
	return NULL;
}

/* Whether O needs a value after it (--name VALUE, -x VALUE). */
static bool needs_value(const struct opt *o)
{
	switch (o->kind) {
	case OPTK_INT:
	case OPTK_DOUBLE:
	case OPTK_STRING:
		return true;
	case OPTK_CALLBACK:
		return !(o->flags & (OPTF_NOARG | OPTF_OPTARG));
	default:
		return false;
	}
}

/* Whether O takes a value at all (--name=VALUE). */
static bool takes_value(const struct opt *o)
{
	return needs_value(o) || (o->kind == OPTK_CALLBACK && (o->flags & OPTF_OPTARG));
}

/* ------------------------------------------------------------------ taking */

/* Takes option O, given as NAME ("--warmup", "-t"), with ARG (NULL for
 * none); 0, or -1 after a usage error. */
static int take(const struct opt *o, const char *name, const char *arg)
{
	long l;

	switch (o->kind) {
	case OPTK_BOOL:
		*(bool *)o->value = true;
		break;
	case OPTK_SET_INT:
		*(int *)o->value = o->set;
		break;
	case OPTK_INT:
		if (cli_parse_int(name, arg, (long)o->min, (long)o->max, &l) < 0)
			return -1;
		*(int *)o->value = (int)l;
		break;
	case OPTK_DOUBLE:
		if (cli_parse_double(name, arg, o->min, o->max, (double *)o->value) < 0)
			return -1;
		break;
	case OPTK_STRING:
		if ((o->flags & OPTF_NONEMPTY) && !*arg) {
			cli_usage_error("option '%s': expected a value, got ''", name);
			return -1;
		}
		*(const char **)o->value = arg;
		break;
	case OPTK_CALLBACK:
		if (o->cb(o, arg) < 0)
			return -1;
		break;
	default:
		return -1;
	}
	if (o->given)
		*o->given = true;
	return 0;
}

/* -h, --help, --list-options: prints and returns OPTS_HELP; else 0. */
static int builtin(const char *long_name, int short_name, const struct opt *opts,
		   const struct opts_help *help)
{
	if (short_name == 'h' || (long_name && !strcmp(long_name, "help"))) {
		opts_usage(stdout, opts, help);
		return OPTS_HELP;
	}
	if (long_name && !strcmp(long_name, "list-options")) {
		opts_list(stdout, opts);
		return OPTS_HELP;
	}
	return 0;
}

/* A long option ARGV[*I] ("--name" or "--name=value"); 0, or OPTS_*. */
static int parse_long(int argc, char **argv, int *i, const struct opt *opts,
		      const struct opts_help *help)
{
	const char *name = argv[*i] + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct opt *o = find_long(opts, name, len);
	char shown[128];
	const char *arg = eq ? eq + 1 : NULL;

	snprintf(shown, sizeof(shown), "--%.*s", (int)len, name);
	if (!o) {
		if (!eq) {
			int r = builtin(name, 0, opts, help);

			if (r)
				return r;
		}
		cli_usage_error("unknown option '%s'", shown);
		return OPTS_ERROR;
	}
	if (eq && !takes_value(o)) {
		cli_usage_error("option '%s' takes no value, got '%s'", shown, argv[*i]);
		return OPTS_ERROR;
	}
	if (!eq && needs_value(o)) {
		if (*i + 1 >= argc) {
			cli_usage_error("option '%s' needs a value", shown);
			return OPTS_ERROR;
		}
		arg = argv[++*i];
	}
	return take(o, shown, arg) < 0 ? OPTS_ERROR : 0;
}

/* Short options ARGV[*I] ("-x", "-xVALUE", "-abc", "-x VALUE"); 0, or OPTS_*. */
static int parse_short(int argc, char **argv, int *i, const struct opt *opts,
		       const struct opts_help *help)
{
	const char *p = argv[*i] + 1;

	for (; *p; p++) {
		const struct opt *o = find_short(opts, (unsigned char)*p);
		char shown[3] = { '-', *p, 0 };
		const char *arg = NULL;

		if (!o) {
			int r = builtin(NULL, *p, opts, help);

			if (r)
				return r;
			cli_usage_error("unknown option '%s'", shown);
			return OPTS_ERROR;
		}
		if (needs_value(o)) {
			if (p[1]) {
				arg = p + 1;
			} else if (*i + 1 < argc) {
				arg = argv[++*i];
			} else {
				cli_usage_error("option '%s' needs a value", shown);
				return OPTS_ERROR;
			}
			return take(o, shown, arg) < 0 ? OPTS_ERROR : 0;
		}
		if (take(o, shown, NULL) < 0)
			return OPTS_ERROR;
	}
	return 0;
}

int opts_parse(int argc, char **argv, const struct opt *opts, const struct opts_help *help,
	       unsigned flags)
{
	char **operands = NULL;
	int i, n = 0, nopt = 1, r = 0;

	if (argc > 1) {
		operands = malloc((size_t)argc * sizeof(*operands));
		if (!operands) {
			cli_error("out of memory for the arguments");
			return OPTS_ERROR;
		}
	}
	for (i = 1; i < argc && !r; i++) {
		const char *a = argv[i];
		int from = i;

		if (!strcmp(a, "--")) {
			argv[nopt++] = argv[i];
			while (++i < argc)
				operands[n++] = argv[i];
			break;
		}
		if (a[0] != '-' || !a[1]) {
			operands[n++] = argv[i];
			if (flags & OPTS_STOP_AT_OPERAND) {
				while (++i < argc)
					operands[n++] = argv[i];
				break;
			}
			continue;
		}
		r = a[1] == '-' ? parse_long(argc, argv, &i, opts, help) :
				  parse_short(argc, argv, &i, opts, help);
		/* the option and its value stay before the operands */
		for (; from <= i && from < argc; from++)
			argv[nopt++] = argv[from];
	}
	if (!r) {
		if (n)	/* none: OPERANDS may be NULL */
			memcpy(argv + argc - n, operands, (size_t)n * sizeof(*argv));
		r = argc - n;
	}
	free(operands);
	return r;
}

int opts_error(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cli_usage_error("%s", msg);
	return OPTS_ERROR;
}

/* ------------------------------------------------------------------ help */

static bool any_short(const struct opt *t)
{
	for (; t->kind != OPTK_END; t++)
		if ((t->kind == OPTK_CONCAT && any_short(t->value)) ||
		    (t->kind != OPTK_CONCAT && t->short_name))
			return true;
	return false;
}

/* The left column of O: "  -o, --output DIR" (SHORTS: room for "-x, "). */
static int left(char *buf, size_t size, const struct opt *o, bool shorts)
{
	const char *argh = o->argh ? o->argh : takes_value(o) ? "VALUE" : NULL;
	bool optional = o->kind == OPTK_CALLBACK && (o->flags & OPTF_OPTARG);
	int n;

	if (o->short_name && o->long_name)
		n = snprintf(buf, size, "  -%c, --%s", o->short_name, o->long_name);
	else if (o->short_name)
		n = snprintf(buf, size, "  -%c", o->short_name);
	else
		n = snprintf(buf, size, "  %s--%s", shorts ? "    " : "", o->long_name);
	if (argh && n >= 0 && (size_t)n < size)
		n += snprintf(buf + n, size - n, optional ? "[=%s]" : " %s", argh);
	return n;
}

static int widest(const struct opt *t, bool shorts)
{
	char buf[256];
	int w = 0, l;

	for (; t->kind != OPTK_END; t++) {
		if (t->kind == OPTK_CONCAT)
			l = widest(t->value, shorts);
		else if (t->kind == OPTK_GROUP)
			continue;
		else
			l = left(buf, sizeof(buf), t, shorts);
		if (l > w && l <= HELP_COL_MAX - 2)
			w = l;
	}
	return w;
}

static void print_help_text(FILE *f, const char *help, int col)
{
	const char *nl;

	while ((nl = strchr(help, '\n'))) {
		fprintf(f, "%.*s\n%*s", (int)(nl - help), help, col, "");
		help = nl + 1;
	}
	fprintf(f, "%s\n", help);
}

static void print_opts(FILE *f, const struct opt *t, bool shorts, int col)
{
	char buf[256];

	for (; t->kind != OPTK_END; t++) {
		int w;

		if (t->kind == OPTK_CONCAT) {
			print_opts(f, t->value, shorts, col);
			continue;
		}
		if (t->kind == OPTK_GROUP) {
			fprintf(f, "  %s\n", t->help);
			continue;
		}
		w = left(buf, sizeof(buf), t, shorts);
		fputs(buf, f);
		if (w + 2 > col) {
			fputc('\n', f);
			w = 0;
		}
		fprintf(f, "%*s", col - w, "");
		print_help_text(f, t->help ? t->help : "", col);
	}
}

void opts_usage(FILE *f, const struct opt *opts, const struct opts_help *help)
{
	static const struct opt builtins[] = {
		OPT_BOOL('h', "help", NULL, "this text"),
		OPT_END(),
	};
	bool shorts = any_short(opts);
	int col = widest(opts, shorts) + 2;

	if (col < 14)
		col = 14;
	if (help && help->head)
		fputs(help->head, f);
	fputs("options:\n", f);
	print_opts(f, opts, shorts, col);
	print_opts(f, builtins, shorts, col);
	if (help && help->tail)
		fprintf(f, "\n%s", help->tail);
}

/* ------------------------------------------------------------------ list */

static void list(FILE *f, const struct opt *t)
{
	for (; t->kind != OPTK_END; t++) {
		const char *kind;

		if (t->kind == OPTK_CONCAT) {
			list(f, t->value);
			continue;
		}
		if (t->kind == OPTK_GROUP)
			continue;
		switch (t->kind) {
		case OPTK_INT: kind = "int"; break;
		case OPTK_DOUBLE: kind = "number"; break;
		case OPTK_STRING: kind = "string"; break;
		case OPTK_CALLBACK:
			kind = t->flags & OPTF_NOARG ? "flag" :
			       t->flags & OPTF_OPTARG ? "optional" : "value";
			break;
		default: kind = "flag"; break;
		}
		if (t->short_name && t->long_name)
			fprintf(f, "-%c,--%s %s", t->short_name, t->long_name, kind);
		else if (t->short_name)
			fprintf(f, "-%c %s", t->short_name, kind);
		else
			fprintf(f, "--%s %s", t->long_name, kind);
		if (t->kind == OPTK_INT || t->kind == OPTK_DOUBLE)
			fprintf(f, " %g %g", t->min, t->max);
		fputc('\n', f);
	}
}

void opts_list(FILE *f, const struct opt *opts)
{
	list(f, opts);
	fputs("-h,--help flag\n", f);
}
