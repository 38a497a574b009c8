/* SPDX-License-Identifier: MIT */
/*
 * recorder_int.h: what the recorder's files share (recorder.c: setup, the
 * loop and the end; recorder_frames.c: frames and the frame thread;
 * recorder_ini.c: run.ini and the record's header). Not for use outside
 * src/run/recorder*.c.
 */
#ifndef SS_RUN_RECORDER_INT_H
#define SS_RUN_RECORDER_INT_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/cpulist.h"
#include "core/lathist.h"
#include "core/logstamp.h"
#include "core/record.h"
#include "core/strbuf.h"
#include "linux/child.h"
#include "linux/safefile.h"
#include "linux/watch.h"
#include "run/recorder.h"

#define NSEC 1000000000ull
#define HUD_SOURCE REC_SOURCE_HUD	/* struct rec_frame.source of a HUD line */
#define SRC_N (REC_SOURCE_MAX + 1)	/* frame sources counted, by number */
#define NPRESENTERS 8		/* threads whose presents are counted */
#define RECORDER_STACKS_PENDING 32	/* exact intervals waiting for their gap's end */
#define RECORDER_STACKS_STALLS 4	/* last stalls an interval is matched with */
#define RECORDER_STACKS_IVS 8	/* intervals stacked per stall (stalls lists 8) */

/* The stacks the recorder writes (recorder_stacks_emit), each its own
 * event kind (core/where.h). */
enum recorder_stack {
	RSTACK_STALL,		/* the frame thread's in a stall: "ustack" */
	RSTACK_THREAD2,		/* the second sampled thread's in it (REC_USET_THREAD2) */
	RSTACK_INTERVAL,	/* an exact interval's switch-out (REC_USET_INTERVAL) */
	RSTACK_N
};

enum frame_mode { FRAMES_NONE, FRAMES_RING, FRAMES_HUD };

struct ring;
struct hud;
struct sampler;
struct rec_writer;
struct probe;
struct kick;
struct kick_result;
struct exact;

