// SPDX-License-Identifier: MIT
/*
 * export_perfetto_samples.c: the tracks of what the recorder's helpers saw
 * (export_perfetto_int.h): each sampled thread's states from the samples and
 * its exact-mode intervals, the process's and the system's counters, the
 * timer probe's late wake-ups, the watcher's findings.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/export_perfetto_int.h"
#include "core/causes.h"
#include "core/exact.h"
#include "core/fields.h"
#include "core/runini.h"
#include "run/rundir.h"

/* ------------------------------------------------------------ threads */

/* The field indices of a sampled thread's scope (ft or ft2); -1: absent. */
struct scope {
	int f[TF_N];
};

static void scope_init(const struct rec *r, const char *const names[TF_N], struct scope *sc)
{
	for (int k = 0; k < TF_N; k++)
		sc->f[k] = rec_field_index(r, names[k]);
}

static int64_t val(const struct rec *r, size_t i, int f)
{
	return f < 0 ? 0 : r->vals[i * r->nfields + (size_t)f];
}

bool export_key_eq(const struct st_key *a, const struct st_key *b)
{
	return a->state == b->state && a->runnable == b->runnable && a->wchan == b->wchan &&
	       a->syscall == b->syscall && a->fd_target == b->fd_target;
}

static const char *state_name(const struct st_key *k)
{
	switch (k->state) {
	case 'R': return k->runnable ? "Runnable" : "Running";
	case 'S': return "Sleeping";
	case 'D': return "Disk sleep";
	case 'T': return "Stopped";
	case 't': return "Tracing stop";
	case 'Z': return "Zombie";
	case 'I': return "Idle";
	case 'P': return "Parked";
	default: return "Unknown state";
	}
}

/* The scope in which sample I holds TID, or NULL. */
static const struct scope *scope_of(const struct rec *r, size_t i, const struct scope sc[2],
				    int64_t tid)
{
	for (int k = 0; k < 2; k++)
		if (sc[k].f[TF_TID] >= 0 && val(r, i, sc[k].f[TF_TID]) == tid)
			return &sc[k];
	return NULL;
}

static void key_of(const struct rec *r, size_t i, const struct scope *s, int64_t tid,
		   const struct scope sc[2], struct st_key *k)
{
	const int *f = s->f;

	k->state = val(r, i, f[TF_STATE]);
	k->runnable = false;
	if (k->state == 'R' && i + 1 < r->nsamples && scope_of(r, i + 1, sc, tid) == s &&
	    f[TF_RUN] >= 0 && f[TF_WAIT] >= 0)
		k->runnable = val(r, i + 1, f[TF_WAIT]) - val(r, i, f[TF_WAIT]) >
			      val(r, i + 1, f[TF_RUN]) - val(r, i, f[TF_RUN]);
	k->wchan = k->state == 'R' ? 0 : val(r, i, f[TF_WCHAN]);
	k->syscall = k->state == 'R' || f[TF_SYSCALL] < 0 ? -1 : val(r, i, f[TF_SYSCALL]);
	k->fd_target = k->state == 'R' ? 0 : val(r, i, f[TF_FD_TARGET]);
}

int export_state_begin(struct ex *x, struct perfetto_seq *s, uint64_t t, const struct st_key *k)
{
	perfetto_event(s, t, PERFETTO_BEGIN, state_name(k));
	if (k->wchan)
		perfetto_arg_istr(s, "wchan", rec_str(x->r, k->wchan));
	if (k->syscall >= 0) {
		const char *name = cause_syscall_name(x->abi, (long)k->syscall);

		if (name)
			perfetto_arg_istr(s, "syscall", name);
		else
			perfetto_arg_int(s, "syscall", k->syscall);
	}
	if (k->fd_target)
		perfetto_arg_istr(s, "fd", rec_str(x->r, k->fd_target));
	x->st->states++;
	return perfetto_emit(s);
}

