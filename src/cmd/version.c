// SPDX-License-Identifier: MIT
/* version.c: `stallscope version`, the version and what it was built with. */
#include <stdio.h>

#include "cli.h"
#include "opts.h"
#include "cmd/cmd.h"

int cmd_version(int argc, char **argv)
{
	static const struct opt opts[] = { OPT_END() };
	static const struct opts_help help = {
		"usage: stallscope version\n\nprints the version of stallscope\n\n", NULL,
	};
	int first = opts_parse(argc, argv, opts, &help, 0);

	if (first < 0)
		return opts_exit(first);
	if (first < argc)
		return cli_usage_error("unexpected argument '%s'", argv[first]);
	printf("stallscope %s\n", STALLSCOPE_VERSION);
	return 0;
}
