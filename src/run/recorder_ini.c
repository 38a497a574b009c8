// SPDX-License-Identifier: MIT
/*
 * recorder_ini.c: what the recorder writes about a run beside its samples:
 * run.ini (docs/FORMAT.md, "run.ini": written at the start, so that a
 * killed recorder leaves its record findable, and again at the end with the
 * end, the exit status and the recorder's own cost) and the record's header
 * (its meta and fields); and what the run listened to for frames, with the
 * verdict on a run that got none.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/cpulist.h"
#include "core/inifmt.h"
#include "core/wrapper.h"
#include "frames/hook.h"
#include "frames/hud.h"
#include "frames/ring.h"
#include "linux/kick.h"
#include "linux/probe.h"
#include "linux/recsys.h"
#include "linux/rig.h"
#include "core/build.h"
#include "linux/sampler.h"
#include "linux/sched.h"
#include "rec/rec.h"
#include "run/recorder_int.h"
#include "run/rundir.h"
#include "stallscope-ring.h"

#define NO_FRAMES_NS (3 * NSEC)	/* a run this long with no frame says so */
#define FRAMES_STOPPED_NS (5 * NSEC)	/* frames that stop this long before the end: said */

const char *const recorder_end_names[] = {
	[RECORDER_END_NONE] = "error", [RECORDER_END_EXIT] = "exit", [RECORDER_END_GONE] = "gone",
	[RECORDER_END_DURATION] = "duration", [RECORDER_END_STOP_FILE] = "stop-file",
	[RECORDER_END_SIGNAL] = "signal",
};

static uint32_t intern(void *ctx, const char *s)
{
	return rec_writer_intern(ctx, s);
}

/* Whether frame source SOURCE was listened to in this run. */
static bool listened(const struct recorder *r, uint32_t source)
{
	switch (source) {
	case SS_SRC_MARKER:
		return r->fmode == FRAMES_RING;
	case SS_SRC_GLX:
	case SS_SRC_EGL:
	case SS_SRC_XSHM:
	case SS_SRC_XPUT:
	case SS_SRC_WLSHM:
		return r->fmode == FRAMES_RING && (r->hooks & HOOK_GL);
	case SS_SRC_VK:
		return r->fmode == FRAMES_RING && (r->hooks & HOOK_VK);
	case HUD_SOURCE:
		return r->fmode == FRAMES_HUD;
	}
	return false;
}

/* What the run listened to for frames, in words, into BUF. */
void recorder_listened_text(const struct recorder *r, char *buf, size_t size)
{
	const char *gl = "the preloaded hook (glXSwapBuffers, eglSwapBuffers*: linked, by dlsym "
			 "or GetProcAddress; XShmPutImage, XPutImage; Wayland wl_shm commits)";
	const char *vk = "the Vulkan layer (vkQueuePresentKHR)";

	if (r->fmode == FRAMES_HUD)
		snprintf(buf, size, "the HUD file '%s' (no new line)", r->o.frames + 4);
	else if ((r->hooks & HOOK_GL) && (r->hooks & HOOK_VK))
		snprintf(buf, size, "%s, %s and the marker API", gl, vk);
	else if (r->hooks)
		snprintf(buf, size, "%s and the marker API", r->hooks & HOOK_GL ? gl : vk);
	else
		snprintf(buf, size, "the marker API");
}

/* A run that lasted and got no frame, or whose frames stopped long before
 * its end, says so (frames_note, and the terminal): what was listened to
 * and what to try. Nothing for --frames none or a short run. */
