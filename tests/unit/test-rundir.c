// SPDX-License-Identifier: MIT
/*
 * test-rundir.c: the run directory's owner (run/rundir.h), and a synthetic
 * run directory of a looping demo, written with the record writer (rec.h),
 * for the report tests.
 *
 *   test-rundir --write DIR [--no-t0]   writes DIR/run.ini, DIR/record.ssr,
 *                                       DIR/program.log (tests/e2e/report.sh)
 *   test-rundir                         writes one to a temporary directory,
 *                                       checks that it reads back, and tests
 *                                       the owner: its file names, opening,
 *                                       links refused, bounded reads, the
 *                                       tmpfs fallbacks, the recorder's costs
 *
 * The run: t0 = 1000 s; 3 passes of 30 s at 0, 30 and 60 s; each pass
 * starts with a 1.5 s load frame, then 60 fps frames; pass 2 has one
 * 150 ms stall at about 46.5 s. The log says "Loaded map" 1.5 s into each
 * pass. With --warmup 0 and a line rule ^Loaded map (after 0.2): stalls 4,
 * stalls_play 1, reload_n 3.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/file.h"
#include "rec/rec.h"
#include "run/rundir.h"
#include "t.h"

static char top[64];	/* the temporary directory of this run */

/* Writes TEXT to DIR/NAME (NAME may hold one '/'); 0 or -errno. */
static int put(const char *d, const char *name, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", d, name);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fputs(text, f);
	return fclose(f) == 0 ? 0 : -errno;
}

/* A new empty directory DIR/NAME into BUF. */
static void subdir(const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s", top, name);
	CHECK_INT(mkdir(buf, 0700), 0);
}

/* Each file of a run directory has one name, spelled in one table. */
static void test_names(void)
{
	CHECK_STR(rundir_file_name(RUNDIR_INI), "run.ini");
	CHECK_STR(rundir_file_name(RUNDIR_RECORD), "record.ssr");
	CHECK_STR(rundir_file_name(RUNDIR_LOG), "program.log");
	CHECK_STR(rundir_file_name(RUNDIR_OUT), "program.out");
	CHECK_STR(rundir_file_name(RUNDIR_INTERFERENCE), "interference.log");
	CHECK(rundir_file_name(RUNDIR_NFILES) == NULL);
	CHECK(rundir_file_name((enum rundir_file)-1) == NULL);
}

/* Opening: a directory, not a file nor nothing; its files by role, found
 * under its fd, its paths for messages. */
static void test_open(void)
{
	struct strbuf err = STRBUF_INIT, p = STRBUF_INIT, text = STRBUF_INIT;
	struct rundir *rd = NULL;
	struct runini *ini = NULL;
	char d[128], file[160];
	int fd;

	subdir("open", d, sizeof(d));
	CHECK_INT(put(d, "run.ini", "program=demo\nstate=done\n"), 0);
	CHECK_INT(put(d, "program.log", "[1.000] hello\n"), 0);
	snprintf(file, sizeof(file), "%s/run.ini", d);
	CHECK_INT(rundir_open(file, &rd, &err), -ENOTDIR);
	CHECK(strstr(err.buf, "/open/run.ini") != NULL);
	snprintf(file, sizeof(file), "%s/nosuch", d);
	CHECK_INT(rundir_open(file, &rd, &err), -ENOENT);
	CHECK(strstr(err.buf, "cannot open the run directory") != NULL);

	CHECK_INT(rundir_open(d, &rd, &err), 0);
	if (!rd)
		return;
	CHECK_INT(rundir_path(rd, RUNDIR_LOG, &p), 0);
	snprintf(file, sizeof(file), "%s/program.log", d);
	CHECK_STR(p.buf, file);
	CHECK(rundir_has(rd, RUNDIR_INI));
	CHECK(rundir_has(rd, RUNDIR_LOG));
	CHECK(!rundir_has(rd, RUNDIR_RECORD));
	CHECK_INT(rundir_read(rd, RUNDIR_LOG, FILE_LOG_MAX, &text, &err), 0);
	CHECK_STR(text.buf, "[1.000] hello\n");
	fd = rundir_open_file(rd, RUNDIR_INTERFERENCE, NULL, &err);
	CHECK_INT(fd, -ENOENT);
	CHECK(strstr(err.buf, "interference.log") != NULL);
	CHECK_INT(rundir_ini(rd, &ini, NULL, NULL, &err), 0);
	CHECK_STR(runini_get(ini, "program"), "demo");
	runini_free(ini);
	rundir_close(rd);
	rundir_close(NULL);
	sb_release(&err);
	sb_release(&p);
	sb_release(&text);
}

