// SPDX-License-Identifier: MIT
/*
 * perfetto.c: a trace in Perfetto's protobuf format (perfetto.h). The field
 * numbers below are those of Perfetto's protos (github.com/google/perfetto,
 * protos/perfetto/trace/: trace.proto, trace_packet.proto,
 * trace_packet_defaults.proto, clock_snapshot.proto,
 * interned_data/interned_data.proto, track_event/track_event.proto,
 * track_event/track_descriptor.proto, track_event/counter_descriptor.proto,
 * track_event/debug_annotation.proto, track_event/process_descriptor.proto,
 * track_event/thread_descriptor.proto, profiling/profile_common.proto,
 * profiling/profile_packet.proto; read at commit ec5d16b of 2026-08),
 * and tests/perfetto/stallscope.proto repeats them for protoc --decode.
 * The semantics (incremental clocks, sequence flags, interning) are those
 * of docs/concepts/clock-sync.md and docs/reference/synthetic-track-event.md
 * in the same tree.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "out/pbuf.h"
#include "out/perfetto.h"
#include "out/spill.h"

/* Trace */
#define F_TRACE_PACKET 1
/* TracePacket */
enum {
	F_PKT_CLOCK_SNAPSHOT = 6,
	F_PKT_TIMESTAMP = 8,
	F_PKT_SEQ_ID = 10,		/* trusted_packet_sequence_id */
	F_PKT_TRACK_EVENT = 11,
	F_PKT_INTERNED = 12,
	F_PKT_SEQ_FLAGS = 13,
	F_PKT_CLOCK_ID = 58,		/* timestamp_clock_id */
	F_PKT_DEFAULTS = 59,		/* trace_packet_defaults */
	F_PKT_TRACK_DESC = 60,
	F_PKT_PERF_SAMPLE = 66,
	F_PKT_FIRST_ON_SEQ = 87,	/* first_packet_on_sequence */
};
/* TracePacket.SequenceFlags */
#define SEQ_INCREMENTAL_STATE_CLEARED 1
#define SEQ_NEEDS_INCREMENTAL_STATE 2
/* TracePacketDefaults (58, 11) and TrackEventDefaults (11) */
#define F_DEF_CLOCK_ID 58
#define F_DEF_TRACK_EVENT 11
#define F_TED_TRACK_UUID 11
/* ClockSnapshot, ClockSnapshot.Clock, BuiltinClocks */
#define F_CS_CLOCKS 1
#define F_CS_PRIMARY 2
#define F_CLK_ID 1
#define F_CLK_TIMESTAMP 2
#define F_CLK_INCREMENTAL 3
enum { CLOCK_REALTIME_ID = 1, CLOCK_MONOTONIC_ID = 3, CLOCK_BOOTTIME_ID = 6 };
#define SEQ_CLOCK_ID 64		/* sequence-scoped clocks are 64..127 */
/* TrackEvent */
enum {
	F_TE_ANNOTATIONS = 4,		/* debug_annotations */
	F_TE_TYPE = 9,
	F_TE_NAME_IID = 10,
	F_TE_DOUBLE_VALUE = 44,		/* double_counter_value */
};
#define TE_TYPE_COUNTER 4
/* DebugAnnotation */
enum {
	F_DA_NAME_IID = 1,
	F_DA_BOOL = 2,
	F_DA_INT = 4,
	F_DA_DOUBLE = 5,
	F_DA_STRING = 6,
	F_DA_STRING_IID = 17,
};
/* InternedData; EventName, DebugAnnotationName and InternedString are all
 * { iid = 1; name or str = 2 } */