/* TID's states from the samples, on its thread track S. */
static int thread_states(struct ex *x, struct perfetto_seq *s, const struct scope sc[2], int64_t tid)
{
	const struct rec *r = x->r;
	struct st_key cur = { 0 }, k;
	bool open = false;
	int ret = 0;

	for (size_t i = 0; !ret && i < r->nsamples; i++) {
		const struct scope *in = scope_of(r, i, sc, tid);

		if (in)
			key_of(r, i, in, tid, sc, &k);
		if (open && (!in || k.state == 'X' || !export_key_eq(&k, &cur))) {
			perfetto_event(s, r->t_ns[i], PERFETTO_END, NULL);
			ret = perfetto_emit(s);
			open = false;
		}
		if (ret || !in || k.state == 'X' || open)
			continue;
		ret = export_state_begin(x, s, r->t_ns[i], &k);
		cur = k;
		open = true;
	}
	if (!ret && open) {
		perfetto_event(s, r->t_ns[r->nsamples - 1], PERFETTO_END, NULL);
		ret = perfetto_emit(s);
	}
	return ret;
}

/* TID's exact-mode intervals on a track under its thread's (PARENT). */
const struct perfetto_track export_intervals_track = {
	.name = "off-CPU (exact)",
	.description = "exact mode's off-CPU intervals of 0.5 ms or more (--exact-min), "
		       "as the kernel saw them: blocked (named by what it waited for) "
		       "from the switch-out to the wake-up, then runnable until it ran "
		       "(docs/EXACT.md)",
};

static int thread_intervals(struct ex *x, uint64_t parent, int64_t tid)
{
	const struct rec *r = x->r;
	struct perfetto_track t = export_intervals_track;
	struct perfetto_seq *s = NULL;
	uint64_t end = 0;
	int ret = 0;

	t.parent = parent;
	for (size_t i = 0; !ret && i < r->nintervals; i++) {
		const struct rec_interval *iv = &r->intervals[i];

		if (iv->tid != (uint32_t)tid)
			continue;
		if (iv->out_ns < end || iv->in_ns < iv->out_ns) {
			x->st->skipped++;	/* overlaps the previous one */
			continue;
		}
		if (!s && (ret = export_track_open(x, &t, &s)) < 0)
			break;
		ret = export_interval(x, s, iv);
		end = iv->in_ns;
	}
	perfetto_seq_free(s);
	return ret;
}

int export_interval(struct ex *x, struct perfetto_seq *s, const struct rec_interval *iv)
{
	const struct rec *r = x->r;
	uint64_t wake = iv->wake_ns;
	const char *cls = exact_class_name(iv->cls);
	int ret;

	{
		wake = wake < iv->out_ns ? iv->out_ns : wake > iv->in_ns ? iv->in_ns : wake;
		if (iv->state == 'R')
			wake = iv->out_ns;	/* preempted: runnable all along */
		perfetto_event(s, iv->out_ns, PERFETTO_BEGIN,
			 iv->state == 'R' ? "Preempted" : cls ? cls : "blocked");
		if (iv->state != 'R') {
			char st[2] = { (char)iv->state, 0 };

			perfetto_arg_istr(s, "state", st);
			if (iv->syscall >= 0) {
				const char *name = cause_syscall_name(x->abi, iv->syscall);

				if (name)
					perfetto_arg_istr(s, "syscall", name);
				else
					perfetto_arg_int(s, "syscall", iv->syscall);
			}
			if (iv->fd_target)
				perfetto_arg_istr(s, "fd", rec_str(r, iv->fd_target));
			if (iv->waker_tid) {
				sb_reset(&x->sb);
				sb_addf(&x->sb, "%" PRIu32 " (%s)", iv->waker_tid,
					rec_str(r, iv->waker_comm));
				perfetto_arg_str(s, "woken_by", x->sb.buf);
			}
			if (iv->stack)
				perfetto_arg_str(s, "stack", rec_str(r, iv->stack));
		}
		ret = perfetto_emit(s);
		if (!ret && iv->state != 'R') {
			perfetto_event(s, wake, PERFETTO_END, NULL);
			ret = perfetto_emit(s);
			if (!ret && iv->in_ns > wake) {
				perfetto_event(s, wake, PERFETTO_BEGIN, "Runnable");
				ret = perfetto_emit(s);
			}
		}
		if (!ret && (iv->state == 'R' || iv->in_ns > wake)) {
			perfetto_event(s, iv->in_ns, PERFETTO_END, NULL);
			ret = perfetto_emit(s);
		}
		x->st->intervals++;
	}
	return ret;
}

