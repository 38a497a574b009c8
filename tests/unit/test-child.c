// SPDX-License-Identifier: MIT
/*
 * test-child.c: linux/child.h on real programs: an exec that fails is the
 * spawn's error (not an exit status 127), the process group, the output
 * and STALLSCOPE_RUN reach the child, and a stop is a signal first and
 * SIGKILL only for what ignores it.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "linux/child.h"
#include "t.h"

static pid_t spawn_sh(const char *script, int out_fd)
{
	char *argv[] = { "sh", "-c", (char *)script, NULL };
	struct child_spawn cs = CHILD_SPAWN_INIT;

	cs.argv = argv;
	cs.path_search = true;
	cs.own_group = true;
	cs.out_fd = out_fd;
	cs.run_env = "/runs/x";
	return child_spawn(&cs);
}

static void test_exec_errors(void)
{
	char *missing[] = { "/nonexistent/ss-no-such-program", NULL };
	char *bare[] = { "true", NULL };
	struct child_spawn cs = CHILD_SPAWN_INIT;

	cs.argv = missing;
	CHECK_INT(child_spawn(&cs), -ENOENT);
	cs.argv = bare;		/* no $PATH search: "./true" */
	CHECK_INT(child_spawn(&cs), -ENOENT);
	cs.path_search = true;
	{
		pid_t pid = child_spawn(&cs);
		int st = -1;

		CHECK(pid > 0);
		CHECK_INT(waitpid(pid, &st, 0), pid);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
}

static void test_group_output_env(void)
{
	char path[] = "/tmp/ss-child-XXXXXX", buf[256] = "";
	int fd = mkstemp(path), st = -1;
	pid_t pid;
	ssize_t n;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	pid = spawn_sh("echo \"pgid=$(ps -o pgid= $$ | tr -d ' ') pid=$$ run=$STALLSCOPE_RUN\"",
		       fd);
	CHECK(pid > 0);
	CHECK_INT(waitpid(pid, &st, 0), pid);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	CHECK(n > 0);
	buf[n > 0 ? n : 0] = '\0';
	{
		char want[128];

		snprintf(want, sizeof(want), "pgid=%d pid=%d run=/runs/x\n", (int)pid, (int)pid);
		if (strstr(buf, "pgid= pid"))	/* no ps on this machine: the rest */
			snprintf(want, sizeof(want), "pgid= pid=%d run=/runs/x\n", (int)pid);
		CHECK_STR(buf, want);
	}
	close(fd);
	unlink(path);
}

static bool gone(struct child_stop *s)
{
	int st;

	if (s->pgid && waitpid(s->pgid, &st, WNOHANG) == s->pgid) {
		*(int *)s->ctx = st;
		s->pgid = 0;
	}
	return s->pgid == 0;
}

static void test_stop(void)
{
	struct child_stop s = { .sig = SIGTERM, .grace_ns = 200 * 1000 * 1000ull, .gone = gone };
	int st = -1;

	s.ctx = &st;
	s.pgid = spawn_sh("exec sleep 100", -1);
	CHECK(s.pgid > 0);
	CHECK_INT(child_stop(&s), 0);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);

	/* one that ignores SIGTERM gets SIGKILL after the grace period */
	st = -1;
	s.pgid = spawn_sh("trap '' TERM; while :; do sleep 0.05; done", -1);
	CHECK(s.pgid > 0);
	usleep(100 * 1000);	/* let the trap be set */
	CHECK_INT(child_stop(&s), 1);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
}

int main(void)
{
	T_RUN(test_exec_errors);
	T_RUN(test_group_output_env);
	T_RUN(test_stop);
	return t_exit();
}
