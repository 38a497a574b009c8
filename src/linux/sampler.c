// SPDX-License-Identifier: MIT
/*
 * sampler.c: the recorder's sample (see sampler.h): its setup, the order
 * of a sample's reads and the API. The sources are sampler_thread.c,
 * sampler_sys.c and sampler_gpu.c; the kept-open files sampler_src.c.
 *
 * Workload: one sample every 10 ms for hours, on a machine also running the
 * program being measured, so every microsecond counts. A system call costs
 * about 1.2 us on the reference machine (a VM with page-table isolation), a
 * kept-open pread of a small /proc file 2-4 us, /proc/vmstat 13 us, an
 * open-read-close with stdio 12-23 us. Hence:
 *
 *  - every file is opened once and re-read with pread at offset 0 into one
 *    fixed buffer (netdata's procfile idea); parsers touch only what we need;
 *  - a value lives in s->cur and is overwritten only by a good read, so a
 *    field that cannot be read keeps its previous value;
 *  - cheap signals gate expensive sources where that keeps the values exact
 *    at sample resolution (docs/FORMAT.md, "Sample fields", says why each
 *    gate is exact):
 *      vmstat: read when PSI memory "some", any watched disk's I/O counts,
 *      the process's or frame thread's major faults, or kswapd's or
 *      kcompactd's CPU time moved, and on every slow sample;
 *      srv/kswapd/kcompactd stat: read when their CPU clock moved;
 *      syscall/fd of a blocked thread: read when it has run since the
 *      last read (schedstat run time or timeslices moved); its wchan when
 *      the syscall line (number, arguments, sp, pc) changed too;
 *      the process's stat: when a watched disk's counters or the frame
 *      thread's majflt moved, or the frame thread turned gone or zombie;
 *      a thread's stat in the slow per-thread snapshot: when it has run;
 *  - the slow sources (every thread, the process's CPU clock, PSI cpu and
 *    io, /proc/stat, meminfo, DRM fdinfo) are read every slow_every-th
 *    sample: no cause rule reads them.
 *
 * What a sample costs is mostly the kernel's code being cold after the
 * 10 ms sleep: each kind of read is several times dearer as the first of
 * its kind after a wake-up than right after (bench/floor.sh), so a kind of
 * read left out saves more than a read of a kind already done.
 *
 * Assumes Linux >= 4.20 for PSI (without it the psi.* fields and the vmstat
 * gate's PSI signal are absent and vmstat is read every sample), and
 * task/TID/schedstat (CONFIG_SCHED_INFO). With a root prefix (tests on a fake
 * tree) no CPU clocks are read: CPU times come from stat's ticks.
 */
#include "linux/sampler.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/hot.h"
#include "core/strbuf.h"
#include "linux/discover.h"
#include "linux/exact.h"
#include "linux/procparse.h"
#include "linux/sampler_int.h"

/* ---------------------------------------------------------------- setup */

