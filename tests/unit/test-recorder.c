// SPDX-License-Identifier: MIT
/*
 * test-recorder.c: run/rundir.h and run/recorder.h on a real program (sh):
 * the run directory's name and its refusal to record over a run, the
 * --frames check, and a short recording whose run directory holds the
 * record, the stamped log and a final run.ini that say what happened.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/runini.h"
#include "rec/rec.h"
#include "run/recorder.h"
#include "run/rundir.h"
#include "t.h"

static char tmp[] = "/tmp/ss-recorder-XXXXXX";

static void test_rundir(void)
{
	struct strbuf path = STRBUF_INIT, made = STRBUF_INIT, err = STRBUF_INIT;
	char dir[4096], stamp[40], file[4200];
	int fd = -1;
	FILE *f;

	rundir_stamp(stamp, sizeof(stamp), 1764584433123456789ull, false);
	CHECK_STR(stamp, "20251201T102033Z");
	rundir_stamp(stamp, sizeof(stamp), 1764584433123456789ull, true);
	CHECK_STR(stamp, "2025-12-01T10:20:33.123456Z");

	snprintf(dir, sizeof(dir), "%s/a/b", tmp);
	CHECK_INT(rundir_create(dir, "x", 0, SF_SELF, &path, &made, &fd, &err), 0);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	CHECK_STR(path.buf, dir);
	snprintf(file, sizeof(file), "%s/a", tmp);
	CHECK_STR(made.buf, file);	/* the top of what was made, said */
	CHECK(!rundir_holds_run(dir));
	snprintf(file, sizeof(file), "%s/run.ini", dir);
	f = fopen(file, "w");
	CHECK(f != NULL);
	if (f)
		fclose(f);
	CHECK(rundir_holds_run(dir));
	CHECK_INT(rundir_create(dir, "x", 0, SF_SELF, &path, NULL, &fd, &err), -EEXIST);
	CHECK(strstr(err.buf, "already holds a run") != NULL);
	sb_release(&path);
	sb_release(&made);
	sb_release(&err);
}

static void test_frames_valid(void)
{
	struct recorder_opts o = { .frames = "auto" };
	struct strbuf err = STRBUF_INIT;

	CHECK_INT(recorder_frames_valid(&o, &err), 0);
	o.frames = "hud:";
	CHECK_INT(recorder_frames_valid(&o, &err), -EINVAL);
	CHECK(strstr(err.buf, "got 'hud:'") != NULL);
	o.frames = "gl";
	o.no_hook = true;
	CHECK_INT(recorder_frames_valid(&o, &err), -EINVAL);
	CHECK(strstr(err.buf, "contradicts") != NULL);
	o.no_hook = false;
	o.pid = 1;
	CHECK_INT(recorder_frames_valid(&o, &err), -EINVAL);
	o.frames = "none";
	CHECK_INT(recorder_frames_valid(&o, &err), 0);
	sb_release(&err);
}

static int said_info;

static void say(void *ctx, enum recorder_say kind, const char *line)
{
	(void)ctx;
	(void)line;
	said_info += kind == RECORDER_INFO;
}

static void test_record_sh(void)
{
	char *argv[] = { "sh", "-c", "echo hello; sleep 0.3; exit 5", NULL };
	struct recorder_opts o = { .argv = argv, .argc = 3, .period_ms = 10, .frames = "none",
				   .say = say };
	const struct recorder_result *res;
	struct strbuf err = STRBUF_INIT;
	struct recorder *r = NULL;
	struct runini *ini = NULL;
	char dir[4096], path[4200], buf[8192];
	size_t n;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/run", tmp);
	o.outdir = dir;
	CHECK_INT(recorder_start(&o, &r, &err), 0);
	CHECK_INT(err.len, 0);
	CHECK_INT(recorder_run(r, &err), 0);
	res = recorder_result(r);
	CHECK_INT(res->end, RECORDER_END_EXIT);
	CHECK_STR(res->end_name, "exit");
	CHECK_STR(res->program, "sh");
	CHECK(res->own_child && res->reaped);
	CHECK(WIFEXITED(res->status) && WEXITSTATUS(res->status) == 5);
	CHECK(res->samples >= 5);	/* 0.3 s at 10 ms, whatever the machine's load */
	CHECK_INT(res->frames, 0);
	CHECK_INT(said_info, 0);	/* not live: nothing to say */
	recorder_free(r);

	snprintf(path, sizeof(path), "%s/program.log", dir);
	f = fopen(path, "r");
	CHECK(f != NULL);
	n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	buf[n] = '\0';
	if (f)
		fclose(f);
	CHECK(buf[0] == '[' && strstr(buf, "] hello\n") != NULL);

	snprintf(path, sizeof(path), "%s/run.ini", dir);
	f = fopen(path, "r");
	CHECK(f != NULL);
	n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	CHECK_INT(runini_parse(buf, n, path, &ini, &err), 0);
	CHECK_STR(runini_get(ini, "state"), "done");
	CHECK_STR(runini_get(ini, "end"), "exit");
	CHECK_STR(runini_get(ini, "exit_status"), "5");
	CHECK_STR(runini_get(ini, "program"), "sh");
	CHECK_STR(runini_get(ini, "frame_source"), "none");
	runini_free(ini);

	/* the record moved out of tmpfs, and reads back with its samples */
	{
		struct rec *rec = NULL;

		snprintf(path, sizeof(path), "%s/record.ssr", dir);
		CHECK_INT(rec_read_file(path, &rec, &err), 0);
		CHECK(rec && rec->nsamples >= 5);
		rec_free(rec);
	}
	sb_release(&err);
}

static void test_start_fails_cleanly(void)
{
	char *argv[] = { "/nonexistent/ss-no-such-program", NULL };
	struct recorder_opts o = { .argv = argv, .argc = 1, .period_ms = 10, .frames = "none" };
	struct strbuf err = STRBUF_INIT;
	struct recorder *r = NULL;
	char dir[4096];
	struct stat st;

	snprintf(dir, sizeof(dir), "%s/never", tmp);
	o.outdir = dir;
	CHECK_INT(recorder_start(&o, &r, &err), -ENOENT);
	CHECK(strstr(err.buf, "cannot run '/nonexistent/ss-no-such-program'") != NULL);
	CHECK(stat(dir, &st) < 0 && errno == ENOENT);	/* nothing recorded: no directory */
	recorder_free(r);
	sb_release(&err);
}

int main(void)
{
	t_tmpdir(tmp);
	T_RUN(test_rundir);
	T_RUN(test_frames_valid);
	T_RUN(test_record_sh);
	T_RUN(test_start_fails_cleanly);
	t_rmtree(tmp);
	return t_exit();
}
