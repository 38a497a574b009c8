// SPDX-License-Identifier: MIT
/*
 * analyse.c: one input (a frame log or a run directory) to its metrics,
 * causes and notes (analyse.h), for report, matrix, stalls, bench and db.
 * Never prints: errors are a negative errno and a message in the caller's
 * strbuf.
 *
 * Reads whole files into memory through core/file.h, regular files only and
 * capped (a run.ini, a rules file and a list at FILE_TEXT_MAX, a program log
 * at FILE_LOG_MAX), a run directory's through its owner, run/rundir.h; a
 * frame log goes through framelog.h, a record through rec.h, from the file
 * rundir_open_record opened and checked. Times: a run
 * directory's frames are put on t0's clock (t_s = present - t0) so that pass
 * stamps and program-log stamps, both seconds since t0, line up with them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <math.h>

#include "core/argsplit.h"
#include "core/file.h"
#include "core/grow.h"
#include "core/runini.h"
#include "core/wrapper.h"
#include "rec/rec.h"
#include "run/analyse.h"
#include "run/rundir.h"
#include "run/symbols.h"

#ifndef SS_DATADIR
#define SS_DATADIR "/usr/local/share/stallscope"
#endif

/* The program's log of RD whole (FILE_LOG_MAX at most) into *RET (owned,
 * NUL-terminated) and *RET_LEN: 0, or a negative errno with ERR. */
static int read_log(const struct rundir *rd, char **ret, size_t *ret_len, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	int r = rundir_read(rd, RUNDIR_LOG, FILE_LOG_MAX, &text, err);

	if (r < 0)
		return r;
	*ret_len = text.len;
	*ret = sb_detach(&text);
	return *ret ? 0 : sb_error(err, -ENOMEM, "'%s'", rd->path);
}

int analyse_load_rules(const char *path, struct reload_rules **ret, const char **ret_name,
		       struct strbuf *emsg)
{
	static const char *const defaults[] = {
		SS_DATADIR "/reload-rules.ini",
#ifdef SS_SRCDIR
		SS_SRCDIR "/share/reload-rules.ini",
#endif
	};
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	size_t i;
	int r;

	*ret = NULL;
	*ret_name = NULL;
	if (!path) {
		for (i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++) {
			if (access(defaults[i], R_OK) == 0) {
				path = defaults[i];
				break;
			}
		}
		if (!path)
			return 0;
	}
	r = file_read_text(path, "the rules file", FILE_TEXT_MAX, &text, emsg);
	if (r < 0)
		return r;
	r = reload_rules_parse(text.buf, text.len, path, ret, &err);
	sb_release(&text);
	if (r < 0) {
		if (r == -ENOMEM)
			sb_error(emsg, r, "'%s'", path);
		else
			sb_error(emsg, 0, "%s", err.buf);
		sb_release(&err);
		return -EINVAL;
	}
	*ret_name = path;
	return 0;
}

void analysis_release(struct analysis *a)
{
	if (!a)
		return;
	free(a->source);
	free(a->program);
	free(a->variant);
	rec_free(a->rec);
	rec_free(a->rec_win);
	frames_free(a->f);
	free(a->segs);
	runini_free(a->ini);
	free(a->interference);
	free(a->frames_note);
	free(a->failure);
	free(a->log_path);
	memset(a, 0, sizeof(*a));
}

/* The last component of P without trailing slashes: its start and length. */
static const char *last_name(const char *p, size_t *ret_len)
{
	size_t n = strlen(p), b;

	while (n > 1 && p[n - 1] == '/')
		n--;
	for (b = n; b > 0 && p[b - 1] != '/'; b--)
		;
	*ret_len = n - b;
	return p + b;
}

bool analyse_in_list(char *const *list, const char *input)
{
	size_t ni, nl;
	const char *in = last_name(input, &ni);

	for (; list && *list; list++) {
		const char *l = last_name(*list, &nl);

		if (nl == ni && !memcmp(l, in, ni))
			return true;
	}
	return false;
}

void analyse_free_list(char **list)
{
	for (char **p = list; p && *p; p++)
		free(*p);
	free(list);
}

