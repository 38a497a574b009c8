// SPDX-License-Identifier: MIT
/*
 * test-spool.c: the spool of runs a results database did not take
 * (run/spool.h): where its file is (STALLSCOPE_SPOOL, XDG_DATA_HOME, HOME,
 * in that order; the file named by the FNV-1a hash of the database's name,
 * which must not change between versions or a spool is lost); what
 * spool_add writes (the header, absolute run directories, one a line; a
 * newline in a name refused; a last line left without its newline ended
 * first); what spool_push sends and keeps (in order,
 * the refused ones stay, the header stays, blank lines dropped; no spool
 * is nothing to send); a writer waiting while another holds the spool's
 * lock (flock, as spool.h promises); and two writers at once losing no
 * line.
 */
#include "t.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run/spool.h"

static char dir[] = "/tmp/ss-test-spool-XXXXXX";

/* FILE's whole text (static buffer; "" when unreadable). */
static const char *slurp(const char *file)
{
	static char buf[65536];
	FILE *f = fopen(file, "r");
	size_t n = 0;

	buf[0] = 0;
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = 0;
	return buf;
}

static void test_path(void)
{
	struct strbuf p = STRBUF_INIT;

	setenv("STALLSCOPE_SPOOL", "/s", 1);
	setenv("XDG_DATA_HOME", "/x", 1);
	setenv("HOME", "/h", 1);
	/* the hash of the name, computed apart (python): a spool written by one
	 * version is found by the next */
	CHECK_INT(spool_path("/var/lib/results.db", &p), 0);
	CHECK_STR(p.buf, "/s/ddc80c9624eb39f6.list");
	sb_reset(&p);
	unsetenv("STALLSCOPE_SPOOL");
	CHECK_INT(spool_path("/var/lib/results.db", &p), 0);
	CHECK_STR(p.buf, "/x/stallscope/spool/ddc80c9624eb39f6.list");
	sb_reset(&p);
	setenv("XDG_DATA_HOME", "", 1);	/* empty is unset */
	CHECK_INT(spool_path("/var/lib/results.db", &p), 0);
	CHECK_STR(p.buf, "/h/.local/share/stallscope/spool/ddc80c9624eb39f6.list");
	sb_reset(&p);
	unsetenv("HOME");
	unsetenv("XDG_DATA_HOME");
	CHECK_INT(spool_path("/var/lib/results.db", &p), -ENOENT);
	/* two databases, two files */
	setenv("STALLSCOPE_SPOOL", "/s", 1);
	sb_reset(&p);
	CHECK_INT(spool_path("host=a dbname=lab", &p), 0);
	{
		struct strbuf q = STRBUF_INIT;

		CHECK_INT(spool_path("host=b dbname=lab", &q), 0);
		CHECK(strcmp(p.buf, q.buf) != 0);
		sb_release(&q);
	}
	sb_release(&p);
}

/* Sends every run directory but those holding "bad"; records the order. */
struct sent {
	struct strbuf order;
	int calls;
};

static int send_some(void *ctx, const char *rundir)
{
	struct sent *s = ctx;

	s->calls++;
	sb_addf(&s->order, "%s\n", rundir);
	return strstr(rundir, "bad") ? -EIO : 0;
}

