// SPDX-License-Identifier: MIT
/*
 * stalls.c: `stallscope stalls RUNDIR...`: every stall of a run with its
 * cause, the cause's share of the stall's seconds, a second cause when it
 * holds over 20 %, and the evidence the record holds for it; the window's
 * stalls first, then the warm-up's.
 *
 * The stalls are report's (the same analysis, options and window: see
 * cmd/report.h); the causes are core/causes.h's, documented in
 * docs/CAUSES.md. A stall's time t_s is when it began (the previous
 * present), in seconds since the run's t0. Needs run directories: a frame
 * log has no samples to give a cause.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmd/cmd.h"
#include "cmd/report.h"
#include "cmd/stall_list.h"
#include "core/causes.h"
#include "core/display.h"
#include "core/exact.h"
#include "core/strbuf.h"
#include "core/where.h"
#include "out/json.h"
#include "out/table.h"
#include "out/term.h"
#include "rec/rec.h"

static const struct opts_help stalls_help = {
	"usage: stallscope stalls [options] RUNDIR...\n"
	"\n"
	"One line per stall (a frame over --stall-ms) of each run: when it began (s\n"
	"since t0), how long it was, its cause and that cause's share of its seconds,\n"
	"a second cause when one holds over 20 %, and the evidence: the frame thread's\n"
	"state, wchan, syscall and the file behind its fd, major faults, disk reads,\n"
	"the vmstat counters that moved, run-queue wait, the first lines of a kernel\n"
	"stack. The window's stalls come first, then the warm-up's. The stalls are\n"
	"report's: the same window and options (stallscope-report(1)). docs/CAUSES.md\n"
	"has the rules.\n"
	"\n",
	"EXAMPLES\n"
	"  stallscope stalls runs/2026*-fakegame/\n"
	"  stallscope stalls --warmup 0 --json run/ | jq '.[0].stalls[].cause'\n"
	"  stallscope stalls --folded --at 1.008 run/ > stall.folded   # one stall's flame graph\n",
};

/* How the text is laid out: piped, one line a stall as a table; on a
 * terminal, the stall's line and its evidence under it, to its width. */
struct view {
	FILE *out;		/* the text (a buffer term_fold writes, on a terminal) */
	bool tty;		/* the terminal's layout */
	bool color;		/* causes and !! lines coloured */
	bool full;		/* --full: every evidence item */
	size_t width;		/* the terminal's columns */
	long stack_lines;	/* --stack-lines */
	bool printed;		/* a run was printed: a blank line before the next */
	char *buf;		/* on a terminal, out's buffer (view_flush) */
	size_t len;
};

/* Items AT .. AT + N - 1 of a run's stalls (stall_list.h): a list, or the
 * one --at picked. */
struct range {
	const struct stall_list *l;
	size_t at, n;
};

/* On a terminal, the text laid out so far folded to the width (term_fold
 * folds each line alone) and a new buffer begun, so that the memory is a
 * stall's text, not the run's. Called after whole lines. 0 or -ENOMEM
 * (out is then NULL). */
static int view_flush(struct view *v)
{
	int r = 0;

	if (!v->tty)
		return 0;
	if (fclose(v->out) != 0)
		r = -ENOMEM;
	if (!r)
		term_fold(stdout, v->buf, v->len, v->width);
	free(v->buf);
	v->buf = NULL;
	v->len = 0;
	v->out = open_memstream(&v->buf, &v->len);
	return r ? r : v->out ? 0 : -ENOMEM;
}

#define TERM_ITEMS 5	/* evidence items a terminal shows without --full */

/* S's evidence as items, each ending in a NUL (stall_evidence_items): its
 * API calls, the evidence, its exact intervals and, when not TTY (which
 * says it on the stall's line), "in a reload segment". */
static void stall_items(struct strbuf *it, const struct rec *rec, const struct stall_item *s,
			long stack_lines, bool tty)
{
	if (s->napi) {
		stall_api_text(it, s);
		sb_addc(it, '\0');
	}
	stall_evidence_items(it, &s->e, stack_lines);
	for (size_t k = 0; k < s->niv && k < 2; k++) {
		if (!k)
			sb_adds(it, "exact: ");
		stall_interval_text(it, rec, &s->iv[k]);
		sb_addc(it, '\0');
	}
	if (s->niv_all > 2) {
		sb_addf(it, "%zu more intervals", s->niv_all - 2);
		sb_addc(it, '\0');
	}
	if (!s->play && !tty) {
		sb_adds(it, "in a reload segment");
		sb_addc(it, '\0');
	}
}

