// SPDX-License-Identifier: MIT
/*
 * recorder_frames.c: the recorder's frames: the ring drained each sample
 * into the record, a HUD file's new lines, and the frame thread: the one
 * that presents most (followed across the processes of the run, a
 * launcher's game included), or the one --thread names. The status line's
 * figures are counted here too.
 *
 * The ring's entries are the recorded program's word, and the recorder may
 * be root: an entry whose stamp no present can have (before the ring was
 * made, after the drain that read it), whose source the ring does not
 * carry or whose thread id the kernel cannot give is dropped and counted;
 * presents over RING_MAX_FPS are counted, not recorded (a flood would
 * otherwise grow the record by tens of MB a second); and a thread is
 * followed into another process only when that process is one of the
 * run's (a descendant of the recorder, their subreaper), never into a
 * process a ring entry merely names.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/hot.h"
#include "core/apicall.h"
#include "core/inifmt.h"
#include "frames/hud.h"
#include "frames/ring.h"
#include "linux/recsys.h"
#include "linux/sampler.h"
#include "linux/sched.h"
#include "rec/rec.h"
#include "run/recorder_int.h"
#include "stallscope-ring.h"

#define FT_SWITCH_NS NSEC	/* presents are counted per thread over two of these */
#define LIVE_STALL_NS (100 * 1000 * 1000ull)	/* a stall on the status line (report's default) */
#define RING_MAX_FPS 20000	/* presents a second recorded at most, as a rate */
#define RING_FRAME_COST_NS (NSEC / RING_MAX_FPS)	/* credit one recorded present costs */
#define RING_BURST_NS NSEC	/* the most credit held: a second's presents at once */
#define RUN_PROCS_MAX 512	/* processes looked at for "one of the run's" */

/* The frame thread presented: its process is the run's frame process
 * (run.ini frame_pid, frame_process). A process followed before anything
 * presented (what a launcher left running, recorder_program_ended) was
 * named when it was followed, which may have been between its fork and its
 * exec, under the launcher's name: it is named again now, and a second
 * frame_process event gives the name it presents under. */
static void note_frame_process(struct recorder *r, uint64_t now)
{
	r->frame_tid = r->ft_tid;
	if (r->frame_pid == r->fpid)
		return;
	r->frame_pid = r->fpid;
	if (r->fpid != r->pid) {
		struct strbuf comm = STRBUF_INIT, text = STRBUF_INIT;

		if (recsys_comm(r->fpid, 0, &comm) == 0 && strcmp(comm.buf, r->fp_comm) != 0) {
			snprintf(r->fp_comm, sizeof(r->fp_comm), "%s", comm.buf);
			sb_addf(&text, "pid=%d name=%s", r->fpid, comm.buf);
			rec_writer_event(r->w, now, (uint32_t)r->ft_tid, "frame_process",
					 text.buf);
		}
		sb_release(&comm);
		sb_release(&text);
	}
	snprintf(r->frame_comm, sizeof(r->frame_comm), "%s",
		 r->fpid == r->pid ? r->program.buf : r->fp_comm);
	if (r->fpid == r->pid) {	/* its kernel name now: what a wrapper exec'd */
		struct strbuf comm = STRBUF_INIT;

		if (recsys_comm(r->pid, 0, &comm) == 0)
			snprintf(r->presented, sizeof(r->presented), "%s", comm.buf);
		sb_release(&comm);
	} else {
		snprintf(r->presented, sizeof(r->presented), "%s", r->fp_comm);
	}
}

/* Whether PID is one of the run's processes: a descendant of the recorder
 * (the subreaper of everything the program starts), looked for through
 * /proc's children lists, RUN_PROCS_MAX processes at most. */
static bool run_process(int pid)
{
	int queue[RUN_PROCS_MAX], kids[64];
	size_t qn = 0, qi = 0;

	queue[qn++] = (int)getpid();
	while (qi < qn) {
		int n = recsys_children(queue[qi++], kids, sizeof(kids) / sizeof(kids[0]));

		for (int i = 0; i < n; i++) {
			if (kids[i] == pid)
				return true;
			if (qn < RUN_PROCS_MAX)
				queue[qn++] = kids[i];
		}
	}
	return false;
}

