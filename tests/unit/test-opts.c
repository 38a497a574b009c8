// SPDX-License-Identifier: MIT
/*
 * test-opts.c: the commands' option tables (src/opts.h): each kind sets what
 * it says (flag, set-int, int, double, string, callback with and without a
 * value), ranges taken at both ends and refused past them, a joined table
 * (OPT_CONCAT) found and listed, an unknown option, a missing value, a value
 * given to a flag, `--`, `-`, --opt=value, -xVALUE and -ab, operands moved
 * behind the options in order (and the stop at the first operand), --help
 * printing the table, --list-options listing it. Messages are read from
 * stderr captured in a file.
 */
#include "t.h"

#include <stdarg.h>
#include <stdbool.h>
#include <unistd.h>

#include "opts.h"

static char out[8192];	/* what the last parse printed (stdout and stderr) */

struct vals {
	bool flag, quiet, given;
	int mode, n;
	double secs;
	const char *name, *path;
	int ncb;
	const char *cb_arg;
	bool shared;
};

static int on_cb(const struct opt *o, const char *arg)
{
	struct vals *v = o->value;

	v->ncb++;
	v->cb_arg = arg;
	if (arg && !strcmp(arg, "bad")) {
		fprintf(stderr, "cb refused\n");
		return -1;
	}
	return 0;
}

static struct vals v;

static const struct opt shared[] = {
	OPT_BOOL(0, "shared", &v.shared, "a shared flag"),
	OPT_DOUBLE(0, "warmup", &v.secs, "S", 0, OPT_SECONDS_MAX, "seconds left out"),
	OPT_END(),
};

static const struct opt table[] = {
	OPT_BOOL('f', "flag", &v.flag, "a flag"),
	OPT_BOOL('q', NULL, &v.quiet, "short only"),
	OPT_SET_INT(0, "mode-two", &v.mode, 2, "mode 2"),
	OPT_INT('n', "count", &v.n, "N", 1, 10, "a count"),
	OPT_STRING('o', "output", &v.path, "DIR", "where"),
	{ .kind = OPTK_STRING, .long_name = "name", .value = &v.name, .argh = "NAME",
	  .help = "a name", .flags = OPTF_NONEMPTY, .given = &v.given },
	OPT_CALLBACK(0, "cb", &v, "X", "a callback", on_cb),
	{ .kind = OPTK_CALLBACK, .long_name = "color", .value = &v, .argh = "WHEN",
	  .help = "optional value", .cb = on_cb, .flags = OPTF_OPTARG },
	OPT_GROUP("shared ones:"),
	OPT_CONCAT(shared),
	OPT_END(),
};

static const struct opts_help help = { "usage: t [options] ARGS\n\n", "EXAMPLES\n  t -f\n" };

/* Parses the words of ARGS (NULL-ended) with argv[0] "t"; the result, ARGV
 * as the parse left it in *RET (static). */
static int parse(unsigned flags, char ***ret, ...)
{
	static char *argv[32];
	int argc = 0, r, fd, saved_out, saved_err;
	FILE *tmp = tmpfile();
	size_t n;
	va_list ap;
	char *a;

	memset(&v, 0, sizeof(v));
	argv[argc++] = "t";
	va_start(ap, ret);
	while ((a = va_arg(ap, char *)))
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	fflush(stdout);
	fflush(stderr);
	fd = fileno(tmp);
	saved_out = dup(1);
	saved_err = dup(2);
	dup2(fd, 1);
	dup2(fd, 2);
	r = opts_parse(argc, argv, table, &help, flags);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	rewind(tmp);
	n = fread(out, 1, sizeof(out) - 1, tmp);
	out[n] = 0;
	fclose(tmp);
	if (ret)
		*ret = argv;
	return r;
}

#define HAS(s) CHECK(strstr(out, (s)) != NULL)

static void test_kinds(void)
{
	char **av;

	CHECK_INT(parse(0, &av, "-f", "--count", "3", "-o", "d", "--name=x", "--mode-two",
			"--warmup", "1.5", "--shared", NULL), 11);
	CHECK(v.flag);
	CHECK_INT(v.n, 3);
	CHECK_STR(v.path, "d");
	CHECK_STR(v.name, "x");
	CHECK(v.given);
	CHECK_INT(v.mode, 2);
	CHECK_NEAR(v.secs, 1.5, 0);
	CHECK(v.shared);
	CHECK(!v.quiet);
	CHECK_STR(out, "");
	/* callbacks: with a value, with an optional one given and not */
	CHECK_INT(parse(0, &av, "--cb", "y", NULL), 3);
	CHECK_INT(v.ncb, 1);
	CHECK_STR(v.cb_arg, "y");
	CHECK_INT(parse(0, &av, "--color", NULL), 2);
	CHECK_INT(v.ncb, 1);
	CHECK(v.cb_arg == NULL);
	CHECK_INT(parse(0, &av, "--color=never", "x", NULL), 2);
	CHECK_STR(v.cb_arg, "never");
	CHECK_INT(parse(0, &av, "--cb", "bad", NULL), OPTS_ERROR);
	HAS("cb refused");
}