static void test_add_push(void)
{
	struct strbuf err = STRBUF_INIT, path = STRBUF_INIT, want = STRBUF_INIT;
	struct sent s = { STRBUF_INIT, 0 };
	char spooldir[4200], cwd[4096], rel[4200];
	const char *db = "host=/run/pg dbname=lab";
	size_t left = 99;

	snprintf(spooldir, sizeof(spooldir), "%s/deep/spool", dir);	/* made by add */
	setenv("STALLSCOPE_SPOOL", spooldir, 1);
	CHECK_INT(spool_path(db, &path), 0);

	/* nothing spooled yet: nothing sent, no error, no file made */
	CHECK_INT(spool_push(db, send_some, &s, &left, &err), 0);
	CHECK_INT(left, 0);
	CHECK_INT(s.calls, 0);
	CHECK(access(path.buf, F_OK) != 0);

	/* a relative run directory is stored absolute (resolved from here) */
	snprintf(rel, sizeof(rel), "%s/r1", dir);
	CHECK_INT(mkdir(rel, 0755), 0);
	CHECK(getcwd(cwd, sizeof(cwd)) != NULL);
	CHECK_INT(chdir(dir), 0);
	CHECK_INT(spool_add(db, "r1", &err), 0);
	CHECK_INT(chdir(cwd), 0);
	CHECK_INT(spool_add(db, "/runs/bad-2", &err), 0);	/* not there: kept as given */
	CHECK_INT(spool_add(db, "/runs/r3", &err), 0);
	/* a newline would split it into two lines: refused, nothing written */
	CHECK_INT(spool_add(db, "/runs/a\nb", &err), -EINVAL);
	CHECK(strstr(err.buf, "newline") != NULL);
	sb_addf(&want, "# stallscope spool for %s\n%s\n/runs/bad-2\n/runs/r3\n", db, rel);
	CHECK_STR(slurp(path.buf), want.buf);

	/* push: sent in order; the refused one stays, after the header */
	CHECK_INT(spool_push(db, send_some, &s, &left, &err), 2);
	CHECK_INT(left, 1);
	sb_reset(&want);
	sb_addf(&want, "%s\n/runs/bad-2\n/runs/r3\n", rel);
	CHECK_STR(s.order.buf, want.buf);
	sb_reset(&want);
	sb_addf(&want, "# stallscope spool for %s\n/runs/bad-2\n", db);
	CHECK_STR(slurp(path.buf), want.buf);

	/* a later add goes after what stayed; the header is not written twice */
	CHECK_INT(spool_add(db, "/runs/r4", &err), 0);
	sb_reset(&want);
	sb_addf(&want, "# stallscope spool for %s\n/runs/bad-2\n/runs/r4\n", db);
	CHECK_STR(slurp(path.buf), want.buf);

	/* blank lines (a hand edit) are dropped, not sent */
	{
		FILE *f = fopen(path.buf, "a");

		CHECK(f != NULL);
		if (f) {
			fputs("\n\n/runs/r5\n", f);
			fclose(f);
		}
	}
	sb_reset(&s.order);
	s.calls = 0;
	CHECK_INT(spool_push(db, send_some, &s, &left, &err), 2);
	CHECK_INT(left, 1);
	CHECK_INT(s.calls, 3);
	CHECK_STR(s.order.buf, "/runs/bad-2\n/runs/r4\n/runs/r5\n");
	sb_reset(&want);
	sb_addf(&want, "# stallscope spool for %s\n/runs/bad-2\n", db);
	CHECK_STR(slurp(path.buf), want.buf);

	/* a last line without its newline (a hand edit, a write cut short):
	 * the next add ends it, not joins it (make fuzz-long's fuzz-spool) */
	{
		FILE *f = fopen(path.buf, "a");

		CHECK(f != NULL);
		if (f) {
			fputs("/runs/r6", f);
			fclose(f);
		}
	}
	CHECK_INT(spool_add(db, "/runs/r7", &err), 0);
	sb_reset(&want);
	sb_addf(&want, "# stallscope spool for %s\n/runs/bad-2\n/runs/r6\n/runs/r7\n", db);
	CHECK_STR(slurp(path.buf), want.buf);

	sb_release(&s.order);
	sb_release(&want);
	sb_release(&path);
	sb_release(&err);
}

/* A spool directory that cannot be made: an error naming it. */
static void test_errors(void)
{
	struct strbuf err = STRBUF_INIT;
	char file[4200], under[4300];

	snprintf(file, sizeof(file), "%s/a-file", dir);
	fclose(fopen(file, "w"));
	snprintf(under, sizeof(under), "%s/spool", file);
	setenv("STALLSCOPE_SPOOL", under, 1);
	CHECK(spool_add("x.db", "/runs/r", &err) < 0);
	CHECK(strstr(err.buf, under) != NULL);
	unsetenv("STALLSCOPE_SPOOL");
	unsetenv("XDG_DATA_HOME");
	unsetenv("HOME");
	sb_reset(&err);
	CHECK(spool_add("x.db", "/runs/r", &err) < 0);
	CHECK(strstr(err.buf, "no spool directory") != NULL);
	sb_release(&err);
}