static int add_stall_row(struct table *t, const struct rec *rec, const struct stall_item *s,
			 const struct view *v)
{
	struct strbuf sb = STRBUF_INIT;
	const char *sub = stall_sub_short(s->v.sub);
	int r;

	r = table_add_num(t, s->t_s, 3);
	r = r ? r : table_add_num(t, s->ms, 1);
	if (!r) {
		if (sub) {
			sb_addf(&sb, "%s (%s)", cause_name(s->v.cause), sub);
			for (char *u = sb.buf; (u = strchr(u, '_')); )
				*u = ' ';	/* "cpu (shader compile)" */
		} else
			sb_adds(&sb, cause_name(s->v.cause));
		r = table_add(t, sb.buf);
		if (!r && v->color)
			r = table_set_sgr(t, term_cause_sgr(cause_name(s->v.cause)));
	}
	r = r ? r : table_add_num(t, s->v.share * 100.0, 0);
	if (!r) {
		sb_reset(&sb);
		if (s->v.second >= 0)
			sb_addf(&sb, "%s %.0f%%", cause_name((enum cause)s->v.second),
				s->v.second_share * 100.0);
		r = table_add(t, s->v.second >= 0 ? sb.buf : NULL);
		if (!r && v->color && s->v.second >= 0)
			r = table_set_sgr(t, term_cause_sgr(cause_name((enum cause)s->v.second)));
	}
	if (!r && !v->tty) {
		struct strbuf it = STRBUF_INIT;

		sb_reset(&sb);
		stall_items(&it, rec, s, v->stack_lines, false);
		stall_items_join(&sb, it.buf, it.len);
		sb_release(&it);
		r = table_add(t, sb.buf);
	}
	sb_release(&sb);
	return r;
}

/* On a terminal, under a stall's line: its evidence items (the first
 * TERM_ITEMS, and how many more, unless --full) on lines indented 4,
 * as many to a line as fit the width. */
static void print_items(const struct view *v, const struct rec *rec, const struct stall_item *s)
{
	struct strbuf it = STRBUF_INIT, line = STRBUF_INIT;
	size_t n = 0, shown, lw = 4, k = 0;
	char more[64];

	stall_items(&it, rec, s, v->stack_lines, true);
	for (const char *p = it.buf; p < it.buf + it.len; p += strlen(p) + 1)
		n++;
	shown = v->full || n <= TERM_ITEMS ? n : TERM_ITEMS;
	snprintf(more, sizeof(more), "+%zu more item%s (--full)", n - shown,
		 n - shown == 1 ? "" : "s");
	sb_adds(&line, "    ");
	for (const char *p = it.buf; k < shown + (shown < n); k++) {
		const char *shw = more;
		size_t w;

		if (k < shown) {
			shw = cli_shown(p);
			p += strlen(p) + 1;
		}
		w = display_width(shw);
		if (lw > 4 && lw + 2 + w + 1 > v->width) {
			fprintf(v->out, "%s;\n", line.buf);
			sb_reset(&line);
			sb_adds(&line, "    ");
			lw = 4;
		} else if (lw > 4) {
			sb_adds(&line, "; ");
			lw += 2;
		}
		sb_adds(&line, shw);
		lw += w;
	}
	if (lw > 4)
		fprintf(v->out, "%s\n", line.buf);
	sb_release(&line);
	sb_release(&it);
}

/* Under a list, each stall's hottest user stacks (docs/WHERE.md):
 * "where: 74 % spin_until <- stall_cpu <- main", LINES of them. */
#define WHERE_DEPTH 5	/* frames shown per where line */