static int setup(struct sampler *s)
{
	struct strbuf why = STRBUF_INIT;
	char path[PATH_SIZE];
	int r;

	/* The program's own threads and process. */
	if ((r = sampler_setup_thread_fields(s, &s->th[TH_FT], "ft")) < 0 ||
	    (r = sampler_setup_thread_fields(s, &s->th[TH_FT2], "ft2")) < 0)
		return r;
	for (int i = 0; i < PF_N; i++) {
		if ((r = sampler_add_field(s, REC_INT, "%s", field_proc[i])) < 0)
			return r;
		s->f_proc[i] = r;
	}
	s->has_proc_clk = sampler_proc_clock(s, s->o.pid, &s->proc_clk);

	/* The system, then the slow sources. */
	if ((r = sampler_setup_vmstat(s)) < 0 || (r = sampler_setup_disks(s, &why)) < 0 ||
	    (r = sampler_setup_pressure(s, &why)) < 0 || (r = sampler_setup_others(s, &why)) < 0 ||
	    (r = sampler_setup_gpu(s)) < 0 || (r = sampler_setup_sys(s)) < 0) {
		sb_release(&why);
		return r;
	}
	snprintf(path, sizeof(path), "%s/task", s->proc);
	s->taskdir = opendir(path);
	if (!s->taskdir)
		sampler_note(s, false, 0, "threads: cannot list '%s': %s", path, strerror(errno));

	if (!s->is_root && !s->o.no_stacks && !s->o.exact)
		sampler_note(s, false, 0, "kernel stacks: not root, not recorded");
	if (s->o.exact && (r = sampler_setup_exact(s)) < 0) {
		sb_release(&why);
		return r;
	}

	/* Discovery's reasons become notes, one a line. */
	for (char *p = why.buf, *nl; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = '\0';
		sampler_note(s, false, 0, "%s", p);
	}
	sb_release(&why);

	sampler_add_meta(s, "hz", "%ld", s->hz);
	sampler_add_meta(s, "syscall_abi", "%s", sampler_syscall_abi());
	sampler_add_meta(s, "sampler.slow_every", "%u", s->slow_every);
	sampler_add_meta(s, "sampler.gating", "%s", s->gate ? "on" : "off");
	return 0;
}

/* ---------------------------------------------------------------- API */

int sampler_new(const struct sampler_opts *opts, struct sampler **ret)
{
	struct sampler *s;
	char path[PATH_SIZE];
	int r;

	if (!opts || !opts->intern || opts->pid <= 0 || opts->ft_tid < 0 || opts->ft2_tid < 0)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->o = *opts;
	s->root = opts->root ? opts->root : "";
	s->live = s->root[0] == '\0';
	s->slow_every = opts->slow_every ? opts->slow_every : 10;
	s->gate = !opts->naive && !opts->no_gate;
	s->is_root = geteuid() == 0;
	s->hz = sysconf(_SC_CLK_TCK);
	if (s->hz <= 0)
		s->hz = 100;
	s->tick_ns = 1000000000ull / (uint64_t)s->hz;
	s->drm_dirfd = -1;
	s->f_gpu_other = -1;
	s->f_mem_avail = -1;
	for (int i = 0; i < SYS_N; i++)
		s->f_sys[i] = -1;
	for (int i = 0; i < C_NCOST; i++)
		s->costs[i].source = sampler_cost_names[i];
	sampler_src_init(&s->proc_stat);
	sampler_src_init(&s->vmstat);
	sampler_src_init(&s->sys_stat);
	sampler_src_init(&s->meminfo);
	for (int i = 0; i < TH_N; i++) {
		sampler_src_init(&s->th[i].stat);
		sampler_src_init(&s->th[i].schedstat);
		sampler_src_init(&s->th[i].wchan);
		sampler_src_init(&s->th[i].syscall);
		sampler_src_init(&s->th[i].stack);
		sb_init(&s->th[i].stack_text);
		sampler_switch_init(&s->th[i]);
	}
	for (int i = 0; i < PSI_N; i++) {
		sampler_src_init(&s->psi[i].f);
		sampler_src_init(&s->cg[i].f);
		s->psi[i].f_some = s->psi[i].f_full = -1;
		s->cg[i].f_some = s->cg[i].f_full = -1;
	}
	for (int i = 0; i < OTHER_N; i++) {
		sampler_src_init(&s->others[i].stat);
		s->others[i].f_state = s->others[i].f_majflt = s->others[i].f_cpu = -1;
	}
	for (size_t i = 0; i < MAX_EVENTS; i++)
		sb_init(&s->ev_text[i]);
	sb_init(&s->xstack);
	for (int i = 0; i < TH_N; i++)
		s->th[i].xbase = -1;
	s->buf = malloc(BUF_SIZE);
	r = discover_path(path, sizeof(path), s->root, "/proc/%d", opts->pid);
	if (!s->buf || r < 0 || !(s->proc = strdup(path))) {
		r = r < 0 ? r : -ENOMEM;
		goto fail;
	}
	r = sampler_src_openf(s, &s->proc_stat, "%s/stat", s->proc);
	if (r < 0) {
		r = r == -ENOENT ? -ESRCH : r;
		goto fail;
	}
	r = setup(s);
	if (r < 0)
		goto fail;
	r = sampler_thr_open(s, &s->th[TH_FT], opts->ft_tid ? opts->ft_tid : opts->pid);
	if (r < 0)
		goto fail;
	if (opts->ft2_tid) {
		r = sampler_thr_open(s, &s->th[TH_FT2], opts->ft2_tid);
		if (r < 0)
			goto fail;
	}
	s->cur = calloc(s->nfields ? s->nfields : 1, sizeof(*s->cur));
	s->base = calloc(s->nfields ? s->nfields : 1, sizeof(*s->base));
	if (!s->cur || !s->base) {
		r = -ENOMEM;
		goto fail;
	}
	/* Defaults for values not read yet: no syscall known, no fd. */
	for (int i = 0; i < TH_N; i++) {
		s->cur[s->th[i].base + TF_SYSCALL] = -2;
		s->cur[s->th[i].base + TF_FD] = -1;
	}
	*ret = s;
	return 0;
fail:
	sampler_free(s);
	return r;
}

