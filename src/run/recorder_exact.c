// SPDX-License-Identifier: MIT
/*
 * recorder_exact.c: exact mode in a recording (recorder.h's opts.exact):
 * loaded before the program starts, so that --exact fails before anything
 * runs and the first switches are seen; its intervals written each sample;
 * its run.ini keys (docs/FORMAT.md, "run.ini").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hot.h"
#include "core/inifmt.h"
#include "linux/exact.h"
#include "linux/sampler.h"
#include "rec/rec.h"
#include "run/recorder_int.h"

int recorder_exact_start(struct recorder *r, struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	struct exact_opts xo = { 0 };
	int e;

	if (r->o.exact == RECORDER_EXACT_OFF)
		return 0;
	if (r->o.naive || r->o.no_sample) {
		if (r->o.exact == RECORDER_EXACT_ON)
			return sb_error(err, -EINVAL, "--exact: not with %s",
					r->o.naive ? "the naive sampler" : "--no-sample");
		return 0;
	}
	xo.min_interval_ns = (uint64_t)((r->o.exact_min_ms > 0 ? r->o.exact_min_ms : 0.5) * 1e6);
	/* the fallback flavour on demand, to check it where tp_btf works */
	xo.raw_tp = getenv("STALLSCOPE_EXACT_FLAVOUR") &&
		    !strcmp(getenv("STALLSCOPE_EXACT_FLAVOUR"), "raw_tp");
	e = exact_open(&xo, &r->exact, &why);
	if (e < 0) {
		r->exact = NULL;
		if (r->o.exact == RECORDER_EXACT_ON) {
			sb_error(err, 0, "--exact: exact mode is not available here: %s", why.buf);
			sb_release(&why);
			return e;
		}
		snprintf(r->exact_why, sizeof(r->exact_why), "%s", why.buf);
		recorder_say(r, RECORDER_INFO, "exact mode off: %s; sampling /proc instead",
			     why.buf);
	} else if (exact_missing(r->exact)[0]) {
		recorder_say(r, RECORDER_INFO, "exact mode on (%s); the kernel lacks: %s",
			     exact_flavour(r->exact), exact_missing(r->exact));
	}
	sb_release(&why);
	return 0;
}

SS_HOT void recorder_exact_write(struct recorder *r)
{
	const struct rec_interval *iv;
	size_t n = sampler_intervals(r->s, &iv);

	for (size_t i = 0; i < n; i++) {
		if (rec_writer_interval(r->w, &iv[i]) == 0)
			r->exact_written++;
		recorder_stacks_interval(r, (int)iv[i].tid, iv[i].out_ns, iv[i].in_ns);
	}
}

void recorder_exact_ini(struct recorder *r, struct strbuf *sb, bool final)
{
	struct sampler_exact_stats xs;

	if (!r->exact) {
		if (final)
			return;
		inifmt_add(sb, "exact", "off");
		inifmt_add(sb, "exact_reason", r->exact_why[0] ? r->exact_why
				: r->o.exact == RECORDER_EXACT_OFF ? "--no-exact"
				: r->o.naive ? "the naive sampler (benchmark)"
				: "--no-sample");
		return;
	}
	if (!final) {
		inifmt_add(sb, "exact", "on");
		inifmt_add(sb, "exact_flavour", exact_flavour(r->exact));
		inifmt_add(sb, "exact_hooks", exact_hooks(r->exact));
		inifmt_add(sb, "exact_missing_hooks", exact_missing(r->exact));
		inifmt_addf(sb, "exact_min_interval_ms", "%g",
			    r->o.exact_min_ms > 0 ? r->o.exact_min_ms : 0.5);
		return;
	}
	if (!r->s)
		return;
	sampler_exact_stats(r->s, &xs);
	inifmt_addf(sb, "exact_intervals", "%llu", (unsigned long long)r->exact_written);
	inifmt_addf(sb, "exact_dropped", "%llu", (unsigned long long)xs.dropped);
	inifmt_addf(sb, "exact_missed_switch_outs", "%llu", (unsigned long long)xs.missed);
	inifmt_addf(sb, "exact_missed_switch_ins", "%llu", (unsigned long long)xs.missed_in);
	inifmt_addf(sb, "exact_torn_reads", "%llu", (unsigned long long)xs.torn);
	inifmt_addf(sb, "exact_unseen_samples", "%llu", (unsigned long long)xs.unseen);
	uint64_t runs = 0, misses = 0;
	int64_t ns = exact_prog_ns(r->exact, &runs, &misses);

	if (ns >= 0 && runs) {
		inifmt_addf(sb, "exact_bpf_runs", "%llu", (unsigned long long)runs);
		inifmt_addf(sb, "exact_bpf_ns_per_run", "%.0f", runs ? (double)ns / runs : 0.0);
	}
	if (ns >= 0)
		inifmt_addf(sb, "exact_bpf_recursion_misses", "%llu", (unsigned long long)misses);
}