void recorder_frames_verdict(struct recorder *r)
{
	uint64_t secs_ns = r->t_end > r->t_start ? r->t_end - r->t_start : 0;
	char what[256];

	r->frames_note[0] = '\0';
	if (r->fmode == FRAMES_NONE)
		return;
	recorder_listened_text(r, what, sizeof(what));
	/* --thread is never suggested: it chooses the thread sampled, and
	 * brings no frame */
	if (!r->frames && secs_ns >= NO_FRAMES_NS && r->fmode == FRAMES_RING &&
	    (r->hooks & HOOK_GL))
		snprintf(r->frames_note, sizeof(r->frames_note),
			 "no frames in %.1f s: no present call of any kind was seen (listened to: "
			 "%s); the program draws some other way (xcb, DRM/KMS, a toolkit's own "
			 "calls) or not at all. Try --frames hud:PATH (a HUD's or the program's "
			 "frame log) or the marker API (stallscope.h) in the program",
			 (double)secs_ns / 1e9, what);
	else if (!r->frames && secs_ns >= NO_FRAMES_NS)
		snprintf(r->frames_note, sizeof(r->frames_note),
			 "no frames in %.1f s: nothing presented through %s. Try --frames hud:PATH "
			 "(a HUD's or the program's frame log) or the marker API (stallscope.h) in "
			 "the program",
			 (double)secs_ns / 1e9, what);
	else if (r->frames && r->t_end > r->last_frame_ns &&
		 r->t_end - r->last_frame_ns >= FRAMES_STOPPED_NS)
		snprintf(r->frames_note, sizeof(r->frames_note),
			 "frames stopped %.1f s before the end: the last of %llu came at %.1f s of "
			 "%.1f s, and the rest of the run has no frame times (a loading screen, "
			 "or presents none of the hooks sees). Try --frames hud:PATH or the "
			 "marker API (stallscope.h)",
			 (double)(r->t_end - r->last_frame_ns) / 1e9, (unsigned long long)r->frames,
			 (double)(r->last_frame_ns - r->clock0.mono_ns) / 1e9,
			 (double)(r->t_end - r->clock0.mono_ns) / 1e9);
	recorder_frames_guard_verdict(r);
}

/* What run.ini says from the start: the program, the clocks, the
 * machine, the options; the sampler's meta. */