/* Whether TID was refused as a frame thread already; with ADD, remembers it
 * (the last few). */
static bool ring_refused(struct recorder *r, int tid, bool add)
{
	size_t k = sizeof(r->ring_refused) / sizeof(r->ring_refused[0]);

	for (size_t i = 0; i < k; i++)
		if (r->ring_refused[i] == tid)
			return true;
	if (add) {
		memmove(r->ring_refused + 1, r->ring_refused, (k - 1) * sizeof(r->ring_refused[0]));
		r->ring_refused[0] = tid;
	}
	return false;
}

/* Makes TID the frame thread, and its process's main thread the second
 * sampled thread when they differ; a thread of another process of the run
 * brings the sampler over to that process (never a process that is not the
 * run's: a ring entry can name any thread, and the sampled process is the
 * one stopped at the end). Writes a frame_thread event. */
static void switch_frame_thread(struct recorder *r, uint64_t now, int tid)
{
	struct strbuf name = STRBUF_INIT, text = STRBUF_INIT;
	int err, pid;

	if (ring_refused(r, tid, false))
		return;
	err = sampler_set_thread(r->s, 0, tid);
	if (err == -ESRCH && r->own_child && (pid = recsys_tgid(tid)) > 0 && pid != r->fpid) {
		if (run_process(pid)) {
			err = recorder_switch_process(r, now, pid, tid);
		} else {
			ring_refused(r, tid, true);
			if (!r->ring_refused_said)
				recorder_note(r, "frames: thread %d presented but belongs to "
					      "process %d, which is not one of the run's: not "
					      "followed", tid, pid);
			r->ring_refused_said = true;
			return;
		}
	}
	if (err < 0)
		return;	/* gone already: keep the old one */
	r->ft_tid = tid;
	r->ft2_tid = tid != r->fpid ? r->fpid : 0;
	sampler_set_thread(r->s, 1, r->ft2_tid);
	note_frame_process(r, now);
	if (recsys_comm(r->fpid, tid, &name) < 0)
		sb_adds(&name, "?");
	sb_addf(&text, "tid=%d name=%s", tid, name.buf);
	rec_writer_event(r->w, now, (uint32_t)tid, "frame_thread", text.buf);
	sb_release(&name);
	sb_release(&text);
}

/* Counts one present of TID; a full table forgets its quietest thread. */
static void count_present(struct recorder *r, int tid)
{
	struct presenter *p = NULL, *low = &r->pres[0];

	for (size_t i = 0; i < NPRESENTERS && !p; i++) {
		if (r->pres[i].tid == tid)
			p = &r->pres[i];
		else if (r->pres[i].cur + r->pres[i].prev < low->cur + low->prev)
			low = &r->pres[i];
	}
	if (!p) {
		p = low;
		*p = (struct presenter){ .tid = tid };
	}
	p->cur++;
}

/* Presents of TID lately (this period and the one before); 0: none. */
static uint32_t presents_of(const struct recorder *r, int tid)
{
	for (size_t i = 0; i < NPRESENTERS; i++)
		if (tid && r->pres[i].tid == tid)
			return r->pres[i].cur + r->pres[i].prev;
	return 0;
}

/* The thread that presented most lately; 0: none. */
static int busiest_presenter(const struct recorder *r)
{
	const struct presenter *best = NULL;

	for (size_t i = 0; i < NPRESENTERS; i++)
		if (r->pres[i].tid && (!best || r->pres[i].cur + r->pres[i].prev >
							 best->cur + best->prev))
			best = &r->pres[i];
	return best ? best->tid : 0;
}

/* A frame ended at T: the last frame's stamp, and a stall for the status
 * line when the gap before it was long. */
static void frame_seen(struct recorder *r, uint64_t t)
{
	if (r->last_frame_ns && t > r->last_frame_ns)
		recorder_stacks_gap(r, r->last_frame_ns, t);
	if (r->last_frame_ns && t > r->last_frame_ns && t - r->last_frame_ns > LIVE_STALL_NS) {
		r->live_stalls++;
		r->live_last_stall_ns = t - r->last_frame_ns;
	}
	if (t > r->last_frame_ns)
		r->last_frame_ns = t;
}

