// SPDX-License-Identifier: MIT
/*
 * export.c: `stallscope export --perfetto [-o FILE] [-z] RUNDIR`: a run
 * directory as a Perfetto trace (protobuf TracePackets with TrackEvents,
 * not the legacy JSON), for ui.perfetto.dev, trace_processor and the tools
 * that import its traces, on the machine's clocks so that it lines up with
 * other traces of the same machine. export_perfetto.c lays out the tracks;
 * out/perfetto.c writes the format; docs/EXPORT.md is the user's guide.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd/cmd.h"
#include "cmd/export_perfetto.h"
#include "cmd/outfile.h"
#include "cmd/report.h"
#include "out/perfetto.h"

static const struct opts_help export_help = {
	"usage: stallscope export --perfetto [-o FILE] [-z] [options] RUNDIR\n"
	"\n"
	"Writes the run as a Perfetto trace (protobuf; ui.perfetto.dev, trace_processor)\n"
	"on the record's CLOCK_MONOTONIC, related to CLOCK_BOOTTIME and CLOCK_REALTIME,\n"
	"so that it merges with other traces of the machine: under the program's\n"
	"process track a Frames track (a slice per frame; a stall named 'stall' with\n"
	"its cause, share, second cause and evidence), Stalls by cause, Segments\n"
	"(warm-up, window, reloads); each sampled thread's states (and, in exact mode,\n"
	"its off-CPU intervals); counters (pressure, disks, major faults, CPU); the\n"
	"probe's late wake-ups and the watcher's findings (docs/EXPORT.md).\n"
	"Default output: RUNDIR/trace.pftrace (RUNDIR/trace.pftrace.gz with -z).\n"
	"\n",
	"EXAMPLES\n"
	"  stallscope export --perfetto runs/20261201T120000Z-game/\n"
	"  stallscope export --perfetto -z -o game.pftrace.gz --warmup 0 run/\n"
	"  trace_processor -q stalls.sql run/trace.pftrace\n",
};

static void print_notes(const struct analysis *a, const struct strbuf *notes)
{
	const char *p;

	for (size_t k = 0; k < a->m.nnotes; k++)
		fprintf(stderr, "%s: note: %s\n", cli_prog, cli_shown(a->m.notes[k]));
	for (p = cli_shown_lines(notes->buf); *p;) {	/* lines naming threads, wchans */
		size_t n = strcspn(p, "\n");

		fprintf(stderr, "%s: note: %.*s\n", cli_prog, (int)n, p);
		p += n + (p[n] == '\n');
	}
}

/* One run directory to OUTPUT. */
static int export_one(const struct analyse_opts *ao, const char *input, const char *output,
		      bool gz)
{
	struct strbuf emsg = STRBUF_INIT, notes = STRBUF_INIT, path = STRBUF_INIT;
	struct export_stats st;
	struct analysis a;
	struct perfetto_out *o = NULL;
	struct sf_out of;
	int status = 1, r, fd;

	if (cli_failed(analyse_input(input, ao, &a, &emsg), &emsg)) {
		sb_release(&emsg);
		return 1;
	}
	if (!a.rec) {
		cli_error("'%s': expected a run directory (with record.ssr), not a frame log",
			  cli_shown(input));
		goto out;
	}
	if (!output) {
		if (sb_add_path(&path, input, gz ? "trace.pftrace.gz" : "trace.pftrace") < 0)
			goto out;
		output = path.buf;
	}
	fd = outfile_open_fd(output, &of);
	if (fd < 0 || cli_failed(perfetto_out_open_fd(fd, gz, &o, &emsg), &emsg)) {
		sf_out_abort(&of);
		goto out;
	}
	{
		/* the spills beside the output, on its file system */
		char *dir = strcmp(output, "-") ? strdup(output) : NULL;
		char *slash = dir ? strrchr(dir, '/') : NULL;

		if (dir && !slash)
			strcpy(dir, ".");
		else if (slash)
			slash[slash == dir] = '\0';
		r = export_perfetto(&a, input, ao->windows, dir, o, &st, &notes, &emsg);
		free(dir);
	}
	{
		uint64_t packets = perfetto_out_packets(o), bytes = perfetto_out_bytes(o);
		int rc;

		if (r < 0)
			perfetto_out_fail(o, r);
		rc = perfetto_out_close(o);
		if (r < 0 || rc < 0) {
			/* the file appears whole or not at all */
			outfile_close(output, NULL, &of, false);
			if (!cli_failed(r, &emsg))
				cli_error_errno(rc, "cannot write '%s'", output);
			goto out;
		}
		if (outfile_close(output, NULL, &of, true) < 0)
			goto out;
		print_notes(&a, &notes);
		fprintf(stderr, "%s: wrote '%s': %zu frames, %zu stalls, %zu thread states, "
			"%zu intervals, %zu counter values, %zu instants, %zu stack samples, "
			"%zu API calls on %zu tracks (%llu packets, %llu bytes%s)\n",
			cli_prog, cli_shown(output), st.frames, st.stalls, st.states, st.intervals,
			st.counter_values, st.instants, st.stack_samples, st.api_calls, st.tracks,
			(unsigned long long)packets,
			(unsigned long long)bytes, gz ? " before gzip" : "");
	}
	status = 0;
out:
	analysis_release(&a);
	sb_release(&emsg);
	sb_release(&notes);
	sb_release(&path);
	return status;
}

int cmd_export(int argc, char **argv)
{
	struct report_options o = {
		.a = { .m = METRICS_OPTS_INIT, .fmt = FRAMELOG_AUTO, .keep = true },
	};
	struct report_tables rt;
	bool perfetto = false, gz = false;
	struct reload_rules *rules = NULL;
	struct strbuf emsg = STRBUF_INIT;
	const char *output = NULL;
	const struct opt opts[] = {
		OPT_BOOL(0, "perfetto", &perfetto,
			 "the format (the only one, and required: the name says\n"
			 "what the file is)"),
		OPT_STRING('o', "output", &output, "FILE", "where the trace goes ('-': stdout)"),
		OPT_BOOL('z', "gzip", &gz, "gzip-compressed (Perfetto opens .gz traces)"),
		OPT_GROUP("the analysis, as report's (stallscope-report(1)):"),
		OPT_CONCAT(rt.analysis),
		OPT_END(),
	};
	int first, status;

	report_tables_init(&rt, &o);
	first = opts_parse(argc, argv, opts, &export_help, 0);
	status = opts_exit(first);
	if (first < 0)
		goto out;
	status = EXIT_USAGE;
	if (report_options_check(&o) < 0)
		goto out;
	if (!perfetto) {
		cli_usage_error("expected the format: --perfetto");
		goto out;
	}
	if (argc - first != 1) {
		cli_usage_error("expected one run directory, got %d", argc - first);
		goto out;
	}
	status = 1;
	/* the record streamed; STALLSCOPE_WHOLE_RECORD=1: the whole record in
	 * memory, as before (tests/e2e/export-stream.sh compares the two) */
	o.a.windows = !getenv("STALLSCOPE_WHOLE_RECORD");
	if (cli_failed(analyse_load_rules(o.rules, &rules, &o.a.rules_name, &emsg), &emsg))
		goto out;
	o.a.rules = rules;
	status = export_one(&o.a, argv[first], output, gz);
out:
	report_options_release(&o);
	reload_rules_free(rules);
	sb_release(&emsg);
	return status;
}