/* Everything a run holds; one per process. */
struct recorder {
	struct recorder_opts o;
	struct strbuf *err;	/* the caller's, while recorder_start/run runs */
	struct sf_user user;	/* whose the run's files are: every one is made
				 * as this user (linux/safefile.h) */
	char rundir[PATH_MAX - 64];
	int dir_fd;		/* the run directory, held open: its files are
				 * made under it, never through a path; -1 */
	int tmp_fd;		/* where the record and the log grow (tmpfs, or
				 * a dup of dir_fd in place); -1 */
	char rec_name[160];	/* their names in tmp_fd */
	char log_name[160];
	char out_name[160];
	char ini_name[160];	/* "" in place */
	int rec_fd;		/* the record, kept to be copied out of tmpfs by
				 * descriptor, whatever its name then is; -1 */
	char ini_path[PATH_MAX];
	char ini_tmp[PATH_MAX];		/* beside the record in tmpfs: the final run.ini
					 * when the run directory cannot take it; "" */
	char rec_path[PATH_MAX];	/* where the record is (tmpfs, then RUNDIR) */
	char rec_final[PATH_MAX];	/* RUNDIR/record.ssr */
	char log_path[PATH_MAX];	/* where program.log is; "" attached */
	char log_final[PATH_MAX];	/* RUNDIR/program.log */
	char out_path[PATH_MAX];	/* the program's raw stdout/stderr (tmpfs) */
	int log_rd;		/* that file (the program writes it through the same
				 * descriptor, O_APPEND), read by pread; -1 */
	uint64_t log_off;	/* bytes of it stamped so far */
	int log_fd;		/* the log being written (and read back to be
				 * copied), or -1 */
	struct logstamp ls;
	struct strbuf logbuf;
	struct strbuf program, cmdline, notes;
	char program_via[256];	/* the wrappers looked through to it (core/wrapper.h) */
	char program_argv[256];	/* the name from argv, when the presenting process's
				 * replaced it (recorder_confirm_name); "" else */
	char presented[64];	/* the presenting process's kernel name, at its first present */
	char frame_comm_shown[64];	/* that name, when it is not the program's but did
					 * not replace it (run.ini program_presented) */
	bool name_confirmed;	/* recorder_confirm_name ran */
	int pid;
	bool own_child;
	struct child_cred cred;	/* whom the program runs as, when as_user */
	bool as_user;		/* started as the user who ran sudo (cred) */
	int status;		/* waitpid status, valid when reaped */
	bool reaped;
	/* the stop (run.ini stop_*): the signal the run stopped the program with,
	 * 0 while it has not (it ended by itself, or attached); CLOCK_MONOTONIC
	 * ns of the stop, of the SIGKILL after the grace, of its end; 0: none */
	int stop_sig;
	uint64_t stop_ns, stop_kill_ns, stop_end_ns;
	enum frame_mode fmode;
	unsigned hooks;		/* HOOK_* in the child's environment */
	bool gl32;		/* the 32-bit GL/EGL library beside the 64-bit one */
	struct ring *ring;
	struct hud *hud;
	bool hud_said;		/* a HUD file error was noted */
	struct sampler *s;
	struct rec_writer *w;
	int64_t *vals;
	size_t nfields;
	uint64_t period_ns;
	struct rec_clock clock0;
	int ft_tid, ft2_tid;
	int fpid;		/* the process sampled: the child, or the one that presents */
	int frame_pid;		/* the process of the frame thread, when it presented; 0: none */
	int frame_tid;		/* the frame thread, when it presented; 0: none */
	char frame_comm[64];	/* its name */
	char fp_comm[64];	/* its name, when it is not the child */
	bool fp_ended;		/* fpid (not the child) has ended */
	bool followed;		/* the child ended and its descendants are followed */
	/* the threads that presented lately, with their presents in this
	 * FT_SWITCH_NS and the one before; the frame thread is the busiest */
	struct presenter {
		int tid;
		uint32_t cur, prev;
	} pres[NPRESENTERS];
	uint64_t pres_flip_ns;	/* when cur becomes prev */
	bool thread_found;	/* --thread: the named thread is the frame thread */
	bool thread_seen;	/* --thread: it was, at some point of the run */
	int other_tid;		/* a tid that presented this sample, not the frame thread */
	int thread_checked[8];	/* --thread: presenting tids whose comm did not match */
	/* figures */
	uint64_t samples, missed, frames, bytes0, bytes_end, t_start, t_end;
	uint64_t frames_src[SRC_N];	/* per frame source (enum ss_frame_source, HUD_SOURCE) */
	uint64_t last_frame_ns;		/* the last frame's stamp; 0: none */
	/* the live status line (opts.live) */
	uint64_t live_next_ns;		/* when it is next said */
	uint64_t live_frames;		/* frames at the last one */
	uint64_t live_stalls;		/* frame gaps over LIVE_STALL_NS so far */
	uint64_t live_last_stall_ns;	/* the last one's length */
	char frames_note[640];		/* no frames, or frames stopped: what and what to try */
	/* the frames as untrusted input (recorder_frames.c) */
	uint64_t rate_credit_ns;	/* presents that may still be recorded, as time: each
					 * costs 1 s / RING_MAX_FPS, the credit grows with time */
	uint64_t rate_credit_at;	/* when it last grew */
	uint64_t frames_over_rate;	/* presents (or HUD lines) over RING_MAX_FPS, not recorded */
	uint64_t apispans;		/* API call spans recorded (run.ini apispans) */
	uint64_t frames_bad;		/* ring entries no present can have made, dropped */
	int ring_refused[8];		/* presenting threads not of the run's processes */
	bool ring_broken_said, ring_over_said, ring_refused_said;
	uint64_t cpu0_ns;
	struct lathist late, work;
	enum recorder_end end;
	char rt_note[160];
	/* probe and kick (linux/probe.h, linux/kick.h) */
	struct cpulist helper_cpus;
	struct probe *probe;
	uint64_t probe_late;		/* late_wakeup events written */
	struct kick *kick;
	struct kick_result *kick_res;	/* after kick_stop */
	struct watch *watch;	/* running from before the program starts */
	struct watch_result wres;
	bool watched;		/* wres holds the verdict */
	bool failed_end;	/* something of the run could not be kept */
	struct exact *exact;	/* exact mode (loaded at start), or NULL: */
	char exact_why[320];	/* why not ("" when on, or off by --no-exact) */
	uint64_t exact_written;	/* intervals written */
	/* stacks (recorder_stacks.c) */
	struct stacks *stk;
	int stacks_tid;			/* the frame thread sampled (slot 0); 0: none */
	int stacks_tid2;		/* the second thread sampled (slot 1); 0: none */
	int stacks_want2;		/* the second thread last asked for (ft2_tid) */
	bool stacks_on, stacks_failed, stacks_why2_said;
	char stacks_why[320];		/* why not, or why only in part */
	uint64_t stacks_kind_written[RSTACK_N];	/* events written, by kind */
	uint64_t stacks_bytes, stacks_unwind_failed;
	/* exact intervals of the frame thread waiting for their gap's end,
	 * longest first; and the last stalls, with the intervals stacked in
	 * each */
	struct { uint64_t out_ns, in_ns; } stk_iv[RECORDER_STACKS_PENDING];
	size_t stk_niv;
	struct { uint64_t a, b; unsigned n; } stk_stall[RECORDER_STACKS_STALLS];
	int stk_stall_next;
	struct recorder_result res;
};