/* With opts.live, once a second: elapsed, frames, fps over the last
 * second, stalls so far and the last one's length (RECORDER_LIVE). */
SS_HOT void recorder_live_status(struct recorder *r, uint64_t now)
{
	char stall[48] = "";

	if (!r->o.live || now < r->live_next_ns)
		return;
	if (r->live_stalls)
		snprintf(stall, sizeof(stall), " (last %.0f ms)", r->live_last_stall_ns / 1e6);
	recorder_say(r, RECORDER_LIVE, "%.0f s  frames %llu  fps %.1f  stalls %llu%s",
		     (double)(now - r->t_start) / 1e9, (unsigned long long)r->frames,
		     (double)(r->frames - r->live_frames) * 1e9 /
			     (double)(now - r->live_next_ns + NSEC),
		     (unsigned long long)r->live_stalls, stall);
	r->live_frames = r->frames;
	r->live_next_ns = now + NSEC;
}

/* Whether F can be a present of the run, read by a drain that ended at
 * HI: stamped after the ring was made and before HI, from a source the
 * ring carries, by a thread id the kernel can give (0: not said). */
static bool entry_possible(const struct recorder *r, const struct ring_frame *f, uint64_t hi)
{
	return f->t_ns >= ring_created_ns(r->ring) && f->t_ns <= hi &&
	       f->source >= SS_SRC_MARKER && f->source <= SS_SRC_WLSHM &&
	       f->source != REC_SOURCE_HUD && f->tid <= INT_MAX;
}

/*
 * An API call's span (stallscope-ring.h, SS_SRC_SPAN) into the record: only
 * one the hook can have written (a known call, begun after the ring was
 * made, ended before HI, by a thread id the kernel can give, 1 ms or
 * longer), else dropped and counted with frames_bad. Spans share the
 * presents' rate (RING_MAX_FPS), so a flood of them cannot grow the record
 * faster than one of presents.
 */
static uint64_t rate_take(struct recorder *r, uint64_t now, uint64_t want);

static void write_span(struct recorder *r, const struct ring_frame *f, uint64_t now, uint64_t hi)
{
	const char *name = api_call_name(f->source >> 24 & 0x7f);
	struct rec_apispan s = { f->t_ns, (uint64_t)(f->source & SS_SPAN_US_MAX) * 1000, f->tid,
				 0 };

	if (!name || f->t_ns < ring_created_ns(r->ring) || f->t_ns + s.dur_ns < f->t_ns ||
	    f->t_ns + s.dur_ns > hi || !f->tid || f->tid > INT_MAX ||
	    s.dur_ns < SS_SPAN_MIN_NS) {
		r->frames_bad++;
		return;
	}
	if (!rate_take(r, now, 1))
		return;
	s.name = rec_writer_intern(r->w, name);
	if (s.name && rec_writer_apispan(r->w, &s) == 0)
		r->apispans++;
}

/* How many of WANT presents may be recorded at NOW: RING_MAX_FPS a second
 * as a rate, with a second's worth at once. */
static uint64_t rate_take(struct recorder *r, uint64_t now, uint64_t want)
{
	uint64_t can;

	if (now > r->rate_credit_at) {
		r->rate_credit_ns += now - r->rate_credit_at;
		if (r->rate_credit_ns > RING_BURST_NS)
			r->rate_credit_ns = RING_BURST_NS;
		r->rate_credit_at = now;
	}
	can = r->rate_credit_ns / RING_FRAME_COST_NS;
	if (can > want)
		can = want;
	r->rate_credit_ns -= can * RING_FRAME_COST_NS;
	r->frames_over_rate += want - can;
	return can;
}

