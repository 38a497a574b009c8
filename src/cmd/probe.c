// SPDX-License-Identifier: MIT
/*
 * probe.c: `stallscope probe`, timer wake-up latency per CPU.
 *
 * Runs the probe engine (linux/probe.h: a pinned SCHED_FIFO sleeper per CPU
 * on absolute deadlines) for -t seconds or until SIGINT, then prints per CPU
 * the wake-ups, their lateness (min, avg, p50, p99, p99.9, max), the counts
 * late by >= 1 ms, 10 ms, 100 ms, 1 s, a log2 histogram, every wake-up late
 * by >= --late-ms with its CLOCK_MONOTONIC time, and a clock pair so those
 * times can be put on a run's clock. docs/PROBE.md explains the numbers.
 * Its options and run are kick's too (cpu_opts.h).
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cmd/cmd.h"
#include "cmd/cpu_opts.h"
#include "core/cpulist.h"
#include "core/grow.h"
#include "core/hdrhist.h"
#include "core/strbuf.h"
#include "linux/probe.h"
#include "linux/sched.h"
#include "out/json.h"
#include "out/table.h"

struct probe_env {
	struct cpu_opts c;	/* -i, -t, -p, --cpus, --json */
	double late_ms;
	bool mlock;
};

/* The late wake-ups collected from the engine's callback. */
struct late_list {
	struct probe_late *v;
	size_t n, alloc;
	bool enomem;
};


static const struct opts_help probe_help = {
	"usage: stallscope probe [-i MS] [-t S] [-p PRIO] [--cpus LIST] [--late-ms MS] [--json]\n"
	"\n"
	"Measures how late timer wake-ups are on each CPU: one thread pinned per CPU,\n"
	"SCHED_FIFO, sleeping to absolute CLOCK_MONOTONIC deadlines (as cyclictest).\n"
	"A CPU that sleeps through its timer interrupt shows up as wake-ups late by\n"
	"many milliseconds.\n"
	"\n",
	"examples:\n"
	"  sudo stallscope probe -t 120              # two minutes on every CPU\n"
	"  sudo stallscope probe -t 30 --cpus 2,3 --late-ms 1\n"
	"  sudo stallscope probe -t 60 --json > probe.json\n",
};

static void collect_late(void *ctx, const struct probe_late *w)
{
	struct late_list *l = ctx;

	if (ARRAY_GROW(l->v, l->alloc, l->n + 1) < 0) {
		l->enomem = true;
		return;
	}
	l->v[l->n++] = *w;
}

static int cmp_late(const void *a, const void *b)
{
	const struct probe_late *x = a, *y = b;

	if (x->t_mono_ns != y->t_mono_ns)
		return x->t_mono_ns < y->t_mono_ns ? -1 : 1;
	return x->cpu - y->cpu;
}

static double us(double ns)
{
	return ns / 1000.0;
}

/* The policy words of every CPU: "SCHED_FIFO priority 50", or why not. */
static void describe_policy(const struct probe *p, const struct probe_env *env,
			    struct strbuf *sb)
{
	size_t i, nfifo = 0;
	int err = 0;

	for (i = 0; i < probe_ncpus(p); i++) {
		if (probe_cpu(p, i)->fifo)
			nfifo++;
		else if (probe_cpu(p, i)->fifo_err)
			err = probe_cpu(p, i)->fifo_err;
	}
	if (env->c.prio == 0)
		sb_adds(sb, "SCHED_OTHER (asked for)");
	else if (nfifo == probe_ncpus(p))
		sb_addf(sb, "SCHED_FIFO priority %d", env->c.prio);
	else
		sb_addf(sb, "SCHED_OTHER (SCHED_FIFO refused: %s)", strerror(-err));
}