static void ini_start(struct recorder *r, struct strbuf *sb)
{
	const struct sampler_meta *m = NULL;
	size_t nm = r->s ? sampler_meta(r->s, &m) : 0;
	const char *hz = NULL;
	struct utsname u;
	char stamp[40];

	for (size_t i = 0; i < nm; i++)
		if (!strcmp(m[i].key, "hz"))
			hz = m[i].value;
	/* --meta first: a later key wins, so record's own keys override them */
	for (size_t i = 0; i < r->o.nmeta; i++) {
		const char *eq = strchr(r->o.meta[i], '=');
		char key[64];

		snprintf(key, sizeof(key), "%.*s", (int)(eq - r->o.meta[i]), r->o.meta[i]);
		inifmt_add(sb, key, eq + 1);
	}
	inifmt_add(sb, "program", r->program.buf);
	if (r->program_via[0])
		inifmt_add(sb, "program_via", r->program_via);
	if (r->program_argv[0])
		inifmt_add(sb, "program_argv", r->program_argv);
	if (r->frame_comm_shown[0])
		inifmt_add(sb, "program_presented", r->frame_comm_shown);
	inifmt_add(sb, "argv", r->cmdline.buf);
	inifmt_addf(sb, "pid", "%d", r->pid);
	inifmt_add(sb, "attached", r->own_child ? "no" : "yes");
	if (r->own_child) {	/* whom the program ran as (under sudo: the user) */
		inifmt_addf(sb, "program_uid", "%u", r->as_user ? (unsigned)r->cred.uid
								 : (unsigned)geteuid());
		if (r->as_user && r->cred.name)
			inifmt_add(sb, "program_user", r->cred.name);
		else if (!r->as_user && geteuid() == 0)
			inifmt_add(sb, "program_user", "root");
	}
	inifmt_addf(sb, "t0", "%llu.%06llu", (unsigned long long)(r->clock0.real_ns / NSEC),
		    (unsigned long long)(r->clock0.real_ns % NSEC / 1000));
	inifmt_addf(sb, "t0_mono", "%llu.%09llu", (unsigned long long)(r->clock0.mono_ns / NSEC),
		    (unsigned long long)(r->clock0.mono_ns % NSEC));
	rundir_stamp(stamp, sizeof(stamp), r->clock0.real_ns, true);
	inifmt_add(sb, "t0_utc", stamp);
	inifmt_addf(sb, "clock_mono_ns", "%llu", (unsigned long long)r->clock0.mono_ns);
	inifmt_addf(sb, "clock_real_ns", "%llu", (unsigned long long)r->clock0.real_ns);
	inifmt_addf(sb, "clock_boot_ns", "%llu", (unsigned long long)r->clock0.boot_ns);
	inifmt_add(sb, "kernel", uname(&u) == 0 ? u.release : NULL);
	inifmt_addf(sb, "cpus", "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	{	/* the rig: what the results database files the run under */
		struct rig_facts rig;

		rig_probe("", r->o.rig ? r->o.rig : getenv("STALLSCOPE_RIG"), &rig);
		inifmt_add(sb, "rig", rig.id);
		if (rig.host[0])
			inifmt_add(sb, "rig_host", rig.host);
		if (rig.cpu[0])
			inifmt_add(sb, "rig_cpu", rig.cpu);
		if (rig.mem_kb)
			inifmt_addf(sb, "rig_mem_kb", "%lld", rig.mem_kb);
		if (rig.gpu[0])
			inifmt_add(sb, "rig_gpu", rig.gpu);
		inifmt_add(sb, "stallscope_version", STALLSCOPE_VERSION);
	}
	{	/* the build measured (record checked --build; the environment's
		 * is taken only when it is a build's name) */
		const char *b = r->o.build ? r->o.build : getenv("STALLSCOPE_BUILD");

		if (build_name_ok(b))
			inifmt_add(sb, "build", b);
	}
	if (hz)
		inifmt_add(sb, "hz", hz);
	else
		inifmt_addf(sb, "hz", "%ld", sysconf(_SC_CLK_TCK));
	inifmt_addf(sb, "period_ms", "%g", r->o.period_ms);
	inifmt_add(sb, "frame_source", r->o.frames);
	if (r->ring)
		inifmt_addf(sb, "frame_hooks", "%s%s%s%s", r->hooks & HOOK_GL ? "gl" : "",
			    r->gl32 ? ",gl32" : "",
			    (r->hooks & HOOK_GL) && (r->hooks & HOOK_VK) ? "," : "",
			    r->hooks & HOOK_VK ? "vk" : (r->hooks ? "" : "marker only"));
	if (r->o.duration_s > 0)
		inifmt_addf(sb, "duration_s", "%g", r->o.duration_s);
	if (r->o.stop_file)
		inifmt_add(sb, "stop_file", r->o.stop_file);
	inifmt_add(sb, "rt", r->rt_note[0] ? r->rt_note : "off");
	if (r->o.naive)
		inifmt_add(sb, "sampler", "naive (benchmark: open, read, close every file)");
	if (r->o.probe) {
		inifmt_add(sb, "probe", "on");
		inifmt_addf(sb, "probe_interval_ms", "%.3f", RECORDER_PROBE_INTERVAL_NS / 1e6);
		inifmt_addf(sb, "probe_priority", "%d", RECORDER_PROBE_PRIO);
		inifmt_addf(sb, "probe_late_ms", "%g", RECORDER_PROBE_LATE_NS / 1e6);
	}
	if (r->o.kick_ms > 0) {
		struct strbuf cl = STRBUF_INIT;

		cpulist_format(&r->helper_cpus, &cl);
		inifmt_addf(sb, "kick_ms", "%g", r->o.kick_ms);
		inifmt_add(sb, "kick_mode", "kick");
		inifmt_add(sb, "kick_cpus", cl.buf);
		sb_release(&cl);
	}
	if (r->o.no_sample)
		inifmt_add(sb, "sampling", "off (--no-sample: frames only)");
	recorder_exact_ini(r, sb, false);
	recorder_stacks_ini(r, sb, false);
	for (size_t i = 0; i < nm; i++)
		if (strcmp(m[i].key, "hz"))
			inifmt_add(sb, m[i].key, m[i].value);
}

/* The probe's and the kicker's figures; their CPU time, s. */
static double ini_helpers(struct recorder *r, struct strbuf *sb)
{
	double helper_s = 0;

	if (r->probe) {
		uint64_t pcpu = 0, pmax = 0;
		bool fifo = true;

		for (size_t i = 0; i < probe_ncpus(r->probe); i++) {
			const struct probe_cpu *pc = probe_cpu(r->probe, i);

			pcpu += pc->cpu_ns;
			fifo = fifo && pc->fifo;
			if (pc->hist.n && pc->hist.max_ns > pmax)
				pmax = pc->hist.max_ns;
		}
		helper_s += pcpu / 1e9;
		inifmt_add(sb, "probe_policy", fifo ? "fifo" : "other");
		inifmt_addf(sb, "probe_late_wakeups", "%llu",
			    (unsigned long long)r->probe_late);
		inifmt_addf(sb, "probe_max_ms", "%.3f", pmax / 1e6);
		inifmt_addf(sb, "probe_cpu_s", "%.3f", pcpu / 1e9);
	}
	if (r->kick_res) {
		helper_s += r->kick_res->cpu_ns / 1e9;
		inifmt_addf(sb, "kick_periods", "%llu",
			    (unsigned long long)r->kick_res->periods);
		inifmt_addf(sb, "kick_cpu_s", "%.3f", r->kick_res->cpu_ns / 1e9);
	}
	return helper_s;
}

