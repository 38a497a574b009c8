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

#include "cli.h"
#include "cmd/cmd.h"
#include "cmd/report.h"
#include "core/causes.h"
#include "core/exact.h"
#include "core/strbuf.h"
#include "out/json.h"
#include "out/table.h"
#include "rec/rec.h"

static const char usage_text[] =
	"usage: stallscope stalls [options] RUNDIR...\n"
	"\n"
	"One line per stall (a frame over --stall-ms) of each run: when it began (s\n"
	"since t0), how long it was, its cause and that cause's share of its seconds,\n"
	"a second cause when one holds over 20 %, and the evidence: the frame thread's\n"
	"state, wchan, syscall and the file behind its fd, major faults, disk reads,\n"
	"the vmstat counters that moved, run-queue wait, the first lines of a kernel\n"
	"stack. The window's stalls come first, then the warm-up's. The stalls are\n"
	"report's: the same window and options. docs/CAUSES.md has the rules.\n"
	"\n"
	"options:\n"
	"  --warmup S       the warm-up after the first frame (default 60)\n"
	"  --from S, --to S the window, in seconds after the first frame\n"
	"  --stall-ms MS    a stall is a frame over MS (default 100)\n"
	"  --rules FILE     reload rules (see stallscope-report(1))\n"
	"  --pass S,...     pass starts, overriding run.ini's\n"
	"  --stack-lines N  lines of a kernel stack to show (default 3; 0 for none)\n"
	"  --json           JSON: an array, one object per run (run, stalls, warm_stalls)\n"
	"  -h, --help       this text\n"
	"\n"
	"EXAMPLES\n"
	"  stallscope stalls runs/2026*-fakegame/\n"
	"  stallscope stalls --warmup 0 --json run/ | jq '.[0].stalls[].cause'\n";

#define STALL_INTERVALS 8	/* intervals listed per stall (JSON; text: the first 2) */

struct stall_item {
	size_t frame;
	double t_s, ms;
	bool play;
	bool exact;		/* split by exact time */
	uint64_t t0_ns;		/* the run's t0 (record clock) */
	size_t niv, niv_all;	/* intervals listed, and overlapping in all */
	const struct rec_interval *iv[STALL_INTERVALS];
	struct cause_split split;
	struct cause_verdict v;
	struct cause_evidence e;
};


/* "futex" for wait_futex: the sub-cause without its cause's prefix, or NULL
 * when it says no more than the cause. */
static const char *sub_short(enum cause_sub s)
{
	const char *name = cause_sub_name(s), *cause = cause_name(cause_of_sub(s));
	size_t n = strlen(cause);

	if (!strcmp(name, cause))
		return NULL;
	if (!strncmp(name, cause, n) && name[n] == '_')
		return name + n + 1;
	return name;
}

static void stall_fill(const struct causes *c, const struct analysis *a, size_t i,
		       struct stall_item *s)
{
	const struct frames *f = a->f;
	double start = f->t_s[i] - f->ft_ms[i] / 1000.0;
	double an = (double)a->t0_ns + start * 1e9, bn = (double)a->t0_ns + f->t_s[i] * 1e9;
	uint64_t ans = an <= 0 ? 0 : (uint64_t)an, bns = bn <= 0 ? 0 : (uint64_t)bn;

	memset(s, 0, sizeof(*s));
	s->t0_ns = a->t0_ns;
	s->frame = i;
	s->t_s = start;
	s->ms = f->ft_ms[i];
	causes_split(c, ans, bns, &s->split);
	cause_split_verdict(&s->split, &s->v);
	causes_evidence(c, ans, bns, &s->e);
	s->exact = causes_is_exact(c);
	s->niv_all = causes_exact_intervals(c, ans, bns, s->iv, STALL_INTERVALS);
	s->niv = s->niv_all < STALL_INTERVALS ? s->niv_all : STALL_INTERVALS;
}

/* An interval in words: "futex 300.1 ms, woken by 1234 (render)" with its
 * syscall's file and its innermost kernel function. */