void sampler_free(struct sampler *s)
{
	if (!s)
		return;
	sampler_thr_close(&s->th[TH_FT]);
	sampler_thr_close(&s->th[TH_FT2]);
	sampler_src_close(&s->proc_stat);
	sampler_src_close(&s->vmstat);
	sampler_src_close(&s->sys_stat);
	sampler_src_close(&s->meminfo);
	for (size_t i = 0; i < s->ndisks; i++)
		sampler_src_close(&s->disks[i].stat);
	for (int i = 0; i < PSI_N; i++) {
		sampler_src_close(&s->psi[i].f);
		sampler_src_close(&s->cg[i].f);
	}
	for (int i = 0; i < OTHER_N; i++)
		sampler_src_close(&s->others[i].stat);
	for (size_t i = 0; i < s->nts; i++) {
		sampler_src_close(&s->ts[i].stat);
		sampler_src_close(&s->ts[i].schedstat);
	}
	free(s->ts);
	free(s->snap);
	sampler_drm_close_all(s);
	free(s->drm);
	if (s->drm_dirfd >= 0)
		close(s->drm_dirfd);
	if (s->taskdir)
		closedir(s->taskdir);
	for (size_t i = 0; i < s->nfields; i++)
		free(s->names[i]);
	free(s->names);
	free(s->fields);
	for (size_t i = 0; i < s->nmeta; i++) {
		free((char *)s->meta[i].key);
		free((char *)s->meta[i].value);
	}
	free(s->meta);
	for (size_t i = 0; i < s->nnotes; i++)
		free(s->notes[i]);
	free(s->notes);
	for (size_t i = 0; i < MAX_EVENTS; i++)
		sb_release(&s->ev_text[i]);
	free(s->vm_names);
	free(s->vm_field);
	free(s->vm_vals);
	free(s->cur);
	free(s->base);
	free(s->ivs);
	sb_release(&s->xstack);
	if (s->o.exact) {
		exact_set_target(s->o.exact, TH_FT, 0);
		exact_set_target(s->o.exact, TH_FT2, 0);
	}
	free(s->proc);
	free(s->buf);
	free(s);
}

size_t sampler_fields(const struct sampler *s, const struct sampler_field **ret)
{
	*ret = s->fields;
	return s->nfields;
}

size_t sampler_meta(const struct sampler *s, const struct sampler_meta **ret)
{
	*ret = s->meta;
	return s->nmeta;
}

size_t sampler_notes(const struct sampler *s, const char *const **ret)
{
	*ret = (const char *const *)s->notes;
	return s->nnotes;
}

SS_HOT size_t sampler_events(const struct sampler *s, const struct sampler_event **ret)
{
	*ret = s->events;
	return s->nevents;
}