enum {
	F_IN_EVENT_NAMES = 2,
	F_IN_ANNOTATION_NAMES = 3,
	F_IN_FUNCTION_NAMES = 5,	/* InternedString */
	F_IN_FRAMES = 6,
	F_IN_CALLSTACKS = 7,
	F_IN_MAPPING_PATHS = 17,	/* InternedString */
	F_IN_MAPPINGS = 19,
	F_IN_STRINGS = 29,
};
#define F_ENTRY_IID 1
#define F_ENTRY_NAME 2
/* Mapping, Frame, Callstack (profile_common.proto) */
#define F_MAP_IID 1
#define F_MAP_PATH_IDS 7
#define F_FRAME_IID 1
#define F_FRAME_NAME_ID 2
#define F_FRAME_MAPPING_ID 3
#define F_FRAME_REL_PC 4
#define F_CS_IID 1
#define F_CS_FRAME_IDS 2
/* PerfSample (profile_packet.proto) and Profiling.CpuMode */
#define F_PS_PID 2
#define F_PS_TID 3
#define F_PS_CALLSTACK_IID 4
#define F_PS_CPU_MODE 5
enum { CPU_MODE_KERNEL = 1, CPU_MODE_USER = 2 };
/* our two mappings: the program's (no path: frames come named) and
 * Perfetto's kernel one ("/kernel", no build id) */
enum { MAPPING_USER = 1, MAPPING_KERNEL = 2 };
/* TrackDescriptor, ProcessDescriptor, ThreadDescriptor, CounterDescriptor */
enum {
	F_TD_UUID = 1,
	F_TD_NAME = 2,
	F_TD_PROCESS = 3,
	F_TD_THREAD = 4,
	F_TD_PARENT = 5,
	F_TD_COUNTER = 8,
	F_TD_CHILD_ORDERING = 11,
	F_TD_RANK = 12,			/* sibling_order_rank */
	F_TD_DESCRIPTION = 14,
};
#define CHILD_ORDERING_EXPLICIT 3
#define F_PD_PID 1
#define F_PD_NAME 6
#define F_THD_PID 1
#define F_THD_TID 2
#define F_THD_NAME 5
#define F_CD_UNIT 3
#define F_CD_UNIT_NAME 6

/* ---------------------------------------------------------------- file */

#define OUT_BUF (1u << 17)

struct perfetto_out {
	FILE *f;		/* raw, or NULL */
	gzFile gz;		/* compressed, or NULL */
	int err;		/* the first error */
	uint64_t packets, bytes;
	struct pbuf pkt;	/* a packet being put together */
	size_t nbuf, bufsz;	/* bytes in buf, not yet written; its size */
	uint8_t *buf;
};

/* A spill's buffer: a trace has dozens of them open at once. */
#define SPILL_BUF (1u << 14)

int perfetto_out_open_fd(int fd, bool gz, struct perfetto_out **ret, struct strbuf *err)
{
	struct perfetto_out *o = calloc(1, sizeof(*o));

	if (!o || !(o->buf = malloc(OUT_BUF))) {
		free(o);
		close(fd);
		return sb_error(err, -ENOMEM, "the trace");
	}
	o->bufsz = OUT_BUF;
	if (gz) {
		o->gz = gzdopen(fd, "wb3");
		if (o->gz)
			gzbuffer(o->gz, 1 << 17);
	} else {
		o->f = fdopen(fd, "w");
		if (o->f)
			setvbuf(o->f, NULL, _IOFBF, 1 << 17);
	}
	if (!o->gz && !o->f) {
		close(fd);
		free(o->buf);
		free(o);
		return sb_error(err, -ENOMEM, "the trace");
	}
	*ret = o;
	return 0;
}

/* Writes what is buffered to the file. */
static void out_flush(struct perfetto_out *o)
{
	if (o->err || !o->nbuf)
		return;
	if (o->gz) {
		if (gzwrite(o->gz, o->buf, (unsigned)o->nbuf) != (int)o->nbuf)
			o->err = -EIO;
	} else if (fwrite(o->buf, 1, o->nbuf, o->f) != o->nbuf) {
		o->err = errno ? -errno : -EIO;
	}
	o->nbuf = 0;
}

