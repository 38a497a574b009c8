// SPDX-License-Identifier: MIT
/*
 * rec-bench.c: the record format's benchmark and fixture generator, built
 * by bench/rec.sh against the build's static libraries (not by CMake).
 *
 *   rec-bench gen FILE [SAMPLES [PROFILE [FPS]]]  writes a synthetic record
 *   rec-bench measure [SAMPLES [PROFILE]]   writes one to $TMPDIR, reads it
 *                                           back, prints bytes/sample and the
 *                                           write and read throughput
 *
 * Two synthetic programs, both with the 67 fields of FIELDS.md sampled every
 * 10 ms, frames at 60/s, 20 threads snapshotted every 10th sample, system and
 * GPU counters every 10th sample, a disk write every second and a clock pair
 * every 10 s. PROFILE "steady" (the "steady program": a handful of
 * fields change each sample): a render thread that sleeps in the same place
 * at every sample and runs 3 ms +- 50 us each period, the process and the
 * display server likewise, sampler lateness 0-30 us, 2 busy threads.
 * PROFILE "busy" (a worst case): the game thread is running in 40% of
 * samples and else asleep in a GPU ioctl or a futex (so state, wchan,
 * syscall, fd and its target churn), run time varies +-25% per period, PSI
 * moves half the time, lateness 0-100 us, 4 busy threads. Deterministic (a
 * fixed seed). FPS (gen): frames at that rate on average instead, a 150 ms
 * stall every 10 s included, with a jitter of 1.2 % (bench/export.sh's 144
 * fps hour: 518,400 frames). STACKS.ssr (gen, after FPS): a record with
 * stacks (2.3); each stall gets one of its windows in turn, as the recorder
 * would write them (bench/stacks.sh: an hour's 360 stalls to symbolize).
 * PROFILE "exact": busy, with exact mode's ftx.* counters and an interval
 * of the game thread a frame (a 4 ms GPU wait before each present, a
 * futex wait over each stall, woken by worker-1), as `record --exact`
 * writes them (bench/analyse-hour.sh, tests/e2e/stalls-stream.sh).
 * REC_BENCH_PERIOD_MS (gen): the sampling period, 10 ms unless set (a
 * 24-hour record at 100 ms is 864,000 samples). REC_BENCH_SWAP (gen): every
 * 50th present written after the next (frames out of time order, as two
 * threads' presents may be: tests/e2e/stalls-stream.sh).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/exact_abi.h"
#include "core/fields.h"
#include "rec/rec.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Uniform in [lo, hi]. */
static int64_t uni(int64_t lo, int64_t hi)
{
	return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}

static bool chance(unsigned pct)
{
	return rnd() % 100 < pct;
}

static const char *const names[] = {
	"ft.tid", "ft.state", "ft.wchan", "ft.syscall", "ft.fd", "ft.fd_target",
	"ft.minflt", "ft.majflt", "ft.utime_ns", "ft.stime_ns", "ft.cpu", "ft.run_ns",
	"ft.wait_ns", "ft.slices",
	"proc.minflt", "proc.majflt", "proc.cpu_ns", "proc.threads",
	"vm.pgmajfault", "vm.pswpin", "vm.pswpout", "vm.pgscan_direct", "vm.pgsteal_direct",
	"vm.allocstall_normal", "vm.allocstall_movable", "vm.allocstall_dma32",
	"vm.compact_stall", "vm.pgscan_kswapd", "vm.workingset_refault_file",
	"vm.workingset_refault_anon",
	"disk.nvme0n1.rd_ios", "disk.nvme0n1.rd_sectors", "disk.nvme0n1.rd_ticks",
	"disk.nvme0n1.wr_ios", "disk.nvme0n1.wr_sectors", "disk.nvme0n1.in_flight",
	"disk.nvme0n1.io_ticks",
	"disk.zram0.rd_ios", "disk.zram0.rd_sectors", "disk.zram0.rd_ticks",
	"disk.zram0.wr_ios", "disk.zram0.wr_sectors", "disk.zram0.in_flight",
	"disk.zram0.io_ticks",
	"psi.cpu.some_us", "psi.memory.some_us", "psi.memory.full_us", "psi.io.some_us",
	"psi.io.full_us",
	"cg.memory.some_us", "cg.memory.full_us", "cg.io.some_us", "cg.io.full_us",
	"cg.cpu.some_us",
	"srv.state", "srv.majflt", "srv.cpu_ns", "kswapd.state", "kswapd.cpu_ns",
	"kcompactd.state", "kcompactd.cpu_ns",
	"sys.user_ns", "sys.system_ns", "sys.idle_ns", "sys.iowait_ns", "sys.mem_avail_kb",
	"gpu.render_ns",
};
#define NF (sizeof(names) / sizeof(names[0]))