/* The name of thread TID: its comm in the last thread snapshot that has it. */
static const char *thread_name(const struct rec *r, int64_t tid)
{
	for (size_t k = r->nthreads; k-- > 0;)
		for (size_t j = 0; j < r->threads[k].n; j++)
			if (r->threads[k].th[j].tid == (uint32_t)tid)
				return rec_str(r, r->threads[k].th[j].name);
	return NULL;
}

/* The sampled process at T: the run's, or the last frame_process event's. */
int32_t export_pid_at(const struct ex *x, uint64_t t)
{
	int32_t pid = x->pid;

	for (size_t e = 0; e < x->r->nevents && x->r->events[e].t_ns <= t; e++) {
		const struct rec_event *ev = &x->r->events[e];
		int p;

		if (ev->kind && !strcmp(ev->kind, "frame_process") && ev->text &&
		    sscanf(ev->text, "pid=%d", &p) == 1)
			pid = p;
	}
	return pid;
}

const char export_thread_sampled[] =
	"the thread's state at each sample (every 10 ms): Running or Runnable (/proc's R, split "
	"by which the thread did more of until the next sample), Sleeping (S), Disk sleep (D), "
	"with its wchan, system call and the fd's target";
const char export_thread_unsampled[] = "a thread of the program that made timed API calls "
				       "(not sampled)";

int export_threads(struct ex *x)
{
	const struct rec *r = x->r;
	struct scope sc[2];
	int64_t tids[64];
	size_t ntids = 0, first[64];
	int ret = 0;

	scope_init(r, field_ft, &sc[0]);
	scope_init(r, field_ft2, &sc[1]);
	for (size_t i = 0; i < r->nsamples; i++)
		for (int k = 0; k < 2; k++) {
			int64_t tid = val(r, i, sc[k].f[TF_TID]);
			size_t j;

			if (sc[k].f[TF_TID] < 0 || tid <= 0)
				continue;
			for (j = 0; j < ntids && tids[j] != tid; j++)
				;
			if (j == ntids && ntids < 64) {
				first[ntids] = i;
				tids[ntids++] = tid;
			}
		}
	for (size_t j = 0; !ret && j < ntids; j++) {
		const char *name = thread_name(r, tids[j]);
		struct perfetto_track t = {
			.kind = PERFETTO_TRACK_THREAD, .pid = export_pid_at(x, r->t_ns[first[j]]),
			.tid = tids[j], .name = name && *name ? name : NULL, .rank = 10 + (int)j,
			.description = export_thread_sampled,
		};
		struct perfetto_seq *s;

		ret = export_track_open(x, &t, &s);
		if (!ret)
			ret = thread_states(x, s, sc, tids[j]);
		perfetto_seq_free(s);
		if (!ret && r->nintervals)
			ret = thread_intervals(x, t.uuid, tids[j]);
		if (!ret && r->napispans)
			ret = export_apispans(x, t.uuid, tids[j]);
	}
	/* a thread that made timed API calls but was not sampled: a track
	 * of its own for them */
	for (size_t i = 0; !ret && i < r->napispans && ntids < 64; i++) {
		int64_t tid = r->apispans[i].tid;
		const char *name = thread_name(r, tid);
		struct perfetto_track t = {
			.kind = PERFETTO_TRACK_THREAD, .pid = export_pid_at(x, r->apispans[i].start_ns),
			.tid = tid, .name = name && *name ? name : NULL, .rank = 10 + (int)ntids,
			.description = export_thread_unsampled,
		};
		struct perfetto_seq *s;
		size_t j;

		for (j = 0; j < ntids && tids[j] != tid; j++)
			;
		if (j < ntids || tid <= 0)
			continue;
		tids[ntids++] = tid;
		ret = export_track_open(x, &t, &s);
		perfetto_seq_free(s);
		if (!ret)
			ret = export_apispans(x, t.uuid, tid);
	}
	if (ntids == 64)
		sb_addf(x->notes, "more than 64 sampled threads: the later ones have no track\n");
	return ret;
}