SS_HOT size_t sampler_intervals(const struct sampler *s, const struct rec_interval **ret)
{
	*ret = s->ivs;
	return s->nivs;
}

void sampler_exact_stats(const struct sampler *s, struct sampler_exact_stats *ret)
{
	*ret = s->xstats;
	if (!s->o.exact)
		return;
	ret->dropped = exact_dropped(s->o.exact);
	ret->missed = ret->missed_in = 0;
	for (int i = 0; i < TH_N; i++) {
		if (s->th[i].xbase < 0)
			continue;
		ret->missed += (uint64_t)s->cur[s->th[i].xbase + EF_MISSED];
		ret->missed_in += (uint64_t)s->cur[s->th[i].xbase + EF_MISSED_IN];
	}
}

SS_HOT size_t sampler_threads(const struct sampler *s, const struct rec_thread **ret)
{
	*ret = s->snap;
	return s->nsnap;
}

size_t sampler_costs(const struct sampler *s, const struct sampler_cost **ret)
{
	*ret = s->costs;
	return C_NCOST;
}

int sampler_set_thread(struct sampler *s, unsigned which, int tid)
{
	struct thr *t;
	int r;

	if (which > 1 || tid < 0 || (which == 0 && tid == 0))
		return -EINVAL;
	t = &s->th[which];
	if (tid == t->tid && !t->gone)
		return 0;
	if (tid) {
		/* Check first, so a bad tid leaves the old thread sampled. */
		char path[PATH_SIZE];

		snprintf(path, sizeof(path), "%s/task/%d/stat", s->proc, tid);
		if (access(path, R_OK) != 0)
			return -ESRCH;
	}
	s->same_ok = false;
	r = sampler_thr_open(s, t, tid);
	if (r < 0)
		return r;
	/* The new thread's values start fresh. */
	for (int i = 0; i < TF_N; i++)
		s->cur[t->base + i] = 0;
	s->cur[t->base + TF_TID] = tid;
	s->cur[t->base + TF_SYSCALL] = -2;
	s->cur[t->base + TF_FD] = -1;
	return 0;
}

/* Reads /proc/PID/stat. Returns 0, or -ESRCH when the process has gone
 * (or is a zombie with no live thread). */
static int read_proc_stat(struct sampler *s)
{
	struct pp_task_stat st;
	ssize_t n = sampler_src_read(s, &s->proc_stat, 1024, C_PROC_STAT);

	s->proc_gone = n == -ESRCH || n == -ENOENT;
	if (s->proc_gone)
		return -ESRCH;
	if (n < 0 || pp_task_stat(s->buf, (size_t)n, &st) < 0) {
		sampler_src_failed(s, &s->proc_stat, n < 0 ? (int)n : -EINVAL, s->o.pid);
		return 0;
	}
	s->cur[s->f_proc[PF_MINFLT]] = (int64_t)st.minflt;
	s->cur[s->f_proc[PF_MAJFLT]] = (int64_t)st.majflt;
	s->cur[s->f_proc[PF_THREADS]] = st.num_threads;
	if (!s->has_proc_clk)
		s->cur[s->f_proc[PF_CPU]] = (int64_t)((st.utime + st.stime) * s->tick_ns);
	/* A zombie leader with live threads is still a running program. */
	s->proc_gone = (st.state == 'Z' || st.state == 'X') && st.num_threads <= 1;
	return s->proc_gone ? -ESRCH : 0;
}

/* The process counters that continue across a change of process. */
static size_t cont_fields(const struct sampler *s, int *ret)
{
	size_t n = 0;

	ret[n++] = s->f_proc[PF_MINFLT];
	ret[n++] = s->f_proc[PF_MAJFLT];
	ret[n++] = s->f_proc[PF_CPU];
	for (size_t g = 0; g < s->ngpu; g++)
		ret[n++] = s->gpu_field[g];
	if (s->f_gpu_other >= 0)
		ret[n++] = s->f_gpu_other;
	return n;
}