/* The index of field NAME; memoized by the literal's address, so that the
 * generator costs little beside the writer it measures. */
static int idx(const char *name)
{
	static const char *seen[128];
	static int at[128];
	static size_t nseen;

	for (size_t i = 0; i < nseen; i++)
		if (seen[i] == name)
			return at[i];
	for (size_t i = 0; i < NF; i++) {
		if (strcmp(names[i], name))
			continue;
		if (nseen < 128) {
			seen[nseen] = name;
			at[nseen++] = (int)i;
		}
		return (int)i;
	}
	abort();
}

/* The frames' pacing: 60 fps +- 0.2 ms, or gen's FPS argument. */
static uint64_t frame_ns = 16666667, frame_jitter_ns = 200000, stall_every;
/* gen's sixth argument: a record whose stacks (2.3) each stall gets, in turn */
static struct rec *stk_src;
static size_t stk_next;

/* Writes window stk_next of stk_src (its mappings, frames and stacks
 * interned again in W) at T: what the recorder writes for a stall. */
static void copy_window(struct rec_writer *w, uint64_t t)
{
	const struct rec *s = stk_src;
	const struct rec_uset *u = &s->usets[stk_next++ % s->nusets];
	uint32_t ids[512], fr[REC_USTACK_MAX];
	uint64_t cnt[512];
	struct rec_uset set = { .t_ns = t, .tid = 4000, .stack = ids, .count = cnt };

	for (uint32_t k = 0; k < u->n && set.n < 512; k++) {
		const struct rec_ustack *st = &s->ustacks[u->stack[k]];
		size_t n = 0;

		for (uint32_t i = 0; i < st->n; i++) {
			struct rec_uframe f = s->uframes[st->frames[i]];

			if (f.kind == REC_UF_ADDR) {
				const struct rec_umap *m = &s->umaps[f.ref];

				f.ref = rec_writer_umap(w, m->path, m->build_id, m->build_id_len);
			} else if (f.kind == REC_UF_NAMED || f.kind == REC_UF_KERNEL) {
				f.ref = rec_writer_intern(w, rec_str(s, f.ref));
			}
			if ((fr[n] = rec_writer_uframe(w, &f)))
				n++;
		}
		if (n && (ids[set.n] = rec_writer_ustack(w, fr, n)))
			cnt[set.n++] = u->count[k];
	}
	if (set.n)
		rec_writer_uset(w, &set);
}

/* exact mode's intervals, written when they end (the recorder drains its
 * ring every sample), and the counters they add to */
struct pend {
	struct rec_interval iv[8];
	size_t n;
};

static void pend_add(struct pend *p, const struct rec_interval *iv)
{
	if (p->n < 8)
		p->iv[p->n++] = *iv;
}

/* Writes the intervals that ended by T, adding their times to X (the ftx.*
 * values, by enum exact_field). */
static void pend_flush(struct rec_writer *w, struct pend *p, uint64_t t, int64_t *x)
{
	size_t k = 0;

	for (size_t i = 0; i < p->n; i++) {
		const struct rec_interval *iv = &p->iv[i];

		if (iv->in_ns > t) {
			p->iv[k++] = *iv;
			continue;
		}
		rec_writer_interval(w, iv);
		x[EF_CLASS + iv->cls] += (int64_t)(iv->wake_ns - iv->out_ns);
		x[EF_RUNQ] += (int64_t)(iv->in_ns - iv->wake_ns);
		x[EF_SWITCHES] += 1;
	}
	p->n = k;
}