/* ----------------------------------------------------------- counters */


/* FIELD's rate over the samples, as a counter on its own track; a value from
 * the sample it was measured from until the next, written when it changes. */
static int counter_write(struct ex *x, const struct ctr *c, int f)
{
	const struct rec *r = x->r;
	struct perfetto_seq *s;
	double last = NAN;
	size_t prev = SIZE_MAX;
	int ret = export_counter_open(x, c, &s);

	for (size_t i = 0; !ret && i < r->nsamples; i++) {
		int64_t dv;
		uint64_t dt;

		if (c->slow && !x->slow[i])
			continue;
		if (prev == SIZE_MAX) {
			prev = i;
			continue;
		}
		dv = val(r, i, f) - val(r, prev, f);
		dt = r->t_ns[i] - r->t_ns[prev];
		ret = export_counter_step(x, s, c, dv, dt, r->t_ns[prev], &last);
		prev = i;
	}
	perfetto_seq_free(s);
	return ret;
}

int export_counter_step(struct ex *x, struct perfetto_seq *s, const struct ctr *c, int64_t dv,
			uint64_t dt, uint64_t t_prev, double *last)
{
	double v;

	if (dv < 0 || !dt) {
		x->st->skipped++;
		return 0;
	}
	v = (double)dv * c->scale / (double)dt;
	v = round(v * 1e3) / 1e3;
	if (v == *last)
		return 0;
	x->st->counter_values++;
	*last = v;
	return perfetto_counter(s, t_prev, v);
}

int export_counter_open(struct ex *x, const struct ctr *c, struct perfetto_seq **s)
{
	struct perfetto_track t = {
		.kind = PERFETTO_TRACK_COUNTER, .name = c->name, .unit_name = c->unit_name,
	};
	int ret;

	if (c->proc) {
		t.parent = x->proc_uuid;
		t.rank = 30;
	} else {
		if (!x->sys_uuid) {
			struct perfetto_track g = {
				.name = "System", .description = "the machine's counters over the run, "
								"as the recorder sampled them",
			};

			ret = export_track_group(x, &g);
			if (ret)
				return ret;
			x->sys_uuid = g.uuid;
		}
		t.parent = x->sys_uuid;
	}
	return export_track_open(x, &t, s);
}

static int counter_if(struct ex *x, const struct ctr *c)
{
	int f = rec_field_index(x->r, c->field);

	if (f < 0)
		return 0;
	return x->on_counter ? x->on_counter(x, c, f) : counter_write(x, c, f);
}

/* Which samples are slow: those with a thread snapshot (the recorder
 * writes one at each), else every sampler.slow_every-th. */
static int slow_samples(struct ex *x)
{
	const struct rec *r = x->r;
	const char *v = rec_meta_get(r, "sampler.slow_every");
	long every = v ? strtol(v, NULL, 10) : 10;
	size_t k = 0;

	x->slow = calloc(r->nsamples ? r->nsamples : 1, sizeof(*x->slow));
	if (!x->slow)
		return -ENOMEM;
	if (every < 1)
		every = 10;
	for (size_t i = 0; i < r->nsamples; i++) {
		if (!r->nthreads) {
			x->slow[i] = i % (size_t)every == 0;
			continue;
		}
		while (k < r->nthreads && r->threads[k].t_ns < r->t_ns[i])
			k++;
		x->slow[i] = k < r->nthreads && r->threads[k].t_ns == r->t_ns[i];
	}
	return 0;
}