int sampler_set_process(struct sampler *s, int pid, int tid)
{
	int cont[3 + MAX_GPU_ENGINES + 1];
	int64_t last[3 + MAX_GPU_ENGINES + 1];
	char path[PATH_SIZE];
	struct src st;
	size_t nc;
	char *proc;
	int r;

	if (pid <= 0 || tid < 0)
		return -EINVAL;
	if (!tid)
		tid = pid;
	if (pid == s->o.pid)
		return sampler_set_thread(s, 0, tid);
	r = discover_path(path, sizeof(path), s->root, "/proc/%d", pid);
	if (r < 0)
		return r;
	proc = strdup(path);
	if (!proc)
		return -ENOMEM;
	/* Check first, so a bad pid or tid leaves the old process sampled. */
	sampler_src_init(&st);
	snprintf(path, sizeof(path), "%s/task/%d/stat", proc, tid);
	r = access(path, R_OK) == 0 ? sampler_src_openf(s, &st, "%s/stat", proc) : -ESRCH;
	if (r < 0) {
		free(proc);
		return r == -ENOENT ? -ESRCH : r;
	}
	nc = cont_fields(s, cont);
	for (size_t i = 0; i < nc; i++)
		last[i] = s->cur[cont[i]] + s->base[cont[i]];

	s->same_ok = false;
	sampler_src_close(&s->proc_stat);
	s->proc_stat = st;
	free(s->proc);
	s->proc = proc;
	s->o.pid = pid;
	s->proc_gone = false;
	s->has_proc_clk = sampler_proc_clock(s, pid, &s->proc_clk);
	for (size_t i = 0; i < s->nts; i++) {
		sampler_src_close(&s->ts[i].stat);
		sampler_src_close(&s->ts[i].schedstat);
	}
	s->nts = 0;
	if (s->taskdir)
		closedir(s->taskdir);
	snprintf(path, sizeof(path), "%s/task", s->proc);
	s->taskdir = opendir(path);
	sampler_drm_close_all(s);
	if (s->drm_dirfd >= 0)
		close(s->drm_dirfd);
	snprintf(path, sizeof(path), "%s/fd", s->proc);
	s->drm_dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	s->drm_fdcount = sampler_fd_count(s);
	s->drm_scan_at_ns = 0; /* sample_gpu rescans now */

	/* The new process's counters now, and the offsets that continue the
	 * old ones from them: a delta across the switch is what the new
	 * process did since, not its whole life. */
	if (s->has_proc_clk) {
		int64_t c = sampler_cpu_clock(s, s->proc_clk, C_PROC_CLOCK);

		if (c >= 0)
			s->cur[s->f_proc[PF_CPU]] = c;
	}
	(void)read_proc_stat(s);
	sampler_sample_gpu(s, sampler_mono_ns());
	for (size_t i = 0; i < nc; i++)
		s->base[cont[i]] = last[i] - s->cur[cont[i]];

	r = sampler_set_thread(s, 0, tid);
	if (r == 0)
		r = sampler_set_thread(s, 1, tid != pid ? pid : 0);
	return r;
}

/*
 * Is the process's stat as it was at its last read? Yes when every thread
 * of the process (its thread count at that read) is a sampled one that is
 * quiet in this sample (sampler_thread_quiet: not run since its last full read)
 * and was read whole no later than the process's stat: its faults, times
 * and thread count move only while one of its threads runs (a thread is
 * made, or ends, by running). A sleeping program's stat is then not read
 * when another program's I/O moves a watched disk (issue 31).
 */
SS_HOT static bool proc_unmoved(const struct sampler *s)
{
	int64_t threads = s->cur[s->f_proc[PF_THREADS]];
	int quiet = 0;

	if (!s->gate || s->nsample == 0)
		return false;
	for (int i = 0; i < TH_N; i++) {
		const struct thr *t = &s->th[i];

		if (!t->tid)
			continue;
		if (t->gone || !t->quiet_now || t->full_at > s->proc_at)
			return false;
		quiet++;
	}
	return quiet > 0 && threads == quiet;
}

