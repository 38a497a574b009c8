// SPDX-License-Identifier: MIT
/*
 * cli.c: messages, exit codes and option-value parsing shared by commands.
 * See cli.h.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/display.h"
#include "core/num.h"
#include "core/strbuf.h"

const char *cli_prog = "stallscope";

/*
 * Every message goes through display_escape_text as it is printed: a value
 * a command forgot to pass through cli_shown still cannot reach the terminal
 * as an escape sequence (its newlines can still break the line; cli_shown
 * is for them). What was escaped already passes unchanged.
 */
static void vreport(const char *kind, const char *fmt, va_list ap, int err)
{
	struct strbuf msg = STRBUF_INIT, shown = STRBUF_INIT;

	fflush(stdout);
	if (sb_vaddf(&msg, fmt, ap) < 0 || display_escape_text(&shown, msg.buf, msg.len) < 0)
		fprintf(stderr, "%s: %s(out of memory for the message)", cli_prog, kind);
	else
		fprintf(stderr, "%s: %s%s", cli_prog, kind, shown.buf);
	if (err)
		fprintf(stderr, ": %s", strerror(-err));
	fputc('\n', stderr);
	sb_release(&msg);
	sb_release(&shown);
}

#define SHOWN_RING 16

static const char *shown(const char *s, bool lines)
{
	static char *ring[SHOWN_RING];
	static unsigned next;
	struct strbuf sb = STRBUF_INIT;
	char **slot = &ring[next++ % SHOWN_RING];
	int r;

	if (!s)
		return "-";
	r = lines ? display_escape_text(&sb, s, strlen(s)) : display_escape(&sb, s, strlen(s), 0);
	if (r < 0) {
		sb_release(&sb);
		return "?";
	}
	free(*slot);
	*slot = sb_detach(&sb);
	return *slot ? *slot : "?";
}

const char *cli_shown(const char *s)
{
	return shown(s, false);
}

const char *cli_shown_lines(const char *s)
{
	return shown(s, true);
}

int cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error: ", fmt, ap, 0);
	va_end(ap);
	return -1;
}

int cli_error_errno(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error: ", fmt, ap, err < 0 ? err : -err);
	va_end(ap);
	return -1;
}

int cli_failed(long long r, const struct strbuf *msg)
{
	if (r >= 0)
		return 0;
	if (msg && msg->len)
		cli_error("%s", msg->buf);
	else
		cli_error_errno((int)r, "error");
	return 1;
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", fmt, ap, 0);
	va_end(ap);
}

int cli_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap, 0);
	va_end(ap);
	fprintf(stderr, "try '%s --help'\n", cli_prog);
	return EXIT_USAGE;
}

int cli_finish(int status)
{
	/* only the documented codes leave: 0, 1 (an error), 2 (usage), 3 (the
	 * program or some runs failed: record, bench), 4 (a CI gate: a metric
	 * got worse), 130/143 (bench stopped by SIGINT/SIGTERM); anything else,
	 * cli_error()'s -1 included, is 1 */
	if (status != 0 && status != 1 && status != EXIT_USAGE && status != 3 &&
	    status != EXIT_WORSE && status != 130 && status != 143)
		status = 1;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (errno != EPIPE)
			cli_error("unable to write to standard output: %s", strerror(errno));
		return status ? status : 1;
	}
	return status;
}

int cli_parse_double(const char *opt, const char *arg, double min, double max, double *ret)
{
	double v;

	/* decimal only (core/num.h): "0x10", "inf", " 5" are slips, not numbers */
	if (num_parse_double(arg, &v) < 0 || v < min || v > max) {
		cli_usage_error("option '%s': expected a decimal number from %g to %g, got '%s'", opt,
				min, max, arg);
		return -1;
	}
	*ret = v;
	return 0;
}

int cli_parse_int(const char *opt, const char *arg, long min, long max, long *ret)
{
	long v;

	if (num_parse_long(arg, &v) < 0 || v < min || v > max) {
		cli_usage_error("option '%s': expected a whole number from %ld to %ld, got '%s'",
				opt, min, max, arg);
		return -1;
	}
	*ret = v;
	return 0;
}
