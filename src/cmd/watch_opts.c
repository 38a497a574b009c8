// SPDX-License-Identifier: MIT
/* watch_opts.c: the watcher's options, once (watch_opts.h). */
#include <stdio.h>

#include "cli.h"
#include "cmd/watch_opts.h"

enum {
	W_EXPECT_VT = WATCH_OPT_FIRST, W_EXEMPT_CMD, W_HOLDER, W_NO_PROCS, W_INPUT, W_VT,
	W_SESSIONS, W_KMSG,
};

const struct option watch_opts_long[WATCH_OPT_N] = {
	{ "expect-vt", required_argument, NULL, W_EXPECT_VT },
	{ "exempt-cmd", required_argument, NULL, W_EXEMPT_CMD },
	{ "exempt-device-holder", required_argument, NULL, W_HOLDER },
	{ "no-procs", no_argument, NULL, W_NO_PROCS },
	{ "input-dir", required_argument, NULL, W_INPUT },
	{ "vt-file", required_argument, NULL, W_VT },
	{ "sessions-dir", required_argument, NULL, W_SESSIONS },
	{ "kmsg", required_argument, NULL, W_KMSG },
};

void watch_opts_help(FILE *f, int indent)
{
	static const char *const lines[][2] = {
		{ "--expect-vt LIST", "VT numbers the run may switch to, e.g. 2,7" },
		{ "--exempt-cmd REGEX", "processes whose name matches are exempt" },
		{ "--exempt-device-holder N", "input devices held open by program N are exempt" },
		{ "--no-procs", "leave processes out (input, VT, logins, USB only)" },
		{ "--input-dir DIR --vt-file FILE --sessions-dir DIR --kmsg FILE", NULL },
		{ "", "the sources (for tests; defaults " WATCH_DEFAULT_INPUT_DIR "," },
		{ "", WATCH_DEFAULT_VT_FILE ", " WATCH_DEFAULT_SESSIONS_DIR "," },
		{ "", WATCH_DEFAULT_KMSG ")" },
	};

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		int w = fprintf(f, "  %s", lines[i][0]);

		if (!lines[i][1]) {
			fputc('\n', f);
			continue;
		}
		if (w >= indent) {
			fputc('\n', f);
			w = 0;
		}
		fprintf(f, "%*s%s\n", indent - w, "", lines[i][1]);
	}
}

int watch_opt_take(struct watch_opts_given *g, int c, const char *arg)
{
	struct watch_opts *wo = &g->wo;

	switch (c) {
	case W_EXPECT_VT: wo->expect_vt = arg; break;
	case W_EXEMPT_CMD: wo->exempt_cmd = arg; break;
	case W_HOLDER:
		if (wo->nexempt_holders == WATCH_MAX_HOLDERS) {
			cli_usage_error("option '--exempt-device-holder': %d at most",
					WATCH_MAX_HOLDERS);
			return -1;
		}
		g->holders[wo->nexempt_holders++] = arg;
		wo->exempt_holders = g->holders;
		break;
	case W_NO_PROCS: wo->no_procs = true; break;
	case W_INPUT: wo->input_dir = arg; break;
	case W_VT: wo->vt_file = arg; break;
	case W_SESSIONS: wo->sessions_dir = arg; break;
	case W_KMSG: wo->kmsg = arg; break;
	default: return -1;
	}
	g->any = true;
	return 0;
}

void watch_opt_pass(int c, const char *arg, const char **argv, size_t *n)
{
	static char names[WATCH_OPT_N][32];
	const struct option *o = &watch_opts_long[c - WATCH_OPT_FIRST];
	char *name = names[c - WATCH_OPT_FIRST];

	snprintf(name, sizeof(names[0]), "--%s", o->name);
	argv[(*n)++] = name;
	if (o->has_arg == required_argument)
		argv[(*n)++] = arg;
}

void watch_opts_add(struct option *opts, size_t *n)
{
	for (size_t i = 0; i < WATCH_OPT_N; i++)
		opts[(*n)++] = watch_opts_long[i];
}