static void print_text(const struct probe *p, const struct probe_env *env,
		       const struct late_list *late, const struct cpulist *cpus,
		       const struct rec_clock *clk, double wall_s, uint64_t own_cpu_ns,
		       uint64_t proc_cpu_ns)
{
	static const char *const head[] = { "cpu", "policy", "wakeups", "missed", "min_us",
		"avg_us", "p50_us", "p99_us", "p99.9_us", "max_us", ">=1ms", ">=10ms",
		">=100ms", ">=1s" };
	struct strbuf sb = STRBUF_INIT, pol = STRBUF_INIT;
	struct table *t;
	size_t i, n = probe_ncpus(p), empty = 0;
	int lo = HDRHIST_LOG2_N, hi = -1, b, lock = probe_lock_result(p);
	uint64_t dropped = 0;

	cpulist_format(cpus, &sb);
	describe_policy(p, env, &pol);
	printf("# stallscope probe: cpus %s, interval %.3f ms, %.2f s, %s, memory %s\n", sb.buf,
	       env->c.interval_ms, wall_s, pol.buf,
	       lock == 0 ? "locked" : lock == 1 ? "not locked (--no-mlock)" : "not locked");
	sb_release(&sb);
	sb_release(&pol);

	t = table_new(sizeof(head) / sizeof(head[0]), head);
	if (!t)
		return;
	for (i = 0; i < n; i++) {
		const struct probe_cpu *c = probe_cpu(p, i);
		const struct hdrhist *h = &c->hist;
		double nan = h->n ? 0 : NAN;

		table_addf(t, "%d", c->cpu);
		table_add(t, c->fifo ? "fifo" : "other");
		table_addf(t, "%llu", (unsigned long long)h->n);
		table_addf(t, "%llu", (unsigned long long)c->missed);
		table_add_num(t, nan + us((double)h->min_ns), 1);
		table_add_num(t, us(hdrhist_avg_ns(h)), 1);
		table_add_num(t, us(hdrhist_quantile_ns(h, 0.5)), 1);
		table_add_num(t, us(hdrhist_quantile_ns(h, 0.99)), 1);
		table_add_num(t, us(hdrhist_quantile_ns(h, 0.999)), 1);
		table_add_num(t, nan + us((double)h->max_ns), 1);
		for (b = 0; b < HDRHIST_NTHRESH; b++)
			table_addf(t, "%llu", (unsigned long long)h->over[b]);
		for (b = 0; b < HDRHIST_LOG2_N; b++) {
			if (h->log2[b] && b < lo)
				lo = b;
			if (h->log2[b] && b > hi)
				hi = b;
		}
		if (!h->n)
			empty++;
		dropped += c->dropped;
	}
	table_print(t, stdout);
	table_free(t);
	if (empty)
		printf("# '-': no wake-up measured on %zu cpu(s) (stopped before the first deadline)\n",
		       empty);

	if (hi >= 0) {
		const char **hh = calloc(n + 1, sizeof(*hh));
		char (*names)[24] = calloc(n, sizeof(*names));

		if (hh && names) {
			hh[0] = "lateness_us";
			for (i = 0; i < n; i++) {
				snprintf(names[i], sizeof(names[i]), "cpu%d", probe_cpu(p, i)->cpu);
				hh[i + 1] = names[i];
			}
			t = table_new(n + 1, hh);
			for (b = lo; t && b <= hi; b++) {
				uint64_t blo, bhi;

				hdrhist_log2_bounds(b, &blo, &bhi);
				if (bhi)
					table_addf(t, "%llu-%llu", (unsigned long long)blo,
						   (unsigned long long)bhi);
				else
					table_addf(t, ">=%llu", (unsigned long long)blo);
				for (i = 0; i < n; i++)
					table_addf(t, "%llu", (unsigned long long)
						   probe_cpu(p, i)->hist.log2[b]);
			}
			printf("\n# histogram: wake-ups by lateness in us, log2 buckets [lo, hi)\n");
			if (t)
				table_print(t, stdout);
			table_free(t);
		}
		free(hh);
		free(names);
	}

	printf("\n");
	if (late->n == 0) {
		printf("# no wake-up was late by %g ms or more\n", env->late_ms);
	} else {
		static const char *const lh[] = { "t_mono_s", "cpu", "late_us" };

		printf("# late wake-ups (>= %g ms): CLOCK_MONOTONIC time of the wake-up\n",
		       env->late_ms);
		t = table_new(3, lh);
		for (i = 0; t && i < late->n; i++) {
			table_addf(t, "%.6f", late->v[i].t_mono_ns / 1e9);
			table_addf(t, "%d", late->v[i].cpu);
			table_addf(t, "%.1f", us((double)late->v[i].late_ns));
		}
		if (t)
			table_print(t, stdout);
		table_free(t);
	}
	if (dropped)
		printf("# %llu late wake-ups not listed (queue full)\n", (unsigned long long)dropped);
	printf("# clock monotonic=%llu.%09llu realtime=%llu.%09llu\n",
	       (unsigned long long)(clk->mono_ns / 1000000000u),
	       (unsigned long long)(clk->mono_ns % 1000000000u),
	       (unsigned long long)(clk->real_ns / 1000000000u),
	       (unsigned long long)(clk->real_ns % 1000000000u));
	printf("# cost: probe threads %.1f ms cpu, whole process %.1f ms, in %.2f s (%.3f %% of one cpu)\n",
	       own_cpu_ns / 1e6, proc_cpu_ns / 1e6, wall_s,
	       wall_s > 0 ? proc_cpu_ns / 1e9 / wall_s * 100 : NAN);
}