/* Seconds from the run's t0 to NS (CLOCK_MONOTONIC). */
static double since_t0(const struct recorder *r, uint64_t ns)
{
	return ns > r->clock0.mono_ns ? (double)(ns - r->clock0.mono_ns) / 1e9 : 0.0;
}

/* How the program ended, and the stop that ended it. */
static void ini_exit(const struct recorder *r, struct strbuf *sb)
{
	if (!r->own_child) {
		inifmt_add(sb, "exit_status", NULL);
	} else if (r->reaped && WIFEXITED(r->status)) {
		inifmt_addf(sb, "exit_status", "%d", WEXITSTATUS(r->status));
	} else if (r->reaped && WIFSIGNALED(r->status)) {
		inifmt_add(sb, "exit_status", NULL);
		inifmt_addf(sb, "exit_signal", "%s", sigabbrev_np(WTERMSIG(r->status)) ?: "?");
	} else {
		inifmt_add(sb, "exit_status", NULL);
	}
	if (!r->own_child)
		return;
	/* whether the run stopped it, and when: what it did from then on
	 * (exit_status, exit_signal) is its answer to the stop */
	if (!r->stop_sig) {
		inifmt_add(sb, "stop_signal", NULL);
		return;
	}
	inifmt_add(sb, "stop_signal", sigabbrev_np(r->stop_sig) ?: "?");
	inifmt_addf(sb, "stop_s", "%.3f", since_t0(r, r->stop_ns));
	if (r->stop_kill_ns)
		inifmt_addf(sb, "stop_kill_s", "%.3f", since_t0(r, r->stop_kill_ns));
	if (r->stop_end_ns)
		inifmt_addf(sb, "stop_ended_s", "%.3f", since_t0(r, r->stop_end_ns));
}

/* The frames: counts per source, the verdict, the ring's and HUD's health,
 * the frame thread and process, the watcher's verdict. */
static void ini_frames(const struct recorder *r, struct strbuf *sb)
{
	struct ring_stats rs = { 0 };

	inifmt_addf(sb, "frames", "%llu", (unsigned long long)r->frames);
	for (uint32_t k = 1; k < SRC_N; k++) {
		char key[32];

		if (!listened(r, k))
			continue;
		snprintf(key, sizeof(key), "frames_%s", rec_source_name(k));
		inifmt_addf(sb, key, "%llu", (unsigned long long)r->frames_src[k]);
	}
	if (r->frames_note[0])
		inifmt_add(sb, "frames_note", r->frames_note);
	if (r->ring) {
		ring_stats(r->ring, &rs);
		inifmt_addf(sb, "frames_overruns", "%llu", (unsigned long long)rs.overruns);
		inifmt_addf(sb, "frames_stuck", "%llu", (unsigned long long)rs.stuck);
	}
	recorder_frames_guard_ini(r, sb);
	if (r->hud)
		inifmt_addf(sb, "hud_restarts", "%llu",
			    (unsigned long long)hud_restarts(r->hud));
	/* the thread that presented, which is sampled while its process lives */
	inifmt_addf(sb, "frame_thread", "%d", r->frame_tid ? r->frame_tid : r->ft_tid);
	inifmt_addf(sb, "frame_pid", "%d", r->frame_pid ? r->frame_pid : r->pid);
	if (r->frame_pid && r->frame_pid != r->pid)
		inifmt_add(sb, "frame_process", r->frame_comm);
	if (r->watched) {
		inifmt_addf(sb, "interfered", "%d", r->wres.interfered ? 1 : 0);
		inifmt_add(sb, "interference", r->wres.summary);
		inifmt_addf(sb, "watch_cpu_s", "%.3f", r->wres.cpu_s);
		inifmt_addf(sb, "watch_maxrss_kb", "%ld", r->wres.maxrss_kb);
	}
	if (r->o.thread)
		inifmt_addf(sb, "frame_thread_named", "%s%s", r->o.thread,
			    r->thread_seen ? "" : " (never seen; main thread used)");
}

