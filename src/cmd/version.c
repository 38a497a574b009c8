// SPDX-License-Identifier: MIT
/* version.c: `stallscope version`, the version and what it was built with. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmd/cmd.h"

int cmd_version(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: stallscope version\n\nprints the version of stallscope\n");
		return 0;
	}
	if (argc > 1)
		return cli_usage_error("unexpected argument '%s'", argv[1]);
	printf("stallscope %s\n", STALLSCOPE_VERSION);
	return 0;
}