static void out_write(struct perfetto_out *o, const void *p, size_t n)
{
	if (o->err)
		return;
	o->bytes += n;
	if (o->nbuf + n > o->bufsz)
		out_flush(o);
	if (n > o->bufsz) {
		o->nbuf = n;	/* a packet over the buffer: straight through */
		if (o->gz ? gzwrite(o->gz, p, (unsigned)n) != (int)n : fwrite(p, 1, n, o->f) != n)
			o->err = -EIO;
		o->nbuf = 0;
		return;
	}
	memcpy(o->buf + o->nbuf, p, n);
	o->nbuf += n;
}

/* Writes the packet in o->pkt as one Trace.packet. */
static int out_packet(struct perfetto_out *o)
{
	uint8_t head[11];
	size_t n;

	if (pb_failed(&o->pkt) && !o->err)
		o->err = -ENOMEM;
	if (o->err)
		return o->err;
	head[0] = F_TRACE_PACKET << 3 | 2;
	n = 1 + pb_varint_encode(head + 1, o->pkt.len);
	out_write(o, head, n);
	out_write(o, o->pkt.p, o->pkt.len);
	o->packets++;
	pb_reset(&o->pkt);
	return o->err;
}

int perfetto_out_close(struct perfetto_out *o)
{
	int r;

	if (!o)
		return 0;
	out_flush(o);
	r = o->err;
	if (o->gz) {
		if (gzclose(o->gz) != Z_OK && !r)
			r = -EIO;
	} else if (o->f && fclose(o->f) != 0 && !r) {
		r = errno ? -errno : -EIO;
	}
	pb_release(&o->pkt);
	free(o->buf);
	free(o);
	return r;
}

int perfetto_out_spill(const char *dir, struct perfetto_out **ret)
{
	struct perfetto_out *o;
	int fd = spill_fd(dir);

	if (fd < 0)
		return fd;
	o = calloc(1, sizeof(*o));
	if (!o || !(o->buf = malloc(SPILL_BUF)) || !(o->f = fdopen(fd, "w+"))) {
		if (o)
			free(o->buf);
		free(o);
		close(fd);
		return -ENOMEM;
	}
	o->bufsz = SPILL_BUF;
	setvbuf(o->f, NULL, _IONBF, 0);	/* buf is the buffer */
	*ret = o;
	return 0;
}

int perfetto_out_append(struct perfetto_out *o, struct perfetto_out *spill)
{
	uint8_t chunk[1 << 16];
	int r;

	out_flush(spill);
	r = spill->err;
	if (!r && fseek(spill->f, 0, SEEK_SET) != 0)
		r = errno ? -errno : -EIO;
	while (!r && !o->err) {
		size_t n = fread(chunk, 1, sizeof(chunk), spill->f);

		if (!n) {
			if (ferror(spill->f))
				r = -EIO;
			break;
		}
		out_write(o, chunk, n);
	}
	o->packets += spill->packets;
	if (r && !o->err)
		o->err = r;
	perfetto_out_close(spill);
	return o->err;
}

void perfetto_out_fail(struct perfetto_out *o, int err)
{
	if (!o->err)
		o->err = err;
}

uint64_t perfetto_out_packets(const struct perfetto_out *o)
{
	return o->packets;
}

uint64_t perfetto_out_bytes(const struct perfetto_out *o)
{
	return o->bytes;
}

static void clock_entry(struct pbuf *b, uint32_t id, uint64_t t, bool incremental)
{
	pb_begin(b, F_CS_CLOCKS);
	pb_varint(b, F_CLK_ID, id);
	pb_varint(b, F_CLK_TIMESTAMP, t);
	if (incremental)
		pb_varint(b, F_CLK_INCREMENTAL, 1);
	pb_end(b);
}

