// SPDX-License-Identifier: MIT
/*
 * kick.c: `stallscope kick`, the stopgap against lost timer interrupts: a
 * cross-CPU wake-up to each chosen CPU every period (--mode kick), or a bare
 * sleeper at that period (--mode sleep) to compare with. Runs the kick
 * engine (linux/kick.h) for -t seconds or until SIGINT and prints what it
 * did and its own CPU cost. STALLSCOPE_CPU_DIR as in probe.c.
 */
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmd/cmd.h"
#include "core/cpulist.h"
#include "core/hdrhist.h"
#include "core/strbuf.h"
#include "linux/kick.h"
#include "linux/sched.h"
#include "out/json.h"
#include "out/table.h"

struct kick_env {
	double interval_ms;	/* 0: not given */
	double duration_s;	/* 0: until SIGINT */
	long prio;
	const char *cpus;
	enum kick_mode mode;
	bool json;
};

static const struct kick_env kick_defaults = {
	.interval_ms = 0,
	.duration_s = 0,
	.prio = 0,
	.cpus = NULL,
	.mode = KICK_KICK,
	.json = false,
};

static volatile sig_atomic_t kick_interrupted;

static void on_signal(int sig)
{
	kick_interrupted = sig;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: stallscope kick -i MS [-t S] [--cpus LIST] [--mode kick|sleep] [-p PRIO] [--json]\n"
		"\n"
		"A stopgap against lost timer interrupts: every MS milliseconds a thread on\n"
		"another CPU wakes a thread pinned on each chosen CPU (an inter-processor\n"
		"interrupt), so no CPU sleeps through its timer for longer than a period.\n"
		"--mode sleep runs a bare unpinned sleeper at that period instead. Prints\n"
		"its own CPU cost at the end.\n"
		"\n"
		"options:\n"
		"  -i, --interval MS   the period (required)\n"
		"  -t, --duration S    how long to run (default: until Ctrl-C)\n"
		"      --cpus LIST     the CPUs to kick, e.g. 0-3 (default: every online CPU)\n"
		"      --mode MODE     kick (default) or sleep\n"
		"  -p, --priority N    SCHED_FIFO priority 1-99 of its threads (default 0: SCHED_OTHER)\n"
		"      --json          print the summary as JSON\n"
		"  -h, --help          this text\n"
		"\n"
		"examples:\n"
		"  stallscope kick -i 10                 # until Ctrl-C, every CPU, every 10 ms\n"
		"  stallscope kick -i 4 -t 600 --cpus 1-3\n"
		"  stallscope kick -i 10 -t 60 --mode sleep --json\n");
}

static void print_result(const struct kick_env *env, const struct kick_result *r,
			 const struct cpulist *cpus, uint64_t proc_cpu_ns)
{
	double wall_s = r->wall_ns / 1e9;
	double pct = wall_s > 0 ? r->cpu_ns / 1e9 / wall_s * 100 : NAN;
	const char *mode = env->mode == KICK_KICK ? "kick" : "sleep";
	const char *policy = r->fifo ? "fifo" : "other";
	struct strbuf sb = STRBUF_INIT;
	double late_max = r->late.n ? r->late.max_ns / 1e3 : NAN;

	cpulist_format(cpus, &sb);
	if (env->json) {
		struct json j;

		json_init(&j, stdout, true);
		json_obj_begin(&j);
		json_kstr(&j, "mode", mode);
		json_knumf(&j, "interval_ms", env->interval_ms, 3);
		if (env->mode == KICK_KICK)
			json_kstr(&j, "cpus", sb.buf);
		else
			json_knull(&j, "cpus");
		if (r->kicker_cpu >= 0)
			json_kint(&j, "kicker_cpu", r->kicker_cpu);
		else
			json_knull(&j, "kicker_cpu");
		json_kstr(&j, "policy", policy);
		json_kint(&j, "priority", env->prio);
		json_knumf(&j, "duration_s", wall_s, 3);
		json_kuint(&j, "periods", r->periods);
		json_kuint(&j, "missed", r->missed);
		json_kuint(&j, "wakeups", r->wakeups);
		json_knumf(&j, "late_max_us", late_max, 1);
		json_knumf(&j, "cpu_ms", r->cpu_ns / 1e6, 3);
		json_knumf(&j, "cpu_pct", pct, 4);
		json_knumf(&j, "process_cpu_ms", proc_cpu_ns / 1e6, 3);
		json_obj_end(&j);
		json_end(&j);
	} else {
		static const char *const head[] = { "mode", "periods", "missed", "wakeups",
			"late_max_us", "cpu_ms", "cpu_%" };
		struct table *t = table_new(7, head);

		if (env->mode == KICK_KICK && r->kicker_cpu >= 0)
			printf("# stallscope kick: cpus %s every %.3f ms from cpu %d, %s, %.2f s\n",
			       sb.buf, env->interval_ms, r->kicker_cpu, policy, wall_s);
		else if (env->mode == KICK_KICK)
			printf("# stallscope kick: cpus %s every %.3f ms from an unpinned kicker "
			       "(no CPU outside the set), %s, %.2f s\n",
			       sb.buf, env->interval_ms, policy, wall_s);
		else
			printf("# stallscope kick: a sleeper every %.3f ms, %s, %.2f s\n",
			       env->interval_ms, policy, wall_s);
		if (t) {
			table_add(t, mode);
			table_addf(t, "%llu", (unsigned long long)r->periods);
			table_addf(t, "%llu", (unsigned long long)r->missed);
			if (env->mode == KICK_KICK)
				table_addf(t, "%llu", (unsigned long long)r->wakeups);
			else
				table_add(t, NULL);
			table_add_num(t, late_max, 1);
			table_add_num(t, r->cpu_ns / 1e6, 1);
			table_add_num(t, pct, 3);
			table_print(t, stdout);
			table_free(t);
		}
		if (env->mode == KICK_SLEEP)
			printf("# wakeups '-': a sleeper wakes no other thread\n");
		printf("# cost: its threads %.1f ms cpu (%.3f %% of one cpu), whole process %.1f ms\n",
		       r->cpu_ns / 1e6, pct, proc_cpu_ns / 1e6);
	}
	sb_release(&sb);
}

