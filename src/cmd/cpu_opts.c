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

/* -t S: more than 0, or left out to run until Ctrl-C. */
static int take_duration(const struct opt *opt, const char *arg)
{
	struct cpu_opts *o = opt->value;

	if (cli_parse_double("-t", arg, 0, OPT_SECONDS_MAX, &o->duration_s) < 0)
		return -1;
	if (o->duration_s == 0)
		return cli_usage_error("option '-t': %s; give more than 0, or leave -t out to run "
				       "until Ctrl-C", o->zero_t) ? -1 : -1;
	return 0;
}

void cpu_opts_table(struct opt t[CPU_OPTS_N], struct cpu_opts *o, const char *interval_help,
		    const char *prio_help, const char *cpus_help, const char *json_help)
{
	const struct opt own[CPU_OPTS_N] = {
		OPT_DOUBLE('i', "interval", &o->interval_ms, "MS", 0.05, 3600e3, interval_help),
		OPT_CALLBACK('t', "duration", o, "S", "how long to run (default: until Ctrl-C)",
			     take_duration),
		OPT_INT('p', "priority", &o->prio, "N", 0, 99, prio_help),
		OPT_STRING(0, "cpus", &o->cpus, "LIST", cpus_help),
		OPT_BOOL(0, "json", &o->json, json_help),
		OPT_END(),
	};

	memcpy(t, own, sizeof(own));
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