int perfetto_out_clocks(struct perfetto_out *o, uint64_t mono_ns, uint64_t boot_ns, uint64_t real_ns,
		  bool primary_mono)
{
	struct pbuf *b = &o->pkt;

	pb_begin(b, F_PKT_CLOCK_SNAPSHOT);
	clock_entry(b, CLOCK_MONOTONIC_ID, mono_ns, false);
	if (boot_ns)
		clock_entry(b, CLOCK_BOOTTIME_ID, boot_ns, false);
	if (real_ns)
		clock_entry(b, CLOCK_REALTIME_ID, real_ns, false);
	if (primary_mono)
		pb_varint(b, F_CS_PRIMARY, CLOCK_MONOTONIC_ID);
	pb_end(b);
	/* builtin clocks are global: the packet needs no sequence, but
	 * trace_processor keys its state by one; 1 is no track's */
	pb_varint(b, F_PKT_SEQ_ID, 1);
	return out_packet(o);
}

/* ---------------------------------------------------------- interning */

/* One table of interned strings: string -> iid, open addressing. */
struct intern {
	char **key;
	uint64_t *iid;
	size_t cap, n;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 0x100000001b3ull;
	return h;
}

static void intern_release(struct intern *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->key[i]);
	free(t->key);
	free(t->iid);
}

static int intern_grow(struct intern *t)
{
	size_t cap = t->cap ? 2 * t->cap : 64;
	char **key = calloc(cap, sizeof(*key));
	uint64_t *iid = calloc(cap, sizeof(*iid));

	if (!key || !iid) {
		free(key);
		free(iid);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->cap; i++) {
		size_t k;

		if (!t->key[i])
			continue;
		for (k = hash_str(t->key[i]) & (cap - 1); key[k]; k = (k + 1) & (cap - 1))
			;
		key[k] = t->key[i];
		iid[k] = t->iid[i];
	}
	free(t->key);
	free(t->iid);
	t->key = key;
	t->iid = iid;
	t->cap = cap;
	return 0;
}

/* ---------------------------------------------------------- sequences */

struct perfetto_seq {
	struct perfetto_out *o;
	uint32_t id;
	uint64_t last_ns;	/* the incremental clock: the last packet's time */
	uint64_t t_ns;		/* the event being built */
	bool uses_state;	/* it refers to interned strings */
	bool oom;
	bool mappings;		/* MAPPING_USER and MAPPING_KERNEL sent */
	struct intern names, keys, strs;
	struct intern fnames, frames, stacks;	/* callstacks: function names, frames */
	struct strbuf key;	/* a frame's or callstack's interning key */
	struct pbuf ev;		/* the TrackEvent being built */
	struct pbuf in;		/* the InternedData entries it adds */
};

/* The iid of KEY in table T, *ISNEW when it was added (the caller then
 * writes its entry). 0 when out of memory. */
static uint64_t intern_key(struct perfetto_seq *s, struct intern *t, const char *key, bool *isnew)
{
	size_t k;

	*isnew = false;
	if (2 * (t->n + 1) > t->cap && intern_grow(t) < 0)
		goto oom;
	for (k = hash_str(key) & (t->cap - 1); t->key[k]; k = (k + 1) & (t->cap - 1))
		if (!strcmp(t->key[k], key))
			return t->iid[k];
	t->key[k] = strdup(key);
	if (!t->key[k])
		goto oom;
	t->iid[k] = ++t->n;
	*isnew = true;
	return t->iid[k];
oom:
	s->oom = true;
	return 0;
}

/* The iid of STR in table T; a new one is added to s->in (FIELD of
 * InternedData: { iid = 1; name or str = 2 }). 0 when out of memory. */
static uint64_t intern(struct perfetto_seq *s, struct intern *t, uint32_t field, const char *str)
{
	bool isnew;
	uint64_t iid = intern_key(s, t, str, &isnew);

	if (isnew) {
		pb_begin(&s->in, field);
		pb_varint(&s->in, F_ENTRY_IID, iid);
		pb_str(&s->in, F_ENTRY_NAME, str);
		pb_end(&s->in);
	}
	return iid;
}

int perfetto_seq_open(struct perfetto_out *o, uint32_t id, uint64_t track, uint64_t base_ns,
		struct perfetto_seq **ret)
{
	struct perfetto_seq *s = calloc(1, sizeof(*s));
	struct pbuf *b = &o->pkt;
	int r;