int cmd_kick(int argc, char **argv)
{
	enum { OPT_CPUS = 256, OPT_MODE, OPT_JSON };
	static const struct option longopts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "duration", required_argument, NULL, 't' },
		{ "priority", required_argument, NULL, 'p' },
		{ "cpus", required_argument, NULL, OPT_CPUS },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct kick_env env = kick_defaults;
	struct strbuf err = STRBUF_INIT;
	struct cpulist want, cpus;
	struct kick_opts ko = { 0 };
	struct kick *k = NULL;
	struct kick_result *res = NULL;
	struct sigaction sa = { 0 }, old_int, old_term;
	uint64_t t0, t_end = 0, proc0;
	int c, r, ret = 1;

	optind = 1;
	while ((c = getopt_long(argc, argv, ":i:t:p:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (cli_parse_double("-i", optarg, 0.05, 3600e3, &env.interval_ms) < 0)
				return EXIT_USAGE;
			break;
		case 't':
			if (cli_parse_double("-t", optarg, 0, 1e7, &env.duration_s) < 0)
				return EXIT_USAGE;
			if (env.duration_s == 0)
				return cli_usage_error("option '-t': 0 s does nothing; give more than 0, "
						       "or leave -t out to run until Ctrl-C");
			break;
		case 'p':
			if (cli_parse_int("-p", optarg, 0, 99, &env.prio) < 0)
				return EXIT_USAGE;
			break;
		case OPT_CPUS:
			env.cpus = optarg;
			break;
		case OPT_MODE:
			if (!strcmp(optarg, "kick"))
				env.mode = KICK_KICK;
			else if (!strcmp(optarg, "sleep"))
				env.mode = KICK_SLEEP;
			else
				return cli_usage_error("option '--mode': expected 'kick' or 'sleep', got '%s'",
						       optarg);
			break;
		case OPT_JSON:
			env.json = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return cli_bad_option(c, argv);
		}
	}
	if (optind < argc)
		return cli_usage_error("unexpected argument '%s'", argv[optind]);
	if (env.interval_ms == 0)
		return cli_usage_error("option '-i' is required: the period in ms");
	if (env.cpus && env.mode == KICK_SLEEP)
		return cli_usage_error("option '--cpus': a sleeper is unpinned; --cpus goes with --mode kick");
	if (env.cpus && cpulist_parse(env.cpus, strlen(env.cpus), &want, &err) < 0) {
		r = cli_usage_error("option '--cpus': '%s': %s", env.cpus, err.buf);
		sb_release(&err);
		return r;
	}
	r = sched_cpus_choose(getenv("STALLSCOPE_CPU_DIR"), env.cpus ? &want : NULL, &cpus, &err);
	if (r < 0) {
		cli_error("%s", err.buf);
		sb_release(&err);
		return 1;
	}
	ko.mode = env.mode;
	ko.cpus = cpus;
	ko.interval_ns = (uint64_t)(env.interval_ms * 1e6 + 0.5);
	ko.prio = (int)env.prio;

	kick_interrupted = 0;
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);

	res = malloc(sizeof(*res));
	if (!res) {
		cli_error("out of memory");
		goto out;
	}
	proc0 = sched_process_cpu_ns();
	r = kick_start(&ko, &k, &err);
	if (r < 0) {
		cli_error("%s", err.len ? err.buf : strerror(-r));
		goto out;
	}
	t0 = sched_now_ns();
	if (isatty(STDERR_FILENO)) {
		struct strbuf sb = STRBUF_INIT;

		cpulist_format(&cpus, &sb);
		if (env.mode == KICK_KICK)
			fprintf(stderr, "%s: kicking cpus %s every %g ms", cli_prog, sb.buf,
				env.interval_ms);
		else
			fprintf(stderr, "%s: a sleeper every %g ms", cli_prog, env.interval_ms);
		if (env.duration_s > 0)
			fprintf(stderr, " for %g s\n", env.duration_s);
		else
			fprintf(stderr, " until Ctrl-C\n");
		sb_release(&sb);
	}
	if (env.duration_s > 0)
		t_end = t0 + (uint64_t)(env.duration_s * 1e9);
	while (!kick_interrupted) {
		uint64_t now = sched_now_ns(), until = now + 200000000u;

		if (t_end && now >= t_end)
			break;
		if (t_end && until > t_end)
			until = t_end;
		sched_sleep_until(until);
	}
	kick_stop(k, res);
	if (env.prio > 0 && !res->fifo)
		cli_warn("SCHED_FIFO refused (%s): ran at SCHED_OTHER", strerror(-res->fifo_err));
	print_result(&env, res, &cpus, sched_process_cpu_ns() - proc0);
	ret = 0;
out:
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	kick_free(k);
	free(res);
	sb_release(&err);
	return ret;
}