int analyse_load_intf_list(const char *path, char ***ret, struct strbuf *emsg)
{
	struct strbuf text = STRBUF_INIT;
	char *buf, **list = NULL, *p;
	size_t len, n = 0, cap = 0;
	int r = file_read_text(path, "the interfered list", FILE_TEXT_MAX, &text, emsg);

	if (r < 0)
		return r;
	len = text.len;
	buf = sb_detach(&text);
	if (!buf)
		return sb_error(emsg, -ENOMEM, "'%s'", path);
	list = calloc(1, sizeof(*list));
	for (p = buf; list && p < buf + len;) {
		char *nl = memchr(p, '\n', (size_t)(buf + len - p)), *e;

		e = nl ? nl : buf + len;
		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
			e--;
		if (e > p && *p != '#') {
			/* on ENOMEM the list is still whole: list[n] is NULL */
			if (ARRAY_GROW(list, cap, n + 2) < 0 ||
			    !(list[n] = strndup(p, (size_t)(e - p)))) {
				analyse_free_list(list);
				list = NULL;
				break;
			}
			list[++n] = NULL;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	free(buf);
	if (!list)
		return sb_error(emsg, -ENOMEM, "'%s'", path);
	*ret = list;
	return 0;
}

/* Adds every line of MSG (split at '\n') to M's notes. */
static void add_notes(struct metrics *m, const char *msg)
{
	while (msg && *msg) {
		const char *nl = strchr(msg, '\n');
		size_t n = nl ? (size_t)(nl - msg) : strlen(msg);

		if (n)
			metrics_note(m, "%.*s", (int)n, msg);
		msg += n + (nl ? 1 : 0);
	}
}

/* Whether the interval from A to B spans one of R's damaged spans. */
static bool across_damage(const struct rec *r, uint64_t a, uint64_t b)
{
	for (size_t k = 0; k < r->ndamage; k++) {
		const struct rec_damage *d = &r->damage[k];

		/* t_after_ns 0: nothing was read after it (a damaged tail) */
		if (a <= d->t_before_ns && b > d->t_before_ns &&
		    (!d->t_after_ns || b >= d->t_after_ns))
			return true;
	}
	return false;
}

/* across_damage in frames_stamps_done()'s shape: CTX is the record. */
static bool drop_across_damage(const void *ctx, uint64_t a, uint64_t b)
{
	return across_damage(ctx, a, b);
}

/* The frames of a record from its presents' stamps P (taken: emptied,
 * even on failure): frame i lasts from present i-1 to present i in order
 * of time, on t0's clock (seconds) when T0 is known, else on the first
 * present's; an interval across a damaged span is not a frame (what was
 * presented in between is lost, and its length would be a stall nobody
 * saw). Kept packed, about 4.3 bytes a frame (core/frames.h).
 * *RET_FIRST is the earliest stamp (0: none). */
static int frames_of_rec(const struct rec *r, struct frames_stamps *p, double t0,
			 struct frames **ret, uint64_t *ret_first)
{
	return frames_stamps_done(p, t0, r->ndamage ? drop_across_damage : NULL, r, ret,
				  ret_first);
}

/* What the streamed reads hand their callbacks: the presents' stamps
 * (skip_frames: packed as they come, frames_stamps, rather than a struct
 * rec_frame's 16 bytes a present), and the record's first sample's
 * (report's first read: the load's start). */
static int keep_stamp(void *ctx, const struct rec_frame *f);

struct stream_ctx {
	struct frames_stamps p;
	uint64_t first_ns;
	bool have_first;
};

static int keep_stamp(void *ctx, const struct rec_frame *f)
{
	return frames_stamps_add(&((struct stream_ctx *)ctx)->p, f->t_ns);
}

/* The group of the window at 0 (report's first read): the record's first
 * samples, the first of which starts the load. */
static int first_sample(void *ctx, struct rec *r, size_t w0, size_t w1)
{
	struct stream_ctx *sc = ctx;

	(void)w0, (void)w1;
	if (!sc->have_first && r->nsamples) {
		sc->first_ns = r->t_ns[0];
		sc->have_first = true;
	}
	return 0;
}

/*
 * The program's name in a copy (NULL: no memory): run.ini's PROGRAM, or, for
 * a run recorded before record looked through wrappers (no program_via nor
 * program_argv; started, not attached), the program its argv runs behind
 * them (core/wrapper.h), with a note in NOTES when that differs: such a run
 * said program=mangohud for `mangohud openarena`, and found no reload rule.
 */
static char *program_behind_wrappers(const struct runini *ini, const char *program,
				     const char *dir, struct strbuf *notes)
{
	const char *argv = runini_get(ini, "argv"), *att = runini_get(ini, "attached");
	struct strbuf err = STRBUF_INIT;
	struct wrapper_name wn;
	char **words = NULL;
	int n;

	if (!argv || (att && strcmp(att, "no")) || runini_get(ini, "program_via") ||
	    runini_get(ini, "program_argv"))
		return strdup(program);
	n = argsplit(argv, &words, &err);
	sb_release(&err);
	if (n > 0 && wrapper_name(n, (const char *const *)words, &wn) == 0 &&
	    strcmp(wn.name, program) && wn.via[0]) {
		sb_addf(notes, "'%s': run.ini names the program '%s'; it ran '%s' through '%s' "
			       "(recorded before record looked through wrappers): named '%s'\n",
			dir, program, wn.name, wn.via, wn.name);
		argsplit_free(words);
		return strdup(wn.name);
	}
	argsplit_free(words);
	return strdup(program);
}

static int no_window(void *ctx, struct rec *r, size_t w0, size_t w1)
{
	(void)ctx, (void)r, (void)w0, (void)w1;
	return 0;
}

int analyse_rec_windows(const struct analysis *a, const struct rec_stream *st, struct rec **ret,
			struct strbuf *emsg)
{
	struct strbuf err = STRBUF_INIT, path = STRBUF_INIT;
	struct rundir *rd = NULL;
	int fd, r;

	fd = rundir_open(a->source, &rd, &err);
	if (fd == 0)
		fd = rundir_open_record(rd, &path, NULL, &err);
	rundir_close(rd);
	if (fd < 0) {
		sb_error(emsg, 0, "%s", err.buf);
		r = fd;
		goto out;
	}
	r = rec_read_fd_stream(fd, path.buf, st, ret, &err);
	close(fd);
	if (r < 0) {
		if (err.len)
			sb_error(emsg, 0, "%s", err.buf);
		else
			sb_error(emsg, r, "cannot read '%s'", path.buf);
	}
out:
	sb_release(&err);
	sb_release(&path);
	return r;
}

/* The record's presents, which the streamed reads keep no more of. */
struct presents {
	size_t n;		/* the record's presents (frames records' entries) */
	uint64_t first_ns;	/* the earliest one's stamp (n > 0) */
};

/* What analyse_input works on between its steps. */
struct work {
	const char *input;
	const struct analyse_opts *o;
	struct analysis a;
	struct strbuf notes, err;
	struct frames *f;
	struct runini *ini;
	double t0;			/* the frames' origin on the record's clock, s */
	bool is_dir;
	struct rundir *rd;		/* the run directory, when is_dir */
	bool by_windows;		/* report's columns by windows (!o->keep): the
					 * record read for its presents, then again
					 * around the spans the columns split */
	bool have_first;		/* ... and its first sample's stamp, first_ns */
	uint64_t first_ns;
	struct presents pres;		/* a run directory's record's presents */
	struct reload_rule override;
	const struct reload_rule *rule;
	const char *program;
	double *pass;			/* run.ini's stamps (owned), or NULL */
	const double *passes;
	size_t npass;
	char *log;
	struct reload_line *lines;
	size_t nlines;
	struct metrics_seg *segs;
	int nsegs;
	bool play_unknown;		/* the reload rule could not say what is play */
};

/* The run directory W->input: its frames, run.ini and t0 into W (f, ini,
 * t0, a.rec, a.program, a.variant), its notes to W->notes. Unless
 * W->o->keep, the record is read without its samples nor intervals (the
 * presents' stamps and the first sample's: W->by_windows), which
 * split_causes reads again around the spans its columns split; with
 * STALLSCOPE_WHOLE_RECORD=1 in the environment, whole (how it read
 * before issue 31: the comparison of tests/e2e/stalls-stream.sh). 0, or a
 * negative errno with EMSG. */
static int load_run_dir(struct work *w, struct strbuf *emsg)
{
	const struct rundir *rd = w->rd;
	const char *dir = rd->path;
	const struct analyse_opts *o = w->o;
	struct analysis *a = &w->a;
	struct strbuf *notes = &w->notes;
	struct strbuf err = STRBUF_INIT, path = STRBUF_INIT;
	struct stream_ctx sc = { 0 };
	struct runini *ini = NULL;
	struct rec *rec = NULL;
	double t0 = NAN;
	const char *v;
	int r, fd, tail;

	r = rundir_ini(rd, &ini, &path, notes, &err);
	if (r == -ENOENT) {
		sb_error(emsg, 0, "'%s' is not a run directory: %s", dir, err.buf);
		goto fail;
	}
	if (r < 0) {
		r = sb_error(emsg, 0, "%s", err.buf);
		goto fail;
	}
	/* t0 is CLOCK_REALTIME; the record's stamps are CLOCK_MONOTONIC. The
	 * recorder writes t0_mono (seconds) and its clock pair's clock_mono_ns,
	 * both the monotonic clock at t0. */
	r = runini_get_double(ini, path.buf, "t0_mono", &t0, &err);
	if (r == -ENOENT) {
		r = runini_get_double(ini, path.buf, "clock_mono_ns", &t0, &err);
		t0 /= 1e9;
	}
	if (r == -EINVAL) {
		r = sb_error(emsg, 0, "%s", err.buf);
		goto fail;
	}
	sb_reset(&path);
	sb_reset(&err);
	/* the record as opened and checked (a record_tmp in run.ini is
	 * someone's word: rec.h), read from that same open file */
	fd = rundir_open_record(rd, &path, notes, &err);
	if (fd < 0) {
		sb_error(emsg, 0, "%s", err.buf);
		r = fd;
		goto fail;
	}
	w->by_windows = !o->keep && !getenv("STALLSCOPE_WHOLE_RECORD");
	if (w->by_windows) {
		/* the presents' stamps, and the window at 0: the first samples
		 * (the first starts the load); every other sample dropped, and
		 * decoded only where the damage's and the tear's stamps need it
		 * (skip_samples), the intervals likewise */
		static const struct rec_window at0 = { 0, 0 };
		struct rec_stream st = { .skip_threads = true, .win = &at0, .nwin = 1,
					 .on_window = first_sample, .skip_frames = true,
					 .skip_samples = true, .on_frame = keep_stamp,
					 .ctx = &sc };

		r = rec_read_fd_stream(fd, path.buf, &st, &rec, &err);
		w->first_ns = sc.first_ns;
		w->have_first = sc.have_first;
	} else if (o->windows) {
		/* no window: every sample dropped, decoded only where the
		 * damage's and the tear's stamps need it, the intervals
		 * likewise; the presents' stamps only */
		struct rec_stream st = { .skip_threads = true, .on_window = no_window,
					 .skip_frames = true, .skip_samples = true,
					 .on_frame = keep_stamp, .ctx = &sc };

		r = rec_read_fd_stream(fd, path.buf, &st, &rec, &err);
	} else {
		r = rec_read_fd_stream(fd, path.buf, NULL, &rec, &err);
		if (r == 0) {
			for (size_t i = 0; r == 0 && i < rec->nframes; i++)
				r = frames_stamps_add(&sc.p, rec->frames[i].t_ns);
		}
	}
	close(fd);
	if (r < 0) {
		if (err.len)
			sb_error(emsg, 0, "%s", err.buf);	/* says why */
		else
			sb_error(emsg, r, "cannot read '%s'", path.buf);
		goto fail;
	}
	if (isnan(t0) && (v = rec_meta_get(rec, "t0_mono"))) {
		char *end;
		double x = strtod(v, &end);

		if (end != v && !*end && isfinite(x))
			t0 = x;
	}
	/* the recorder finished its record (state=done: it wrote the end and
	 * closed the file): bytes at the end that do not check out were
	 * damaged since (a flipped bit, a copy cut short), not torn by a crash */
	v = runini_get(ini, "state");
	tail = v && !strcmp(v, "done") ? rec_torn_to_damage(rec) : 0;
	if (tail < 0) {
		r = sb_error(emsg, tail, "'%s'", path.buf);
		goto fail;
	}
	if (rec->torn_bytes)
		sb_addf(notes, "'%s': the last %llu bytes were torn (a crash?); their frames are "
			       "missing\n", path.buf, (unsigned long long)rec->torn_bytes);
	for (size_t k = 0; k < rec->ndamage; k++) {
		const struct rec_damage *dm = &rec->damage[k];

		sb_addf(notes, "'%s': DAMAGED: %llu bytes at offset %llu do not check out and were "
			       "skipped; what they held is lost",
			path.buf, (unsigned long long)dm->bytes, (unsigned long long)dm->off);
		if (!isnan(t0) && dm->t_before_ns)
			sb_addf(notes, " (from %.3f s", dm->t_before_ns / 1e9 - t0);
		else
			sb_adds(notes, " (from the start");
		if (!isnan(t0) && dm->t_after_ns)
			sb_addf(notes, " to %.3f s)", dm->t_after_ns / 1e9 - t0);
		else
			sb_adds(notes, " to the end)");
		if (tail && k == rec->ndamage - 1)
			sb_adds(notes, "; the recorder finished the record (run.ini state=done): "
				       "damage, not a crash");
		sb_addc(notes, '\n');
	}
	if (isnan(t0))
		sb_addf(notes, "'%s': no t0_mono in run.ini or the record; times are from the first "
			       "present\n", dir);
	/* kept for stalls, html, export: its stacks' user frames named now,
	 * from the files on this machine (a 2.3 record: docs/WHERE.md) */
	if (o->keep && run_symbols(rec, path.buf, notes) < 0) {
		r = sb_error(emsg, -ENOMEM, "'%s': naming the stacks' frames", path.buf);
		rec_free(rec);
		goto fail;
	}
	w->pres.n = sc.p.n;
	r = frames_of_rec(rec, &sc.p, t0, &w->f, &w->pres.first_ns);
	a->rec = rec;
	if (r < 0) {
		r = sb_error(emsg, r, "'%s'", path.buf);
		goto fail;
	}
	if ((v = runini_get(ini, "program")))
		a->program = program_behind_wrappers(ini, v, dir, notes);
	if ((v = runini_get(ini, "variant")))
		a->variant = strdup(v);
	snprintf(a->format, sizeof(a->format), "run");
	w->ini = ini;
	w->t0 = t0;
	sb_release(&err);
	sb_release(&path);
	return 0;
fail:
	frames_stamps_free(&sc.p);
	runini_free(ini);
	sb_release(&err);
	sb_release(&path);
	return r < 0 ? r : -EINVAL;
}

/* The input's frames: a run directory's record, or a frame log. */
static int load(struct work *w, struct strbuf *emsg)
{
	struct strbuf msg = STRBUF_INIT;
	struct stat st;
	int r;

	w->is_dir = stat(w->input, &st) == 0 && S_ISDIR(st.st_mode);
	if (w->is_dir) {
		r = rundir_open(w->input, &w->rd, emsg);
		if (r == 0)
			r = load_run_dir(w, emsg);
	} else {
		r = framelog_read(w->input, w->o->fmt, &w->f, &msg);
		if (r < 0 && msg.len)
			sb_error(emsg, 0, "%s", msg.buf);	/* says why */
		else if (r < 0)
			sb_error(emsg, r, "cannot read '%s'", w->input);
		else
			sb_add(&w->notes, msg.buf, msg.len);
	}
	if (r == 0)
		snprintf(w->a.format, sizeof(w->a.format), "%s", w->f->format);
	sb_release(&msg);
	return r;
}

/* What run.ini says besides the frames: the window the run was
 * benchmarked with (unless the options give one), the recorder's word on
 * its frames, exact mode's on switch-ins it missed, the watcher's verdict;
 * then the interfered list's. */
static int read_ini(struct work *w, struct strbuf *emsg)
{
	static const char *const keys[] = { "warmup_s", "window_from_s", "window_to_s" };
	struct analysis *a = &w->a;
	double *dst[] = { &a->mo.warmup_s, &a->mo.from_s, &a->mo.to_s };
	const char *v;
	int r;

	a->mo = w->o->m;
	a->interfered = -1;
	for (size_t k = 0; w->ini && k < 3 && !w->o->window_given; k++) {
		struct strbuf path = STRBUF_INIT;
		double x;

		rundir_path(w->rd, RUNDIR_INI, &path);
		r = runini_get_double(w->ini, path.buf, keys[k], &x, &w->err);
		sb_release(&path);
		if (r == -EINVAL)
			return sb_error(emsg, 0, "%s", w->err.buf);
		if (r == 0 && x >= 0)
			*dst[k] = x;
	}
	/* the recorder's word on a run with no frames, or frames that
	 * stopped: a note, and apart for the tables */
	v = w->ini ? runini_get(w->ini, "frames_note") : NULL;
	if (v && *v && !(a->frames_note = strdup(v)))
		return sb_error(emsg, -ENOMEM, "'%s'", w->input);
	/* exact mode's word that its accounting lost a switch-in: the time
	 * on a CPU after it was read as the wait before it */
	v = w->ini ? runini_get(w->ini, "exact_missed_switch_ins") : NULL;
	if (v && strspn(v, "0123456789") == strlen(v) && strspn(v, "0") != strlen(v)) {
		struct strbuf path = STRBUF_INIT;

		/* quoted file first: stalls shows it too, as a note on its input */
		rundir_path(w->rd, RUNDIR_INI, &path);
		sb_addf(&w->notes, "'%s': the kernel did not trace %s switch-in%s of the "
			"sampled threads (exact_missed_switch_ins): their run time is the "
			"kernel's own, when each began is estimated, so a stall around one has "
			"its run and wait split to within that (docs/CAUSES.md, \"Exact "
			"time\")\n",
			path.buf, v, strcmp(v, "1") ? "s" : "");
		sb_release(&path);
	}
	v = w->ini ? runini_get(w->ini, "interfered") : NULL;
	if (v && (!strcmp(v, "0") || !strcmp(v, "1"))) {
		a->interfered = v[0] - '0';
		v = runini_get(w->ini, "interference");
		if (v && strcmp(v, "-") && !(a->interference = strdup(v)))
			return sb_error(emsg, -ENOMEM, "'%s'", w->input);
	}
	if (w->o->intf_list && analyse_in_list(w->o->intf_list, w->input)) {
		struct strbuf why = STRBUF_INIT;
		const char *list = w->o->intf_list_name ? w->o->intf_list_name : "the list";

		a->interfered = 1;
		sb_addf(&why, "listed in '%s'%s%s", list, a->interference ? "; " : "",
			a->interference ? a->interference : "");
		free(a->interference);
		a->interference = sb_detach(&why);
	}
	return 0;
}

/* The reload rule (run.ini's overrides, else the rules file's), the pass
 * stamps (--pass, else run.ini's) and, for a line rule, the program log. */
static int read_rule(struct work *w, struct strbuf *emsg)
{
	const struct analyse_opts *o = w->o;
	int r;

	w->program = w->a.program ? w->a.program : o->program;
	if (w->ini) {
		r = reload_rule_from_overrides(runini_get(w->ini, "reload_re"),
					       runini_get(w->ini, "reload_after"),
					       runini_get(w->ini, "reload_fixed"), &w->override,
					       &w->err);
		if (r < 0)
			return sb_error(emsg, 0, "'%s/run.ini': %s", w->input, w->err.buf);
		if (r > 0)
			w->rule = &w->override;
	}
	if (!w->rule && w->program) {
		w->rule = reload_rules_find(o->rules, w->program);
		if (!w->rule)
			sb_addf(&w->notes, "no reload rule for '%s'%s%s%s: play is the whole window\n",
				w->program, o->rules_name ? " in '" : " (no rules file)",
				o->rules_name ? o->rules_name : "", o->rules_name ? "'" : "");
	}
	w->passes = o->pass;
	w->npass = o->npass;
	if (!o->pass_given && w->ini) {
		r = runini_passes(w->ini, w->input, &w->pass, &w->err);
		if (r < 0)
			return sb_error(emsg, 0, "%s", w->err.buf);
		w->passes = w->pass;
		w->npass = (size_t)r;
	}
	if (w->rule && w->rule->kind != RELOAD_NONE && w->npass == 0)
		sb_addf(&w->notes, "the reload rule of '%s' needs pass stamps and there are none: "
			"play is the whole window\n", w->program ? w->program : rundir_file_name(RUNDIR_INI));
	if (w->rule && w->rule->kind == RELOAD_LINE && w->is_dir && w->npass && !isnan(w->t0)) {
		struct strbuf path = STRBUF_INIT;
		size_t len, unstamped = 0;

		rundir_path(w->rd, RUNDIR_LOG, &path);
		r = read_log(w->rd, &w->log, &len, &w->err);
		if (r == 0 && reload_log_parse(w->log, len, &w->lines, &w->nlines, &unstamped) < 0)
			r = -ENOMEM;
		if (r == 0 && unstamped)
			sb_addf(&w->notes, "'%s': %zu unstamped line%s (no [seconds] prefix) skipped\n",
				path.buf, unstamped, unstamped == 1 ? "" : "s");
		if (r < 0 && r != -ENOENT)
			sb_error(emsg, 0, "%s", w->err.buf);
		sb_release(&path);
		if (r < 0 && r != -ENOENT)
			return r;
	}
	return 0;
}

/* The window's bounds on the record's clock (analysis.win_ns), where the
 * frames' slots are the record's presents, every one in time order: no
 * damage dropped an interval (frames_stamps_done), and as many slots as
 * presents. */
static void window_bounds(struct work *w)
{
	struct analysis *a = &w->a;
	const struct frames *f = w->f;
	size_t last = a->m.win_first + a->m.win_n;

	if (!w->is_dir || !a->rec || a->rec->ndamage || !f || f->t_s || !f->n ||
	    f->pk.nslots != w->pres.n || f->pk.nexc || !a->m.win_n || last >= f->pk.nslots)
		return;
	a->win_ns[0] = frames_slot_ns(f, a->m.win_first);
	a->win_ns[1] = frames_slot_ns(f, last);
	a->win_ns_ok = true;
}

/* The reload segments and the metrics on the window; then whether the run
 * failed, loudest first among the notes. */
static int measure(struct work *w, struct strbuf *emsg)
{
	struct analysis *a = &w->a;
	double end_s = w->f->n ? frames_t(w->f, w->f->n - 1) : 0.0;
	int r;

	sb_reset(&w->err);
	w->nsegs = reload_segments(w->rule, w->passes, w->npass, end_s, w->lines, w->nlines,
				   w->is_dir && !isnan(w->t0), &w->segs, &w->err);
	if (w->nsegs == -ENODATA) {
		w->play_unknown = true;	/* w->err says why */
		w->nsegs = 0;
	} else if (w->nsegs < 0) {
		return sb_error(emsg, w->nsegs, "'%s': reload segments", w->input);
	} else {
		sb_add(&w->notes, w->err.buf, w->err.len);
	}
	r = metrics_compute(w->f, &a->mo, w->segs, (size_t)w->nsegs,
			    w->play_unknown ? w->err.buf : NULL, &a->m);
	if (r < 0)
		return sb_error(emsg, r, "'%s'", w->input);
	sb_reset(&w->err);
	/* no frame read from a damaged record is not "no frames were
	 * recorded": the damage is the reason */
	r = runini_failure(w->ini, w->f->n || !(a->rec && a->rec->ndamage) ? w->f->n : 1,
			   a->m.origin_s, &w->err);
	if (r == 0 && a->rec && a->rec->ndamage) {
		/* numbers of a record with holes are not the run's: never whole */
		r = 1;
		sb_addf(&w->err, "the record is damaged: %llu bytes in %zu place%s were lost",
			(unsigned long long)a->rec->damaged_bytes, a->rec->ndamage,
			a->rec->ndamage == 1 ? "" : "s");
	}
	if (r < 0 || (r > 0 && !(a->failure = strdup(w->err.buf))))
		return sb_error(emsg, -ENOMEM, "'%s'", w->input);
	if (a->failure) {
		/* where a failed run's reader looks next: the program's output */
		struct strbuf path = STRBUF_INIT;

		if (w->rd && rundir_has(w->rd, RUNDIR_LOG) && rundir_path(w->rd, RUNDIR_LOG, &path) == 0)
			a->log_path = sb_detach(&path);
		sb_release(&path);
	}
	/* how a stopped program ended: said, never a failure */
	r = runini_stop_note(w->ini, &w->notes);
	if (r < 0 || (r > 0 && sb_addc(&w->notes, '\n') < 0))
		return sb_error(emsg, -ENOMEM, "'%s'", w->input);
	/* the loudest words first: the recorder's on the frames (no frames, or
	 * frames that stopped; it has the hints), then a failed run's */
	if (a->failure)
		metrics_note_first(&a->m, "FAILED RUN: %s; left out of medians", a->failure);
	if (a->frames_note)
		metrics_note_first(&a->m, "%s", a->frames_note);
	add_notes(&a->m, w->notes.buf);
	a->mh_style = compat_mangohud_style_of(w->f->format);
	struct stats_in in = frames_ft_in(w->f, a->m.win_first);

	if (compat_all_in(&in, a->m.win_n, a->mh_style, &a->mh, &a->cfx) < 0)
		return sb_error(emsg, -ENOMEM, "'%s'", w->input);
	return 0;
}

/* What columns_by_windows hands its groups: the spans (in causes_columns'
 * order), their order by start (the windows'), the sums. */
struct cols_ctx {
	const struct causes_span *s;
	const size_t *by_win;
	struct causes_cols_acc acc;
};

static int cols_group(void *ctx, struct rec *r, size_t w0, size_t w1)
{
	struct cols_ctx *x = ctx;
	struct causes *c = NULL;
	int ret = causes_new(r, &c);

	if (ret < 0)
		return ret;
	for (size_t k = w0; k < w1; k++)
		causes_columns_add(c, &x->s[x->by_win[k]], &x->acc);
	causes_free(c);
	return 0;
}

struct span_order {
	uint64_t a_ns;
	size_t i;
};

static int cmp_span_order(const void *x, const void *y)
{
	const struct span_order *p = x, *q = y;

	if (p->a_ns != q->a_ns)
		return p->a_ns < q->a_ns ? -1 : 1;
	return (p->i > q->i) - (p->i < q->i);
}

/*
 * report's cause columns with the record read again around the spans they
 * split, a group of windows at a time (rec/rec.h, as stalls reads its
 * stalls): the samples and intervals of one group in memory, not the
 * record's. Each sum must take its spans in causes_columns' order (floating
 * point: the same bits); the windows go by start, so where a sum's spans
 * are not in that order (reload segments before the first frame's start?)
 * the record is read whole instead.
 */
static int columns_by_windows(struct work *w, struct cause_cols *cols, struct strbuf *emsg)
{
	struct analysis *a = &w->a;
	struct causes_span *s = NULL;
	struct span_order *ord = NULL;
	struct rec_window *win = NULL;
	size_t n = 0, *by_win = NULL, last[4] = { 0 };
	struct rec *r2 = NULL;
	bool in_order = true;
	int r;

	r = causes_column_spans(w->f, a->t0_ns, &a->m, &a->mo, w->segs, (size_t)w->nsegs,
				w->have_first, w->first_ns, &s, &n);
	if (r < 0)
		return sb_error(emsg, r, "'%s'", w->input);
	ord = malloc((n ? n : 1) * sizeof(*ord));
	win = malloc((n ? n : 1) * sizeof(*win));
	by_win = malloc((n ? n : 1) * sizeof(*by_win));
	if (!ord || !win || !by_win) {
		r = sb_error(emsg, -ENOMEM, "'%s'", w->input);
		goto out;
	}
	for (size_t k = 0; k < n; k++)
		ord[k] = (struct span_order){ s[k].a_ns, k };
	qsort(ord, n, sizeof(*ord), cmp_span_order);
	for (size_t k = 0; k < n; k++) {
		const struct causes_span *sp = &s[ord[k].i];

		by_win[k] = ord[k].i;
		win[k] = (struct rec_window){ sp->a_ns, sp->b_ns > sp->a_ns ? sp->b_ns : sp->a_ns };
		for (int b = 0; b < 4; b++) {
			if (!(sp->to & (1u << b)))
				continue;
			if (last[b] > ord[k].i + 1)
				in_order = false;
			last[b] = ord[k].i + 1;
		}
	}
	if (in_order) {
		struct cols_ctx x = { .s = s, .by_win = by_win };
		struct rec_stream rs = { .skip_threads = true, .skip_frames = true, .win = win,
					 .nwin = n, .on_window = cols_group, .ctx = &x };

		r = analyse_rec_windows(a, &rs, &r2, emsg);
		if (r == 0)
			causes_columns_end(&x.acc, !w->play_unknown, w->have_first, w->f->n > 0,
					   cols);
	} else {
		struct causes *c = NULL;

		r = analyse_rec_windows(a, NULL, &r2, emsg);
		if (r == 0 && causes_new(r2, &c) < 0)
			r = sb_error(emsg, -ENOMEM, "'%s'", w->input);
		if (r == 0)
			r = causes_columns(c, w->f, a->t0_ns, &a->m, &a->mo, w->segs,
					   (size_t)w->nsegs, !w->play_unknown, cols);
		if (r < 0 && !emsg->len)
			sb_error(emsg, r, "'%s'", w->input);
		causes_free(c);
	}
out:
	rec_free(r2);
	free(s);
	free(ord);
	free(win);
	free(by_win);
	return r;
}

/* Each stall's cause, split into the cause columns (a record with samples),
 * or why there are none. */
static int split_causes(struct work *w, struct strbuf *emsg)
{
	struct analysis *a = &w->a;
	struct causes *c = NULL;
	struct cause_cols cols;
	int r;

	a->why = a->why_play = -1;
	/* the load: from the run's start (run.ini t0) to its first frame's
	 * start, on which the frames' t_s count from t0 */
	a->m.v[M_LOAD_S] = NAN;
	if (a->rec && !isnan(w->t0) && w->f && w->f->n && a->m.origin_s >= 0)
		a->m.v[M_LOAD_S] = a->m.origin_s;
	else if (a->rec)
		metrics_note(&a->m, "load_s: %s", !w->f || !w->f->n ? "the run has no frames"
						    : "run.ini has no t0 (the run's start)");
	if (!a->rec || !rec_samples_in_file(a->rec)) {
		metrics_note(&a->m, "stall_*_s, stall_why, load_disk_s, warm_disk_s%s: %s",
			     a->rec ? "" : ", load_s",
			     a->rec ? "the record has no samples"
				    : "a frame log has no samples; causes need a run directory");
		return 0;
	}
	a->t0_ns = isnan(w->t0) || w->t0 <= 0 ? 0 : (uint64_t)llround(w->t0 * 1e9);
	if (isnan(w->t0) && w->pres.n)
		a->t0_ns = w->pres.first_ns;	/* the clock frames_of_rec fell back to */
	if (w->o->windows) {
		/* stall_list reads the samples again, stall by stall; the
		 * columns are report's, their note is said as report says it */
		if (!w->f || !w->f->n)
			metrics_note(&a->m, "load_disk_s, warm_disk_s: the record has no frames");
		return 0;
	}
	if (w->by_windows) {
		r = columns_by_windows(w, &cols, emsg);
		if (r < 0)
			return r;
	} else {
		if (causes_new(a->rec, &c) < 0)
			return sb_error(emsg, -ENOMEM, "'%s'", w->input);
		r = causes_columns(c, w->f, a->t0_ns, &a->m, &a->mo, w->segs, (size_t)w->nsegs,
				   !w->play_unknown, &cols);
		causes_free(c);
		if (r < 0)
			return sb_error(emsg, r, "'%s'", w->input);
	}
	for (int k = 0; k < CAUSE_COL_N; k++) {
		/* an empty window splits no stall: unknown, not 0 (its note is
		 * metrics_compute's) */
		a->m.v[M_STALL_DISK_S + k] = a->m.win_n ? cols.stall_s[k] : NAN;
		a->m.v[M_STALL_DISK_PLAY_S + k] = a->m.win_n ? cols.play_s[k] : NAN;
	}
	a->m.v[M_LOAD_DISK_S] = cols.load_disk_s;
	a->m.v[M_WARM_DISK_S] = cols.warm_disk_s;
	a->why = cols.why;
	a->why_play = cols.why_play;
	if (isnan(cols.load_disk_s))
		metrics_note(&a->m, "load_disk_s, warm_disk_s: the record has no frames");
	return 0;
}

int analyse_input(const char *input, const struct analyse_opts *o, struct analysis *ret,
		  struct strbuf *emsg)
{
	struct work w = { .input = input, .o = o, .t0 = NAN };
	int r;

	sb_init(&w.notes);
	sb_init(&w.err);
	w.a.source = strdup(input);
	r = w.a.source ? 0 : sb_error(emsg, -ENOMEM, "'%s'", input);
	if (r == 0)
		r = load(&w, emsg);
	if (r == 0)
		r = read_ini(&w, emsg);
	if (r == 0)
		r = read_rule(&w, emsg);
	if (r == 0)
		r = measure(&w, emsg);
	if (r == 0)
		r = split_causes(&w, emsg);
	if (r == 0 && w.a.rec)
		w.a.rec_nframes = w.pres.n;	/* (the streamed reads keep none in rec) */
	if (r == 0)
		window_bounds(&w);
	if (r == 0 && o->keep) {
		w.a.f = w.f;
		w.f = NULL;
		w.a.segs = w.segs;
		w.segs = NULL;
		w.a.nsegs = (size_t)w.nsegs;
		w.a.play_known = !w.play_unknown;
	} else if (r == 0) {
		rec_free(w.a.rec);
		w.a.rec = NULL;
	}
	if (r == 0 && w.a.mh.why)
		metrics_note(&w.a.m, "compat.mangohud: %s", w.a.mh.why);
	if (r == 0 && w.a.cfx.why)
		metrics_note(&w.a.m, "compat.capframex: %s", w.a.cfx.why);
	if (r == 0) {
		w.a.ini = w.ini;
		w.ini = NULL;
		*ret = w.a;
		memset(&w.a, 0, sizeof(w.a));
	}
	analysis_release(&w.a);
	reload_rule_release(&w.override);
	runini_free(w.ini);
	rundir_close(w.rd);
	frames_free(w.f);
	free(w.pass);
	free(w.lines);
	free(w.log);
	free(w.segs);
	sb_release(&w.notes);
	sb_release(&w.err);
	return r < 0 ? r : 0;
}
