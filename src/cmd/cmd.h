/* SPDX-License-Identifier: MIT */
/*
 * cmd.h: the commands. Each is one file src/cmd/<name>.c defining
 * `int cmd_<name>(int argc, char **argv)`, called with argv[0] the command's
 * name; it returns the process exit code (0 ok, 1 failure, 2 usage) and
 * reports its own errors through cli.h.
 *
 * To add a command: write src/cmd/<name>.c (its options a table read by
 * opts_parse, src/opts.h: its --help comes from the same table), declare it
 * here (the list is in alphabetical order, one a line), add one line to the
 * table in src/main.c, and write man/stallscope-<name>.1, naming every
 * option (tests/e2e/docs.sh checks both ways). CMake finds the file by itself.
 */
#ifndef SS_CMD_H
#define SS_CMD_H

int cmd_bench(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_db(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_html(int argc, char **argv);
int cmd_kick(int argc, char **argv);
int cmd_matrix(int argc, char **argv);
int cmd_prefetch(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_runs(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_stalls(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_watch(int argc, char **argv);

#endif