static int print_where(struct view *v, const struct rec *rec, const struct range *g, long lines)
{
	struct strbuf sb = STRBUF_INIT;
	bool any = false;
	int r = 0;

	if (lines <= 0 || !where_any(rec))
		return 0;
	for (size_t i = 0; !r && i < g->n; i++) {
		FILE *out = v->out;
		struct stall_item s;
		struct where w;
		uint64_t a, b;

		if ((r = stall_list_get(g->l, g->at + i, &s)) < 0)
			break;
		stall_ns(&s, &a, &b);
		if (where_stall(rec, a, b, &w) < 0 || where_merge(&w, WHERE_DEPTH) < 0) {
			where_free(&w);
			sb_release(&sb);
			return -ENOMEM;
		}
		if (!any)
			fprintf(out, "where (the frame thread's user stacks in each stall, share of "
			       "its samples):\n");
		any = true;
		if (!w.total)
			fprintf(out, "  %10.3f s  where: - (no stack recorded in this stall)\n", s.t_s);
		for (size_t k = 0; k < w.n && k < (size_t)lines; k++) {
			sb_reset(&sb);
			where_line(&sb, &w.st[k], w.total, 0);
			if (k)
				fprintf(out, "  %10s    where: %s\n", "", cli_shown(sb.buf));
			else
				fprintf(out, "  %10.3f s  where: %s  (%llu samples)\n", s.t_s,
				       cli_shown(sb.buf), (unsigned long long)w.total);
		}
		/* spread over many stacks (a compiler's passes): by file too */
		if (w.n && w.nfiles > 1 && w.st[0].n * 2 < w.total) {
			sb_reset(&sb);
			where_files_line(&sb, &w, 4);
			fprintf(out, "  %10s    files: %s  (innermost user frame)\n", "", cli_shown(sb.buf));
		}
		where_free(&w);
		/* the second sampled thread: its hottest stack, one line */
		if (where_kind(rec, WHERE_KIND_THREAD2, a, b, 0, &w) < 0 ||
		    where_merge(&w, WHERE_DEPTH) < 0) {
			where_free(&w);
			sb_release(&sb);
			return -ENOMEM;
		}
		if (w.n) {
			sb_reset(&sb);
			where_line(&sb, &w.st[0], w.total, 0);
			fprintf(out, "  %10s    second thread %u: %s  (%llu samples)\n", "", w.tid,
			       cli_shown(sb.buf), (unsigned long long)w.total);
		}
		where_free(&w);
		r = view_flush(v);
	}
	sb_release(&sb);
	return r;
}

/* A stack's frames as a JSON array of names. */
static void json_frames(struct json *j, const struct where_stack *st)
{
	struct strbuf sb = STRBUF_INIT;

	json_arr_begin(j);
	for (size_t f = 0; f < st->nframes; f++) {
		sb_reset(&sb);
		where_frame_name(&sb, st->frames[f]);
		json_str(j, sb.buf);
	}
	json_arr_end(j);
	sb_release(&sb);
}

/* "stack_samples" and "stacks" of W. */
static void json_stacks(struct json *j, const struct where *w)
{
	json_kuint(j, "stack_samples", w->total);
	json_key(j, "stacks");
	json_arr_begin(j);
	for (size_t k = 0; k < w->n; k++) {
		json_obj_begin(j);
		json_kuint(j, "n", w->st[k].n);
		json_knumf(j, "share", (double)w->st[k].n / (double)w->total, 4);
		json_key(j, "frames");
		json_frames(j, &w->st[k]);
		if (w->st[k].nkframes) {
			json_key(j, "kernel");
			json_arr_begin(j);
			for (size_t f = 0; f < w->st[k].nkframes; f++)
				json_str(j, w->st[k].kframes[f]);
			json_arr_end(j);
		}
		json_obj_end(j);
	}
	json_arr_end(j);
	json_key(j, "files");
	json_arr_begin(j);
	for (size_t k = 0; k < w->nfiles; k++) {
		json_obj_begin(j);
		json_kstr(j, "file", w->files[k].name);
		json_kuint(j, "n", w->files[k].n);
		json_obj_end(j);
	}
	json_arr_end(j);
}

/* The frame thread's stacks in the stall, and "thread2": the second sampled
 * thread's (its tid with the same keys), null when it has none there. */
static void json_where(struct json *j, const struct rec *rec, const struct stall_item *s)
{
	struct where w;
	uint64_t a, b;

	stall_ns(s, &a, &b);
	if (where_stall(rec, a, b, &w) < 0)
		return;
	json_stacks(j, &w);
	where_free(&w);
	json_key(j, "thread2");
	if (where_kind(rec, WHERE_KIND_THREAD2, a, b, 0, &w) < 0 || !w.n) {
		json_null(j);
	} else {
		json_obj_begin(j);
		json_kuint(j, "tid", w.tid);
		json_stacks(j, &w);
		json_obj_end(j);
	}
	where_free(&w);
}

/* On a terminal, a stall's line (the table's header before the first),
 * with "(in a reload segment)" when so, and its evidence under it. */
static int print_tty_row(struct view *v, struct table *t, const struct rec *rec,
			 const struct stall_item *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int r = m ? 0 : -ENOMEM;

	r = r ? r : table_print_row(t, m);
	if (m && fclose(m) != 0 && !r)
		r = -ENOMEM;
	if (!r && len) {
		fwrite(buf, 1, len - 1, v->out);	/* without its newline */
		if (!s->play)
			fputs("  (in a reload segment)", v->out);
		fputc('\n', v->out);
		print_items(v, rec, s);
	}
	free(buf);
	return r ? r : view_flush(v);
}