/*
 * The snapshot sampler's gate on the disks and memory pressure (issue 31: a
 * sleeping program): every thread of the process (its thread count at the
 * last read of its stat) is a sampled one, quiet in this sample
 * (sampler_thread_quiet: blocked at its last full read and not run since),
 * and that read found it asleep in S, no later than the last read of the
 * process's stat (so the count is still true). The program then did no
 * I/O and made
 * no memory stall, which is what exact mode's gate asks of the threads'
 * kernel counters (FORMAT.md, "Gates"), and its loss is the same: what
 * another program moves stays as the last read left it until a thread runs
 * or the next slow sample. A thread in D waits on I/O or reclaim, whose
 * counters are its evidence; a thread not sampled (a loader) may be reading:
 * then they are read.
 */
SS_HOT static bool threads_asleep(const struct sampler *s)
{
	int64_t threads = s->cur[s->f_proc[PF_THREADS]];
	int quiet = 0;

	for (int i = 0; i < TH_N; i++) {
		const struct thr *t = &s->th[i];

		if (!t->tid)
			continue;
		if (t->gone || !t->quiet_now || s->cur[t->base + TF_STATE] != 'S' ||
		    t->full_at > s->proc_at)
			return false;	/* (it ran since: it may have made threads) */
		quiet++;
	}
	return quiet > 0 && threads == quiet;
}

/* Has T been seen as a zombie or dead (its process may have ended)? */
SS_HOT static bool thr_ended(const struct sampler *s, const struct thr *t)
{
	int64_t st = s->cur[t->base + TF_STATE];

	return st == 'Z' || st == 'X';
}

/* An unchanged sample's end: counted as the full sample would have. */
SS_HOT static void same_done(struct sampler *s)
{
	if (s->o.profile)
		for (int k = 0; k < C_NCOST; k++)
			s->costs[k].skipped += s->skip_last[k];
	s->nevents = 0;
	s->nsnap = 0;
	s->nivs = 0;
	s->nsample++;
	s->same_now = true;
}

/*
 * unchanged_sample in the snapshot sampler: the last sample read nothing but
 * the schedstat of quiet threads (last_quiet), so every gate was shut on the
 * values it kept, the disks' and PSI's among them (threads_asleep). When
 * each sampled thread's schedstat says again that it has not run, with no
 * kernel stack due, the full sample would read the same schedstat and
 * nothing more: the sample stops here. A thread's schedstat read before one
 * that moved is left for sampler_thread_quiet, not read twice.
 */
SS_HOT static bool unchanged_snapshot(struct sampler *s, uint64_t t_ns)
{
	struct pp_schedstat ss[TH_N];
	int quiet = 0;

	for (int i = 0; i < TH_N; i++) {
		struct thr *t = &s->th[i];
		ssize_t n;

		if (!t->tid || t->gone)
			continue;
		if (!t->quiet_ok || sampler_stack_due(s, t, t_ns) || !sampler_src_ok(&t->schedstat))
			return false;
		if (sampler_switch_still(s, t)) {	/* not switched in since */
			s->sw_still++;
			quiet++;
			continue;
		}
		sampler_switch_before(t);
		n = sampler_src_read(s, &t->schedstat, 256, C_SCHEDSTAT);
		if (n < 0 || pp_schedstat(s->buf, (size_t)n, &ss[i]) != 0)
			return false;	/* the full sample reads it again and says why */
		if (!sampler_schedstat_quiet(s, t, &ss[i], false)) {
			t->pre_ss = ss[i];
			t->pre_have = true;
			return false;
		}
		t->pre_ss = ss[i];
		t->pre_have = true;
		quiet++;
	}
	if (!quiet)
		return false;
	for (int i = 0; i < TH_N; i++) {
		struct thr *t = &s->th[i];

		if (!t->tid || t->gone)
			continue;
		if (t->pre_have)
			sampler_switch_mark(t, true);
		t->pre_have = false;
		t->quiet_now = true;
		sampler_switch_tend(s, t);
	}
	same_done(s);
	return true;
}