/* The frames' troubles, once each, as note events at the time they began. */
static void guard_notes(struct recorder *r, uint64_t now)
{
	const char *why;
	char text[320];

	if (r->frames_over_rate && !r->ring_over_said) {
		snprintf(text, sizeof(text), "frames: presents over %d a second are not recorded "
			 "(run.ini frames_over_rate counts them)", RING_MAX_FPS);
		rec_writer_event(r->w, now, 0, "note", text);
		r->ring_over_said = true;
	}
	if (r->ring && !r->ring_broken_said && (why = ring_broken(r->ring, NULL))) {
		snprintf(text, sizeof(text), "frames: the frame ring is broken, %s; no frame "
			 "after this is recorded", why);
		rec_writer_event(r->w, now, 0, "note", text);
		r->ring_broken_said = true;
	}
}

void recorder_drain_ring(struct recorder *r, uint64_t now)
{
	struct ring_frame buf[1024];
	size_t n;
	int last_tid = 0;

	recorder_stacks_tick(r);
	/* one sample's drains read at most the ring's capacity (ring.h) */
	do {
		uint64_t hi;

		n = ring_drain(r->ring, now, buf, sizeof(buf) / sizeof(buf[0]));
		hi = sched_now_ns();	/* every stamp read was made before this */
		for (size_t i = 0; i < n; i++) {
			struct rec_frame f = { buf[i].t_ns, buf[i].tid, buf[i].source };

			if (buf[i].source & SS_SRC_SPAN) {
				write_span(r, &buf[i], now, hi);
				continue;
			}
			if (!entry_possible(r, &buf[i], hi)) {
				r->frames_bad++;
				continue;
			}
			if (!rate_take(r, now, 1))
				continue;
			rec_writer_frame(r->w, &f);
			r->frames++;
			r->frames_src[f.source]++;
			frame_seen(r, f.t_ns);
			if (!buf[i].tid)
				continue;
			count_present(r, (int)buf[i].tid);
			if ((int)buf[i].tid == r->ft_tid)
				note_frame_process(r, now);
			else
				last_tid = (int)buf[i].tid;
		}
	} while (n == sizeof(buf) / sizeof(buf[0]));
	guard_notes(r, now);
	r->other_tid = last_tid;
	/* Follow the presenting thread, unless the user named one: the one
	 * that presented most over the last one to two seconds, and only when
	 * it presented more than the frame thread, so that two threads that
	 * both present (GL in one, markers in another) do not swap the role
	 * every sample, and a thread that presented once (a window's first
	 * clear) does not keep it. */
	if (!r->o.thread) {
		int best = busiest_presenter(r);

		if (best && best != r->ft_tid &&
		    presents_of(r, best) > presents_of(r, r->ft_tid))
			switch_frame_thread(r, now, best);
	}
	if (now >= r->pres_flip_ns) {
		for (size_t i = 0; i < NPRESENTERS; i++) {
			r->pres[i].prev = r->pres[i].cur;
			r->pres[i].cur = 0;
			if (!r->pres[i].prev)
				r->pres[i].tid = 0;	/* quiet for a while: forgotten */
		}
		r->pres_flip_ns = now + FT_SWITCH_NS;
	}
}

void recorder_frames_guard_verdict(struct recorder *r)
{
	uint64_t at = 0;
	const char *why = r->ring ? ring_broken(r->ring, &at) : NULL;

	if (why)
		snprintf(r->frames_note, sizeof(r->frames_note),
			 "the frame ring was broken at %.1f s: %s. No frame after that is in the "
			 "record: the program (or something in it) wrote into the ring where only "
			 "the recorder may, or truncated it",
			 at > r->clock0.mono_ns ? (double)(at - r->clock0.mono_ns) / 1e9 : 0.0,
			 why);
	if (r->frames_over_rate)
		recorder_say(r, RECORDER_WARN, "%llu presents over %d a second were not recorded "
			     "(run.ini frames_over_rate)", (unsigned long long)r->frames_over_rate,
			     RING_MAX_FPS);
	if (r->frames_bad)
		recorder_say(r, RECORDER_WARN, "%llu frame ring entries no present can have made "
			     "were dropped: a stamp from before the ring or after it was read, an "
			     "unknown source or thread id (run.ini frames_bad)",
			     (unsigned long long)r->frames_bad);
}