static void iv_text(struct strbuf *sb, const struct rec *r, const struct rec_interval *iv)
{
	const char *cls = exact_class_name(iv->cls), *st = rec_str(r, iv->stack);
	const char *sys = iv->syscall >= 0 ? cause_syscall_name(rec_meta_get(r, "syscall_abi"),
								  iv->syscall) : NULL;

	sb_addf(sb, "%s %.1f ms", cls ? cls : "?", (double)(iv->in_ns - iv->out_ns) / 1e6);
	if (sys)
		sb_addf(sb, " in %s", sys);
	else if (iv->syscall >= 0)
		sb_addf(sb, " in syscall %d", iv->syscall);
	if (iv->fd_target)
		sb_addf(sb, "(%s)", rec_str(r, iv->fd_target));
	if (iv->waker_tid)
		sb_addf(sb, ", woken by %u (%s)", iv->waker_tid, rec_str(r, iv->waker_comm));
	if (*st)
		sb_addf(sb, ", at %.*s", (int)strcspn(st, "\n"), st);
}

/* The syscall part of the evidence: "in pread64(/var/tmp/x)". */
static void ev_syscall(struct strbuf *sb, const struct cause_evidence *e)
{
	if (e->syscall == -1)
		sb_adds(sb, e->state == 'R' ? " running" : " in no syscall (a fault)");
	else if (e->syscall == -2)
		sb_adds(sb, " syscall unknown");
	else if (e->syscall_name)
		sb_addf(sb, " in %s", e->syscall_name);
	else
		sb_addf(sb, " in syscall %ld", e->syscall);
	if (e->fd_target)
		sb_addf(sb, "(%s)", e->fd_target);
}

/* The evidence as one line of text. */
static void ev_text(struct strbuf *sb, const struct cause_evidence *e, long stack_lines)
{
	size_t k;

	if (e->state) {
		sb_addf(sb, "%c", e->state);
		ev_syscall(sb, e);
		if (e->wchan)
			sb_addf(sb, ", wchan %s", e->wchan);
	} else {
		sb_adds(sb, "no sample inside");
	}
	if (e->majflt > 0)
		sb_addf(sb, "; %lld major faults", (long long)e->majflt);
	for (k = 0; k < e->ndisks; k++) {
		sb_addf(sb, "; %.*s %lld reads", (int)e->disks[k].dev_len, e->disks[k].dev,
			(long long)e->disks[k].rd_ios);
		if (e->disks[k].rd_kb >= 0)
			sb_addf(sb, " %.1f MB", (double)e->disks[k].rd_kb / 1024.0);
	}
	if (e->nvm) {
		sb_adds(sb, "; vm");
		for (k = 0; k < e->nvm; k++)
			sb_addf(sb, " %s%+lld", e->vm[k].name, (long long)e->vm[k].delta);
	}
	if (!isnan(e->run_ms))
		sb_addf(sb, "; run %.1f ms", e->run_ms);
	if (!isnan(e->runq_ms))
		sb_addf(sb, ", runq %.1f ms", e->runq_ms);
	if (!isnan(e->cg_mem_ms) && e->cg_mem_ms > 0)
		sb_addf(sb, "; cgroup memory pressure %.1f ms", e->cg_mem_ms);
	else if (!isnan(e->psi_mem_ms) && e->psi_mem_ms > 0)
		sb_addf(sb, "; memory pressure %.1f ms", e->psi_mem_ms);
	for (k = 0; k < e->nlate; k++)
		sb_addf(sb, "; CPU %d woke %.0f ms late", e->late[k].cpu, e->late[k].late_ms);
	if (e->stack && stack_lines > 0) {
		const char *p = e->stack;
		long n;

		sb_adds(sb, "; stack");
		for (n = 0; n < stack_lines && *p; n++) {
			size_t len = strcspn(p, "\n");

			sb_addf(sb, "%s%.*s", n ? " < " : " ", (int)len, p);
			p += len;
			if (*p)
				p++;
		}
	}
}

static int add_stall_row(struct table *t, const struct rec *rec, const struct stall_item *s,
			 long stack_lines)
{
	struct strbuf sb = STRBUF_INIT;
	const char *sub = sub_short(s->v.sub);
	int r;

	r = table_add_num(t, s->t_s, 3);
	r = r ? r : table_add_num(t, s->ms, 1);
	if (!r) {
		if (sub)
			sb_addf(&sb, "%s (%s)", cause_name(s->v.cause), sub);
		else
			sb_adds(&sb, cause_name(s->v.cause));
		r = table_add(t, sb.buf);
	}
	r = r ? r : table_add_num(t, s->v.share * 100.0, 0);
	if (!r) {
		sb_reset(&sb);
		if (s->v.second >= 0)
			sb_addf(&sb, "%s %.0f%%", cause_name((enum cause)s->v.second),
				s->v.second_share * 100.0);
		r = table_add(t, s->v.second >= 0 ? sb.buf : NULL);
	}
	if (!r) {
		sb_reset(&sb);
		ev_text(&sb, &s->e, stack_lines);
		for (size_t k = 0; k < s->niv && k < 2; k++) {
			sb_adds(&sb, k ? "; " : "; exact: ");
			iv_text(&sb, rec, s->iv[k]);
		}
		if (s->niv_all > 2)
			sb_addf(&sb, "; %zu more intervals", s->niv_all - 2);
		if (!s->play)
			sb_adds(&sb, "; in a reload segment");
		r = table_add(t, sb.buf);
	}
	sb_release(&sb);
	return r;
}