static int gen(const char *path, size_t nsamples, bool busy, bool exact)
{
	struct pend pend = { 0 };
	int64_t x[EF_N] = { 0 };
	const char *pms = getenv("REC_BENCH_PERIOD_MS");
	uint64_t period = pms && atof(pms) > 0 ? (uint64_t)(atof(pms) * 1e6) : 10000000ull;
	uint32_t s_stack = 0, s_worker = 0, s_fstack = 0;
	char ptxt[32];
	uint64_t nframe = 0, nwritten = 0;
	struct rec_frame held;
	bool have_held = false, swap = getenv("REC_BENCH_SWAP") != NULL;
	struct rec_writer *w;
	int64_t v[NF] = { 0 };
	uint64_t t0 = 5000000000000ull, next_frame = t0;
	uint32_t s_fence, s_futex, s_dri, th_names[20];
	struct rec_thread th[20];
	int r;

	r = rec_writer_new(path, &w);
	if (r < 0)
		return r;
	snprintf(ptxt, sizeof(ptxt), "%llu", (unsigned long long)period);
	rec_writer_meta(w, "period_ns", ptxt);
	if (exact)
		rec_writer_meta(w, "exact.wake_slack_ns", "50000");
	rec_writer_meta(w, "host.kernel", "6.18.0");
	rec_writer_meta(w, "host.cpus", "2");
	rec_writer_meta(w, "target.cmdline", "synthetic-game --steady");
	for (size_t i = 0; i < NF; i++)
		rec_writer_field(w, names[i],
				 strstr(names[i], "wchan") || strstr(names[i], "fd_target")
					 ? REC_STR
					 : REC_INT);
	for (int e = 0; exact && e < EF_N; e++)
		rec_writer_field(w, field_ftx[e], REC_INT);
	r = rec_writer_begin(w);
	if (r < 0)
		return r;
	if (exact) {
		s_stack = rec_writer_intern(w, "dma_fence_default_wait\ndrm_ioctl\n");
		s_fstack = rec_writer_intern(w, "futex_wait_queue\nfutex_wait\ndo_futex\n");
		s_worker = rec_writer_intern(w, "worker-1");
		x[EF_TID] = 4000;
	}
	s_fence = rec_writer_intern(w, "dma_fence_default_wait");
	s_futex = rec_writer_intern(w, "futex_wait_queue");
	s_dri = rec_writer_intern(w, "/dev/dri/renderD128");
	for (int k = 0; k < 20; k++) {
		char name[32];

		snprintf(name, sizeof(name), k ? "worker-%d" : "game", k);
		th_names[k] = rec_writer_intern(w, name);
		th[k] = (struct rec_thread){ 4000 + (uint32_t)k, th_names[k], 0, k % 2 };
	}
	v[idx("ft.tid")] = 4000;
	v[idx("proc.threads")] = 20;
	v[idx("vm.pgscan_kswapd")] = 123456;
	v[idx("disk.nvme0n1.wr_ios")] = 987654;
	v[idx("disk.nvme0n1.wr_sectors")] = 123456789;
	v[idx("sys.mem_avail_kb")] = 6000000;
	v[idx("ft.cpu")] = 1;
	for (size_t i = 0; i < nsamples; i++) {
		uint64_t t = t0 + i * period + (uint64_t)uni(0, busy ? 100000 : 30000);
		bool running = busy && chance(40), gpu = !busy || chance(70);

		if (i % 1000 == 0) {
			struct rec_clock c = { t, 1780000000000000000ull + (t - t0), 0 };

			rec_writer_clock(w, &c);
		}
		v[idx("ft.state")] = running ? 'R' : 'S';
		v[idx("ft.wchan")] = running ? 0 : gpu ? s_fence : s_futex;
		v[idx("ft.syscall")] = running ? -1 : gpu ? 16 : 202;
		v[idx("ft.fd")] = running || !gpu ? -1 : 5;
		v[idx("ft.fd_target")] = running || !gpu ? 0 : s_dri;
		if (!busy) {
			v[idx("ft.run_ns")] += uni(2950000, 3050000);
			v[idx("ft.slices")] += 1;
			v[idx("proc.cpu_ns")] += uni(3400000, 3600000);
			v[idx("srv.cpu_ns")] += uni(180000, 220000);
			if (i % 4 == 0)
				v[idx("ft.utime_ns")] += 4000000;
			goto rare;
		}
		if (chance(10))
			v[idx("ft.minflt")] += uni(1, 3);
		if (chance(90))
			v[idx("ft.utime_ns")] += 4000000;
		if (chance(15))
			v[idx("ft.stime_ns")] += 4000000;
		if (chance(5))
			v[idx("ft.cpu")] ^= 1;
		v[idx("ft.run_ns")] += uni(3000000, 5000000);
		v[idx("ft.wait_ns")] += uni(0, 40000);
		v[idx("ft.slices")] += uni(1, 3);
		if (chance(10))
			v[idx("proc.minflt")] += uni(1, 5);
		v[idx("proc.cpu_ns")] += uni(4500000, 7500000);
		if (chance(50))
			v[idx("psi.cpu.some_us")] += uni(0, 500);
		if (chance(50))
			v[idx("cg.cpu.some_us")] += uni(0, 300);
		v[idx("srv.state")] = chance(20) ? 'R' : 'S';
		if (chance(60))
			v[idx("srv.cpu_ns")] += uni(500000, 1500000);
rare:
		if (i % 100 == 50) {
			v[idx("disk.nvme0n1.wr_ios")] += 3;
			v[idx("disk.nvme0n1.wr_sectors")] += 48;
			v[idx("disk.nvme0n1.io_ticks")] += 2;
		}
		if (i % 10 == 0) {
			v[idx("sys.user_ns")] += uni(90000000, 110000000);
			v[idx("sys.system_ns")] += uni(10000000, 20000000);
			v[idx("sys.idle_ns")] += uni(60000000, 90000000);
			v[idx("sys.mem_avail_kb")] += uni(-200, 200);
			v[idx("gpu.render_ns")] += uni(40000000, 60000000);
		}
		if (exact) {
			int64_t row[NF + EF_N];

			pend_flush(w, &pend, t, x);
			x[EF_RUN] += (int64_t)period / 3;
			x[EF_PREEMPTS] += chance(5);
			memcpy(row, v, sizeof(v));
			memcpy(row + NF, x, sizeof(x));
			rec_writer_sample(w, t, row);
		} else {
			rec_writer_sample(w, t, v);
		}
		while (next_frame <= t) {
			struct rec_frame f = { .t_ns = next_frame, .tid = 4000 };

			/* REC_BENCH_SWAP: every 50th present written after the
			 * next one (two threads' presents drained out of order) */
			if (swap && ++nwritten % 50 == 0) {
				held = f;
				have_held = true;
			} else {
				rec_writer_frame(w, &f);
				if (have_held)
					rec_writer_frame(w, &held);
				have_held = false;
			}
			next_frame += frame_ns + (uint64_t)uni(-(int64_t)frame_jitter_ns,
							       (int64_t)frame_jitter_ns);
			if (stall_every && ++nframe % stall_every == 0) {
				next_frame += 150000000;
				if (stk_src)
					copy_window(w, f.t_ns);
				if (exact) {	/* the stall: a futex wait worker-1 ends */
					struct rec_interval iv = {
						.out_ns = f.t_ns + 2000000,
						.wake_ns = next_frame - 6000000,
						.in_ns = next_frame - 5900000, .tid = 4000,
						.waker_tid = 4001, .syscall = 202, .cls = X_FUTEX,
						.state = 'S', .flags = XF_SYSCALL,
						.waker_comm = s_worker, .stack = s_fstack
					};

					pend_add(&pend, &iv);
				}
			}
			if (exact) {	/* the GPU wait before the next present */
				struct rec_interval iv = {
					.out_ns = next_frame - 4500000, .wake_ns = next_frame - 600000,
					.in_ns = next_frame - 500000, .tid = 4000, .syscall = 16,
					.cls = X_GPU, .state = 'S', .flags = XF_SYSCALL, .arg0 = 5,
					.fd_target = s_dri, .stack = s_stack
				};

				pend_add(&pend, &iv);
			}
		}
		if (i % 10 == 0) {
			for (int k = 0; k < (busy ? 4 : 2); k++)
				th[k].cpu_ns += (uint64_t)uni(10000000, 40000000);
			if (busy && chance(20))
				th[1].cpu ^= 1;
			rec_writer_threads(w, t, th, 20);
		}
		if (i % 1000 == 3)
			rec_writer_event(w, t, 0, "note", "cg.io: cannot read 'io.pressure'\tskipped");
		if (i % 1000 == 12)
			rec_writer_event(w, t, 4000, "stack",
					 "[<0>] dma_fence_default_wait\n[<0>] drm_ioctl\n");
		if (i % 100 == 99)
			rec_writer_flush(w);
	}
	if (have_held)
		rec_writer_frame(w, &held);
	return rec_writer_close(w);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Milliseconds to malloc and first-touch N bytes: the floor under any
 * reader that fills an N-byte matrix. */
static double touch_ms(size_t n)
{
	double t0 = now_s();
	volatile char *p = malloc(n);

	if (!p)
		return -1;
	for (size_t i = 0; i < n; i += 4096)
		p[i] = 1;
	free((void *)p);
	return (now_s() - t0) * 1e3;
}

#define RUNS 3

static int measure(size_t nsamples, bool busy)
{
	char path[4096];
	const char *dir = getenv("TMPDIR");
	struct strbuf err = STRBUF_INIT;
	struct rec *r = NULL;
	double t_w0, t_w1, c_w0, c_w1, rd[RUNS], tc[RUNS];
	size_t matrix;
	FILE *f;
	long size;
	int ret;

	snprintf(path, sizeof(path), "%s/rec-bench-%d.ssr", dir ? dir : "/tmp", (int)getpid());
	t_w0 = now_s();
	c_w0 = cpu_s();
	ret = gen(path, nsamples, busy, false);
	c_w1 = cpu_s();
	t_w1 = now_s();
	if (ret < 0) {
		fprintf(stderr, "rec-bench: cannot write '%s': %s\n", path, strerror(-ret));
		return 1;
	}
	f = fopen(path, "rb");
	if (!f || fseek(f, 0, SEEK_END) < 0 || (size = ftell(f)) < 0) {
		fprintf(stderr, "rec-bench: cannot size '%s'\n", path);
		return 1;
	}
	fclose(f);
	/* Side by side: each read, then the bare cost of its sample matrix. */
	for (int k = 0; k < RUNS; k++) {
		double t0 = now_s();

		ret = rec_read_file(path, &r, &err);
		rd[k] = (now_s() - t0) * 1e3;
		if (ret < 0) {
			unlink(path);
			fprintf(stderr, "rec-bench: %s\n", err.buf);
			return 1;
		}
		matrix = r->nsamples * r->nfields * sizeof(int64_t);
		if (k < RUNS - 1) {
			rec_free(r);
			r = NULL;
		}
		tc[k] = touch_ms(matrix);
	}
	unlink(path);
	qsort(rd, RUNS, sizeof(double), cmp_double);
	qsort(tc, RUNS, sizeof(double), cmp_double);
	printf("rec: synthetic %s program, %zu fields, %zu samples (%.0f s at 10 ms), %zu frames, "
	       "%zu thread snapshots\n",
	       busy ? "busy" : "steady", r->nfields, r->nsamples, (double)r->nsamples / 100,
	       r->nframes, r->nthreads);
	printf("rec: file %ld bytes, %.1f bytes/sample (all records / samples)\n", size,
	       (double)size / (double)nsamples);
	printf("rec: write %.2f us/sample of CPU, %.2f us/sample wall (generating the data "
	       "included)\n",
	       (c_w1 - c_w0) * 1e6 / (double)nsamples, (t_w1 - t_w0) * 1e6 / (double)nsamples);
	printf("rec: read median %.0f ms of %d (%.2f us/sample); first-touching its %.0f MB sample "
	       "matrix alone: median %.0f ms (ratio %.2f)\n",
	       rd[RUNS / 2], RUNS, rd[RUNS / 2] * 1e3 / (double)nsamples, (double)matrix / 1e6,
	       tc[RUNS / 2], tc[RUNS / 2] > 0 ? rd[RUNS / 2] / tc[RUNS / 2] : 0.0);
	rec_free(r);
	sb_release(&err);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "gen")) {
		int r;

		if (argc > 5 && strtod(argv[5], NULL) > 0) {
			double fps = strtod(argv[5], NULL);

			/* FPS on average, the stalls' 150 ms included */
			stall_every = (uint64_t)(10 * fps);
			frame_ns = (uint64_t)(1e9 / fps - 150e6 / (double)stall_every);
			frame_jitter_ns = frame_ns * 12 / 1000;
		}
		if (argc > 6) {
			struct strbuf err = STRBUF_INIT;

			if (rec_read_file(argv[6], &stk_src, &err) < 0 || !stk_src->nusets) {
				fprintf(stderr, "rec-bench: '%s': %s\n", argv[6],
					err.len ? err.buf : "no stacks (USTACK windows) in it");
				return 1;
			}
			sb_release(&err);
		}
		r = gen(argv[2], argc > 3 ? strtoul(argv[3], NULL, 10) : 1000,
			argc > 4 && (!strcmp(argv[4], "busy") || !strcmp(argv[4], "exact")),
			argc > 4 && !strcmp(argv[4], "exact"));

		if (r < 0)
			fprintf(stderr, "rec-bench: cannot write '%s': %s\n", argv[2], strerror(-r));
		rec_free(stk_src);
		return r < 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "measure"))
		return measure(argc > 2 ? strtoul(argv[2], NULL, 10) : 360000,
			       argc > 3 && !strcmp(argv[3], "busy"));
	fprintf(stderr, "usage: rec-bench gen FILE [SAMPLES [steady|busy|exact [FPS [STACKS.ssr]]]]\n"
			"       rec-bench measure [SAMPLES [steady|busy]]\n");
	return 2;
}