/*
 * An unchanged sample (issue 31: a sleeping program; the snapshot sampler's
 * is unchanged_snapshot): in exact mode, the last
 * sample read no file or clock and made no event, interval or snapshot;
 * this one is not a slow sample; every sampled thread is quiet
 * (sampler_thread_quiet: blocked at its last full read, its slot untouched
 * since) with no kernel stack due; and the interval ring is empty. The full
 * sample would then decide every gate as the last one did, on the same
 * values (the disks, PSI and vmstat on the threads' exact counters and the
 * I/O signals, the process on its frame thread's end, kswapd and kcompactd
 * on PSI memory; a display server's clock is read every sample, so with one
 * the last sample read), read nothing and change no value. So it stops
 * here, having touched a few cache lines instead of the whole sampler, and
 * VALS (the caller's array of the last sample, same_vals) keep their values
 * (sampler_same). True when it did.
 */
SS_HOT static bool unchanged_sample(struct sampler *s, uint64_t t_ns, bool slow, int64_t *vals)
{
	uint64_t key[TH_N];
	int quiet = 0;

	if (!s->gate || slow || s->nsample == 0 || !s->last_quiet || !s->same_ok ||
	    vals != s->same_vals || s->proc_gone)
		return false;
	if (!s->o.exact)
		return unchanged_snapshot(s, t_ns);
	for (int i = 0; i < TH_N; i++) {
		const struct thr *t = &s->th[i];
		struct exact_slot x;

		if (!t->tid || t->gone)
			continue;
		if (!t->quiet_ok || !t->quiet_key_set || sampler_stack_due(s, t, t_ns) ||
		    exact_read(s->o.exact, (unsigned)i, 0, &x) != -ESRCH)
			return false;
		key[i] = sampler_quiet_key(&x);
		if (key[i] != t->quiet_key)
			return false;
		quiet++;
	}
	if (!quiet || !exact_ring_empty(s->o.exact))
		return false;
	for (int i = 0; i < TH_N; i++) {
		struct thr *t = &s->th[i];

		if (!t->tid || t->gone)
			continue;
		t->quiet_key_now = key[i];
		t->quiet_now = true;
		s->xstats.unseen++;
	}
	same_done(s);
	return true;
}

SS_HOT bool sampler_same(const struct sampler *s)
{
	return s->same_now;
}