static void print_json(const struct probe *p, const struct probe_env *env,
		       const struct late_list *late, const struct rec_clock *clk, double wall_s,
		       uint64_t own_cpu_ns, uint64_t proc_cpu_ns)
{
	struct json j;
	size_t i, k;
	int b, lock = probe_lock_result(p);

	json_init(&j, stdout, true);
	json_obj_begin(&j);
	json_knumf(&j, "interval_ms", env->c.interval_ms, 3);
	json_knumf(&j, "duration_s", wall_s, 3);
	json_kint(&j, "priority", env->c.prio);
	json_knumf(&j, "late_ms", env->late_ms, 3);
	json_kbool(&j, "memory_locked", lock == 0);
	json_key(&j, "cpus");
	json_arr_begin(&j);
	for (i = 0; i < probe_ncpus(p); i++) {
		const struct probe_cpu *c = probe_cpu(p, i);
		const struct hdrhist *h = &c->hist;
		double nan = h->n ? 0 : NAN;

		json_obj_begin(&j);
		json_kint(&j, "cpu", c->cpu);
		json_kstr(&j, "policy", c->fifo ? "fifo" : "other");
		json_kuint(&j, "wakeups", h->n);
		json_kuint(&j, "missed", c->missed);
		json_knumf(&j, "min_us", nan + us((double)h->min_ns), 3);
		json_knumf(&j, "avg_us", us(hdrhist_avg_ns(h)), 3);
		json_knumf(&j, "p50_us", us(hdrhist_quantile_ns(h, 0.5)), 3);
		json_knumf(&j, "p99_us", us(hdrhist_quantile_ns(h, 0.99)), 3);
		json_knumf(&j, "p999_us", us(hdrhist_quantile_ns(h, 0.999)), 3);
		json_knumf(&j, "max_us", nan + us((double)h->max_ns), 3);
		json_kuint(&j, "late_1ms", h->over[0]);
		json_kuint(&j, "late_10ms", h->over[1]);
		json_kuint(&j, "late_100ms", h->over[2]);
		json_kuint(&j, "late_1s", h->over[3]);
		json_kuint(&j, "late_dropped", c->dropped);
		json_key(&j, "hist");
		json_arr_begin(&j);
		for (b = 0; b < HDRHIST_LOG2_N; b++) {
			uint64_t blo, bhi;

			if (!h->log2[b])
				continue;
			hdrhist_log2_bounds(b, &blo, &bhi);
			json_obj_begin(&j);
			json_kuint(&j, "lo_us", blo);
			if (bhi)
				json_kuint(&j, "hi_us", bhi);
			else
				json_knull(&j, "hi_us");
			json_kuint(&j, "count", h->log2[b]);
			json_obj_end(&j);
		}
		json_arr_end(&j);
		json_key(&j, "late");
		json_arr_begin(&j);
		for (k = 0; k < late->n; k++) {
			if (late->v[k].cpu != c->cpu)
				continue;
			json_obj_begin(&j);
			json_knumf(&j, "t_mono", late->v[k].t_mono_ns / 1e9, 6);
			json_knumf(&j, "late_us", us((double)late->v[k].late_ns), 1);
			json_obj_end(&j);
		}
		json_arr_end(&j);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_key(&j, "clock");
	json_obj_begin(&j);
	json_kuint(&j, "mono_ns", clk->mono_ns);
	json_kuint(&j, "real_ns", clk->real_ns);
	json_obj_end(&j);
	json_knumf(&j, "probe_cpu_ms", own_cpu_ns / 1e6, 3);
	json_knumf(&j, "process_cpu_ms", proc_cpu_ns / 1e6, 3);
	json_obj_end(&j);
	json_end(&j);
}

/* While it runs: the engine's late wake-ups drained, and on a terminal
 * every 10 s how far it is. */
struct probe_run {
	struct probe *p;
	const struct probe_env *env;
	bool tty;
	uint64_t next_progress;
};

static void probe_tick(void *ctx, uint64_t t0, uint64_t now)
{
	struct probe_run *pr = ctx;
	const struct probe_env *env = pr->env;
	uint64_t n, max, nlate;

	probe_poll(pr->p);
	if (!pr->tty || now < (pr->next_progress ? pr->next_progress : t0 + 10000000000u))
		return;
	probe_progress(pr->p, &n, &max, &nlate);
	if (env->c.duration_s > 0)
		fprintf(stderr, "%s: %.0f s of %g s, %llu wake-ups, worst %.3f ms, %llu late by >= "
			"%g ms\n", cli_prog, (now - t0) / 1e9, env->c.duration_s,
			(unsigned long long)n, max / 1e6, (unsigned long long)nlate, env->late_ms);
	else
		fprintf(stderr, "%s: %.0f s (Ctrl-C stops), %llu wake-ups, worst %.3f ms, %llu late "
			"by >= %g ms\n", cli_prog, (now - t0) / 1e9, (unsigned long long)n,
			max / 1e6, (unsigned long long)nlate, env->late_ms);
	pr->next_progress = now + 10000000000u;
}

/* Says what the probe could not get: SCHED_FIFO, locked memory. */
static void say_refused(const struct probe *p, const struct probe_env *env)
{
	for (size_t i = 0; i < probe_ncpus(p); i++) {
		const struct probe_cpu *pc = probe_cpu(p, i);

		if (env->c.prio > 0 && !pc->fifo) {
			cli_warn("SCHED_FIFO refused (%s): probing at SCHED_OTHER, where any busy "
				 "task delays the probe; run as root for real-time numbers",
				 strerror(-pc->fifo_err));
			break;
		}
	}
	if (probe_lock_result(p) < 0)
		cli_warn("memory not locked (%s): a page fault may show up as lateness",
			 strerror(-probe_lock_result(p)));
}

int cmd_probe(int argc, char **argv)
{
	struct probe_env env = {
		.c = { .interval_ms = 1.37, .prio = 50, .zero_t = "a probe of 0 s measures nothing" },
		.late_ms = 10,
	};
	bool no_mlock = false;
	struct opt ct[CPU_OPTS_N];
	const struct opt opts[] = {
		OPT_CONCAT(ct),
		OPT_DOUBLE(0, "late-ms", &env.late_ms, "MS", 0.001, 1e7,
			   "list every wake-up late by at least this (default 10)"),
		OPT_BOOL(0, "no-mlock", &no_mlock, "do not lock memory (mlockall)"),
		OPT_END(),
	};
	struct late_list late = { 0 };
	struct strbuf err = STRBUF_INIT, sb = STRBUF_INIT;
	struct cpulist cpus;
	struct probe_opts po = { 0 };
	struct probe_run pr = { .env = &env };
	struct rec_clock clk;
	uint64_t proc0, own_ns = 0;
	double wall_s;
	int r, ret = 1;

	cpu_opts_table(ct, &env.c, "period between deadlines (default 1.37, uneven against the tick)",
		       "SCHED_FIFO priority 1-99, 0 for SCHED_OTHER (default 50)",
		       "the CPUs to probe, e.g. 0-3,5 (default: every online CPU)",
		       "print the results as JSON");
	r = opts_parse(argc, argv, opts, &probe_help, 0);
	if (r < 0)
		return opts_exit(r);
	if (r < argc)
		return cli_usage_error("unexpected argument '%s'", argv[r]);
	env.mlock = !no_mlock;
	r = cpu_opts_choose(&env.c, &cpus);
	if (r)
		return r;
	po.cpus = cpus;
	po.interval_ns = (uint64_t)(env.c.interval_ms * 1e6 + 0.5);
	po.prio = (int)env.c.prio;
	po.late_ns = (uint64_t)(env.late_ms * 1e6 + 0.5);
	po.lock_memory = env.mlock;
	po.on_late = collect_late;
	po.ctx = &late;

	proc0 = sched_process_cpu_ns();
	r = probe_start(&po, &pr.p, &err);
	if (r < 0) {
		cli_error("%s", err.len ? err.buf : strerror(-r));
		goto out;
	}
	say_refused(pr.p, &env);
	sched_clock_pair(&clk);
	pr.tty = isatty(STDERR_FILENO);
	if (pr.tty) {
		cpulist_format(&cpus, &sb);
		if (env.c.duration_s > 0)
			fprintf(stderr, "%s: probing cpus %s for %g s\n", cli_prog, sb.buf,
				env.c.duration_s);
		else
			fprintf(stderr, "%s: probing cpus %s until Ctrl-C\n", cli_prog, sb.buf);
	}
	wall_s = cpu_opts_run(&env.c, 100000000u, probe_tick, &pr) / 1e9;
	probe_stop(pr.p);
	if (late.enomem) {
		cli_error("out of memory while listing late wake-ups");
		goto out;
	}
	for (size_t i = 0; i < probe_ncpus(pr.p); i++)
		own_ns += probe_cpu(pr.p, i)->cpu_ns;
	if (late.n)
		qsort(late.v, late.n, sizeof(*late.v), cmp_late);
	if (env.c.json)
		print_json(pr.p, &env, &late, &clk, wall_s, own_ns, sched_process_cpu_ns() - proc0);
	else
		print_text(pr.p, &env, &late, &cpus, &clk, wall_s, own_ns,
			   sched_process_cpu_ns() - proc0);
	ret = 0;
out:
	probe_free(pr.p);
	free(late.v);
	sb_release(&err);
	sb_release(&sb);
	return ret;
}
