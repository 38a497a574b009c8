// SPDX-License-Identifier: MIT
/* watch_opts.c: the watcher's options, once (watch_opts.h). */
#include <string.h>

#include "cli.h"
#include "cmd/watch_opts.h"

static int take_holder(const struct opt *opt, const char *arg)
{
	struct watch_opts_given *g = opt->value;

	if (g->wo.nexempt_holders == WATCH_MAX_HOLDERS)
		return opts_error("option '--exempt-device-holder': %d at most",
				       WATCH_MAX_HOLDERS);
	g->holders[g->wo.nexempt_holders++] = arg;
	g->wo.exempt_holders = g->holders;
	return 0;
}

void watch_opts_table(struct opt t[WATCH_OPTS_N], struct watch_opts_given *g, const char *group)
{
	struct watch_opts *wo = &g->wo;
	const struct opt own[WATCH_OPTS_N] = {
		OPT_GROUP(group),
		OPT_STRING(0, "expect-vt", &wo->expect_vt, "LIST",
			   "VT numbers the run may switch to, e.g. 2,7"),
		OPT_STRING(0, "exempt-cmd", &wo->exempt_cmd, "REGEX",
			   "processes whose name matches are exempt"),
		OPT_CALLBACK(0, "exempt-device-holder", g, "N",
			     "input devices held open by program N are exempt", take_holder),
		OPT_BOOL(0, "no-procs", &wo->no_procs,
			 "leave processes out (input, VT, logins, USB only)"),
		OPT_STRING(0, "input-dir", &wo->input_dir, "DIR",
			   "the sources (for tests; default " WATCH_DEFAULT_INPUT_DIR ")"),
		OPT_STRING(0, "vt-file", &wo->vt_file, "FILE",
			   "(default " WATCH_DEFAULT_VT_FILE ")"),
		OPT_STRING(0, "sessions-dir", &wo->sessions_dir, "DIR",
			   "(default " WATCH_DEFAULT_SESSIONS_DIR ")"),
		OPT_STRING(0, "kmsg", &wo->kmsg, "FILE", "(default " WATCH_DEFAULT_KMSG ")"),
		OPT_END(),
	};

	memcpy(t, own, sizeof(own));
	for (size_t i = 1; t[i].kind != OPTK_END; i++)
		t[i].given = &g->any;
}

int watch_opts_pass(const struct watch_opts_given *g, const char **argv, size_t *n, size_t max)
{
	const struct watch_opts *wo = &g->wo;
	const char *const named[][2] = {
		{ "--expect-vt", wo->expect_vt }, { "--exempt-cmd", wo->exempt_cmd },
		{ "--input-dir", wo->input_dir }, { "--vt-file", wo->vt_file },
		{ "--sessions-dir", wo->sessions_dir }, { "--kmsg", wo->kmsg },
	};
	size_t need = 2 * wo->nexempt_holders + (wo->no_procs ? 1 : 0);

	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		need += named[i][1] ? 2 : 0;
	if (*n + need > max)
		return opts_error("too many watcher options");
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		if (!named[i][1])
			continue;
		argv[(*n)++] = named[i][0];
		argv[(*n)++] = named[i][1];
	}
	for (size_t i = 0; i < wo->nexempt_holders; i++) {
		argv[(*n)++] = "--exempt-device-holder";
		argv[(*n)++] = g->holders[i];
	}
	if (wo->no_procs)
		argv[(*n)++] = "--no-procs";
	return 0;
}