/* The recorder's own cost: samples, missed periods, CPU, per-sample time
 * and lateness, bytes. */
static void ini_cost(const struct recorder *r, struct strbuf *sb, double cpu_s)
{
	double secs = (double)(r->t_end - r->t_start) / 1e9;
	int64_t p99 = lathist_pct_ns(&r->late, 99), p50w = lathist_pct_ns(&r->work, 50);

	inifmt_addf(sb, "recorder_samples", "%llu", (unsigned long long)r->samples);
	inifmt_addf(sb, "recorder_missed", "%llu", (unsigned long long)r->missed);
	inifmt_addf(sb, "recorder_cpu_s", "%.3f", cpu_s);
	if (p50w >= 0)
		inifmt_addf(sb, "recorder_us_per_sample", "%.1f", p50w / 1e3);
	else
		inifmt_add(sb, "recorder_us_per_sample", NULL);
	if (r->samples)
		inifmt_addf(sb, "recorder_us_per_sample_mean", "%.1f",
			    (double)r->work.sum_ns / 1e3 / (double)r->samples);
	else
		inifmt_add(sb, "recorder_us_per_sample_mean", NULL);
	if (secs > 0)
		inifmt_addf(sb, "recorder_cpu_pct", "%.3f", 100.0 * cpu_s / secs);
	else
		inifmt_add(sb, "recorder_cpu_pct", NULL);
	if (p99 >= 0) {
		inifmt_addf(sb, "recorder_late_p99_ms", "%.3f", p99 / 1e6);
		inifmt_addf(sb, "recorder_late_max_ms", "%.3f", r->late.max_ns / 1e6);
	} else {
		inifmt_add(sb, "recorder_late_p99_ms", NULL);
		inifmt_add(sb, "recorder_late_max_ms", NULL);
	}
	if (r->samples && r->bytes_end > r->bytes0)
		inifmt_addf(sb, "recorder_bytes_per_sample", "%.1f",
			    (double)(r->bytes_end - r->bytes0) / (double)r->samples);
	else
		inifmt_add(sb, "recorder_bytes_per_sample", NULL);
}

/* The snapshot sampler's watch of a sleeping thread's switch-ins. */
static void ini_switch(const struct recorder *r, struct strbuf *sb)
{
	struct sampler_switch_stats st;

	if (!r->s)
		return;
	sampler_switch_stats(r->s, &st);
	if (!st.used)
		return;
	if (st.off[0])
		inifmt_addf(sb, "switch_watch", "off: %s", st.off);
	else
		inifmt_add(sb, "switch_watch", "on");
	inifmt_addf(sb, "switch_watch_opened", "%llu", (unsigned long long)st.opens);
	inifmt_addf(sb, "switch_watch_saved", "%llu", (unsigned long long)st.saved);
}

/* What could not be read and why: the sampler's notes, then ours, as
 * unreadable.N. */
static void ini_unreadable(struct recorder *r, struct strbuf *sb)
{
	const char *const *sn = NULL;
	size_t nsn = r->s ? sampler_notes(r->s, &sn) : 0;
	int line = 0;

	for (size_t i = 0; i < nsn; i++) {
		char key[32];

		snprintf(key, sizeof(key), "unreadable.%d", ++line);
		inifmt_add(sb, key, sn[i]);
	}
	for (char *p = r->notes.buf; *p;) {
		char key[32], *nl = strchr(p, '\n');

		if (nl)
			*nl = '\0';
		snprintf(key, sizeof(key), "unreadable.%d", ++line);
		inifmt_add(sb, key, p);
		if (!nl)
			break;
		*nl = '\n';
		p = nl + 1;
	}
}

/*
 * The program's name against the process that presented (its kernel name,
 * read at its first present), once, at the end. They agree (core/wrapper.h
 * wrapper_same: the same, cut to 15 bytes, or with Wine's ".exe"): nothing
 * to say. The argv name could not be looked through (a wrapper or a shell
 * with nothing nameable after it, a .sh script) and the presenter is no
 * wrapper: the presenter names the run (program_argv keeps the old name).
 * Else the argv name stays, and program_presented says who presented: a
 * launcher named after its game execs an engine (Debian's
 * /usr/games/openarena runs /usr/lib/ioquake3/ioquake3), and the user's
 * name for it is the game's, whose reload rule and results it must find.
 */
