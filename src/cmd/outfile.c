// SPDX-License-Identifier: MIT
/*
 * outfile.c: outfile.h. The policy is safefile's; this file says what went
 * wrong in the user's words.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cmd/outfile.h"
#include "db/db.h"

static void say_open_error(const char *path, int err)
{
	if (err == -ELOOP)
		cli_error("'%s' is a symbolic link; not replaced (give the file it points to, or "
			  "remove the link)", path);
	else if (err == -EISDIR)
		cli_error("'%s' is a directory; give a file name", path);
	else if (err == -EEXIST)
		cli_error("'%s' exists and is not a regular file; not replaced", path);
	else
		cli_error_errno(err, "cannot write '%s'", path);
}

int outfile_open_fd(const char *path, struct sf_out *o)
{
	int err = sf_out_open(path, 0644, sf_invoking_user(), o);
	int fd;

	if (err < 0) {
		say_open_error(path, err);
		return -1;
	}
	fd = fcntl(o->fd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0) {
		cli_error_errno(-errno, "cannot write '%s'", path);
		sf_out_abort(o);
	}
	return fd;
}

FILE *outfile_open(const char *path, struct sf_out *o)
{
	int fd = outfile_open_fd(path, o);
	FILE *f;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (!f) {
		cli_error_errno(-errno, "cannot write '%s'", path);
		close(fd);
		sf_out_abort(o);
	}
	return f;
}

int outfile_close(const char *path, FILE *f, struct sf_out *o, bool ok)
{
	int err = 0;

	if (f && fclose(f) != 0)
		err = errno ? -errno : -EIO;
	if (!ok || err) {
		sf_out_abort(o);
		if (err)
			cli_error_errno(err, "cannot write '%s'", path);
		return -1;
	}
	err = sf_out_commit(o, false);
	if (err < 0) {
		say_open_error(path, err);
		return -1;
	}
	return 0;
}

int outfile_db_open(const char *target, struct db **ret, struct strbuf *err)
{
	struct sf_user u = sf_invoking_user();
	struct stat st;

	if (!sf_is_self(u) && db_target_kind(target) == DB_TARGET_FILE &&
	    fstatat(AT_FDCWD, target, &st, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT) {
		int fd = sf_open_append(target, 0644, u);

		/* whatever stopped it (the user may not write there, or the
		 * name appeared since), db_open says what is there now */
		if (fd >= 0)
			close(fd);
	}
	return db_open(target, true, ret, err);
}