static int print_list(const char *title, const struct rec *rec, const struct stall_item *s,
		      size_t n, long stack_lines)
{
	static const char *const hdr[] = { "t_s", "ms", "cause", "share%", "second", "evidence" };
	struct table *t;
	size_t i;
	int r = 0;

	printf("%s: %zu stall%s%s\n", title, n, n == 1 ? "" : "s",
	       n && s[0].exact ? " (causes by exact time)" : "");
	if (!n)
		return 0;
	t = table_new(6, hdr);
	if (!t)
		return -ENOMEM;
	for (i = 0; i < n && !r; i++)
		r = add_stall_row(t, rec, &s[i], stack_lines);
	if (!r)
		table_print(t, stdout);
	table_free(t);
	return r;
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
		const struct rec_interval *iv = s->iv[k];
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
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}

static void json_list(struct json *j, const struct rec *r, const char *key,
		      const struct stall_item *s, size_t n)
{
	size_t i;
	int k;

	json_key(j, key);
	json_arr_begin(j);
	for (i = 0; i < n; i++) {
		double total = cause_split_total(&s[i].split);

		json_obj_begin(j);
		json_knumf(j, "t_s", s[i].t_s, 6);
		json_knumf(j, "ms", s[i].ms, 3);
		json_kstr(j, "cause", cause_name(s[i].v.cause));
		json_knumf(j, "share", s[i].v.share, 4);
		json_kstr(j, "sub_cause", cause_sub_name(s[i].v.sub));
		json_knumf(j, "sub_share", s[i].v.sub_share, 4);
		json_kstr(j, "second_cause",
			  s[i].v.second >= 0 ? cause_name((enum cause)s[i].v.second) : NULL);
		json_knumf(j, "second_share", s[i].v.second_share, 4);
		json_kbool(j, "play", s[i].play);
		json_key(j, "shares");
		json_obj_begin(j);
		for (k = 0; k < SUB_N; k++)
			if (s[i].split.sub_s[k] > 0 && total > 0)
				json_knumf(j, cause_sub_name((enum cause_sub)k),
					   s[i].split.sub_s[k] / total, 4);
		json_obj_end(j);
		json_key(j, "evidence");
		json_evidence(j, &s[i].e);
		json_intervals(j, r, &s[i]);
		json_obj_end(j);
	}
	json_arr_end(j);
}

/* The stalls of one analysed run into *ret_win and *ret_warm (malloc'd).
 * Returns 0 or -ENOMEM. */
static int run_stalls(const struct analysis *a, const struct metrics_opts *mo,
		      struct stall_item **ret_win, size_t *ret_nwin, struct stall_item **ret_warm,
		      size_t *ret_nwarm)
{
	struct stall_item *win = NULL, *warm = NULL;
	size_t nwin = 0, nwarm = 0, i, n = a->f ? a->f->n : 0;
	struct causes *c = NULL;
	int r;

	r = causes_new(a->rec, &c);
	if (r < 0)
		return r;
	win = calloc(n ? n : 1, sizeof(*win));
	warm = calloc(n ? n : 1, sizeof(*warm));
	if (!win || !warm) {
		free(win);
		free(warm);
		causes_free(c);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		unsigned parts = causes_stall_parts(a->f, i, &a->m, mo, a->segs, a->nsegs);

		if (parts & CAUSES_IN_WINDOW) {
			stall_fill(c, a, i, &win[nwin]);
			win[nwin++].play = (parts & CAUSES_IN_PLAY) || !a->play_known;
		}
		if (parts & CAUSES_IN_WARM) {
			stall_fill(c, a, i, &warm[nwarm]);
			warm[nwarm++].play = true;
		}
	}
	causes_free(c);
	*ret_win = win;
	*ret_nwin = nwin;
	*ret_warm = warm;
	*ret_nwarm = nwarm;
	return 0;
}

enum { OPT_STACK_LINES = 300 };

