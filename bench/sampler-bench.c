// SPDX-License-Identifier: MIT
/*
 * sampler-bench.c: what one sample of src/linux/sampler costs, side by side
 * with a naive sampler, and whether gating vmstat keeps it exact.
 *
 * It starts a target (a "game": a main thread that works ~3 ms per 16.7 ms
 * frame and sleeps, plus --threads idle or --busy spinning threads), opens
 * four samplers on it and, every period (sleeping to absolute deadlines),
 * takes one sample with each, in a rotating order so none always goes first:
 *
 *   gated      the sampler as the recorder uses it (kept-open files, pread,
 *              cheap signals gating vmstat and the like)
 *   kept-open  the same files, kept open, but every source read every sample
 *   naive      the same files opened, read with stdio and closed every sample
 *   exact      exact mode (linux/exact.h): the sampled threads from the BPF
 *              program's counters and ring instead of /proc (root; left out
 *              where it cannot load, saying why)
 *   profiled   as gated, with per-source timing (its own time is not shown)
 *
 * It prints the median, p99 and mean wall time per sample (us) of each over
 * the samples it took first after the wake-up (one in four: the kernel code
 * of each kind of read is cold then, as in the recorder, and a read costs
 * several times what it costs right after another sampler did the same),
 * the median over all samples beside it, the ratio of the first-after-wake-up
 * medians, the per-source cost (us per read), the kept-open sampler's check
 * of the wchan and syscall gates (reads a gate would skip whose value had
 * moved), and the vmstat gate's
 * check: from the kept-open sampler's values (vmstat read every sample) it
 * replays the gate's decision and counts samples where a vm.* counter moved
 * while the gate would have skipped the read (the value would have been one
 * or more samples late). --pressure adds a process that pushes a file's pages
 * out (MADV_PAGEOUT) and faults them back in, so that the vm counters move.
 *
 * Usage: sampler-bench [--samples N] [--period-ms P] [--threads K] [--busy K]
 *                      [--pressure] [--pid PID]
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/strbuf.h"
#include "linux/exact.h"
#include "linux/sampler.h"

enum { S_GATED, S_KEPT, S_NAIVE, S_EXACT, S_PROF, S_N };
static const char *const s_names[S_N] = {"gated", "kept-open", "naive", "exact", "profiled"};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---------------------------------------------------------------- interning */

static char **strs;
static uint32_t nstrs, astrs;

static uint32_t intern(void *ctx, const char *s)
{
	(void)ctx;
	if (!s || !*s)
		return 0;
	for (uint32_t i = 0; i < nstrs; i++)
		if (strcmp(strs[i], s) == 0)
			return i + 1;
	if (nstrs == astrs) {
		uint32_t a = astrs ? 2 * astrs : 64;
		char **n = realloc(strs, a * sizeof(*n));

		if (!n)
			return 0;
		strs = n;
		astrs = a;
	}
	strs[nstrs] = strdup(s);
	return strs[nstrs] ? ++nstrs : 0;
}

/* ---------------------------------------------------------------- target */

static volatile int spin_stop;

static void *spinner(void *arg)
{
	(void)arg;
	while (!spin_stop)
		;
	return NULL;
}

static void *idler(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static void burn_ns(uint64_t ns)
{
	uint64_t end = now_ns() + ns;

	while (now_ns() < end)
		;
}

/* The target: a frame loop at 60 fps, ~3 ms of work a frame. */
static pid_t start_target(int idle, int busy)
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	for (int i = 0; i < idle; i++) {
		pthread_t t;

		pthread_create(&t, NULL, idler, NULL);
	}
	for (int i = 0; i < busy; i++) {
		pthread_t t;

		pthread_create(&t, NULL, spinner, NULL);
	}
	{
		struct timespec next;

		clock_gettime(CLOCK_MONOTONIC, &next);
		for (;;) {
			burn_ns(3000000);
			next.tv_nsec += 16666667;
			if (next.tv_nsec >= 1000000000) {
				next.tv_nsec -= 1000000000;
				next.tv_sec++;
			}
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		}
	}
	_exit(0);
}

/* Memory activity: a file's pages pushed out and faulted back in, 4 MiB
 * every 250 ms, in a process of its own (not the target). */
static pid_t start_pressure(const char *dir)
{
	pid_t pid = fork();
	char path[4096];
	size_t size = 4u << 20;
	char *p;
	int fd;

	if (pid != 0)
		return pid;
	snprintf(path, sizeof(path), "%s/sampler-bench.XXXXXX", dir);
	fd = mkstemp(path);
	if (fd < 0 || ftruncate(fd, (off_t)size) < 0)
		_exit(1);
	unlink(path);
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		_exit(1);
	memset(p, 1, size);
	msync(p, size, MS_SYNC);
	for (;;) {
		volatile char sum = 0;

		madvise(p, size, MADV_PAGEOUT);
		for (size_t i = 0; i < size; i += 4096)
			sum += p[i];
		(void)sum;
		usleep(250000);
	}
}

