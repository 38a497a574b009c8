// SPDX-License-Identifier: MIT
/*
 * recorder_frames.c: the recorder's frames: the ring drained each sample
 * into the record, a HUD file's new lines, and the frame thread: the one
 * that presents most (followed across the processes of the run, a
 * launcher's game included), or the one --thread names. The status line's
 * figures are counted here too.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frames/hud.h"
#include "frames/ring.h"
#include "linux/recsys.h"
#include "linux/sampler.h"
#include "rec/rec.h"
#include "run/recorder_int.h"

#define FT_SWITCH_NS NSEC	/* presents are counted per thread over two of these */
#define LIVE_STALL_NS (100 * 1000 * 1000ull)	/* a stall on the status line (report's default) */

/* The frame thread presented: its process is the run's frame process
 * (run.ini frame_pid, frame_process). */
static void note_frame_process(struct recorder *r)
{
	r->frame_tid = r->ft_tid;
	if (r->frame_pid == r->fpid)
		return;
	r->frame_pid = r->fpid;
	snprintf(r->frame_comm, sizeof(r->frame_comm), "%s",
		 r->fpid == r->pid ? r->program.buf : r->fp_comm);
}

/* Makes TID the frame thread, and its process's main thread the second
 * sampled thread when they differ; a thread of another process of the run
 * brings the sampler over to that process. Writes a frame_thread event. */
static void switch_frame_thread(struct recorder *r, uint64_t now, int tid)
{
	struct strbuf name = STRBUF_INIT, text = STRBUF_INIT;
	int err = sampler_set_thread(r->s, 0, tid), pid;

	if (err == -ESRCH && r->own_child && (pid = recsys_tgid(tid)) > 0 && pid != r->fpid)
		err = recorder_switch_process(r, now, pid, tid);
	if (err < 0)
		return;	/* gone already: keep the old one */
	r->ft_tid = tid;
	r->ft2_tid = tid != r->fpid ? r->fpid : 0;
	sampler_set_thread(r->s, 1, r->ft2_tid);
	note_frame_process(r);
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
	if (r->last_frame_ns && t > r->last_frame_ns && t - r->last_frame_ns > LIVE_STALL_NS) {
		r->live_stalls++;
		r->live_last_stall_ns = t - r->last_frame_ns;
	}
	if (t > r->last_frame_ns)
		r->last_frame_ns = t;
}

/* With opts.live, once a second: elapsed, frames, fps over the last
 * second, stalls so far and the last one's length (RECORDER_LIVE). */
void recorder_live_status(struct recorder *r, uint64_t now)
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

void recorder_drain_ring(struct recorder *r, uint64_t now)
{
	struct ring_frame buf[1024];
	size_t n;
	int last_tid = 0;

	do {
		n = ring_drain(r->ring, now, buf, sizeof(buf) / sizeof(buf[0]));
		for (size_t i = 0; i < n; i++) {
			struct rec_frame f = { buf[i].t_ns, buf[i].tid, buf[i].source };

			rec_writer_frame(r->w, &f);
			r->frames_src[f.source < SRC_N ? f.source : 0]++;
			frame_seen(r, f.t_ns);
			if (!buf[i].tid)
				continue;
			count_present(r, (int)buf[i].tid);
			if ((int)buf[i].tid == r->ft_tid)
				note_frame_process(r);
			else
				last_tid = (int)buf[i].tid;
		}
		r->frames += n;
	} while (n == sizeof(buf) / sizeof(buf[0]));
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
	for (uint64_t i = 0; i < n; i++) {
		struct rec_frame f = { now, 0, HUD_SOURCE };

		rec_writer_frame(r->w, &f);
	}
	r->frames += n;
	r->frames_src[HUD_SOURCE] += n;
	if (n)
		frame_seen(r, now);
}
