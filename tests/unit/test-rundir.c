// SPDX-License-Identifier: MIT
/*
 * test-rundir.c: a synthetic run directory of a looping demo, written with
 * the record writer (rec.h), for the report tests.
 *
 *   test-rundir --write DIR [--no-t0]   writes DIR/run.ini, DIR/record.ssr,
 *                                       DIR/program.log (tests/e2e/report.sh)
 *   test-rundir                         writes one to a temporary directory
 *                                       and checks that it reads back
 *
 * The run: t0 = 1000 s; 3 passes of 30 s at 0, 30 and 60 s; each pass
 * starts with a 1.5 s load frame, then 60 fps frames; pass 2 has one
 * 150 ms stall at about 46.5 s. The log says "Loaded map" 1.5 s into each
 * pass. With --warmup 0 and a line rule ^Loaded map (after 0.2): stalls 4,
 * stalls_play 1, reload_n 3.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rec/rec.h"
#include "t.h"

static int write_run(const char *dir, int with_t0)
{
	char path[4096];
	struct rec_writer *w;
	struct rec_frame fr = { 0 };
	FILE *f;
	uint64_t t;
	int pass, i;

	snprintf(path, sizeof(path), "%s/run.ini", dir);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "program=demo-loop\nvariant=%s\n%spass1=0\npass2=30\npass3=60\n",
		with_t0 ? "base" : "no-t0", with_t0 ? "t0=1000\n" : "");
	fclose(f);
	snprintf(path, sizeof(path), "%s/program.log", dir);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "demo-loop starting\n");
	for (pass = 0; pass < 3; pass++)
		fprintf(f, "[%d.500] Loading map\n[%d.500] Loaded map e1m1\n", pass * 30,
			pass * 30 + 1);
	fclose(f);
	snprintf(path, sizeof(path), "%s/record.ssr", dir);
	if (rec_writer_new(path, &w) < 0)
		return -EIO;
	rec_writer_meta(w, "period_ns", "10000000");
	if (rec_writer_begin(w) < 0)
		return -EIO;
	/* the first present opens the first frame: at t0 + 0 */
	t = 1000000000000ull;
	fr.t_ns = t;
	fr.tid = 42;
	rec_writer_frame(w, &fr);
	for (pass = 0; pass < 3; pass++) {
		uint64_t end = 1000000000000ull + (uint64_t)(pass + 1) * 30000000000ull;

		t += 1500000000ull;	/* the load frame */
		fr.t_ns = t;
		rec_writer_frame(w, &fr);
		for (i = 0; t + 16666667ull <= end; i++) {
			t += (pass == 1 && i == 900) ? 150000000ull : 16666667ull;
			fr.t_ns = t;
			rec_writer_frame(w, &fr);
		}
	}
	return rec_writer_close(w);
}

int main(int argc, char **argv)
{
	char tmpl[] = "/tmp/ss-rundir-XXXXXX";
	struct strbuf err = STRBUF_INIT;
	struct rec *r = NULL;
	char path[4096];

	if (argc >= 3 && !strcmp(argv[1], "--write"))
		return write_run(argv[2], !(argc >= 4 && !strcmp(argv[3], "--no-t0"))) < 0;
	if (!mkdtemp(tmpl))
		t_skip("cannot create a temporary directory");
	CHECK_INT(write_run(tmpl, 1), 0);
	snprintf(path, sizeof(path), "%s/record.ssr", tmpl);
	CHECK_INT(rec_read_file(path, &r, &err), 0);
	if (r) {
		/* 1 + per pass (1 load + 1710 frames of 16.67 ms, one of them 150 ms) */
		CHECK(r->nframes > 5000 && r->nframes < 5200);
		CHECK(r->complete);
	}
	rec_free(r);
	sb_release(&err);
	snprintf(path, sizeof(path), "rm -rf '%s'", tmpl);
	CHECK_INT(system(path), 0);
	return t_exit();
}