int export_counters(struct ex *x)
{
	const struct rec *r = x->r;
	struct ctr c;
	int ret;

	if (!x->on_counter && !r->nsamples)
		return 0;
	ret = x->on_counter ? 0 : slow_samples(x);
	c = (struct ctr){ .unit_name = "/s", .scale = 1e9, .proc = true };
	snprintf(c.field, sizeof(c.field), "%s", field_proc[PF_MAJFLT]);
	snprintf(c.name, sizeof(c.name), "major faults");
	ret = ret ? ret : counter_if(x, &c);
	c = (struct ctr){ .unit_name = "%", .scale = 100, .slow = true, .proc = true };
	snprintf(c.field, sizeof(c.field), "%s", field_proc[PF_CPU]);
	snprintf(c.name, sizeof(c.name), "CPU (all threads)");
	ret = ret ? ret : counter_if(x, &c);
	/* pressure: the share of time some (or all) tasks stalled; memory is read
	 * every sample, cpu and io at slow ones */
	for (int sc = 0; !ret && sc < PSI_SCOPE_N; sc++)
		for (int res = 0; !ret && res < PSI_N; res++)
			for (int full = 0; !ret && full < 2; full++) {
				const char *fld = full ? field_psi_full[sc][res] : field_psi_some[sc][res];

				if (!fld)
					continue;
				c = (struct ctr){ .unit_name = "%", .scale = 1e5,
						  .slow = res != PSI_MEMORY };
				snprintf(c.field, sizeof(c.field), "%s", fld);
				snprintf(c.name, sizeof(c.name), "%s%s pressure (%s)",
					 sc == PSI_CGROUP ? "cgroup " : "", field_psi_res[res],
					 full ? "full" : "some");
				ret = counter_if(x, &c);
			}
	/* each watched disk: reads and read sectors a second */
	for (size_t f = 0; !ret && f < r->nfields; f++) {
		const char *n = r->fields[f].name, *dot;
		size_t pre = strlen(FIELD_DISK_PREFIX);

		if (strncmp(n, FIELD_DISK_PREFIX, pre) || !(dot = strrchr(n + pre, '.')) ||
		    strcmp(dot + 1, field_disk_suffix[DF_RD_IOS]))
			continue;
		c = (struct ctr){ .unit_name = "/s", .scale = 1e9 };
		snprintf(c.field, sizeof(c.field), "%s", n);
		snprintf(c.name, sizeof(c.name), "%.*s reads", (int)(dot - n - pre), n + pre);
		ret = counter_if(x, &c);
		c = (struct ctr){ .unit_name = "sectors/s", .scale = 1e9 };
		snprintf(c.field, sizeof(c.field), "%.*s.%s", (int)(dot - n), n,
			 field_disk_suffix[DF_RD_SECTORS]);
		snprintf(c.name, sizeof(c.name), "%.*s read sectors (512 B)", (int)(dot - n - pre),
			 n + pre);
		ret = ret ? ret : counter_if(x, &c);
	}
	return ret;
}

/* -------------------------------------------------------------- probe */

#define PROBE_CPUS 256

/* The timer probe's late wake-ups (record --probe): an instant per wake-up
 * on its CPU's track, at the wake-up; the CPU slept through the lateness
 * before it. */
int export_probe(struct ex *x)
{
	const struct rec *r = x->r;
	const char *on = x->a->ini ? runini_get(x->a->ini, "probe") : NULL;
	struct perfetto_track g = { .name = "Timer probe", .ranked_children = true };
	bool seen[PROBE_CPUS] = { false };
	size_t n = 0;
	int ret;

	for (size_t e = 0; e < r->nevents; e++) {
		int cpu;
		long long us;

		if (r->events[e].kind && !strcmp(r->events[e].kind, "late_wakeup") &&
		    sscanf(r->events[e].text, "cpu=%d late_us=%lld", &cpu, &us) == 2 && cpu >= 0 &&
		    cpu < PROBE_CPUS) {
			seen[cpu] = true;
			n++;
		}
	}
	if (!n && !(on && !strcmp(on, "on")))
		return 0;
	sb_reset(&x->sb);
	sb_addf(&x->sb, "late wake-ups (10 ms or more) of stallscope's timer probe, one track per "
		"CPU (docs/PROBE.md): %zu in this run", n);
	g.description = x->sb.buf;
	ret = export_track_group(x, &g);
	for (int cpu = 0; !ret && cpu < PROBE_CPUS; cpu++) {
		char name[32];
		struct perfetto_track t = { .parent = g.uuid, .name = name, .rank = 1 + cpu };
		struct perfetto_seq *s;

		if (!seen[cpu])
			continue;
		snprintf(name, sizeof(name), "CPU %d late wake-ups", cpu);
		ret = export_track_open(x, &t, &s);
		for (size_t e = 0; !ret && e < r->nevents; e++) {
			const struct rec_event *ev = &r->events[e];
			int c;
			long long us;

			if (!ev->kind || strcmp(ev->kind, "late_wakeup") ||
			    sscanf(ev->text, "cpu=%d late_us=%lld", &c, &us) != 2 || c != cpu)
				continue;
			perfetto_event(s, ev->t_ns, PERFETTO_INSTANT, "late wake-up");
			perfetto_arg_double(s, "late_ms", (double)us / 1e3);
			ret = perfetto_emit(s);
			x->st->instants++;
		}
		perfetto_seq_free(s);
	}
	return ret;
}

