// SPDX-License-Identifier: MIT
/*
 * analyse.c: one input (a frame log or a run directory) to its metrics,
 * causes and notes (analyse.h), for report, matrix, stalls, bench and db.
 * Never prints: errors are a negative errno and a message in the caller's
 * strbuf.
 *
 * Reads whole files into memory (a run.ini and a program log are small; a
 * frame log goes through framelog.h, a record through rec.h). Times: a run
 * directory's frames are put on t0's clock (t_s = present - t0) so that pass
 * stamps and program-log stamps, both seconds since t0, line up with them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <math.h>

#include "core/runini.h"
#include "rec/rec.h"
#include "run/analyse.h"

#ifndef SS_DATADIR
#define SS_DATADIR "/usr/local/share/stallscope"
#endif

/* Reads PATH whole; 0 and a NUL-terminated buffer, or a negative errno. */
static int read_all(const char *path, char **ret, size_t *ret_len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, alloc = 0;
	int err;

	if (!f)
		return -errno;
	for (;;) {
		size_t got;

		if (alloc - len < 65536) {
			size_t na = alloc ? alloc * 2 : 65536;
			char *nb = realloc(buf, na + 1);

			if (!nb) {
				free(buf);
				fclose(f);
				return -ENOMEM;
			}
			buf = nb;
			alloc = na;
		}
		got = fread(buf + len, 1, alloc - len, f);
		len += got;
		if (got == 0)
			break;
	}
	err = ferror(f) ? -EIO : 0;
	fclose(f);
	if (err) {
		free(buf);
		return err;
	}
	buf[len] = '\0';
	*ret = buf;
	*ret_len = len;
	return 0;
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
	struct strbuf err = STRBUF_INIT;
	char *buf;
	size_t len, i;
	int r;

	*ret = NULL;
	*ret_name = NULL;
	if (!path) {
		for (i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++) {
			FILE *f = fopen(defaults[i], "r");

			if (f) {
				fclose(f);
				path = defaults[i];
				break;
			}
		}
		if (!path)
			return 0;
	}
	r = read_all(path, &buf, &len);
	if (r < 0)
		return sb_error(emsg, r, "cannot read rules file '%s'", path);
	r = reload_rules_parse(buf, len, path, ret, &err);
	free(buf);
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
	frames_free(a->f);
	free(a->segs);
	runini_free(a->ini);
	free(a->interference);
	free(a->frames_note);
	free(a->failure);
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
	char *buf = NULL, **list = NULL, *p;
	size_t len, n = 0;
	int r = read_all(path, &buf, &len);

	if (r < 0)
		return sb_error(emsg, r, "cannot read the interfered list '%s'", path);
	list = calloc(1, sizeof(*list));
	for (p = buf; list && p < buf + len;) {
		char *nl = memchr(p, '\n', (size_t)(buf + len - p)), *e, **nlist;

		e = nl ? nl : buf + len;
		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
			e--;
		if (e > p && *p != '#') {
			nlist = realloc(list, (n + 2) * sizeof(*list));
			if (!nlist || !(nlist[n] = strndup(p, (size_t)(e - p)))) {
				list = nlist;
				if (list)
					list[n] = NULL;
				analyse_free_list(list);
				list = NULL;
				break;
			}
			list = nlist;
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

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Whether the interval from A to B spans one of R's damaged spans. */
static bool across_damage(const struct rec *r, uint64_t a, uint64_t b)
{
	for (size_t k = 0; k < r->ndamage; k++) {
		const struct rec_damage *d = &r->damage[k];

		if (a <= d->t_before_ns && (!d->t_after_ns || b >= d->t_after_ns))
			return true;
	}
	return false;
}

/* The frames of a record: frame i lasts from present i-1 to present i, on
 * t0's clock (seconds) when T0 is known, else on the first present's. */
static int frames_of_rec(const struct rec *r, double t0, struct frames **ret)
{
	struct frames *f = frames_new();
	uint64_t *t;
	size_t i;

	t = malloc((r->nframes ? r->nframes : 1) * sizeof(*t));
	if (!f || !t) {
		frames_free(f);
		free(t);
		return -ENOMEM;
	}
	for (i = 0; i < r->nframes; i++)
		t[i] = r->frames[i].t_ns;
	qsort(t, r->nframes, sizeof(*t), cmp_u64);
	if (isnan(t0))
		t0 = r->nframes ? (double)t[0] / 1e9 : 0.0;
	for (i = 1; i < r->nframes; i++) {
		/* an interval across a damaged span is not a frame: what was
		 * presented in between is lost, and its length would be a stall
		 * nobody saw */
		if (across_damage(r, t[i - 1], t[i]))
			continue;
		if (frames_push(f, (double)t[i] / 1e9 - t0, (double)(t[i] - t[i - 1]) / 1e6) < 0) {
			frames_free(f);
			free(t);
			return -ENOMEM;
		}
	}
	free(t);
	snprintf(f->format, sizeof(f->format), "record");
	*ret = f;
	return 0;
}

/*
 * Streaming the record (rec_parse_stream): report, matrix, bench and db
 * import need each sample's cause, which looks at a few samples around it,
 * not the whole sample matrix (193 MB for an hour); stalls keeps it for its
 * evidence (o->keep). The ring holds 1024 samples, 536 KB of 67 fields.
 */
#define STREAM_RING 1024

static int stream_header(void *ctx, const struct rec *r)
{
	return causes_stream_new(r, STREAM_RING, (struct causes **)ctx);
}

static int stream_samples(void *ctx, const struct rec *r)
{
	struct causes *c = *(struct causes **)ctx;

	(void)r;
	return c ? causes_stream_feed(c, false) : 0;
}

/* The run directory DIR: frames, t0, passes, program log, rule; with
 * RET_CAUSES, the record streamed and its samples' causes there. */
static int load_run_dir(const char *dir, const struct analyse_opts *o, struct analysis *a,
			struct frames **ret_f, struct runini **ret_ini, double *ret_t0,
			struct rec **ret_rec, struct causes **ret_causes, struct strbuf *notes,
			struct strbuf *emsg)
{
	struct strbuf err = STRBUF_INIT, path = STRBUF_INIT;
	struct runini *ini = NULL;
	struct rec *rec = NULL;
	char *buf = NULL;
	size_t len;
	double t0 = NAN;
	const char *v;
	int r;

	if (rec_rundir_ini(dir, &path, notes) < 0) {
		r = sb_error(emsg, -ENOMEM, "'%s'", dir);
		goto fail;
	}
	r = read_all(path.buf, &buf, &len);
	if (r < 0) {
		r = sb_error(emsg, r, "'%s' is not a run directory: cannot read '%s'", dir, path.buf);
		goto fail;
	}
	r = runini_parse(buf, len, path.buf, &ini, &err);
	free(buf);
	buf = NULL;
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
	if (rec_rundir_record(dir, &path, notes) < 0) {
		r = sb_error(emsg, -ENOMEM, "'%s'", dir);
		goto fail;
	}
	if (ret_causes) {
		struct rec_stream st = { .ring_rows = STREAM_RING, .skip_threads = true,
					 .on_header = stream_header,
					 .on_samples = stream_samples, .ctx = ret_causes };

		r = rec_read_file_stream(path.buf, &st, &rec, &err);
		if (r == 0 && *ret_causes)
			r = causes_stream_feed(*ret_causes, true);
		if (r < 0 && !err.len)
			sb_addf(&err, "'%s': %s", path.buf, strerror(-r));
	} else {
		r = rec_read_file(path.buf, &rec, &err);
	}
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
		sb_addc(notes, '\n');
	}
	if (isnan(t0))
		sb_addf(notes, "'%s': no t0_mono in run.ini or the record; times are from the first "
			       "present\n", dir);
	r = frames_of_rec(rec, t0, ret_f);
	*ret_rec = rec;
	if (r < 0) {
		r = sb_error(emsg, r, "'%s'", path.buf);
		goto fail;
	}
	if ((v = runini_get(ini, "program")))
		a->program = strdup(v);
	if ((v = runini_get(ini, "variant")))
		a->variant = strdup(v);
	snprintf(a->format, sizeof(a->format), "run");
	*ret_ini = ini;
	*ret_t0 = t0;
	sb_release(&err);
	sb_release(&path);
	return 0;
fail:
	runini_free(ini);
	sb_release(&err);
	sb_release(&path);
	return r < 0 ? r : -EINVAL;
}

int analyse_input(const char *input, const struct analyse_opts *o, struct analysis *ret,
		  struct strbuf *emsg)
{
	struct analysis a = { 0 };
	struct strbuf msg = STRBUF_INIT, notes = STRBUF_INIT, err = STRBUF_INIT;
	struct frames *f = NULL;
	struct runini *ini = NULL;
	struct reload_rule override = { 0 };
	const struct reload_rule *rule = NULL;
	struct reload_line *lines = NULL;
	struct metrics_seg *segs = NULL;
	struct causes *streamed = NULL;	/* the record's causes, when streamed */
	double t0 = NAN, *pass = NULL, end_s;
	const double *passes = o->pass;
	size_t npass = o->npass, nlines = 0;
	char *log = NULL;
	const char *play_unknown = NULL;
	const char *program;
	struct stat st;
	bool is_dir;
	int r, nsegs = 0, ret_code = -EINVAL;

	a.source = strdup(input);
	if (!a.source)
		return sb_error(emsg, -ENOMEM, "'%s'", input);
	is_dir = stat(input, &st) == 0 && S_ISDIR(st.st_mode);
	if (is_dir) {
		ret_code = load_run_dir(input, o, &a, &f, &ini, &t0, &a.rec,
					o->keep ? NULL : &streamed, &notes, emsg);
		if (ret_code < 0)
			goto out;
		ret_code = -EINVAL;
	} else {
		r = framelog_read(input, o->fmt, &f, &msg);
		if (r < 0) {
			if (msg.len)
				sb_error(emsg, 0, "%s", msg.buf);	/* says why */
			else
				sb_error(emsg, r, "cannot read '%s'", input);
			ret_code = r;
			goto out;
		}
		snprintf(a.format, sizeof(a.format), "%s", f->format);
		sb_add(&notes, msg.buf, msg.len);
	}
	if (is_dir)
		snprintf(a.format, sizeof(a.format), "%s", f->format);

	/* The window: the options, else the one the run was benchmarked with */
	a.mo = o->m;
	a.interfered = -1;
	if (ini) {
		static const char *const keys[] = { "warmup_s", "window_from_s", "window_to_s" };
		double *dst[] = { &a.mo.warmup_s, &a.mo.from_s, &a.mo.to_s };
		const char *v;

		for (size_t k = 0; k < 3 && !o->window_given; k++) {
			double x;
			struct strbuf path = STRBUF_INIT;

			sb_add_path(&path, input, "run.ini");
			r = runini_get_double(ini, path.buf, keys[k], &x, &err);
			sb_release(&path);
			if (r == -EINVAL) {
				ret_code = sb_error(emsg, 0, "%s", err.buf);
				goto out;
			}
			if (r == 0 && x >= 0)
				*dst[k] = x;
		}
		/* the recorder's word on a run with no frames, or frames that
		 * stopped: a note, and apart for the tables */
		v = runini_get(ini, "frames_note");
		if (v && *v && !(a.frames_note = strdup(v))) {
			ret_code = sb_error(emsg, -ENOMEM, "'%s'", input);
			goto out;
		}
		v = runini_get(ini, "interfered");
		if (v && (!strcmp(v, "0") || !strcmp(v, "1"))) {
			a.interfered = v[0] - '0';
			v = runini_get(ini, "interference");
			if (v && strcmp(v, "-") && !(a.interference = strdup(v))) {
				ret_code = sb_error(emsg, -ENOMEM, "'%s'", input);
				goto out;
			}
		}
	}
	if (o->intf_list && analyse_in_list(o->intf_list, input)) {
		struct strbuf why = STRBUF_INIT;

		a.interfered = 1;
		sb_addf(&why, "listed in '%s'%s%s", o->intf_list_name ? o->intf_list_name : "the list",
			a.interference ? "; " : "", a.interference ? a.interference : "");
		free(a.interference);
		a.interference = sb_detach(&why);
	}

	/* The rule: run.ini's overrides, else the rules file's. */
	program = a.program ? a.program : o->program;
	if (ini) {
		r = reload_rule_from_overrides(runini_get(ini, "reload_re"),
					       runini_get(ini, "reload_after"),
					       runini_get(ini, "reload_fixed"), &override, &err);
		if (r < 0) {
			ret_code = sb_error(emsg, 0, "'%s/run.ini': %s", input, err.buf);
			goto out;
		}
		if (r > 0)
			rule = &override;
	}
	if (!rule && program) {
		rule = reload_rules_find(o->rules, program);
		if (!rule)
			sb_addf(&notes, "no reload rule for '%s'%s%s%s: play is the whole window\n",
				program, o->rules_name ? " in '" : " (no rules file)",
				o->rules_name ? o->rules_name : "", o->rules_name ? "'" : "");
	}

	/* Pass stamps: --pass, else run.ini's. */
	if (!o->pass_given && ini) {
		r = runini_passes(ini, input, &pass, &err);
		if (r < 0) {
			ret_code = sb_error(emsg, 0, "%s", err.buf);
			goto out;
		}
		passes = pass;
		npass = (size_t)r;
	}
	if (rule && rule->kind != RELOAD_NONE && npass == 0)
		sb_addf(&notes, "the reload rule of '%s' needs pass stamps and there are none: play "
				"is the whole window\n", program ? program : "run.ini");

	/* The program log, for a line rule. */
	if (rule && rule->kind == RELOAD_LINE && is_dir && npass && !isnan(t0)) {
		struct strbuf path = STRBUF_INIT;
		size_t len, unstamped = 0;

		sb_add_path(&path, input, "program.log");
		r = read_all(path.buf, &log, &len);
		if (r == 0) {
			if (reload_log_parse(log, len, &lines, &nlines, &unstamped) < 0) {
				sb_release(&path);
				ret_code = sb_error(emsg, -ENOMEM, "'%s'", input);
				goto out;
			}
			if (unstamped)
				sb_addf(&notes, "'%s': %zu unstamped line%s (no [seconds] prefix) "
						"skipped\n", path.buf, unstamped, unstamped == 1 ? "" : "s");
		} else if (r != -ENOENT) {
			ret_code = sb_error(emsg, r, "cannot read '%s'", path.buf);
			sb_release(&path);
			goto out;
		}
		sb_release(&path);
	}
	end_s = f->n ? f->t_s[f->n - 1] : 0.0;
	sb_reset(&err);
	nsegs = reload_segments(rule, passes, npass, end_s, lines, nlines, is_dir && !isnan(t0),
				&segs, &err);
	if (nsegs == -ENODATA) {
		play_unknown = err.buf;
		nsegs = 0;
	} else if (nsegs < 0) {
		ret_code = sb_error(emsg, nsegs, "'%s': reload segments", input);
		goto out;
	} else {
		sb_add(&notes, err.buf, err.len);
	}
	r = metrics_compute(f, &a.mo, segs, (size_t)nsegs, play_unknown, &a.m);
	if (r < 0) {
		ret_code = sb_error(emsg, r, "'%s'", input);
		goto out;
	}
	sb_reset(&err);
	r = runini_failure(ini, f->n, &err);
	if (r == 0 && a.rec && a.rec->ndamage) {
		/* numbers of a record with holes are not the run's: never whole */
		r = 1;
		sb_addf(&err, "the record is damaged: %llu bytes in %zu place%s were lost",
			(unsigned long long)a.rec->damaged_bytes, a.rec->ndamage,
			a.rec->ndamage == 1 ? "" : "s");
	}
	if (r < 0 || (r > 0 && !(a.failure = strdup(err.buf)))) {
		ret_code = sb_error(emsg, -ENOMEM, "'%s'", input);
		goto out;
	}
	/* the loudest words first: the recorder's on the frames (no frames, or
	 * frames that stopped; it has the hints), then a failed run's */
	if (a.failure)
		metrics_note_first(&a.m, "FAILED RUN: %s; left out of medians", a.failure);
	if (a.frames_note)
		metrics_note_first(&a.m, "%s", a.frames_note);
	add_notes(&a.m, notes.buf);
	a.mh_style = compat_mangohud_style_of(f->format);
	if (compat_mangohud(f->ft_ms + a.m.win_first, a.m.win_n, a.mh_style, &a.mh) < 0 ||
	    compat_capframex(f->ft_ms + a.m.win_first, a.m.win_n, &a.cfx) < 0) {
		ret_code = sb_error(emsg, -ENOMEM, "'%s'", input);
		goto out;
	}
	a.why = a.why_play = -1;
	if (a.rec && a.rec->nsamples) {
		struct causes *c = NULL;
		struct cause_cols cols;
		int k;

		a.t0_ns = isnan(t0) || t0 <= 0 ? 0 : (uint64_t)llround(t0 * 1e9);
		if (isnan(t0) && a.rec->nframes) {
			/* the clock frames_of_rec fell back to: the first present */
			size_t i;

			a.t0_ns = a.rec->frames[0].t_ns;
			for (i = 1; i < a.rec->nframes; i++)
				if (a.rec->frames[i].t_ns < a.t0_ns)
					a.t0_ns = a.rec->frames[i].t_ns;
		}
		if (streamed) {
			c = streamed;	/* classified as the record was read */
			streamed = NULL;
		} else if (causes_new(a.rec, &c) < 0) {
			ret_code = sb_error(emsg, -ENOMEM, "'%s'", input);
			goto out;
		}
		causes_columns(c, f, a.t0_ns, &a.m, &a.mo, segs, (size_t)nsegs, !play_unknown,
			       &cols);
		causes_free(c);
		for (k = 0; k < CAUSE_COL_N; k++) {
			/* an empty window splits no stall: unknown, not 0 (its note
			 * is metrics_compute's) */
			a.m.v[M_STALL_DISK_S + k] = a.m.win_n ? cols.stall_s[k] : NAN;
			a.m.v[M_STALL_DISK_PLAY_S + k] = a.m.win_n ? cols.play_s[k] : NAN;
		}
		a.m.v[M_LOAD_DISK_S] = cols.load_disk_s;
		a.m.v[M_WARM_DISK_S] = cols.warm_disk_s;
		a.why = cols.why;
		a.why_play = cols.why_play;
		if (isnan(cols.load_disk_s))
			metrics_note(&a.m, "load_disk_s, warm_disk_s: the record has no frames");
	} else {
		metrics_note(&a.m, "stall_*_s, stall_why, load_disk_s, warm_disk_s: %s",
			     a.rec ? "the record has no samples"
				   : "a frame log has no samples; causes need a run directory");
	}
	if (o->keep) {
		a.f = f;
		f = NULL;
		a.segs = segs;
		segs = NULL;
		a.nsegs = (size_t)nsegs;
		a.play_known = !play_unknown;
	} else {
		rec_free(a.rec);
		a.rec = NULL;
	}
	if (a.mh.why)
		metrics_note(&a.m, "compat.mangohud: %s", a.mh.why);
	if (a.cfx.why)
		metrics_note(&a.m, "compat.capframex: %s", a.cfx.why);
	a.ini = ini;
	ini = NULL;
	*ret = a;
	memset(&a, 0, sizeof(a));
	ret_code = 0;
out:
	causes_free(streamed);
	analysis_release(&a);
	reload_rule_release(&override);
	runini_free(ini);
	frames_free(f);
	free(pass);
	free(lines);
	free(log);
	free(segs);
	sb_release(&msg);
	sb_release(&notes);
	sb_release(&err);
	return ret_code;
}