/* ---------------------------------------------------------------- stats */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct stat3 {
	double median, p99, mean;
};

static struct stat3 stats(uint64_t *v, size_t n)
{
	struct stat3 r = {0, 0, 0};
	double sum = 0;

	if (n == 0)
		return r;
	qsort(v, n, sizeof(*v), cmp_u64);
	for (size_t i = 0; i < n; i++)
		sum += (double)v[i];
	r.median = (double)(n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) / 1e3;
	r.p99 = (double)v[(size_t)((double)(n - 1) * 0.99)] / 1e3;
	r.mean = sum / (double)n / 1e3;
	return r;
}

/* ---------------------------------------------------------------- gate replay */

struct gate_check {
	int *sig; /* fields whose sum is the gate's signal */
	size_t nsig;
	int *vm; /* vm.* fields */
	size_t nvm;
	int64_t *last_sig;
	int64_t *last_vm;
	uint64_t late_since; /* sample from which a skipped read left a value late; 0 none */
	uint64_t late_max;   /* the most samples a value was late */
	uint64_t *miss_by;   /* per vm field: samples it was late in */
	bool have;
	uint64_t samples, skipped, moved, missed;
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && strcmp(s + a - b, suffix) == 0;
}

static void gate_init(struct gate_check *g, struct sampler *s)
{
	const struct sampler_field *f;
	size_t n = sampler_fields(s, &f);

	memset(g, 0, sizeof(*g));
	g->sig = calloc(n, sizeof(int));
	g->vm = calloc(n, sizeof(int));
	g->last_vm = calloc(n, sizeof(int64_t));
	g->last_sig = calloc(n, sizeof(int64_t));
	g->miss_by = calloc(n, sizeof(uint64_t));
	for (size_t i = 0; i < n; i++) {
		const char *nm = f[i].name;

		if (strncmp(nm, "vm.", 3) == 0)
			g->vm[g->nvm++] = (int)i;
		else if (strcmp(nm, "psi.memory.some_us") == 0 || strcmp(nm, "proc.majflt") == 0 ||
			 strcmp(nm, "ft.majflt") == 0 || strcmp(nm, "ft2.majflt") == 0 ||
			 (strncmp(nm, "disk.", 5) == 0 &&
			  (ends_with(nm, ".rd_ios") || ends_with(nm, ".wr_ios") ||
			   ends_with(nm, ".in_flight"))))
			g->sig[g->nsig++] = (int)i;
	}
}

static void gate_step(struct gate_check *g, const int64_t *v, bool slow)
{
	bool moved = false, sig_moved = false;

	for (size_t i = 0; i < g->nsig; i++)
		sig_moved |= v[g->sig[i]] != g->last_sig[i];
	g->samples++;
	for (size_t i = 0; i < g->nvm; i++)
		moved |= g->have && v[g->vm[i]] != g->last_vm[i];
	if (moved)
		g->moved++;
	if (!g->have || slow || sig_moved) {
		for (size_t i = 0; i < g->nsig; i++)
			g->last_sig[i] = v[g->sig[i]];
		for (size_t i = 0; i < g->nvm; i++)
			g->last_vm[i] = v[g->vm[i]];
		if (g->late_since && g->samples - g->late_since > g->late_max)
			g->late_max = g->samples - g->late_since;
		g->late_since = 0;
		g->have = true;
		return;
	}
	g->skipped++;
	if (moved) {
		g->missed++;
		if (!g->late_since)
			g->late_since = g->samples;
	}
	for (size_t i = 0; i < g->nvm; i++)
		if (v[g->vm[i]] != g->last_vm[i])
			g->miss_by[i]++;
}

/* Exact mode's sample in two parts: the threads (counters and ring, and
 * the task stat it still reads at slow samples and when a disk moved) and
 * the system sources, which keep their gates. Means per sample, from the
 * sampler's own profile (exact samples are profiled). */