/*
 * A list's title, its table and its "where" lines. The stalls are read
 * back one at a time, twice for the table (table.h: the widths, then the
 * lines) and once more for the stacks: the memory is a stall's.
 */
static int print_list(struct view *v, const char *title, const struct rec *rec,
		      const struct range *g)
{
	static const char *const hdr[] = { "t_s", "ms", "cause", "share%", "second", "evidence" };
	struct stall_item s;
	struct table *t;
	int r = g->n ? stall_list_get(g->l, g->at, &s) : 0;

	if (r < 0)
		return r;
	fprintf(v->out, "%s: %zu stall%s%s\n", title, g->n, g->n == 1 ? "" : "s",
		g->n && s.exact ? " (causes by exact time)" : "");
	if (!g->n)
		return 0;
	t = table_new(v->tty ? 5 : 6, hdr);
	if (!t)
		return -ENOMEM;
	for (size_t i = 0; !r && i < g->n; i++) {
		r = stall_list_get(g->l, g->at + i, &s);
		r = r ? r : add_stall_row(t, rec, &s, v);
		r = r ? r : table_measure(t);
	}
	for (size_t i = 0; !r && i < g->n; i++) {
		r = stall_list_get(g->l, g->at + i, &s);
		r = r ? r : add_stall_row(t, rec, &s, v);
		if (!r)
			r = v->tty ? print_tty_row(v, t, rec, &s) : table_print_row(t, v->out);
	}
	table_free(t);
	return r ? r : print_where(v, rec, g, v->stack_lines);
}

/* TEXT's lines (a kernel stack, one frame a line) as an array of strings. */
static void json_lines(struct json *j, const char *text)
{
	json_arr_begin(j);
	while (*text) {
		size_t len = strcspn(text, "\n");

		if (len)
			json_strn(j, text, len);
		text += len;
		if (*text)
			text++;
	}
	json_arr_end(j);
}

