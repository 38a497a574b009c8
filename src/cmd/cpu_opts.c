// SPDX-License-Identifier: MIT
/*
 * cpu_opts.c: cpu_opts.h, the options and the run probe and kick share.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd/cpu_opts.h"
#include "core/strbuf.h"
#include "linux/sched.h"

enum { OPT_CPUS = 256, OPT_JSON, OPT_N_OWN = 7 };

int cpu_opts_parse(int argc, char **argv, struct cpu_opts *o, const char *zero_t,
		   void (*usage)(FILE *f))
{
	static const struct option own[OPT_N_OWN] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "duration", required_argument, NULL, 't' },
		{ "priority", required_argument, NULL, 'p' },
		{ "cpus", required_argument, NULL, OPT_CPUS },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
	};
	struct option lo[OPT_N_OWN + 8] = { { 0 } };
	int c;

	if (o->nextra > 8 - 1)
		return cli_usage_error("internal: too many options");
	memcpy(lo, own, sizeof(own));
	memcpy(lo + OPT_N_OWN - 1, o->extra, o->nextra * sizeof(*lo));
	optind = 1;
	while ((c = getopt_long(argc, argv, ":i:t:p:h", lo, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (cli_parse_double("-i", optarg, 0.05, 3600e3, &o->interval_ms) < 0)
				return EXIT_USAGE;
			break;
		case 't':
			if (cli_parse_double("-t", optarg, 0, 1e7, &o->duration_s) < 0)
				return EXIT_USAGE;
			if (o->duration_s == 0)
				return cli_usage_error("option '-t': %s; give more than 0, or "
						       "leave -t out to run until Ctrl-C", zero_t);
			break;
		case 'p':
			if (cli_parse_int("-p", optarg, 0, 99, &o->prio) < 0)
				return EXIT_USAGE;
			break;
		case OPT_CPUS:
			o->cpus = optarg;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			if (c >= CPU_OPT_EXTRA && o->on_extra) {
				if (o->on_extra(o->ctx, c, optarg))
					return EXIT_USAGE;
				break;
			}
			return cli_bad_option(c, argv);
		}
	}
	if (optind < argc)
		return cli_usage_error("unexpected argument '%s'", argv[optind]);
	return 0;
}

int cpu_opts_choose(const struct cpu_opts *o, struct cpulist *ret)
{
	struct strbuf err = STRBUF_INIT;
	struct cpulist want;
	int r;

	if (o->cpus && cpulist_parse(o->cpus, strlen(o->cpus), &want, &err) < 0) {
		r = cli_usage_error("option '--cpus': '%s': %s", o->cpus, err.buf);
		sb_release(&err);
		return r;
	}
	r = sched_cpus_choose(getenv("STALLSCOPE_CPU_DIR"), o->cpus ? &want : NULL, ret, &err);
	if (r < 0)
		cli_error("%s", err.buf);
	sb_release(&err);
	return r < 0 ? 1 : 0;
}

static volatile sig_atomic_t stopped;

static void on_signal(int sig)
{
	stopped = sig;
}

uint64_t cpu_opts_run(const struct cpu_opts *o, uint64_t tick_ns,
		      void (*tick)(void *ctx, uint64_t t0, uint64_t now), void *ctx)
{
	struct sigaction sa = { 0 }, old_int, old_term;
	uint64_t t0 = sched_now_ns(), t_end = 0;

	stopped = 0;
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	if (o->duration_s > 0)
		t_end = t0 + (uint64_t)(o->duration_s * 1e9);
	while (!stopped) {
		uint64_t now = sched_now_ns(), until = now + tick_ns;

		if (t_end && now >= t_end)
			break;
		if (t_end && until > t_end)
			until = t_end;
		sched_sleep_until(until);
		if (tick)
			tick(ctx, t0, sched_now_ns());
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	return sched_now_ns() - t0;
}