/* recorder.c */
void recorder_say(struct recorder *r, enum recorder_say kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A line for run.ini's unreadable.N (what could not be done and why). */
void recorder_note(struct recorder *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Makes PID the sampled process with TID its frame thread; 0 or -errno. */
int recorder_switch_process(struct recorder *r, uint64_t now, int pid, int tid);

/* recorder_child.c */
extern volatile sig_atomic_t recorder_got_signal;	/* a stop; -1: a second one */
extern volatile sig_atomic_t recorder_got_child;	/* SIGCHLD came */
void recorder_catch_signals(void);
int recorder_start_child(struct recorder *r);
void recorder_pump_log(struct recorder *r, uint64_t now, bool final);
bool recorder_child_ended(struct recorder *r);
bool recorder_program_ended(struct recorder *r, uint64_t now);
void recorder_stop_child(struct recorder *r, int sig);

/* recorder_frames.c */
void recorder_drain_ring(struct recorder *r, uint64_t now);
void recorder_poll_hud(struct recorder *r, uint64_t now);
void recorder_watch_named_thread(struct recorder *r, uint64_t now);
void recorder_live_status(struct recorder *r, uint64_t now);
/* At the end: a broken ring becomes the frames_note, presents over the
 * rate and impossible entries are said (RECORDER_WARN). */
void recorder_frames_guard_verdict(struct recorder *r);
/* run.ini's frames_over_rate, and with a ring frames_ring and frames_bad. */
void recorder_frames_guard_ini(const struct recorder *r, struct strbuf *sb);

/* recorder_stacks.c */
#define RECORDER_STACKS_STALL_MS 100	/* a gap this long gets its stacks (analysis's default) */
struct stacks;
void recorder_stacks_start(struct recorder *r);
void recorder_stacks_tick(struct recorder *r);
void recorder_stacks_gap(struct recorder *r, uint64_t a, uint64_t b);
/* An exact interval of thread TID from OUT to IN (recorder_exact_write). */
void recorder_stacks_interval(struct recorder *r, int tid, uint64_t out, uint64_t in);
/* Every stack written: thread TID's samples in [A_NS, B_NS] as one event of
 * KIND stamped A_NS; the samples written, 0 none, or a negative errno. */
int recorder_stacks_emit(struct recorder *r, int tid, uint64_t a_ns, uint64_t b_ns,
			 enum recorder_stack kind);
void recorder_stacks_ini(struct recorder *r, struct strbuf *sb, bool final);
void recorder_stacks_free(struct recorder *r);

/* recorder_exact.c */
/* Loads exact mode as the options say; 0, or (--exact and it cannot) a
 * negative errno with the message in ERR. */
int recorder_exact_start(struct recorder *r, struct strbuf *err);
/* Writes the sample's intervals into the record. */
void recorder_exact_write(struct recorder *r);
/* run.ini's exact keys; FINAL adds the figures. */
void recorder_exact_ini(struct recorder *r, struct strbuf *sb, bool final);

/* recorder_ini.c */
int recorder_parse_frames(struct recorder *r, struct strbuf *err);
void recorder_listened_text(const struct recorder *r, char *buf, size_t size);
void recorder_frames_verdict(struct recorder *r);
/* Writes run.ini; FINAL adds the end and the recorder's figures. 0, or a
 * negative errno with the message in r->err. */
int recorder_write_ini(struct recorder *r, bool final);
/* Creates the record with its header (meta, fields, first clock); 0, 1 when
 * the program ended before the first look (an empty record), or a negative
 * errno with the message in r->err. */
int recorder_open_record(struct recorder *r);
extern const char *const recorder_end_names[];

#endif
