// SPDX-License-Identifier: MIT
/* gitbuild.c: git describe of a source tree (gitbuild.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/build.h"
#include "linux/child.h"
#include "linux/gitbuild.h"

/* Up to MAX bytes of FD until its end into BUF (NUL-terminated); the rest
 * is read and dropped, so the writer never blocks. */
static void read_all(int fd, char *buf, size_t max)
{
	size_t n = 0;
	char sink[512];

	for (;;) {
		ssize_t k = n + 1 < max ? read(fd, buf + n, max - 1 - n) : read(fd, sink, sizeof(sink));

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		if (n + 1 < max)
			n += (size_t)k;
	}
	buf[n] = '\0';
}

/* A message without strerror's words (the message says what went wrong). */
__attribute__((format(printf, 3, 4)))
static int said(struct strbuf *err, int e, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		sb_reset(err);
		va_start(ap, fmt);
		sb_vaddf(err, fmt, ap);
		va_end(ap);
	}
	return e;
}

int gitbuild_describe(const char *dir, char *ret, size_t len, struct strbuf *err)
{
	char *const argv[] = { "git", "-C", (char *)dir, "describe", "--always", "--dirty", NULL };
	struct child_spawn sp = CHILD_SPAWN_INIT;
	struct child_cred cred;
	char out[BUILD_MAX + 64], msg[512];
	int out_pipe[2], err_pipe[2], status = 0, as_user;
	struct stat st;
	pid_t pid;

	if (stat(dir, &st) < 0)
		return sb_error(err, -errno, "--build-of '%s'", dir);
	if (!S_ISDIR(st.st_mode))
		return said(err, -ENOTDIR, "--build-of '%s': expected a directory (a git work "
			    "tree)", dir);
	as_user = child_cred_sudo(&cred);
	if (as_user < 0)
		return sb_error(err, as_user, "--build-of '%s'", dir);
	if (pipe2(out_pipe, O_CLOEXEC) < 0) {
		child_cred_release(&cred);
		return sb_error(err, -errno, "--build-of '%s': pipe", dir);
	}
	if (pipe2(err_pipe, O_CLOEXEC) < 0) {
		int e = -errno;

		close(out_pipe[0]);
		close(out_pipe[1]);
		child_cred_release(&cred);
		return sb_error(err, e, "--build-of '%s': pipe", dir);
	}
	sp.argv = argv;
	sp.path_search = true;
	sp.in_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	sp.out_fd = out_pipe[1];
	sp.err_fd = err_pipe[1];
	sp.cred = as_user > 0 ? &cred : NULL;
	pid = child_spawn(&sp);
	if (sp.in_fd >= 0)
		close(sp.in_fd);
	close(out_pipe[1]);
	close(err_pipe[1]);
	child_cred_release(&cred);
	if (pid < 0) {
		close(out_pipe[0]);
		close(err_pipe[0]);
		if (pid == -ENOENT)
			return said(err, -ENOENT, "--build-of '%s': git is not on PATH", dir);
		return sb_error(err, (int)pid, "--build-of '%s': unable to run git", dir);
	}
	read_all(out_pipe[0], out, sizeof(out));
	read_all(err_pipe[0], msg, sizeof(msg));
	close(out_pipe[0]);
	close(err_pipe[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		msg[strcspn(msg, "\n")] = '\0';
		return said(err, -EINVAL, "--build-of '%s': git describe failed%s%s", dir,
			    msg[0] ? ": " : "", msg);
	}
	out[strcspn(out, "\n")] = '\0';
	if (!build_name_ok(out) || strlen(out) >= len)
		return said(err, -EINVAL, "--build-of '%s': git describe printed no build name", dir);
	memcpy(ret, out, strlen(out) + 1);
	return 0;
}
