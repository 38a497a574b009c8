// SPDX-License-Identifier: MIT
/*
 * kick.c: `stallscope kick`, the stopgap against lost timer interrupts: a
 * cross-CPU wake-up to each chosen CPU every period (--mode kick), or a bare
 * sleeper at that period (--mode sleep) to compare with. Runs the kick
 * engine (linux/kick.h) for -t seconds or until SIGINT and prints what it
 * did and its own CPU cost. Its options and run are probe's too
 * (cpu_opts.h).
 */
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmd/cmd.h"
#include "cmd/cpu_opts.h"
#include "core/cpulist.h"
#include "core/hdrhist.h"
#include "core/strbuf.h"
#include "linux/kick.h"
#include "linux/sched.h"
#include "out/json.h"
#include "out/table.h"

struct kick_env {
	struct cpu_opts c;	/* -i (required), -t, -p, --cpus, --json */
	enum kick_mode mode;
};

static const struct opts_help kick_help = {
	"usage: stallscope kick -i MS [-t S] [--cpus LIST] [--mode kick|sleep] [-p PRIO] [--json]\n"
	"\n"
	"A stopgap against lost timer interrupts: every MS milliseconds a thread on\n"
	"another CPU wakes a thread pinned on each chosen CPU (an inter-processor\n"
	"interrupt), so no CPU sleeps through its timer for longer than a period.\n"
	"--mode sleep runs a bare unpinned sleeper at that period instead. Prints\n"
	"its own CPU cost at the end.\n"
	"\n",
	"examples:\n"
	"  stallscope kick -i 10                 # until Ctrl-C, every CPU, every 10 ms\n"
	"  stallscope kick -i 4 -t 600 --cpus 1-3\n"
	"  stallscope kick -i 10 -t 60 --mode sleep --json\n",
};

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
	if (env->c.json) {
		struct json j;

		json_init(&j, stdout, true);
		json_obj_begin(&j);
		json_kstr(&j, "mode", mode);
		json_knumf(&j, "interval_ms", env->c.interval_ms, 3);
		if (env->mode == KICK_KICK)
			json_kstr(&j, "cpus", sb.buf);
		else
			json_knull(&j, "cpus");
		if (r->kicker_cpu >= 0)
			json_kint(&j, "kicker_cpu", r->kicker_cpu);
		else
			json_knull(&j, "kicker_cpu");
		json_kstr(&j, "policy", policy);
		json_kint(&j, "priority", env->c.prio);
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
			       sb.buf, env->c.interval_ms, r->kicker_cpu, policy, wall_s);
		else if (env->mode == KICK_KICK)
			printf("# stallscope kick: cpus %s every %.3f ms from an unpinned kicker "
			       "(no CPU outside the set), %s, %.2f s\n",
			       sb.buf, env->c.interval_ms, policy, wall_s);
		else
			printf("# stallscope kick: a sleeper every %.3f ms, %s, %.2f s\n",
			       env->c.interval_ms, policy, wall_s);
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


static int kick_option(const struct opt *opt, const char *arg)
{
	struct kick_env *env = opt->value;

	if (!strcmp(arg, "kick"))
		env->mode = KICK_KICK;
	else if (!strcmp(arg, "sleep"))
		env->mode = KICK_SLEEP;
	else
		return opts_error("option '--mode': expected 'kick' or 'sleep', got '%s'",
				       arg);
	return 0;
}

/* On a terminal: what it does, for how long. */
static void say_start(const struct kick_env *env, const struct cpulist *cpus)
{
	struct strbuf sb = STRBUF_INIT;

	if (!isatty(STDERR_FILENO))
		return;
	cpulist_format(cpus, &sb);
	if (env->mode == KICK_KICK)
		fprintf(stderr, "%s: kicking cpus %s every %g ms", cli_prog, sb.buf,
			env->c.interval_ms);
	else
		fprintf(stderr, "%s: a sleeper every %g ms", cli_prog, env->c.interval_ms);
	if (env->c.duration_s > 0)
		fprintf(stderr, " for %g s\n", env->c.duration_s);
	else
		fprintf(stderr, " until Ctrl-C\n");
	sb_release(&sb);
}

int cmd_kick(int argc, char **argv)
{
	struct kick_env env = { .c = { .zero_t = "0 s does nothing" }, .mode = KICK_KICK };
	struct opt ct[CPU_OPTS_N];
	const struct opt opts[] = {
		OPT_CONCAT(ct),
		OPT_CALLBACK(0, "mode", &env, "MODE", "kick (default) or sleep", kick_option),
		OPT_END(),
	};
	struct strbuf err = STRBUF_INIT;
	struct cpulist cpus;
	struct kick_opts ko = { 0 };
	struct kick *k = NULL;
	struct kick_result *res = NULL;
	uint64_t proc0;
	int r, ret = 1;

	cpu_opts_table(ct, &env.c, "the period (required)",
		       "SCHED_FIFO priority 1-99 of its threads (default 0: SCHED_OTHER)",
		       "the CPUs to kick, e.g. 0-3 (default: every online CPU)",
		       "print the summary as JSON");
	r = opts_parse(argc, argv, opts, &kick_help, 0);
	if (r < 0)
		return opts_exit(r);
	if (r < argc)
		return cli_usage_error("unexpected argument '%s'", argv[r]);
	if (env.c.interval_ms == 0)
		return cli_usage_error("option '-i' is required: the period in ms");
	if (env.c.cpus && env.mode == KICK_SLEEP)
		return cli_usage_error("option '--cpus': a sleeper is unpinned; --cpus goes with "
				       "--mode kick");
	r = cpu_opts_choose(&env.c, &cpus);
	if (r)
		return r;
	ko.mode = env.mode;
	ko.cpus = cpus;
	ko.interval_ns = (uint64_t)(env.c.interval_ms * 1e6 + 0.5);
	ko.prio = (int)env.c.prio;

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
	say_start(&env, &cpus);
	cpu_opts_run(&env.c, 200000000u, NULL, NULL);
	kick_stop(k, res);
	if (env.c.prio > 0 && !res->fifo)
		cli_warn("SCHED_FIFO refused (%s): ran at SCHED_OTHER", strerror(-res->fifo_err));
	print_result(&env, res, &cpus, sched_process_cpu_ns() - proc0);
	ret = 0;
out:
	kick_free(k);
	free(res);
	sb_release(&err);
	return ret;
}