/* Two processes adding 60 runs each at once: all 120 lines there, whole,
 * and one header (flock serializes them). */
static void test_two_writers(void)
{
	struct strbuf path = STRBUF_INIT;
	char spooldir[4200], line[256];
	int lines = 0, heads = 0, torn = 0;
	pid_t kids[2];
	FILE *f;

	snprintf(spooldir, sizeof(spooldir), "%s/two", dir);
	setenv("STALLSCOPE_SPOOL", spooldir, 1);
	for (int k = 0; k < 2; k++) {
		kids[k] = fork();
		if (kids[k] == 0) {
			struct strbuf err = STRBUF_INIT;
			int bad = 0;

			for (int i = 0; i < 60; i++) {
				char rd[64];

				snprintf(rd, sizeof(rd), "/runs/w%d-%03d", k, i);
				bad += spool_add("shared.db", rd, &err) != 0;
			}
			sb_release(&err);
			_exit(bad ? 1 : 0);
		}
	}
	for (int k = 0; k < 2; k++) {
		int st = -1;

		waitpid(kids[k], &st, 0);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	CHECK_INT(spool_path("shared.db", &path), 0);
	f = fopen(path.buf, "r");
	CHECK(f != NULL);
	while (f && fgets(line, sizeof(line), f)) {
		int w, i;
		char end;

		if (!strcmp(line, "# stallscope spool for shared.db\n"))
			heads++;
		else if (sscanf(line, "/runs/w%d-%3d%c", &w, &i, &end) == 3 && end == '\n')
			lines++;
		else
			torn++;
	}
	if (f)
		fclose(f);
	CHECK_INT(heads, 1);
	CHECK_INT(lines, 120);
	CHECK_INT(torn, 0);
	sb_release(&path);
}

/* While this process holds the spool's lock, a child's spool_add waits;
 * once it is released the child's line is written. */
static void test_lock_waits(void)
{
	struct strbuf path = STRBUF_INIT, err = STRBUF_INIT;
	char spooldir[4200];
	struct timespec pause = { 0, 300 * 1000 * 1000 };
	int fd, st = -1;
	pid_t kid, done;

	snprintf(spooldir, sizeof(spooldir), "%s/lock", dir);
	setenv("STALLSCOPE_SPOOL", spooldir, 1);
	CHECK_INT(spool_add("locked.db", "/runs/first", &err), 0);
	CHECK_INT(spool_path("locked.db", &path), 0);
	fd = open(path.buf, O_RDWR | O_CLOEXEC);
	CHECK(fd >= 0);
	CHECK_INT(flock(fd, LOCK_EX), 0);
	kid = fork();
	if (kid == 0)
		_exit(spool_add("locked.db", "/runs/second", &err) == 0 ? 0 : 1);
	nanosleep(&pause, NULL);
	done = waitpid(kid, &st, WNOHANG);
	CHECK_INT(done, 0);		/* still waiting for the lock */
	CHECK(strstr(slurp(path.buf), "second") == NULL);
	flock(fd, LOCK_UN);
	close(fd);
	CHECK_INT(waitpid(kid, &st, 0), kid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(strstr(slurp(path.buf), "/runs/first\n/runs/second\n") != NULL);
	sb_release(&path);
	sb_release(&err);
}

int main(void)
{
	t_tmpdir(dir);
	T_RUN(test_path);
	T_RUN(test_add_push);
	T_RUN(test_lock_waits);
	T_RUN(test_two_writers);
	T_RUN(test_errors);
	t_rmtree(dir);
	return t_exit();
}