static void test_short_forms(void)
{
	char **av;

	CHECK_INT(parse(0, &av, "-fq", "-n7", "-od", NULL), 4);
	CHECK(v.flag && v.quiet);
	CHECK_INT(v.n, 7);
	CHECK_STR(v.path, "d");
	CHECK_INT(parse(0, &av, "-qo", "e", NULL), 3);
	CHECK_STR(v.path, "e");
	CHECK_INT(parse(0, &av, "-qx", NULL), OPTS_ERROR);
	HAS("unknown option '-x'");
}

static void test_ranges(void)
{
	char **av;

	CHECK_INT(parse(0, &av, "-n", "1", NULL), 3);
	CHECK_INT(parse(0, &av, "-n", "10", NULL), 3);
	CHECK_INT(v.n, 10);
	CHECK_INT(parse(0, &av, "-n", "11", NULL), OPTS_ERROR);
	HAS("option '-n': expected a whole number from 1 to 10, got '11'");
	CHECK_INT(parse(0, &av, "--count", "0", NULL), OPTS_ERROR);
	HAS("option '--count': expected a whole number from 1 to 10, got '0'");
	CHECK_INT(parse(0, &av, "--count", "0x3", NULL), OPTS_ERROR);
	CHECK_INT(parse(0, &av, "--warmup", "0", NULL), 3);
	CHECK_INT(parse(0, &av, "--warmup", "1e7", NULL), 3);
	CHECK_INT(parse(0, &av, "--warmup", "-1", NULL), OPTS_ERROR);
	HAS("option '--warmup': expected a decimal number from 0 to 1e+07, got '-1'");
	CHECK_INT(parse(0, &av, "--warmup=2e7", NULL), OPTS_ERROR);
	CHECK_INT(parse(0, &av, "--warmup", "inf", NULL), OPTS_ERROR);
	CHECK_INT(parse(0, &av, "--name", "", NULL), OPTS_ERROR);
	HAS("option '--name': expected a value, got ''");
}

static void test_errors(void)
{
	char **av;

	CHECK_INT(parse(0, &av, "--nope", NULL), OPTS_ERROR);
	HAS("unknown option '--nope'");
	HAS("try ");
	CHECK_INT(parse(0, &av, "--nope=1", NULL), OPTS_ERROR);
	HAS("unknown option '--nope'");
	/* a prefix is not the option */
	CHECK_INT(parse(0, &av, "--fla", NULL), OPTS_ERROR);
	HAS("unknown option '--fla'");
	CHECK_INT(parse(0, &av, "--count", NULL), OPTS_ERROR);
	HAS("option '--count' needs a value");
	CHECK_INT(parse(0, &av, "-o", NULL), OPTS_ERROR);
	HAS("option '-o' needs a value");
	CHECK_INT(parse(0, &av, "--flag=1", NULL), OPTS_ERROR);
	HAS("option '--flag' takes no value");
	CHECK_INT(opts_exit(OPTS_ERROR), 2);
	CHECK_INT(opts_exit(OPTS_HELP), 0);
}

static void test_operands(void)
{
	char **av;

	/* operands go behind the options, in order */
	CHECK_INT(parse(0, &av, "a", "-f", "b", "--count", "2", "c", NULL), 4);
	CHECK_STR(av[4], "a");
	CHECK_STR(av[5], "b");
	CHECK_STR(av[6], "c");
	CHECK(v.flag);
	/* after --, options are operands; - is an operand */
	CHECK_INT(parse(0, &av, "-f", "--", "-q", "--nope", "-", NULL), 3);
	CHECK(!v.quiet);
	CHECK_STR(av[3], "-q");
	CHECK_STR(av[4], "--nope");
	CHECK_STR(av[5], "-");
	CHECK_INT(parse(0, &av, "-", "-f", NULL), 2);
	CHECK_STR(av[2], "-");
	/* a stop at the first operand: the rest are its */
	CHECK_INT(parse(OPTS_STOP_AT_OPERAND, &av, "-f", "cmd", "-q", "--nope", NULL), 2);
	CHECK(v.flag && !v.quiet);
	CHECK_STR(av[2], "cmd");
	CHECK_STR(av[3], "-q");
	/* none: argc */
	CHECK_INT(parse(0, &av, "-f", NULL), 2);
	CHECK_INT(parse(0, &av, NULL), 1);
}

static void test_help(void)
{
	char **av;

	CHECK_INT(parse(0, &av, "--help", NULL), OPTS_HELP);
	HAS("usage: t [options] ARGS\n\noptions:\n");
	HAS("  -f, --flag ");
	HAS("  -n, --count N");
	HAS("      --color[=WHEN]");
	HAS("shared ones:\n      --shared");	/* the joined table, listed */
	HAS("  -h, --help");
	HAS("\nEXAMPLES\n  t -f\n");
	CHECK_INT(parse(0, &av, "-fh", NULL), OPTS_HELP);
	HAS("usage: t");
	CHECK_INT(parse(0, &av, "--list-options", NULL), OPTS_HELP);
	HAS("-f,--flag flag\n");
	HAS("-q flag\n");
	HAS("-n,--count int 1 10\n");
	HAS("--warmup number 0 1e+07\n");
	HAS("--shared flag\n");
	HAS("--cb value\n");
	HAS("--color optional\n");
	HAS("-h,--help flag\n");
}

int main(void)
{
	T_RUN(test_kinds);
	T_RUN(test_short_forms);
	T_RUN(test_ranges);
	T_RUN(test_errors);
	T_RUN(test_operands);
	T_RUN(test_help);
	return t_exit();
}