static void confirm_name(struct recorder *r)
{
	const char *g = r->program.buf, *p = r->presented;
	size_t n = strlen(g);

	if (r->name_confirmed || r->o.pid)
		return;
	r->name_confirmed = true;
	if (!r->frame_pid || !*p || wrapper_same(g, p))
		return;
	if ((wrapper_is(g) || (n > 3 && !strcmp(g + n - 3, ".sh"))) && !wrapper_is(p)) {
		snprintf(r->program_argv, sizeof(r->program_argv), "%s", g);
		sb_reset(&r->program);
		sb_adds(&r->program, p);
		return;
	}
	snprintf(r->frame_comm_shown, sizeof(r->frame_comm_shown), "%s", p);
}

/* recorder_int.h */
int recorder_write_ini(struct recorder *r, bool final)
{
	struct strbuf sb = STRBUF_INIT;
	int err;

	if (final)
		confirm_name(r);
	ini_start(r, &sb);
	if (!final) {
		inifmt_add(&sb, "state", "recording");
		inifmt_add(&sb, "record_tmp", r->rec_path);
		if (r->log_path[0]) {
			inifmt_add(&sb, "log_tmp", r->log_path);
			inifmt_add(&sb, "output_tmp", r->out_path);
		}
	} else {
		double cpu_s = (double)(sched_process_cpu_ns() - r->cpu0_ns) / 1e9;

		cpu_s -= ini_helpers(r, &sb);	/* the recorder's own cost, without its helpers' */
		inifmt_add(&sb, "state", "done");
		inifmt_add(&sb, "end", recorder_end_names[r->end]);
		if (strcmp(r->rec_path, r->rec_final))
			inifmt_add(&sb, "record_tmp", r->rec_path);	/* the move failed */
		if (r->log_path[0] && strcmp(r->log_path, r->log_final))
			inifmt_add(&sb, "log_tmp", r->log_path);
		ini_exit(r, &sb);
		inifmt_addf(&sb, "duration_recorded_s", "%.3f",
			    (double)(r->t_end - r->t_start) / 1e9);
		inifmt_addf(&sb, "end_s", "%.3f", since_t0(r, r->t_end));
		ini_frames(r, &sb);
		ini_cost(r, &sb, cpu_s);
		ini_switch(r, &sb);
		recorder_exact_ini(r, &sb, true);
		recorder_stacks_ini(r, &sb, true);
		ini_unreadable(r, &sb);
	}
	err = sf_write_atomic(r->dir_fd, rundir_file_name(RUNDIR_INI), sb.buf, sb.len, 0644, r->user,
			      final);
	if (err < 0 && final && r->ini_name[0]) {
		/* the run directory cannot take it (full?): keep it beside the
		 * record in tmpfs, where report and dump find it (record_tmp with
		 * .ini for .ssr), rather than lose the end, the exit status and
		 * the recorder's figures */
		int e2 = sf_write_atomic(r->tmp_fd, r->ini_name, sb.buf, sb.len, 0600, r->user, true);

		if (e2 == 0) {
			sb_release(&sb);
			return sb_error(r->err, err, "cannot write '%s'; the final run.ini is at '%s'",
					r->ini_path, r->ini_tmp);
		}
	}
	sb_release(&sb);
	if (err < 0)
		return sb_error(r->err, err, "cannot write '%s'", r->ini_path);
	return 0;
}

