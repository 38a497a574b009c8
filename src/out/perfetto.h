/* SPDX-License-Identifier: MIT */
/*
 * perfetto.h: a trace in Perfetto's protobuf format (a Trace of
 * TracePackets carrying TrackDescriptors and TrackEvents), the format
 * ui.perfetto.dev and trace_processor open. docs/EXPORT.md says what goes in
 * and why it is laid out so; the field numbers are Perfetto's (perfetto.c
 * cites the .proto files), checked by tests/perfetto/stallscope.proto and
 * protoc --decode.
 *
 * The model: one packet sequence per track (and one for the stalls'
 * callstack samples). A sequence starts with its
 * defaults (the track every event lands on, the clock) and a clock snapshot
 * of its own incremental clock against CLOCK_MONOTONIC, so that an event
 * costs its time as a delta from the previous one, in ns, and no track id;
 * names, annotation names and annotation strings flagged for it are
 * interned per sequence, each sent once, in the packet that first uses it.
 * Events of a sequence are written in time order; one earlier than its
 * predecessor is still right (an absolute CLOCK_MONOTONIC stamp) and costs
 * a few bytes more.
 *
 * Errors: writes that fail are remembered; perfetto_out_close returns the first
 * (a negative errno). A sequence that ran out of memory fails its packets
 * with -ENOMEM, also kept by its trace.
 */
#ifndef SS_OUT_PERFETTO_H
#define SS_OUT_PERFETTO_H

#include <stdbool.h>
#include <stdint.h>

#include "core/strbuf.h"

struct perfetto_out;
struct perfetto_seq;

/* Writes the trace to FD (owned from here on, closed by perfetto_out_close, also
 * when this fails), gzip-compressed when GZ. Where FD leads and whether the
 * file is kept is the caller's (src/cmd/outfile.h: a temporary renamed
 * when whole). 0, or a negative errno with the message in ERR. */
int perfetto_out_open_fd(int fd, bool gz, struct perfetto_out **ret, struct strbuf *err);
/* Flushes and closes the file and frees O (NULL-safe). 0 or the first
 * error (of a write, or perfetto_out_fail's): then the file is not whole. */
int perfetto_out_close(struct perfetto_out *o);
/* A spill: a part of a trace written to an unlinked temporary file in DIR
 * (NULL, or a directory that takes none: $TMPDIR, else /tmp) with a small
 * buffer, for a writer that fills
 * several parts at once and appends them in their order
 * (perfetto_out_append). 0 or a negative errno. */
int perfetto_out_spill(const char *dir, struct perfetto_out **ret);
/* Appends SPILL's packets to O (counted as O's) and frees SPILL. 0 or the
 * first error of either. */
int perfetto_out_append(struct perfetto_out *o, struct perfetto_out *spill);
/* Marks O failed with ERR (a negative errno), which perfetto_out_close returns:
 * for a writer that gave up. */
void perfetto_out_fail(struct perfetto_out *o, int err);
uint64_t perfetto_out_packets(const struct perfetto_out *o);
uint64_t perfetto_out_bytes(const struct perfetto_out *o);	/* before compression */

/* A snapshot of the machine's clocks at one instant (0: not known; MONO
 * always is). The first one written with PRIMARY_MONO makes CLOCK_MONOTONIC
 * the trace's clock (for a record with no CLOCK_BOOTTIME, Perfetto's
 * default, to which nothing could then be related). */
int perfetto_out_clocks(struct perfetto_out *o, uint64_t mono_ns, uint64_t boot_ns, uint64_t real_ns,
		  bool primary_mono);

/* A new sequence with id ID (unique in the trace, > 1), whose events land on
 * track TRACK; its clock starts at BASE_NS (CLOCK_MONOTONIC), no later than
 * its first event. Writes its first packets. 0 or a negative errno. */
int perfetto_seq_open(struct perfetto_out *o, uint32_t id, uint64_t track, uint64_t base_ns,
		struct perfetto_seq **ret);
void perfetto_seq_free(struct perfetto_seq *s);	/* NULL-safe */

enum perfetto_track_kind { PERFETTO_TRACK_PLAIN, PERFETTO_TRACK_PROCESS, PERFETTO_TRACK_THREAD, PERFETTO_TRACK_COUNTER };
enum perfetto_unit { PERFETTO_UNIT_NONE = 0, PERFETTO_UNIT_TIME_NS = 1, PERFETTO_UNIT_COUNT = 2, PERFETTO_UNIT_BYTES = 3 };

struct perfetto_track {
	enum perfetto_track_kind kind;
	uint64_t uuid, parent;		/* parent 0: none */
	const char *name;		/* the process's or thread's name for those */
	const char *description;	/* NULL: none */
	int32_t pid;			/* process and thread tracks */
	int64_t tid;			/* thread tracks */
	int rank;			/* order among siblings, lower first (0: unset) */
	bool ranked_children;		/* its children are ordered by their rank */
	enum perfetto_unit unit;		/* counter tracks */
	const char *unit_name;		/* counter tracks: "%", "/s"; NULL: none */
};

/* Describes track T (on S, at its current time). 0 or a negative errno. */
int perfetto_track(struct perfetto_seq *s, const struct perfetto_track *t);

enum perfetto_type { PERFETTO_BEGIN = 1, PERFETTO_END = 2, PERFETTO_INSTANT = 3 };

/*
 * An event on S's track at T_NS (CLOCK_MONOTONIC): perfetto_event, then its
 * annotations, then perfetto_emit writes it. NAME is interned (NULL for PERFETTO_END).
 * An annotation's key is interned; perfetto_arg_istr interns its value too (for
 * values that repeat: wchan names, causes), perfetto_arg_str does not.
 */
void perfetto_event(struct perfetto_seq *s, uint64_t t_ns, enum perfetto_type type, const char *name);
void perfetto_arg_str(struct perfetto_seq *s, const char *key, const char *v);
void perfetto_arg_istr(struct perfetto_seq *s, const char *key, const char *v);
void perfetto_arg_int(struct perfetto_seq *s, const char *key, int64_t v);
void perfetto_arg_double(struct perfetto_seq *s, const char *key, double v);
void perfetto_arg_bool(struct perfetto_seq *s, const char *key, bool v);
int perfetto_emit(struct perfetto_seq *s);

/* A counter track's value from T_NS on. 0 or a negative errno. */
int perfetto_counter(struct perfetto_seq *s, uint64_t t_ns, double v);

/*
 * Callstack samples: Perfetto's PerfSample (the packet of its linux.perf
 * data source), which its UI draws on the sampled thread's track and sums
 * into a flame graph for a selected range. The thread is the sample's own
 * (PID, TID), whatever S's track. A frame is a name; user frames sit in one
 * mapping with no path (they come named, so none is needed to symbolize
 * them), kernel frames in Perfetto's kernel mapping ("/kernel"); frames,
 * their names and callstacks are interned per sequence.
 */
struct perfetto_frame {
	const char *name;
	bool kernel;
};
/* The iid of the callstack of the N frames F, outermost first (Perfetto's
 * order), interned on S with its frames (sent with S's next packet). 0 when
 * out of memory: S then fails its next packet. */
uint64_t perfetto_callstack(struct perfetto_seq *s, const struct perfetto_frame *f, size_t n);
/* A sample of thread TID of process PID at T_NS in CALLSTACK (perfetto_callstack's),
 * taken in the kernel when KERNEL, else in user mode. 0 or a negative errno. */
int perfetto_sample(struct perfetto_seq *s, uint64_t t_ns, int32_t pid, int64_t tid, uint64_t callstack,
	      bool kernel);

#endif