void recorder_frames_guard_ini(const struct recorder *r, struct strbuf *sb)
{
	uint64_t at = 0;
	const char *why;

	if (r->fmode == FRAMES_NONE)
		return;
	inifmt_addf(sb, "frames_over_rate", "%llu", (unsigned long long)r->frames_over_rate);
	if (!r->ring)
		return;
	why = ring_broken(r->ring, &at);
	if (why)
		inifmt_addf(sb, "frames_ring", "broken at %.3f s: %s",
			    at > r->clock0.mono_ns ? (double)(at - r->clock0.mono_ns) / 1e9 : 0.0,
			    why);
	else
		inifmt_add(sb, "frames_ring", "ok");
	inifmt_addf(sb, "apispans", "%llu", (unsigned long long)r->apispans);
	inifmt_addf(sb, "frames_bad", "%llu", (unsigned long long)r->frames_bad);
}

/* --thread: whether TID is a live thread of the program with the name (its
 * comm) or the number the user gave. */
static bool thread_named(struct recorder *r, int tid)
{
	struct strbuf name = STRBUF_INIT;
	char num[16];
	bool yes;

	snprintf(num, sizeof(num), "%d", tid);
	yes = recsys_comm(r->fpid, tid, &name) == 0 &&
	      (!strcmp(name.buf, r->o.thread) || !strcmp(num, r->o.thread));

	sb_release(&name);
	return yes;
}

/* --thread: the thread the user named, a TID or a name (its comm, as in
 * /proc/PID/task/TID/comm); 0 while the program has no such thread. Looks
 * through every thread only in a slow sample (the sampler's snapshot); in
 * the others only at a thread that presented a frame, once per thread (the
 * named thread is mostly the one presenting), so that a short or late
 * thread is not missed and a sample costs at most one read. */
static int named_thread(struct recorder *r)
{
	const struct rec_thread *th;
	char *end;
	long tid;
	size_t n, k;

	n = sampler_threads(r->s, &th);
	tid = strtol(r->o.thread, &end, 10);
	if (*r->o.thread && !*end)
		return n ? (int)tid : 0;
	for (size_t i = 0; i < n; i++)
		if (thread_named(r, (int)th[i].tid))
			return (int)th[i].tid;
	if (n)	/* renamed since: look at them again */
		memset(r->thread_checked, 0, sizeof(r->thread_checked));
	if (r->other_tid <= 0)
		return 0;
	k = sizeof(r->thread_checked) / sizeof(r->thread_checked[0]);
	for (size_t i = 0; i < k; i++)
		if (r->thread_checked[i] == r->other_tid)
			return 0;
	if (thread_named(r, r->other_tid))
		return r->other_tid;
	memmove(r->thread_checked + 1, r->thread_checked,
		(k - 1) * sizeof(r->thread_checked[0]));
	r->thread_checked[0] = r->other_tid;
	return 0;
}

/* --thread: every sample until the named thread is the frame thread
 * (threads start late: a render thread after the window opens), and again
 * when it has gone (a new one of that name takes over; whether it is gone
 * is asked in slow samples only). */
void recorder_watch_named_thread(struct recorder *r, uint64_t now)
{
	const struct rec_thread *th;
	int tid;

	if (r->thread_found) {
		if (!sampler_threads(r->s, &th) || thread_named(r, r->ft_tid))
			return;
		r->thread_found = false;
	}
	tid = named_thread(r);
	if (tid <= 0)
		return;
	if (tid != r->ft_tid)
		switch_frame_thread(r, now, tid);
	r->thread_found = r->ft_tid == tid;
	r->thread_seen |= r->thread_found;
}

void recorder_poll_hud(struct recorder *r, uint64_t now)
{
	uint64_t n = 0;
	int err = hud_poll(r->hud, &n);

	if (err < 0) {
		if (!r->hud_said)
			recorder_note(r, "hud file: %s", strerror(-err));
		r->hud_said = true;
		return;
	}
	n = rate_take(r, now, n);	/* the program writes the file: it may flood it */
	for (uint64_t i = 0; i < n; i++) {
		struct rec_frame f = { now, 0, HUD_SOURCE };

		rec_writer_frame(r->w, &f);
	}
	r->frames += n;
	r->frames_src[HUD_SOURCE] += n;
	if (n)
		frame_seen(r, now);
	guard_notes(r, now);
}
