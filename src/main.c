// SPDX-License-Identifier: MIT
/*
 * main.c: stallscope's entry point and its command table.
 *
 * `stallscope COMMAND [options]` looks COMMAND up in the table below and
 * hands it argc/argv with argv[0] the command's name. Adding a command is one
 * file in src/cmd/, one declaration in src/cmd/cmd.h and one line here (see
 * cmd.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd/cmd.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	/* recording and analysis, in the order a user meets them */
	{ "record", cmd_record, "run or attach to a program and record its frames and samples" },
	{ "report", cmd_report, "frame metrics of frame logs and runs" },
	{ "stalls", cmd_stalls, "one line per stall with its cause and evidence" },
	{ "html", cmd_html, "one self-contained page of runs: frames, stalls by cause, metrics" },
	{ "export", cmd_export, "a run as a Perfetto trace, beside other traces of the machine" },
	{ "dump", cmd_dump, "print a record as text, one line per record" },
	/* the machine */
	{ "probe", cmd_probe, "timer wake-up latency per CPU, late wake-ups listed" },
	{ "kick", cmd_kick, "a cross-CPU wake-up to each CPU every period (a stopgap)" },
	{ "prefetch", cmd_prefetch, "learn what a program reads; read it back before it asks" },
	{ "watch", cmd_watch, "the interference detector: throw out runs someone disturbed" },
	/* benchmarks and results */
	{ "bench", cmd_bench, "rounds of interleaved variants, each run recorded and stored" },
	{ "runs", cmd_runs, "list the runs in the results database" },
	{ "db", cmd_db, "the results database: import run directories, show its state" },
	{ "matrix", cmd_matrix, "one CSV per metric: runs side by side, with medians" },
	{ "compare", cmd_compare, "A/B comparison of variants with significance" },
	{ "history", cmd_history, "a benchmark over its builds: change points, a CI gate" },
	{ "version", cmd_version, "print the version" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: stallscope COMMAND [options] [args]\n"
		   "       stallscope COMMAND --help\n\n"
		   "stallscope tells you that a program hitched and what it waited for.\n\n"
		   "commands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nsee 'man stallscope-COMMAND' or 'stallscope COMMAND --help'\n");
}

int main(int argc, char **argv)
{
	static char prog[64];
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return cli_finish(0);
	}
	if (!strcmp(argv[1], "--version")) {
		printf("stallscope %s\n", STALLSCOPE_VERSION);
		return cli_finish(0);
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i].name))
			continue;
		snprintf(prog, sizeof(prog), "stallscope %s", commands[i].name);
		cli_prog = prog;
		return cli_finish(commands[i].fn(argc - 1, argv + 1));
	}
	fprintf(stderr, "stallscope: '%s' is not a command; see 'stallscope --help'\n", argv[1]);
	return EXIT_USAGE;
}