/* A run directory's files are read as themselves: a link at run.ini (to a
 * file the reader could read, or to a device) is refused and said, and so
 * is a FIFO, at once; a read whole is capped, never cut. */
static void test_confined(void)
{
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	struct rundir *rd = NULL;
	struct runini *ini = NULL;
	char d[128], target[160], link[160];

	subdir("confined", d, sizeof(d));
	CHECK_INT(put(top, "elsewhere.ini", "program=not-this-run\n"), 0);
	snprintf(target, sizeof(target), "%s/elsewhere.ini", top);
	snprintf(link, sizeof(link), "%s/run.ini", d);
	CHECK_INT(symlink(target, link), 0);
	snprintf(link, sizeof(link), "%s/program.log", d);
	CHECK_INT(mkfifo(link, 0600), 0);
	snprintf(link, sizeof(link), "%s/record.ssr", d);
	CHECK_INT(symlink("/dev/zero", link), 0);
	CHECK_INT(put(d, "interference.log", "0123456789abcdef0123456789\n"), 0);
	CHECK_INT(rundir_open(d, &rd, &err), 0);
	if (!rd)
		return;
	CHECK_INT(rundir_ini(rd, &ini, NULL, NULL, &err), -ELOOP);
	CHECK(ini == NULL);
	CHECK(strstr(err.buf, "/confined/run.ini' is a symbolic link") != NULL);
	CHECK(!rundir_has(rd, RUNDIR_INI));
	CHECK_INT(rundir_read(rd, RUNDIR_LOG, FILE_LOG_MAX, &text, &err), -EINVAL);
	CHECK(strstr(err.buf, "is not a regular file (a FIFO)") != NULL);
	CHECK_INT(rundir_open_record(rd, &text, NULL, &err), -ELOOP);
	/* bounded: 27 bytes with a cap of 16 is refused; with 27 it is read */
	sb_reset(&text);
	CHECK_INT(rundir_read(rd, RUNDIR_INTERFERENCE, 16, &text, &err), -EFBIG);
	CHECK_INT((int)text.len, 0);
	CHECK_INT(rundir_read(rd, RUNDIR_INTERFERENCE, 27, &text, &err), 0);
	CHECK_INT((int)text.len, 27);
	rundir_close(rd);
	sb_release(&err);
	sb_release(&text);
}

/*
 * The tmpfs fallbacks: a recorder killed with the record in /dev/shm
 * (state=recording, no record.ssr): the record is read where it grew, and
 * the final run.ini beside it wins over the first; a record_tmp that is
 * not a name the recorder gives is refused and said.
 */