	if (!s)
		return -ENOMEM;
	sb_init(&s->key);
	s->o = o;
	s->id = id;
	s->last_ns = base_ns;
	/* the defaults: every event on TRACK, stamped by the sequence's clock */
	pb_varint(b, F_PKT_SEQ_ID, id);
	pb_varint(b, F_PKT_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED | SEQ_NEEDS_INCREMENTAL_STATE);
	pb_varint(b, F_PKT_FIRST_ON_SEQ, 1);
	pb_begin(b, F_PKT_DEFAULTS);
	pb_varint(b, F_DEF_CLOCK_ID, SEQ_CLOCK_ID);
	pb_begin(b, F_DEF_TRACK_EVENT);
	pb_varint(b, F_TED_TRACK_UUID, track);
	pb_end(b);
	pb_end(b);
	r = out_packet(o);
	/* the clock: incremental, in ns, BASE_NS on CLOCK_MONOTONIC */
	pb_begin(b, F_PKT_CLOCK_SNAPSHOT);
	clock_entry(b, SEQ_CLOCK_ID, base_ns, true);
	clock_entry(b, CLOCK_MONOTONIC_ID, base_ns, false);
	pb_end(b);
	pb_varint(b, F_PKT_SEQ_ID, id);
	if (!r)
		r = out_packet(o);
	if (r < 0) {
		perfetto_seq_free(s);
		return r;
	}
	*ret = s;
	return 0;
}

void perfetto_seq_free(struct perfetto_seq *s)
{
	if (!s)
		return;
	intern_release(&s->names);
	intern_release(&s->keys);
	intern_release(&s->strs);
	intern_release(&s->fnames);
	intern_release(&s->frames);
	intern_release(&s->stacks);
	sb_release(&s->key);
	pb_release(&s->ev);
	pb_release(&s->in);
	free(s);
}

/* The packet's timestamp: a delta on the sequence's clock, or, for a time
 * before the last one, absolute on CLOCK_MONOTONIC. */
static void put_time(struct perfetto_seq *s, struct pbuf *b, uint64_t t_ns)
{
	if (t_ns >= s->last_ns) {
		pb_varint(b, F_PKT_TIMESTAMP, t_ns - s->last_ns);
		s->last_ns = t_ns;
	} else {
		pb_varint(b, F_PKT_TIMESTAMP, t_ns);
		pb_varint(b, F_PKT_CLOCK_ID, CLOCK_MONOTONIC_ID);
	}
}