/* A sample that reads what its gates let through (sampler_sample). */
SS_HOT static int full_sample(struct sampler *s, uint64_t t_ns, int64_t *vals)
{
	bool slow = s->nsample % s->slow_every == 0;
	bool first = s->nsample == 0;
	bool proc_read = false, mem_moved = true, ended, sys = true;
	int f_mem = s->psi[PSI_MEMORY].f_some;
	int64_t psi_mem_before = f_mem >= 0 ? s->cur[f_mem] : 0;
	uint64_t reads0 = s->nreads, qreads0 = s->quiet_reads;
	int ret = 0;

	s->same_now = false;
	if (s->o.profile)
		for (int k = 0; k < C_NCOST; k++)
			s->skip_last[k] = s->costs[k].skipped;
	s->nevents = 0;
	s->nsnap = 0;
	s->nivs = 0;

	ended = thr_ended(s, &s->th[TH_FT]);
	if (s->o.exact)
		sampler_drain_exact(s);
	sampler_sample_thread(s, &s->th[TH_FT], t_ns, slow);
	sampler_sample_thread(s, &s->th[TH_FT2], t_ns, slow);
	sampler_switch_tend(s, &s->th[TH_FT]);
	sampler_switch_tend(s, &s->th[TH_FT2]);
	if (s->o.exact) {
		/* The system's sources explain what the threads did; when
		 * their I/O, fault and reclaim counts did not move they are
		 * read only at slow samples. The disks before the task stat:
		 * their moving is when its fault counts are read. */
		uint64_t xs = sampler_exact_signal(s);

		sys = first || slow || !s->gate || xs != s->xsig_sys;
		if (sys) {
			sampler_read_disks(s);
			s->xsig_sys = xs;
		} else {
			s->costs[C_DISK].skipped++;
		}
		sampler_exact_task_stat(s, &s->th[TH_FT], slow);
		sampler_exact_task_stat(s, &s->th[TH_FT2], slow);
	} else {
		sys = first || slow || !s->gate || !threads_asleep(s);
	}
	ended = !ended && thr_ended(s, &s->th[TH_FT]);

	/* The process: no cause rule reads its CPU time, faults or thread
	 * count, so they are slow sources. Whether it still exists is the
	 * frame thread's to say: a process that ends takes its threads along
	 * (gone, or a zombie leader), and /proc/PID/stat decides in the sample
	 * that sees it (a zombie leader with live threads: at slow samples). */
	if (first || slow || !s->gate || ended || s->proc_gone) {
		if (s->has_proc_clk) {
			int64_t c = sampler_cpu_clock(s, s->proc_clk, C_PROC_CLOCK);

			if (c >= 0)
				s->cur[s->f_proc[PF_CPU]] = c;
		}
		ret = read_proc_stat(s);
		if (ret < 0)
			goto out;
		proc_read = true;
	} else if (s->has_proc_clk) {
		s->costs[C_PROC_CLOCK].skipped++;
	}

	if (!s->o.exact) {
		if (sys)
			sampler_read_disks(s);
		else if (s->ndisks)
			s->costs[C_DISK].skipped++;
	}
	/* CPU and I/O pressure feed no cause rule (runq comes from the
	 * thread's own schedstat, io from its state and syscall) and each PSI
	 * read costs a few us: they are slow sources. Memory pressure is rule
	 * 2's, and the vmstat gate's signal. */
	for (int i = 0; i < PSI_N && sys; i++) {
		if (i == PSI_MEMORY || slow || !s->gate) {
			sampler_read_psi(s, &s->psi[i], C_PSI);
			sampler_read_psi(s, &s->cg[i], C_CG_PSI);
		}
	}
	if (s->psi[PSI_MEMORY].f_some >= 0)
		mem_moved = s->cur[s->psi[PSI_MEMORY].f_some] != psi_mem_before;

	/* The process's faults and thread count, between slow samples: a major
	 * fault of any of its threads needs a read, which moves a watched
	 * disk's counters when the file is on one, so they are read then. */
	if (!proc_read) {
		if (sampler_io_signal(s) != s->proc_sig && !proc_unmoved(s)) {
			ret = read_proc_stat(s);
			if (ret < 0)
				goto out;
			proc_read = true;
		} else {
			s->costs[C_PROC_STAT].skipped++;
		}
	}
	if (proc_read) {
		s->proc_sig = sampler_io_signal(s);
		s->proc_at = s->nsample;
	}

	sampler_sample_others(s, slow, first, mem_moved);
	sampler_read_vmstat(s, slow);
	if (slow) {
		sampler_sample_threads(s);
		sampler_read_sys(s);
		sampler_sample_gpu(s, t_ns);
	}
out:
	s->nsample++;
	for (size_t i = 0; i < s->nfields; i++)
		vals[i] = s->cur[i] + s->base[i];
	s->same_vals = vals;
	s->same_ok = true;
	s->last_quiet = ret == 0 && s->nreads - reads0 == s->quiet_reads - qreads0 &&
			s->nevents == 0 && s->nivs == 0 && s->nsnap == 0;
	if (s->o.profile)
		for (int k = 0; k < C_NCOST; k++)
			s->skip_last[k] = s->costs[k].skipped - s->skip_last[k];
	return ret;
}

SS_HOT int sampler_sample(struct sampler *s, uint64_t t_ns, int64_t *vals)
{
	if (unchanged_sample(s, t_ns, s->nsample % s->slow_every == 0, vals))
		return 0;
	return full_sample(s, t_ns, vals);
}