static void json_evidence(struct json *j, const struct cause_evidence *e)
{
	char state[2] = { e->state, 0 };
	size_t k;

	json_obj_begin(j);
	json_kuint(j, "samples", e->nsamples);
	json_kstr(j, "state", e->state ? state : NULL);
	json_kstr(j, "wchan", e->wchan);
	if (e->syscall >= 0 && e->syscall_name)
		json_kstr(j, "syscall", e->syscall_name);
	else if (e->syscall == -1)
		json_kstr(j, "syscall", e->state ? (e->state == 'R' ? "running" : "none") : NULL);
	else
		json_knull(j, "syscall");
	json_kint(j, "syscall_nr", e->syscall);
	json_kstr(j, "fd_target", e->fd_target);
	if (e->majflt >= 0)
		json_kint(j, "majflt", e->majflt);
	else
		json_knull(j, "majflt");
	if (e->minflt >= 0)
		json_kint(j, "minflt", e->minflt);
	else
		json_knull(j, "minflt");
	json_knumf(j, "run_ms", e->run_ms, 3);
	json_knumf(j, "runq_ms", e->runq_ms, 3);
	json_kuint(j, "thread_periods", e->ft_periods);
	json_kuint(j, "thread_periods_left_out", e->ft_gaps);
	if (e->missed_in >= 0)
		json_kint(j, "missed_switch_ins", e->missed_in);
	else
		json_knull(j, "missed_switch_ins");
	json_knumf(j, "cg_memory_pressure_ms", e->cg_mem_ms, 3);
	json_knumf(j, "memory_pressure_ms", e->psi_mem_ms, 3);
	json_key(j, "disk_reads");
	json_arr_begin(j);
	for (k = 0; k < e->ndisks; k++) {
		json_obj_begin(j);
		json_key(j, "dev");
		json_strn(j, e->disks[k].dev, e->disks[k].dev_len);
		json_kint(j, "reads", e->disks[k].rd_ios);
		if (e->disks[k].rd_kb >= 0)
			json_kint(j, "kb", e->disks[k].rd_kb);
		else
			json_knull(j, "kb");
		json_obj_end(j);
	}
	json_arr_end(j);
	json_key(j, "vmstat");
	json_obj_begin(j);
	for (k = 0; k < e->nvm; k++)
		json_kint(j, e->vm[k].name, e->vm[k].delta);
	json_obj_end(j);
	json_key(j, "late_wakeups");
	json_arr_begin(j);
	for (k = 0; k < e->nlate; k++) {
		json_obj_begin(j);
		json_kint(j, "cpu", e->late[k].cpu);
		json_knumf(j, "late_ms", e->late[k].late_ms, 3);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_key(j, "stack");
	if (e->stack)
		json_lines(j, e->stack);
	else
		json_null(j);
	json_obj_end(j);
}

/* "user_stack": the user frames at IV's switch-out, innermost first
 * (docs/WHERE.md), or null when the record has none for it. */
static void json_user_stack(struct json *j, const struct rec *r, const struct rec_interval *iv)
{
	struct where w;

	json_key(j, "user_stack");
	if (where_interval(r, iv, &w) < 0 || !w.n)
		json_null(j);
	else
		json_frames(j, &w.st[0]);
	where_free(&w);
}

static void json_intervals(struct json *j, const struct rec *r, const struct stall_item *s)
{
	json_kstr(j, "split", s->exact ? "exact" : "samples");
	json_key(j, "intervals");
	if (!s->exact) {
		json_null(j);
		return;
	}
	json_obj_begin(j);
	json_kuint(j, "count", s->niv_all);
	json_key(j, "longest");
	json_arr_begin(j);
	for (size_t k = 0; k < s->niv; k++) {
		const struct rec_interval *iv = &s->iv[k];
		const char *st = rec_str(r, iv->stack);
		char state[2] = { (char)iv->state, 0 };

		json_obj_begin(j);
		json_kstr(j, "class", exact_class_name(iv->cls));
		json_knumf(j, "ms", (double)(iv->in_ns - iv->out_ns) / 1e6, 3);
		json_knumf(j, "blocked_ms", (double)(iv->wake_ns - iv->out_ns) / 1e6, 3);
		json_knumf(j, "runq_ms", (double)(iv->in_ns - iv->wake_ns) / 1e6, 3);
		json_knumf(j, "out_s", ((double)iv->out_ns - (double)s->t0_ns) / 1e9, 6);
		json_kstr(j, "state", state);
		if (iv->syscall >= 0)
			json_kstr(j, "syscall", cause_syscall_name(rec_meta_get(r, "syscall_abi"),
								   iv->syscall));
		else
			json_knull(j, "syscall");
		json_kint(j, "syscall_nr", iv->syscall);
		json_kstr(j, "fd_target", iv->fd_target ? rec_str(r, iv->fd_target) : NULL);
		if (iv->waker_tid)
			json_kuint(j, "waker_tid", iv->waker_tid);
		else
			json_knull(j, "waker_tid");
		json_kstr(j, "waker_comm", iv->waker_comm ? rec_str(r, iv->waker_comm) : NULL);
		json_key(j, "stack");
		json_lines(j, st);
		json_user_stack(j, r, iv);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}

/* api_calls: the frame thread's timed API calls overlapping the stall
 * (an empty array when none or the record has no spans). */
static void json_api_calls(struct json *j, const struct stall_item *s)
{
	json_key(j, "api_calls");
	json_arr_begin(j);
	for (size_t k = 0; k < s->napi; k++) {
		json_obj_begin(j);
		json_kstr(j, "name", s->api[k].name);
		json_knumf(j, "ms", s->api[k].ms, 3);
		json_knumf(j, "in_stall_ms", s->api[k].in_ms, 3);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static int json_list(struct json *j, const struct rec *r, const char *key,
		     const struct range *g)
{
	struct stall_item s;
	int ret = 0;

	json_key(j, key);
	json_arr_begin(j);
	for (size_t i = 0; i < g->n && !(ret = stall_list_get(g->l, g->at + i, &s)); i++) {
		double total = cause_split_total(&s.split);

		json_obj_begin(j);
		json_knumf(j, "t_s", s.t_s, 6);
		json_knumf(j, "ms", s.ms, 3);
		json_kstr(j, "cause", cause_name(s.v.cause));
		json_knumf(j, "share", s.v.share, 4);
		json_kstr(j, "sub_cause", cause_sub_name(s.v.sub));
		json_knumf(j, "sub_share", s.v.sub_share, 4);
		json_kstr(j, "second_cause",
			  s.v.second >= 0 ? cause_name((enum cause)s.v.second) : NULL);
		json_knumf(j, "second_share", s.v.second_share, 4);
		json_kbool(j, "play", s.play);
		json_key(j, "shares");
		json_obj_begin(j);
		for (int k = 0; k < SUB_N; k++)
			if (s.split.sub_s[k] > 0 && total > 0)
				json_knumf(j, cause_sub_name((enum cause_sub)k),
					   s.split.sub_s[k] / total, 4);
		json_obj_end(j);
		json_key(j, "evidence");
		json_evidence(j, &s.e);
		json_intervals(j, r, &s);
		json_api_calls(j, &s);
		json_where(j, r, &s);
		json_obj_end(j);
	}
	json_arr_end(j);
	return ret;
}

struct stalls_own {
	int stack_lines;
	bool folded;
	double at;		/* --at S; NAN: every stall */
	bool full;		/* --full */
	bool no_pager;		/* --no-pager */
	enum term_color color;	/* --color[=WHEN] */
};

/* --at S: the stall at S seconds, the latest to begin at or before it (its
 * t_s as printed, to the millisecond) and to last past it, alone in its list
 * (*WIN or *WARM); the other list empty. 0, -ENOENT when no stall is there,
 * or stall_list_get's error. */
static int pick_at(double at, const struct stall_list *l, struct range *win, struct range *warm)
{
	size_t best = SIZE_MAX;
	double best_t = 0;
	struct stall_item s;

	for (size_t k = 0; k < l->nwin + l->nwarm; k++) {
		int r = stall_list_get(l, k, &s);

		if (r < 0)
			return r;
		if (s.t_s - 0.0005 <= at && at <= s.t_s + s.ms / 1000.0 &&
		    (best == SIZE_MAX || s.t_s > best_t)) {
			best = k;
			best_t = s.t_s;
		}
	}
	if (best == SIZE_MAX)
		return -ENOENT;
	*win = (struct range){ l, best, best < l->nwin };
	*warm = (struct range){ l, best, best >= l->nwin };
	return 0;
}

/* The stalls' times, for an --at that found none: "1.008, 1.708". */
static void stall_times(struct strbuf *sb, const struct range *g)
{
	struct stall_item s;

	for (size_t i = 0; i < g->n && i < 8 && !stall_list_get(g->l, g->at + i, &s); i++)
		sb_addf(sb, "%s%.3f", sb->len ? ", " : "", s.t_s);
	if (g->n > 8)
		sb_adds(sb, ", ...");
}

/* A frame for the collapsed-stack format: no ';' (the separator) and no
 * newline; kernel frames end in "_[k]" as perf's stackcollapse writes them. */
static void folded_frame(struct strbuf *sb, const char *f, bool kernel)
{
	size_t at = sb->len;

	sb_adds(sb, ";");
	where_frame_name(sb, f);
	for (size_t i = at + 1; i < sb->len; i++)
		if (sb->buf[i] == ';' || sb->buf[i] == '\n')
			sb->buf[i] = ':';
	if (kernel)
		sb_adds(sb, "_[k]");
}

/* --folded: every stall's stacks as collapsed stacks (flamegraph.pl,
 * speedscope, inferno), rooted at the stall's cause, weighted by time: a
 * stall of MS spreads MS * 1000 (microseconds) over its samples; a stall
 * with no stack recorded is CAUSE;[no stack]. */
static int print_folded(const struct rec *rec, const struct range *g)
{
	struct strbuf sb = STRBUF_INIT;
	struct stall_item s;

	for (size_t i = 0; i < g->n; i++) {
		const char *cause;
		struct where w;
		int r = stall_list_get(g->l, g->at + i, &s);

		if (r < 0) {
			sb_release(&sb);
			return r;
		}
		cause = cause_name(s.v.cause);
		if (stall_where(rec, &s, &w) < 0) {
			sb_release(&sb);
			return -ENOMEM;
		}
		if (!w.total)
			printf("%s;[no stack] %.0f\n", cause, s.ms * 1000.0);
		for (size_t k = 0; k < w.n; k++) {
			const struct where_stack *st = &w.st[k];
			double us = s.ms * 1000.0 * (double)st->n / (double)w.total;

			if (us < 0.5)
				continue;
			sb_reset(&sb);
			sb_adds(&sb, cause);
			for (size_t f = st->nframes; f-- > 0;)
				folded_frame(&sb, st->frames[f], false);
			for (size_t f = st->nkframes; f-- > 0;)
				folded_frame(&sb, st->kframes[f], true);
			printf("%s %.0f\n", cli_shown(sb.buf), us);
		}
		where_free(&w);
	}
	sb_release(&sb);
	return 0;
}

/*
 * One run's text: its name, its frames note (!!), the window's and the
 * warm-up's stalls and the notes about the input. On a terminal it is laid
 * out in a buffer and folded to the width. 0, or 1 when the run has nothing
 * to list or printing failed (said).
 */
static int print_run(struct view *v, const char *name, const struct analysis *a,
		     const struct range *win, const struct range *warm)
{
	const char *red = v->color ? TERM_SGR_RED : "", *off = v->color ? TERM_SGR_RESET : "";
	int r = 0, status = 0;

	v->out = stdout;
	if (v->tty && !(v->out = open_memstream(&v->buf, &v->len)))
		return cli_error_errno(-ENOMEM, "'%s'", cli_shown(name)) ? 1 : 1;
	if (v->printed)
		fputc('\n', v->out);
	v->printed = true;
	fprintf(v->out, "%s\n", cli_shown(name));
	if (a->frames_note)
		fprintf(v->out, "%s!! %s%s\n", red, cli_shown(a->frames_note), off);
	if (a->rec_nframes == 0 && a->frames_note) {
		/* no frame, so no stall to list: the note says why */
		status = 1;
	} else {
		if (rec_samples_in_file(a->rec) == 0)
			fprintf(v->out, "  (the record has no samples: every cause is unknown)\n");
		r = print_list(v, "window", a->rec, win);
		if (!r)
			r = print_list(v, "warm-up", a->rec, warm);
	}
	/* The notes about the input itself (they start with a quoted file
	 * name: no t0, a torn record); the column notes are report's. */
	for (size_t k = 0; !r && k < a->m.nnotes; k++)
		if (a->m.notes[k][0] == '\'')
			fprintf(v->out, "note: %s\n", cli_shown(a->m.notes[k]));
	if (v->tty) {
		if (v->out && fclose(v->out) != 0 && !r)
			r = -ENOMEM;
		if (!r)
			term_fold(stdout, v->buf, v->len, v->width);
		free(v->buf);
		v->buf = NULL;
		v->out = stdout;
	}
	if (r < 0) {
		cli_error_errno(r, "'%s'", cli_shown(name));
		status = 1;
	}
	return status;
}

int cmd_stalls(int argc, char **argv)
{
	struct report_options o = {
		.a = { .m = METRICS_OPTS_INIT, .fmt = FRAMELOG_AUTO, .keep = true, .windows = true },
	};
	struct reload_rules *rules = NULL;
	struct strbuf emsg = STRBUF_INIT;
	struct stalls_own so = { .stack_lines = 3, .at = NAN };
	struct report_tables rt;
	const struct opt opts[] = {
		OPT_CONCAT(rt.analysis),
		OPT_DOUBLE(0, "at", &so.at, "S", 0, OPT_SECONDS_MAX,
			   "only the stall at S s (its t_s as listed, or any time\n"
			   "inside it), in every output below"),
		OPT_BOOL(0, "folded", &so.folded,
			 "the stalls' stacks in the collapsed-stack format\n"
			 "(flamegraph.pl, speedscope, inferno), by cause, in us"),
		OPT_INT(0, "stack-lines", &so.stack_lines, "N", 0, 1000,
			"lines of a kernel stack, and user stacks per stall under\n"
			"\"where:\", to show (default 3; 0 for none)"),
		OPT_BOOL(0, "json", &o.json,
			 "JSON: an array, one object per run (run, stalls, warm_stalls)"),
		OPT_BOOL(0, "full", &so.full,
			 "on a terminal, every item of the evidence (default: the\n"
			 "first 5 and how many more)"),
		OPT_BOOL(0, "no-pager", &so.no_pager,
			 "several runs on a terminal: no pager ($PAGER, else less -FRX)"),
		{ .kind = OPTK_CALLBACK, .long_name = "color", .value = &so.color, .argh = "WHEN",
		  .flags = OPTF_OPTARG, .cb = report_take_color,
		  .help = "colour causes and !! lines: auto (default: on a terminal,\n"
			  "unless NO_COLOR is set), always or never" },
		OPT_END(),
	};
	struct term_pager pager = { 0 };
	struct view v = { 0 };
	struct json j;
	int first, i, status = 0;

	/* the whole record in memory, as before the windows (tests compare
	 * the two: tests/e2e/stalls-stream.sh) */
	if (getenv("STALLSCOPE_WHOLE_RECORD"))
		o.a.windows = false;
	report_tables_init(&rt, &o);
	first = opts_parse(argc, argv, opts, &stalls_help, 0);
	if (first >= 0 && report_options_check(&o) < 0)
		first = OPTS_ERROR;
	if (first == argc) {
		cli_usage_error("expected at least one RUNDIR");
		first = OPTS_ERROR;
	}
	if (first >= 0 && so.folded && o.json) {
		cli_usage_error("options '--folded' and '--json' do not go together");
		first = OPTS_ERROR;
	}
	if (first < 0) {
		report_options_release(&o);
		return opts_exit(first);
	}
	if (cli_failed(analyse_load_rules(o.rules, &rules, &o.a.rules_name, &emsg), &emsg)) {
		report_options_release(&o);
		sb_release(&emsg);
		return 1;
	}
	o.a.rules = rules;
	v.tty = !o.json && !so.folded && isatty(1) == 1;
	v.color = !o.json && !so.folded && term_color_on(so.color, 1);
	v.full = so.full;
	v.stack_lines = so.stack_lines;
	v.width = term_width(1);
	if (v.tty && argc - first > 1 && !so.no_pager && term_pager_cmd()) {
		/* several runs: through the pager, as git does; one that does
		 * not start leaves the text on the terminal */
		int e = term_pager_start(&pager, term_pager_cmd());

		if (e < 0)
			cli_warn("pager '%s' did not start (%s): writing to the terminal",
				 cli_shown(term_pager_cmd()), strerror(-e));
	}
	if (o.json) {
		json_init(&j, stdout, true);
		json_arr_begin(&j);
	}
	for (i = first; i < argc; i++) {
		struct analysis a;
		struct stall_list l;
		struct range win, warm;
		size_t k;
		int r;

		if (cli_failed(analyse_input(argv[i], &o.a, &a, &emsg), &emsg)) {
			status = 1;
			continue;
		}
		if (!a.rec) {
			cli_error("'%s' is a frame log: stalls needs a run directory, whose record "
				  "has the samples a cause comes from",
				  cli_shown(argv[i]));
			analysis_release(&a);
			status = 1;
			continue;
		}
		r = stall_list_open(&a, &o.a.m, NULL, NULL, &l, &emsg);
		if (cli_failed(r, &emsg)) {
			stall_list_close(&l);
			analysis_release(&a);
			status = 1;
			continue;
		}
		win = (struct range){ &l, 0, l.nwin };
		warm = (struct range){ &l, l.nwin, l.nwarm };
		r = isnan(so.at) ? 0 : pick_at(so.at, &l, &win, &warm);
		if (r == -ENOENT) {
			struct strbuf t = STRBUF_INIT;

			stall_times(&t, &win);
			stall_times(&t, &warm);
			cli_error("'%s': no stall at %.3f s (%s%s)", cli_shown(argv[i]), so.at,
				  t.len ? "stalls at " : "no stall at all", t.buf);
			sb_release(&t);
		} else if (r < 0) {
			cli_error_errno(r, "'%s'", cli_shown(argv[i]));
		}
		if (r < 0) {
			stall_list_close(&l);
			analysis_release(&a);
			status = 1;
			continue;
		}
		if (so.folded) {
			r = print_folded(a.rec, &win);
			if (!r)
				r = print_folded(a.rec, &warm);
			if (r < 0) {
				cli_error_errno(r, "'%s'", cli_shown(argv[i]));
				status = 1;
			}
		} else if (o.json) {
			json_obj_begin(&j);
			json_kstr(&j, "run", argv[i]);
			json_knum(&j, "warmup_s", o.a.m.warmup_s);
			json_knum(&j, "stall_ms", o.a.m.stall_ms);
			json_kstr(&j, "frames_note", a.frames_note);
			json_kstr(&j, "split", causes_rec_exact(a.rec) ? "exact" : "samples");
			r = json_list(&j, a.rec, "stalls", &win);
			r = r ? r : json_list(&j, a.rec, "warm_stalls", &warm);
			json_key(&j, "notes");
			json_arr_begin(&j);
			for (k = 0; k < a.m.nnotes; k++)
				json_str(&j, a.m.notes[k]);
			json_arr_end(&j);
			json_obj_end(&j);
			if (r < 0) {
				cli_error_errno(r, "'%s'", cli_shown(argv[i]));
				status = 1;
			}
		} else if (print_run(&v, argv[i], &a, &win, &warm) != 0) {
			status = 1;
		}
		stall_list_close(&l);
		analysis_release(&a);
	}
	if (o.json) {
		json_arr_end(&j);
		json_end(&j);
	}
	term_pager_end(&pager);
	reload_rules_free(rules);
	report_options_release(&o);
	sb_release(&emsg);
	return status;
}