/* Writes the packet: time, new interned entries, PAYLOAD's bytes as FIELD. */
static int seq_packet(struct perfetto_seq *s, uint32_t field, const struct pbuf *payload)
{
	struct pbuf *b = &s->o->pkt;
	int r;

	if (s->oom || pb_failed(&s->ev) || pb_failed(&s->in)) {
		if (!s->o->err)
			s->o->err = -ENOMEM;
		return s->o->err;
	}
	put_time(s, b, s->t_ns);
	if (s->in.len)
		pb_bytes(b, F_PKT_INTERNED, s->in.p, s->in.len);
	pb_bytes(b, field, payload->p, payload->len);
	pb_varint(b, F_PKT_SEQ_ID, s->id);
	if (s->uses_state)
		pb_varint(b, F_PKT_SEQ_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
	r = out_packet(s->o);
	pb_reset(&s->ev);
	pb_reset(&s->in);
	s->uses_state = false;
	return r;
}

int perfetto_track(struct perfetto_seq *s, const struct perfetto_track *t)
{
	struct pbuf *b = &s->ev;

	pb_reset(b);
	s->t_ns = s->last_ns;
	pb_varint(b, F_TD_UUID, t->uuid);
	if (t->parent)
		pb_varint(b, F_TD_PARENT, t->parent);
	if (t->kind == PERFETTO_TRACK_PROCESS) {
		pb_begin(b, F_TD_PROCESS);
		pb_varint(b, F_PD_PID, (uint64_t)(int64_t)t->pid);
		if (t->name)
			pb_str(b, F_PD_NAME, t->name);
		pb_end(b);
	} else if (t->kind == PERFETTO_TRACK_THREAD) {
		pb_begin(b, F_TD_THREAD);
		pb_varint(b, F_THD_PID, (uint64_t)(int64_t)t->pid);
		pb_varint(b, F_THD_TID, (uint64_t)t->tid);
		if (t->name)
			pb_str(b, F_THD_NAME, t->name);
		pb_end(b);
	} else if (t->name) {
		pb_str(b, F_TD_NAME, t->name);
	}
	if (t->description)
		pb_str(b, F_TD_DESCRIPTION, t->description);
	if (t->kind == PERFETTO_TRACK_COUNTER) {
		pb_begin(b, F_TD_COUNTER);
		if (t->unit != PERFETTO_UNIT_NONE)
			pb_varint(b, F_CD_UNIT, t->unit);
		if (t->unit_name)
			pb_str(b, F_CD_UNIT_NAME, t->unit_name);
		pb_end(b);
	}
	if (t->ranked_children)
		pb_varint(b, F_TD_CHILD_ORDERING, CHILD_ORDERING_EXPLICIT);
	if (t->rank)
		pb_varint(b, F_TD_RANK, (uint64_t)(int64_t)t->rank);
	return seq_packet(s, F_PKT_TRACK_DESC, b);
}

void perfetto_event(struct perfetto_seq *s, uint64_t t_ns, enum perfetto_type type, const char *name)
{
	pb_reset(&s->ev);
	s->t_ns = t_ns;
	pb_varint(&s->ev, F_TE_TYPE, type);
	if (name) {
		pb_varint(&s->ev, F_TE_NAME_IID, intern(s, &s->names, F_IN_EVENT_NAMES, name));
		s->uses_state = true;
	}
}

static void arg_begin(struct perfetto_seq *s, const char *key)
{
	pb_begin(&s->ev, F_TE_ANNOTATIONS);
	pb_varint(&s->ev, F_DA_NAME_IID, intern(s, &s->keys, F_IN_ANNOTATION_NAMES, key));
	s->uses_state = true;
}

void perfetto_arg_str(struct perfetto_seq *s, const char *key, const char *v)
{
	arg_begin(s, key);
	pb_str(&s->ev, F_DA_STRING, v ? v : "");
	pb_end(&s->ev);
}

void perfetto_arg_istr(struct perfetto_seq *s, const char *key, const char *v)
{
	arg_begin(s, key);
	pb_varint(&s->ev, F_DA_STRING_IID, intern(s, &s->strs, F_IN_STRINGS, v ? v : ""));
	pb_end(&s->ev);
}

void perfetto_arg_int(struct perfetto_seq *s, const char *key, int64_t v)
{
	arg_begin(s, key);
	pb_varint(&s->ev, F_DA_INT, (uint64_t)v);
	pb_end(&s->ev);
}

void perfetto_arg_double(struct perfetto_seq *s, const char *key, double v)
{
	arg_begin(s, key);
	pb_double(&s->ev, F_DA_DOUBLE, v);
	pb_end(&s->ev);
}

void perfetto_arg_bool(struct perfetto_seq *s, const char *key, bool v)
{
	arg_begin(s, key);
	pb_varint(&s->ev, F_DA_BOOL, v);
	pb_end(&s->ev);
}

int perfetto_emit(struct perfetto_seq *s)
{
	return seq_packet(s, F_PKT_TRACK_EVENT, &s->ev);
}

int perfetto_counter(struct perfetto_seq *s, uint64_t t_ns, double v)
{
	pb_reset(&s->ev);
	s->t_ns = t_ns;
	pb_varint(&s->ev, F_TE_TYPE, TE_TYPE_COUNTER);
	pb_double(&s->ev, F_TE_DOUBLE_VALUE, v);
	return seq_packet(s, F_PKT_TRACK_EVENT, &s->ev);
}

/* ---------------------------------------------------------- callstacks */

/* The two mappings, in the packet that first needs them. */
static void mappings(struct perfetto_seq *s)
{
	if (s->mappings)
		return;
	s->mappings = true;
	pb_begin(&s->in, F_IN_MAPPING_PATHS);
	pb_varint(&s->in, F_ENTRY_IID, 1);
	pb_str(&s->in, F_ENTRY_NAME, "kernel");
	pb_end(&s->in);
	pb_begin(&s->in, F_IN_MAPPINGS);
	pb_varint(&s->in, F_MAP_IID, MAPPING_USER);
	pb_end(&s->in);
	pb_begin(&s->in, F_IN_MAPPINGS);
	pb_varint(&s->in, F_MAP_IID, MAPPING_KERNEL);
	pb_varint(&s->in, F_MAP_PATH_IDS, 1);
	pb_end(&s->in);
}

/* The iid of frame F (its name interned too). 0 when out of memory. */
static uint64_t frame_iid(struct perfetto_seq *s, const struct perfetto_frame *f)
{
	uint64_t name, iid;
	bool isnew;

	sb_reset(&s->key);
	if (sb_adds(&s->key, f->kernel ? "k" : "u") < 0 || sb_adds(&s->key, f->name) < 0) {
		s->oom = true;
		return 0;
	}
	iid = intern_key(s, &s->frames, s->key.buf, &isnew);
	if (!isnew)
		return iid;
	name = intern(s, &s->fnames, F_IN_FUNCTION_NAMES, f->name);
	mappings(s);
	pb_begin(&s->in, F_IN_FRAMES);
	pb_varint(&s->in, F_FRAME_IID, iid);
	pb_varint(&s->in, F_FRAME_NAME_ID, name);
	pb_varint(&s->in, F_FRAME_MAPPING_ID, f->kernel ? MAPPING_KERNEL : MAPPING_USER);
	pb_varint(&s->in, F_FRAME_REL_PC, 0);
	pb_end(&s->in);
	return iid;
}

uint64_t perfetto_callstack(struct perfetto_seq *s, const struct perfetto_frame *f, size_t n)
{
	uint64_t *ids = calloc(n ? n : 1, sizeof(*ids)), iid;
	bool isnew;
	char num[24];

	if (!ids) {
		s->oom = true;
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		ids[i] = frame_iid(s, &f[i]);
	/* the key: the frames' iids */
	sb_reset(&s->key);
	for (size_t i = 0; i < n; i++) {
		snprintf(num, sizeof(num), "%llu,", (unsigned long long)ids[i]);
		if (sb_adds(&s->key, num) < 0)
			s->oom = true;
	}
	iid = s->oom ? 0 : intern_key(s, &s->stacks, s->key.buf, &isnew);
	if (iid && isnew) {
		pb_begin(&s->in, F_IN_CALLSTACKS);
		pb_varint(&s->in, F_CS_IID, iid);
		for (size_t i = 0; i < n; i++)
			pb_varint(&s->in, F_CS_FRAME_IDS, ids[i]);
		pb_end(&s->in);
	}
	free(ids);
	s->uses_state = true;
	return iid;
}

int perfetto_sample(struct perfetto_seq *s, uint64_t t_ns, int32_t pid, int64_t tid, uint64_t callstack,
	      bool kernel)
{
	pb_reset(&s->ev);
	s->t_ns = t_ns;
	pb_varint(&s->ev, F_PS_PID, (uint64_t)(uint32_t)pid);
	pb_varint(&s->ev, F_PS_TID, (uint64_t)(uint32_t)tid);
	pb_varint(&s->ev, F_PS_CALLSTACK_IID, callstack);
	pb_varint(&s->ev, F_PS_CPU_MODE, kernel ? CPU_MODE_KERNEL : CPU_MODE_USER);
	s->uses_state = true;
	return seq_packet(s, F_PKT_PERF_SAMPLE, &s->ev);
}