static void exact_parts(const struct sampler *s, long samples)
{
	const struct sampler_cost *c;
	size_t n = sampler_costs(s, &c);
	double thread = 0, sys = 0;

	for (size_t i = 0; i < n; i++) {
		double us = (double)c[i].ns / 1e3 / (double)samples;

		if (!strncmp(c[i].source, "exact", 5) || !strncmp(c[i].source, "task", 4) ||
		    !strncmp(c[i].source, "fd", 2))
			thread += us;
		else
			sys += us;
		if (!strncmp(c[i].source, "exact", 5) && c[i].reads)
			printf("exact: counters and ring %.2f us per sample (mean of %llu)\n", us,
			       (unsigned long long)c[i].reads);
	}
	printf("exact: the threads' part %.2f us per sample, the system's %.2f (means)\n", thread,
	       sys);
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"samples", required_argument, NULL, 'n'}, {"period-ms", required_argument, NULL, 'p'},
	    {"threads", required_argument, NULL, 't'}, {"busy", required_argument, NULL, 'b'},
	    {"pressure", no_argument, NULL, 'P'},      {"pid", required_argument, NULL, 'i'},
	    {"help", no_argument, NULL, 'h'},	       {NULL, 0, NULL, 0},
	};
	struct {
		long samples, period_ms, threads, busy, pid;
		bool pressure;
	} opt = {.samples = 1000, .period_ms = 10, .threads = 8, .busy = 0, .pid = 0};
	struct sampler *s[S_N] = {NULL};
	uint64_t *t[S_N] = {NULL}, *tfirst[S_N] = {NULL}; /* every sample; those taken first */
	size_t nfirst[S_N] = {0};
	int64_t *vals[S_N] = {NULL};
	struct gate_check g;
	struct exact *x = NULL;
	struct strbuf xwhy = STRBUF_INIT;
	int act[S_N], nact = 0;
	pid_t target = 0, pressure = 0;
	struct timespec next;
	size_t nf;
	int c, ret = 1;

	while ((c = getopt_long(argc, argv, "n:p:t:b:Pi:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			opt.samples = strtol(optarg, NULL, 10);
			break;
		case 'p':
			opt.period_ms = strtol(optarg, NULL, 10);
			break;
		case 't':
			opt.threads = strtol(optarg, NULL, 10);
			break;
		case 'b':
			opt.busy = strtol(optarg, NULL, 10);
			break;
		case 'P':
			opt.pressure = true;
			break;
		case 'i':
			opt.pid = strtol(optarg, NULL, 10);
			break;
		case 'h':
			printf("usage: sampler-bench [--samples N] [--period-ms P] [--threads K] "
			       "[--busy K] [--pressure] [--pid PID]\n\nEXAMPLES\n"
			       "  sampler-bench --samples 1000\n"
			       "  sampler-bench --busy 8 --pressure\n");
			return 0;
		default:
			return 2;
		}
	}
	if (opt.samples < 10 || opt.period_ms < 1)
		return 2;

	target = opt.pid ? (pid_t)opt.pid : start_target((int)opt.threads, (int)opt.busy);
	if (opt.pressure)
		pressure = start_pressure(getenv("TMPDIR") ? getenv("TMPDIR") : "/var/tmp");
	usleep(200000);

	{
		struct exact_opts xo = { 0 };

		if (exact_open(&xo, &x, &xwhy) < 0) {
			printf("exact: not measured: %s\n", xwhy.buf);
			x = NULL;
		}
	}
	for (int i = 0; i < S_N; i++) {
		struct sampler_opts o = {
		    .pid = target,
		    .intern = intern,
		    .naive = i == S_NAIVE,
		    .no_gate = i == S_KEPT,
		    .profile = i == S_PROF || i == S_EXACT,
		    .exact = i == S_EXACT ? x : NULL,
		};
		int r;

		if (i == S_EXACT && !x)
			continue;
		act[nact++] = i;
		r = sampler_new(&o, &s[i]);

		if (r < 0) {
			fprintf(stderr, "sampler-bench: error: sampler for pid %d: %s\n",
				(int)target, strerror(-r));
			goto out;
		}
		{
			const struct sampler_field *f;

			nf = sampler_fields(s[i], &f);
		}
		t[i] = calloc((size_t)opt.samples, sizeof(uint64_t));
		tfirst[i] = calloc((size_t)opt.samples, sizeof(uint64_t));
		if (!t[i] || !tfirst[i]) {
			fprintf(stderr, "sampler-bench: error: out of memory\n");
			goto out;
		}
		vals[i] = calloc(nf, sizeof(int64_t));
	}
	gate_init(&g, s[S_KEPT]);

	clock_gettime(CLOCK_MONOTONIC, &next);
	for (long k = 0; k < opt.samples; k++) {
		bool slow = k % 10 == 0;

		next.tv_nsec += opt.period_ms * 1000000;
		while (next.tv_nsec >= 1000000000) {
			next.tv_nsec -= 1000000000;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		for (int j = 0; j < nact; j++) {
			int i = act[(j + k) % nact];
			uint64_t t0 = now_ns();
			int r = sampler_sample(s[i], t0, vals[i]);

			t[i][k] = now_ns() - t0;
			if (j == 0)
				tfirst[i][nfirst[i]++] = t[i][k];
			if (r == -ESRCH) {
				fprintf(stderr, "sampler-bench: error: pid %d has gone\n",
					(int)target);
				goto out;
			}
		}
		gate_step(&g, vals[S_KEPT], slow);
	}

	{
		struct stat3 st[S_N];
		const struct sampler_cost *cost;
		size_t ncost = sampler_costs(s[S_PROF], &cost);

		printf("sampler: %ld samples every %ld ms, target pid %d (%ld idle, %ld busy "
		       "threads%s), %zu fields\n",
		       opt.samples, opt.period_ms, (int)target, opt.threads, opt.busy,
		       opt.pressure ? ", page-out pressure" : "", nf);
		printf("%-10s %10s %10s %10s %14s\n", "sampler", "median_us", "p99_us", "mean_us",
		       "median_any_us");
		for (int i = 0; i < S_N - 1; i++) {
			if (!s[i])
				continue;
			struct stat3 any = stats(t[i], (size_t)opt.samples);

			st[i] = stats(tfirst[i], nfirst[i]);
			printf("%-10s %10.2f %10.2f %10.2f %14.2f\n", s_names[i], st[i].median,
			       st[i].p99, st[i].mean, any.median);
		}
		printf("(median, p99, mean: the samples a sampler took first after the wake-up, "
		       "as the recorder does, 1 in %d;\n median_any: all, warmer after another's)\n",
		       nact);
		printf("ratio gated/naive (medians): %.3f   (goal <= 0.05)\n",
		       st[S_GATED].median / st[S_NAIVE].median);
		printf("ratio kept-open/naive (medians): %.3f\n",
		       st[S_KEPT].median / st[S_NAIVE].median);
		printf("gated median: %.2f us per sample   (goal <= 10)\n", st[S_GATED].median);
		if (x) {
			printf("ratio exact/naive (medians): %.3f   (goal <= 0.05)\n",
			       st[S_EXACT].median / st[S_NAIVE].median);
			printf("ratio exact/gated (medians): %.3f\n",
			       st[S_EXACT].median / st[S_GATED].median);
			printf("exact median: %.2f us per sample   (goal <= 5)\n",
			       st[S_EXACT].median);
			exact_parts(s[S_EXACT], opt.samples);
		}
		printf("per source (profiled, gated): us/read, reads/sample, skipped/sample\n");
		for (size_t i = 0; i < ncost; i++) {
			if (cost[i].reads == 0 && cost[i].skipped == 0)
				continue;
			printf("  %-20s %7.2f %7.3f %7.3f\n", cost[i].source,
			       cost[i].reads ? (double)cost[i].ns / (double)cost[i].reads / 1e3
					     : 0.0,
			       (double)cost[i].reads / (double)opt.samples,
			       (double)cost[i].skipped / (double)opt.samples);
		}
		{
			const struct sampler_cost *kc;
			size_t nk = sampler_costs(s[S_KEPT], &kc);

			for (size_t i = 0; i < nk; i++)
				if (kc[i].would_skip)
					printf("%s gate check (kept-open reads every time): %llu reads "
					       "the gate would skip, %llu of them moved (%.2f%%)\n",
					       kc[i].source, (unsigned long long)kc[i].would_skip,
					       (unsigned long long)kc[i].missed,
					       100.0 * (double)kc[i].missed /
						   (double)kc[i].would_skip);
		}
		printf("vmstat gate replay: skipped %.1f%% of samples; vm.* moved in %llu samples, "
		       "%llu of them while the gate skipped (late values, at most %llu samples "
		       "late)\n",
		       100.0 * (double)g.skipped / (double)g.samples, (unsigned long long)g.moved,
		       (unsigned long long)g.missed, (unsigned long long)g.late_max);
		{
			const struct sampler_field *f;

			(void)sampler_fields(s[S_KEPT], &f);
			for (size_t i = 0; i < g.nvm; i++)
				if (g.miss_by[i])
					printf("  late: %-28s in %llu samples\n", f[g.vm[i]].name,
					       (unsigned long long)g.miss_by[i]);
		}
	}
	ret = 0;
out:
	for (int i = 0; i < S_N; i++) {
		sampler_free(s[i]);
		if (i == S_EXACT)
			exact_close(x);
		free(t[i]);
		free(tfirst[i]);
		free(vals[i]);
	}
	if (!opt.pid && target > 0) {
		kill(target, SIGKILL);
		waitpid(target, NULL, 0);
	}
	if (pressure > 0) {
		kill(pressure, SIGKILL);
		waitpid(pressure, NULL, 0);
	}
	sb_release(&xwhy);
	return ret;
}