/* ------------------------------------------------------- interference */

/* The watcher's findings (RUNDIR/interference.log, docs/WATCH.md): an
 * instant per '!', '-' and 'i' line, at its time on the record's clock. */
int export_interference(struct ex *x, const char *rundir)
{
	struct strbuf path = STRBUF_INIT;
	struct rundir *rd = NULL;
	struct perfetto_track t = { .name = "Interference (watch)" };
	struct perfetto_seq *s = NULL;
	double mono = NAN;
	char line[1024];
	const char *v;
	FILE *f;
	int ret = 0, fd;

	/* a regular file only, under the run directory (run/rundir.h): a
	 * FIFO, a device or a link there is said, not read */
	sb_reset(&x->sb);
	fd = rundir_open(rundir, &rd, &x->sb);
	if (fd == 0) {
		if (rundir_path(rd, RUNDIR_INTERFERENCE, &path) < 0) {
			rundir_close(rd);
			return -ENOMEM;
		}
		fd = rundir_open_file(rd, RUNDIR_INTERFERENCE, NULL, &x->sb);
		rundir_close(rd);
	}
	if (fd < 0 && fd != -ENOENT)
		sb_addf(x->notes, "%s: no watcher track\n", x->sb.buf);
	f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		sb_release(&path);
		return 0;
	}
	v = x->a->ini ? runini_get(x->a->ini, "interference") : NULL;
	sb_reset(&x->sb);
	sb_addf(&x->sb, "what the watcher saw (docs/WATCH.md): 'interference' counts, 'noted' "
		"does not; verdict: %s", v ? v : "-");
	t.description = x->sb.buf;
	while (!ret && fgets(line, sizeof(line), f)) {
		const char *m = strstr(line, "stallscope watch started");
		const char *name = line[0] == '!' ? "interference" : line[0] == '-' ? "noted" : "information";
		double since;
		int at = 0;

		line[strcspn(line, "\n")] = 0;
		if (m && (m = strstr(m, "monotonic ")))
			mono = strtod(m + 10, NULL);
		if (!line[0] || !strchr("!-i", line[0]) || sscanf(line + 1, " %lf %n", &since, &at) != 1 || !at)
			continue;
		if (isnan(mono)) {
			/* a log before the start line said its clock: the run's t0,
			 * which the watcher starts within milliseconds of */
			double t0;

			if (!x->a->ini || runini_get_double(x->a->ini, NULL, "t0_mono", &t0, NULL) < 0)
				break;
			mono = t0;
			sb_addf(x->notes, "'%s' does not say its clock (written before the watcher "
				"gave it): its times are placed from run.ini's t0_mono, within a "
				"few ms\n", path.buf);
		}
		if (!s && (ret = export_track_open(x, &t, &s)) < 0)
			break;
		perfetto_event(s, (uint64_t)llround((mono + since) * 1e9), PERFETTO_INSTANT, name);
		perfetto_arg_str(s, "finding", line + 1 + at);
		ret = perfetto_emit(s);
		x->st->instants++;
	}
	fclose(f);
	perfetto_seq_free(s);
	sb_release(&path);
	return ret;
}