static void test_fallback(void)
{
	struct strbuf err = STRBUF_INIT, p = STRBUF_INIT, note = STRBUF_INIT, ini_text = STRBUF_INIT;
	struct rundir *rd = NULL;
	struct runini *ini = NULL;
	char d[128], tmp[128], beside[128];
	int fd;

	if (access("/dev/shm", W_OK) != 0) {
		fprintf(stderr, "skip: test_fallback: /dev/shm is not writable here\n");
		return;
	}
	snprintf(tmp, sizeof(tmp), "/dev/shm/stallscope-%d-test-rundir.ssr", (int)getpid());
	snprintf(beside, sizeof(beside), "/dev/shm/stallscope-%d-test-rundir.ini", (int)getpid());
	CHECK_INT(put("/dev/shm", tmp + strlen("/dev/shm/"), "not really a record"), 0);
	CHECK_INT(put("/dev/shm", beside + strlen("/dev/shm/"), "program=final\nstate=done\n"), 0);
	subdir("killed", d, sizeof(d));
	sb_addf(&ini_text, "program=first\nstate=recording\nrecord_tmp=%s\n", tmp);
	CHECK_INT(put(d, "run.ini", ini_text.buf), 0);
	CHECK_INT(rundir_open(d, &rd, &err), 0);
	if (!rd)
		goto out;
	fd = rundir_open_record(rd, &p, &note, &err);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	CHECK_STR(p.buf, tmp);
	CHECK(strstr(note.buf, "no record.ssr; read the record where it grew") != NULL);
	sb_reset(&p);
	sb_reset(&note);
	CHECK_INT(rundir_ini(rd, &ini, &p, &note, &err), 0);
	CHECK_STR(runini_get(ini, "program"), "final");
	CHECK_STR(p.buf, beside);
	CHECK(strstr(note.buf, "its final run.ini is at") != NULL);
	runini_free(ini);
	ini = NULL;
	rundir_close(rd);
	rd = NULL;

	/* someone else's path in record_tmp: refused, said, not read */
	subdir("foreign", d, sizeof(d));
	CHECK_INT(put(d, "run.ini", "program=x\nstate=recording\nrecord_tmp=/etc/passwd\n"), 0);
	CHECK_INT(rundir_open(d, &rd, &err), 0);
	if (!rd)
		goto out;
	sb_reset(&p);
	sb_reset(&note);
	CHECK_INT(rundir_record_path(rd, &p, &note), 0);
	CHECK(strstr(p.buf, "/foreign/record.ssr") != NULL);
	CHECK(strstr(note.buf, "is not read: not a name the recorder gives") != NULL);
	CHECK_INT(rundir_ini(rd, &ini, NULL, &note, &err), 0);
	CHECK_STR(runini_get(ini, "program"), "x");
	runini_free(ini);
out:
	rundir_close(rd);
	unlink(tmp);
	unlink(beside);
	sb_release(&err);
	sb_release(&p);
	sb_release(&note);
	sb_release(&ini_text);
}

/* The recorder's costs, typed: numbers, NaN for absent and for a
 * non-number, the frames by source that are given. */
static void test_costs(void)
{
	static const char text[] = "recorder_samples=6000\nrecorder_cpu_pct=1.5\n"
				   "recorder_late_max_ms=-\nframes_glx=120\nframe_pid=42\n"
				   "frame_process=game\n";
	struct strbuf err = STRBUF_INIT;
	struct runini *ini = NULL;
	struct rundir_costs c;

	CHECK_INT(runini_parse(text, strlen(text), "run.ini", &ini, &err), 0);
	rundir_costs(ini, &c);
	CHECK_STR(rundir_cost_names[0], "samples");
	CHECK_NEAR(c.v[0], 6000, 0);
	CHECK_NEAR(c.v[4], 1.5, 0);		/* cpu_pct */
	CHECK(isnan(c.v[6]));			/* late_max_ms=- */
	CHECK(isnan(c.v[1]));			/* missed: absent */
	CHECK(c.frames_given[2] && c.frames[2] == 120);	/* glx */
	CHECK(!c.frames_given[4] && isnan(c.frames[4]));	/* vk */
	CHECK_NEAR(c.frame_pid, 42, 0);
	CHECK_STR(c.frame_process, "game");
	runini_free(ini);
	rundir_costs(NULL, &c);
	CHECK(isnan(c.v[0]) && c.frame_process == NULL);
	sb_release(&err);
}

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
		with_t0 ? "base" : "no-t0", with_t0 ? "t0=1764495000.000000\nt0_mono=1000.000000000\n" : "");
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
	struct strbuf err = STRBUF_INIT;
	struct rec *r = NULL;
	char path[4096];

	if (argc >= 3 && !strcmp(argv[1], "--write"))
		return write_run(argv[2], !(argc >= 4 && !strcmp(argv[3], "--no-t0"))) < 0;
	snprintf(top, sizeof(top), "/tmp/ss-rundir-XXXXXX");
	if (!mkdtemp(top))
		t_skip("cannot create a temporary directory");
	CHECK_INT(write_run(top, 1), 0);
	snprintf(path, sizeof(path), "%s/record.ssr", top);
	CHECK_INT(rec_read_file(path, &r, &err), 0);
	if (r) {
		/* 1 + per pass (1 load + 1710 frames of 16.67 ms, one of them 150 ms) */
		CHECK(r->nframes > 5000 && r->nframes < 5200);
		CHECK(r->complete);
	}
	rec_free(r);
	sb_release(&err);
	T_RUN(test_names);
	T_RUN(test_open);
	T_RUN(test_confined);
	T_RUN(test_fallback);
	T_RUN(test_costs);
	snprintf(path, sizeof(path), "rm -rf '%s'", top);
	CHECK_INT(system(path), 0);
	return t_exit();
}
