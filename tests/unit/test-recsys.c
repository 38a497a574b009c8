// SPDX-License-Identifier: MIT
/* test-recsys.c: the run directory's name (made under its parent's fd, a
 * planted name passed over) and /proc look-ups of this process. The file
 * operations are test-safefile.c's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "linux/recsys.h"
#include "t.h"

static char dir[] = "/tmp/test-recsys-XXXXXX";

static void test_proc(void)
{
	struct strbuf sb = STRBUF_INIT;

	CHECK_INT(recsys_comm(getpid(), 0, &sb), 0);
	CHECK_STR(sb.buf, "test-recsys");
	sb_reset(&sb);
	CHECK_INT(recsys_comm(getpid(), getpid(), &sb), 0);
	CHECK_STR(sb.buf, "test-recsys");
	sb_reset(&sb);
	CHECK_INT(recsys_cmdline(getpid(), &sb), 1);
	CHECK(strstr(sb.buf, "test-recsys") != NULL);
	sb_reset(&sb);
	CHECK_INT(recsys_comm(0x3fffffff, 0, &sb), -ESRCH);
	sb_release(&sb);
}

static pthread_mutex_t hold = PTHREAD_MUTEX_INITIALIZER;
static int thread_tid;

static void *thread_main(void *arg)
{
	thread_tid = (int)syscall(SYS_gettid);
	pthread_mutex_lock(&hold);	/* until the test is done with it */
	pthread_mutex_unlock(&hold);
	return arg;
}

/* A thread's process (a frame thread of another process than the one
 * recorded), and a process's children (what a launcher left behind). */
static void test_tgid_children(void)
{
	int kids[8], n, found = 0;
	pthread_t th;
	pid_t pid;

	pthread_mutex_lock(&hold);
	if (pthread_create(&th, NULL, thread_main, NULL) != 0) {
		T_FAIL("pthread_create");
		return;
	}
	while (!__atomic_load_n(&thread_tid, __ATOMIC_SEQ_CST))
		usleep(1000);
	CHECK_INT(recsys_tgid(thread_tid), getpid());
	CHECK_INT(recsys_tgid(getpid()), getpid());
	CHECK_INT(recsys_tgid(0x3fffffff), -ESRCH);
	pthread_mutex_unlock(&hold);
	pthread_join(th, NULL);

	pid = fork();
	if (pid == 0) {
		pause();
		_exit(0);
	}
	n = recsys_children(getpid(), kids, 8);
	CHECK(n >= 1);
	for (int i = 0; i < n; i++)
		found += kids[i] == pid;
	CHECK_INT(found, 1);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	CHECK_INT(recsys_children(0x3fffffff, kids, 8), -ESRCH);
}

/* Run directories as record and bench name them: made safe, a free suffix
 * when taken, nothing made for --dry-run's "<stamp>". */
static void test_new_rundir(void)
{
	struct strbuf want = STRBUF_INIT, got = STRBUF_INIT, parent = STRBUF_INIT;
	struct stat st;
	int fd = -1;

	sb_addf(&parent, "%s/runs/", dir);	/* a trailing slash: not doubled */
	CHECK_INT(mkdir(parent.buf, 0755), 0);
	CHECK_INT(recsys_new_rundir(parent.buf, "20261201T102033Z", "/usr/games/my game",
				    NULL, SF_SELF, &got, NULL), 0);
	sb_addf(&want, "%s/runs/20261201T102033Z-my_game", dir);
	CHECK_STR(got.buf, want.buf);
	CHECK(stat(got.buf, &st) == 0 && S_ISDIR(st.st_mode));
	/* the same second again: the next free suffix */
	CHECK_INT(recsys_new_rundir(parent.buf, "20261201T102033Z", "/usr/games/my game",
				    NULL, SF_SELF, &got, NULL), 0);
	sb_addf(&want, "-2");
	CHECK_STR(got.buf, want.buf);
	/* a name someone planted (a link to elsewhere) is passed over, never
	 * entered: the next free suffix, made as a directory of ours */
	sb_reset(&want);
	sb_addf(&want, "%s/runs/20261201T102033Z-my_game-3", dir);
	CHECK_INT(symlink("/", want.buf), 0);
	CHECK_INT(recsys_new_rundir(parent.buf, "20261201T102033Z", "/usr/games/my game",
				    NULL, SF_SELF, &got, &fd), 0);
	want.buf[want.len - 1] = '4';
	CHECK_STR(got.buf, want.buf);
	CHECK(fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode));
	if (fd >= 0)
		close(fd);
	/* a variant, and --dry-run's name (nothing made) */
	CHECK_INT(recsys_new_rundir(parent.buf, "<stamp>", "fg", "FOO=sleep:300@1-rerun",
				    SF_SELF, &got, NULL), 0);
	sb_reset(&want);
	sb_addf(&want, "%s/runs/<stamp>-fg-FOO_sleep_300_1-rerun", dir);
	CHECK_STR(got.buf, want.buf);
	CHECK(stat(got.buf, &st) != 0);
	CHECK_INT(recsys_new_rundir(parent.buf, "<stamp>", "", NULL, SF_SELF, &got, NULL), 0);
	CHECK(strstr(got.buf, "/runs/<stamp>-program") != NULL);
	sb_release(&want);
	sb_release(&got);
	sb_release(&parent);
}

int main(void)
{
	char cmd[128];

	if (!mkdtemp(dir))
		t_skip("cannot make a temporary directory");
	T_RUN(test_new_rundir);
	T_RUN(test_proc);
	T_RUN(test_tgid_children);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove '%s'\n", dir);
	return t_exit();
}