/* recorder_int.h */
int recorder_open_record(struct recorder *r)
{
	const struct sampler_field *f;
	const struct sampler_meta *m;
	struct sampler_opts so = { 0 };
	char tmp[64];
	size_t nm;
	int err, fd;

	/* O_EXCL in tmpfs under a name nobody could guess, 0600 while it
	 * grows (0644 in place: its final home); a second descriptor kept to
	 * copy it into the run directory at the end */
	fd = sf_create(r->tmp_fd, r->rec_name, O_RDWR, r->ini_name[0] ? 0600 : 0644, r->user);
	if (fd < 0)
		return sb_error(r->err, fd, "cannot create '%s'", r->rec_path);
	r->rec_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (r->rec_fd < 0) {
		err = -errno;
		close(fd);	/* abandon_start removes it by its name */
		return sb_error(r->err, err, "cannot create '%s'", r->rec_path);
	}
	err = rec_writer_new_fd(fd, &r->w);
	if (err < 0)
		return sb_error(r->err, err, "cannot create '%s'", r->rec_path);

	so.pid = r->pid;
	so.period_ns = r->period_ns;
	so.naive = r->o.naive;
	so.intern = intern;
	so.intern_ctx = r->w;
	so.exact = r->exact;
	err = sampler_new(&so, &r->s);
	if (err < 0 && err != -ESRCH)
		return sb_error(r->err, err, "cannot sample process %d", r->pid);
	/* -ESRCH: ended before the first look; an empty record says so */
	r->ft_tid = r->pid;

	rec_writer_meta(r->w, "program", r->program.buf);
	rec_writer_meta(r->w, "argv", r->cmdline.buf);
	snprintf(tmp, sizeof(tmp), "%d", r->pid);
	rec_writer_meta(r->w, "pid", tmp);
	snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)r->period_ns);
	rec_writer_meta(r->w, "period_ns", tmp);
	{
		struct utsname u;

		if (uname(&u) == 0)
			rec_writer_meta(r->w, "kernel", u.release);
	}
	snprintf(tmp, sizeof(tmp), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	rec_writer_meta(r->w, "cpus", tmp);
	snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)r->clock0.mono_ns);
	rec_writer_meta(r->w, "clock_mono_ns", tmp);
	snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)r->clock0.real_ns);
	rec_writer_meta(r->w, "clock_real_ns", tmp);
	snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)r->clock0.boot_ns);
	rec_writer_meta(r->w, "clock_boot_ns", tmp);
	snprintf(tmp, sizeof(tmp), "%llu.%06llu", (unsigned long long)(r->clock0.real_ns / NSEC),
		 (unsigned long long)(r->clock0.real_ns % NSEC / 1000));
	rec_writer_meta(r->w, "t0", tmp);
	snprintf(tmp, sizeof(tmp), "%llu.%09llu", (unsigned long long)(r->clock0.mono_ns / NSEC),
		 (unsigned long long)(r->clock0.mono_ns % NSEC));
	rec_writer_meta(r->w, "t0_mono", tmp);
	rec_writer_meta(r->w, "frame_source", r->o.frames);
	nm = r->s ? sampler_meta(r->s, &m) : 0;
	for (size_t i = 0; i < nm; i++)
		rec_writer_meta(r->w, m[i].key, m[i].value);

	r->nfields = r->s ? sampler_fields(r->s, &f) : 0;
	for (size_t i = 0; i < r->nfields; i++) {
		err = rec_writer_field(r->w, f[i].name, f[i].kind);
		if (err < 0)
			return sb_error(r->err, err, "record field '%s'", f[i].name);
	}
	r->vals = calloc(r->nfields ? r->nfields : 1, sizeof(*r->vals));
	if (!r->vals)
		return sb_error(r->err, -ENOMEM, "record");
	err = rec_writer_begin(r->w);
	if (err < 0)
		return sb_error(r->err, err, "cannot write '%s'", r->rec_path);
	rec_writer_clock(r->w, &r->clock0);
	if (r->s) {
		const char *const *sn;
		size_t n = sampler_notes(r->s, &sn);

		for (size_t i = 0; i < n; i++)
			rec_writer_event(r->w, r->clock0.mono_ns, 0, "note", sn[i]);
	}
	r->bytes0 = rec_writer_bytes(r->w);
	return r->s ? 0 : 1;
}

/* Parses --frames into the frame mode and the hooks wanted; 0, or -EINVAL
 * with the usage error in ERR. */
int recorder_parse_frames(struct recorder *r, struct strbuf *err)
{
	const char *f = r->o.frames;

	if (!strcmp(f, "auto")) {
		r->fmode = FRAMES_RING;
		r->hooks = HOOK_ALL;
	} else if (!strcmp(f, "marker")) {
		r->fmode = FRAMES_RING;
	} else if (!strcmp(f, "gl")) {
		r->fmode = FRAMES_RING;
		r->hooks = HOOK_GL;
	} else if (!strcmp(f, "vk")) {
		r->fmode = FRAMES_RING;
		r->hooks = HOOK_VK;
	} else if (!strncmp(f, "hud:", 4) && f[4]) {
		r->fmode = FRAMES_HUD;
	} else if (!strcmp(f, "none")) {
		r->fmode = FRAMES_NONE;
	} else {
		return sb_error(err, 0, "option '--frames': expected auto, marker, gl, vk, "
				"hud:PATH or none, got '%s'", f);
	}
	return 0;
}