/* --stack-lines N, stalls' own beside report's options. */
static int take_stack_lines(void *ctx, int c, const char *arg)
{
	(void)c;
	return cli_parse_int("--stack-lines", arg, 0, 1000, (long *)ctx) < 0 ? -1 : 0;
}

int cmd_stalls(int argc, char **argv)
{
	struct report_options o = {
		.a = { .m = METRICS_OPTS_INIT, .fmt = FRAMELOG_AUTO, .keep = true },
	};
	struct reload_rules *rules = NULL;
	struct strbuf emsg = STRBUF_INIT;
	double *pass = NULL;
	static const struct option own[] = {
		{ "stack-lines", required_argument, NULL, REPORT_OPT_EXTRA },
	};
	long stack_lines = 3;
	struct json j;
	int first, i, status = 0;
	bool any = false;

	o.extra = own;
	o.nextra = 1;
	o.on_extra = take_stack_lines;
	o.extra_ctx = &stack_lines;
	first = report_parse_common(argc, argv, usage_text, &o, &pass, NULL);
	if (first == -2)
		return 0;
	if (first < 0) {
		free(pass);
		return EXIT_USAGE;
	}
	if (o.csv || o.cols) {
		free(pass);
		return cli_usage_error("option '%s' does not apply to stalls (see --json)",
				       o.csv ? "--csv" : "--cols");
	}
	if (cli_failed(analyse_load_rules(o.rules, &rules, &o.a.rules_name, &emsg), &emsg)) {
		free(pass);
		sb_release(&emsg);
		return 1;
	}
	o.a.rules = rules;
	if (o.json) {
		json_init(&j, stdout, true);
		json_arr_begin(&j);
	}
	for (i = first; i < argc; i++) {
		struct analysis a;
		struct stall_item *win = NULL, *warm = NULL;
		size_t nwin = 0, nwarm = 0, k;
		int r;

		if (cli_failed(analyse_input(argv[i], &o.a, &a, &emsg), &emsg)) {
			status = 1;
			continue;
		}
		if (!a.rec) {
			cli_error("'%s' is a frame log: stalls needs a run directory, whose record "
				  "has the samples a cause comes from",
				  argv[i]);
			analysis_release(&a);
			status = 1;
			continue;
		}
		r = run_stalls(&a, &o.a.m, &win, &nwin, &warm, &nwarm);
		if (r < 0) {
			cli_error_errno(r, "'%s'", argv[i]);
			analysis_release(&a);
			status = 1;
			continue;
		}
		if (o.json) {
			json_obj_begin(&j);
			json_kstr(&j, "run", argv[i]);
			json_knum(&j, "warmup_s", o.a.m.warmup_s);
			json_knum(&j, "stall_ms", o.a.m.stall_ms);
			json_kstr(&j, "frames_note", a.frames_note);
			json_kstr(&j, "split", causes_rec_exact(a.rec) ? "exact" : "samples");
			json_list(&j, a.rec, "stalls", win, nwin);
			json_list(&j, a.rec, "warm_stalls", warm, nwarm);
			json_key(&j, "notes");
			json_arr_begin(&j);
			for (k = 0; k < a.m.nnotes; k++)
				json_str(&j, a.m.notes[k]);
			json_arr_end(&j);
			json_obj_end(&j);
		} else {
			if (any)
				putchar('\n');
			printf("%s\n", argv[i]);
			if (a.frames_note)
				printf("!! %s\n", a.frames_note);
			if (a.rec->nframes == 0 && a.frames_note) {
				/* no frame, so no stall to list: the note says why */
				r = 0;
				status = 1;
			} else {
				if (a.rec->nsamples == 0)
					printf("  (the record has no samples: every cause is unknown)\n");
				r = print_list("window", a.rec, win, nwin, stack_lines);
				if (!r)
					r = print_list("warm-up", a.rec, warm, nwarm, stack_lines);
			}
			/* The notes about the input itself (they start with a
			 * quoted file name: no t0, a torn record); the column
			 * notes are report's. */
			for (k = 0; !r && k < a.m.nnotes; k++)
				if (a.m.notes[k][0] == '\'')
					printf("note: %s\n", a.m.notes[k]);
			if (r < 0) {
				cli_error_errno(r, "'%s'", argv[i]);
				status = 1;
			}
		}
		any = true;
		free(win);
		free(warm);
		analysis_release(&a);
	}
	if (o.json) {
		json_arr_end(&j);
		json_end(&j);
	}
	reload_rules_free(rules);
	free(pass);
	sb_release(&emsg);
	return status;
}
