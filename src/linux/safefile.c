// SPDX-License-Identifier: MIT
/*
 * safefile.c: safefile.h. Assumes Linux: setfsuid/setfsgid are per thread
 * (glibc does not broadcast them to the other threads, as it does setuid),
 * and changing the file-system uid from 0 drops CAP_DAC_OVERRIDE and
 * CAP_CHOWN for the calls in between, which is the point.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linux/safefile.h"

/* ------------------------------------------------------------ identity */

struct sf_id {
	int uid, gid;		/* the file-system ids to go back to */
	bool on;
};

/* Takes U's file-system identity for the calls until as_self (nothing for
 * SF_SELF, or when we are not root and could not anyway). */
static void as_user(struct sf_user u, struct sf_id *id)
{
	id->on = !sf_is_self(u) && geteuid() == 0;
	if (!id->on)
		return;
	id->gid = setfsgid(u.gid);
	id->uid = setfsuid(u.uid);
}

static void as_self(struct sf_id *id)
{
	int e = errno;

	if (id->on) {
		setfsuid((uid_t)id->uid);
		setfsgid((gid_t)id->gid);
	}
	errno = e;
}

struct sf_user sf_invoking_user(void)
{
	const char *su = getenv("SUDO_UID"), *sg = getenv("SUDO_GID");
	struct sf_user u = SF_SELF;
	unsigned long uid, gid;
	char *e1 = NULL, *e2 = NULL;

	if (geteuid() != 0 || !su || !sg || !*su || !*sg)
		return u;
	errno = 0;
	uid = strtoul(su, &e1, 10);
	gid = strtoul(sg, &e2, 10);
	if (errno || *e1 || *e2 || su[0] == '-' || sg[0] == '-' || uid == 0 ||
	    uid >= (unsigned long)(uid_t)-1 || gid >= (unsigned long)(gid_t)-1)
		return u;
	u.uid = (uid_t)uid;
	u.gid = (gid_t)gid;
	return u;
}

/* The uid a file made as U has. */
static uid_t owner_of(struct sf_user u)
{
	return sf_is_self(u) || geteuid() != 0 ? geteuid() : u.uid;
}

/* ------------------------------------------------------------ directories */

int sf_mkdir(int dirfd, const char *name, struct sf_user u, int *ret_fd)
{
	struct sf_id id;
	struct stat st;
	int fd, err = 0;

	if (!*name || strchr(name, '/'))
		return -EINVAL;
	as_user(u, &id);
	if (mkdirat(dirfd, name, 0755) < 0)
		err = -errno;
	as_self(&id);
	if (err)
		return err;
	/* what is there now is checked, not trusted to be what was made: the
	 * parent may be someone's to swap entries in */
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* as root, the directory must be the one made for U: a swap by the
	 * parent's owner between mkdirat and openat shows as another owner */
	if (fstat(fd, &st) < 0)
		err = -errno;
	else if (!S_ISDIR(st.st_mode) || (geteuid() == 0 && st.st_uid != owner_of(u)))
		err = -EPERM;
	if (err || !ret_fd)
		close(fd);
	else
		*ret_fd = fd;
	return err;
}

int sf_mkdirs(const char *path, struct sf_user u, struct strbuf *made, int *ret_fd)
{
	char *p = strdup(path), *s, *next;
	bool first = true;
	int fd, err = 0;

	if (!p)
		return -ENOMEM;
	if (!*p) {
		free(p);
		return -ENOENT;
	}
	/* from the root or from where we are, one component at a time, each
	 * new one made under the fd of the one before */
	fd = open(*p == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		free(p);
		return -errno;
	}
	for (s = p; *s; s = next) {
		int nfd;
		struct sf_id id;

		while (*s == '/')
			s++;
		if (!*s)
			break;
		next = strchr(s, '/');
		if (next)
			*next++ = '\0';
		else
			next = s + strlen(s);
		as_user(u, &id);
		nfd = openat(fd, s, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (nfd < 0)
			err = -errno;
		as_self(&id);
		if (err == -ENOENT) {
			err = sf_mkdir(fd, s, u, &nfd);
			if (err == -EEXIST) {	/* made meanwhile by someone: look again */
				as_user(u, &id);
				nfd = openat(fd, s, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
				err = nfd < 0 ? -errno : 0;
				as_self(&id);
			} else if (!err && first && made) {
				/* PATH up to this component (P is a copy of it
				 * with NULs for the slashes passed) */
				if (sb_add(made, path, (size_t)(s - p) + strlen(s)) < 0)
					err = -ENOMEM;
				first = false;
			}
		}
		if (err) {
			if (nfd >= 0 && err)
				close(nfd);
			break;
		}
		close(fd);
		fd = nfd;
	}
	free(p);
	if (err) {
		close(fd);
		return err;
	}
	if (ret_fd)
		*ret_fd = fd;
	else
		close(fd);
	return 0;
}

int sf_dir_adopt(const char *path, struct sf_user u, int *ret_fd)
{
	struct stat st;
	struct sf_id id;
	bool root = geteuid() == 0;
	int fd, err = 0;

	as_user(u, &id);
	/* as root the directory itself, never where a link of its name points */
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (root ? O_NOFOLLOW : 0));
	if (fd < 0)
		err = -errno;
	as_self(&id);
	if (err == -ELOOP || err == -ENOTDIR) {
		/* O_DIRECTORY|O_NOFOLLOW on a link: ENOTDIR on some kernels */
		if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
			return -ELOOP;
		return err;
	}
	if (err)
		return err;
	if (fstat(fd, &st) < 0) {
		err = -errno;
	} else if (root && st.st_uid != 0 && (sf_is_self(u) || st.st_uid != u.uid)) {
		err = -EPERM;	/* someone else's: not root's, not the invoker's */
	} else if (root) {
		/* empty: no entry but . and .. (read through a dup: fd keeps
		 * its offset) */
		int dfd = dup(fd);
		DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
		struct dirent *e;

		if (!d) {
			err = -errno;
			if (dfd >= 0)
				close(dfd);
		} else {
			while ((e = readdir(d)))
				if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
					err = -ENOTEMPTY;
					break;
				}
			closedir(d);
		}
	}
	if (err) {
		close(fd);
		return err;
	}
	*ret_fd = fd;
	return 0;
}

/* ------------------------------------------------------------ files */

int sf_create(int dirfd, const char *name, int flags, mode_t mode, struct sf_user u)
{
	struct sf_id id;
	int fd;

	if (!*name || strchr(name, '/'))
		return -EINVAL;
	if (!(flags & O_ACCMODE))
		flags |= O_WRONLY;
	as_user(u, &id);
	fd = openat(dirfd, name, flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		fd = -errno;
	as_self(&id);
	return fd;
}

/* From getrandom; rand() if it fails: the name must still differ from one
 * try to the next, and O_EXCL keeps it safe whatever it is. */
void sf_random(char out[9])
{
	static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char b[8];

	if (getrandom(b, sizeof(b), GRND_NONBLOCK) != (ssize_t)sizeof(b))
		for (size_t i = 0; i < sizeof(b); i++)
			b[i] = (unsigned char)rand();
	for (size_t i = 0; i < sizeof(b); i++)
		out[i] = set[b[i] % (sizeof(set) - 1)];
	out[sizeof(b)] = '\0';
}

int sf_create_tmp(int dirfd, const char *prefix, int flags, mode_t mode, struct sf_user u,
		  char *name, size_t size)
{
	int fd = -EEXIST;

	for (int tries = 0; tries < 100 && fd == -EEXIST; tries++) {
		char tail[9];

		sf_random(tail);
		if (snprintf(name, size, "%s.%s", prefix, tail) >= (int)size)
			return -ENAMETOOLONG;
		fd = sf_create(dirfd, name, flags, mode, u);
	}
	return fd;
}

int sf_replace(int dirfd, const char *from, const char *to, struct sf_user u)
{
	struct stat st;
	struct sf_id id;
	int err = 0;

	if (fstatat(dirfd, to, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode))
		return S_ISLNK(st.st_mode) ? -ELOOP : -EEXIST;
	as_user(u, &id);
	if (renameat(dirfd, from, dirfd, to) < 0)
		err = -errno;
	as_self(&id);
	return err;
}

int sf_unlink(int dirfd, const char *name, struct sf_user u)
{
	struct sf_id id;
	int err = 0;

	as_user(u, &id);
	if (unlinkat(dirfd, name, 0) < 0)
		err = -errno;
	as_self(&id);
	return err;
}

int sf_rmdir(const char *path, struct sf_user u)
{
	struct sf_id id;
	int err = 0;

	as_user(u, &id);
	if (rmdir(path) < 0)
		err = -errno;
	as_self(&id);
	return err;
}

bool sf_same(int dirfd, const char *name, int fd)
{
	struct stat a, b;

	return fstatat(dirfd, name, &a, AT_SYMLINK_NOFOLLOW) == 0 && fstat(fd, &b) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int sf_fsync_dir(int dirfd)
{
	return fsync(dirfd) < 0 ? -errno : 0;
}

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Ends a temporary FD named TMP in DIRFD: fsynced (SYNC), closed, renamed
 * over NAME, the directory fsynced; on ERR (or a failure here) removed. */
static int finish_tmp(int dirfd, int fd, const char *tmp, const char *name, struct sf_user u,
		      bool sync, int err)
{
	if (!err && sync && fsync(fd) < 0)
		err = -errno;
	if (close(fd) < 0 && !err)
		err = -errno;
	if (!err)
		err = sf_replace(dirfd, tmp, name, u);
	if (err) {
		sf_unlink(dirfd, tmp, u);
		return err;
	}
	if (sync)
		sf_fsync_dir(dirfd);
	return 0;
}

/* The temporary's prefix for NAME: ".NAME" (at most 200 bytes of it). */
static void tmp_prefix(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, ".%.200s", name);
}

int sf_write_atomic(int dirfd, const char *name, const void *data, size_t len, mode_t mode,
		    struct sf_user u, bool sync)
{
	char prefix[256], tmp[256];
	int fd;

	tmp_prefix(prefix, sizeof(prefix), name);
	fd = sf_create_tmp(dirfd, prefix, O_WRONLY, mode, u, tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	return finish_tmp(dirfd, fd, tmp, name, u, sync, write_all(fd, data, len));
}

int sf_copy(int in, int dirfd, const char *name, mode_t mode, struct sf_user u)
{
	char prefix[256], tmp[256], buf[1 << 16];
	off_t off = 0;
	int fd, err = 0;

	tmp_prefix(prefix, sizeof(prefix), name);
	fd = sf_create_tmp(dirfd, prefix, O_WRONLY, mode, u, tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	for (;;) {
		ssize_t n = pread(in, buf, sizeof(buf), off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		if (n == 0)
			break;
		if ((err = write_all(fd, buf, (size_t)n)) < 0)
			break;
		off += n;
	}
	return finish_tmp(dirfd, fd, tmp, name, u, true, err);
}

/* ------------------------------------------------------------ outputs */

/* The descriptor PATH names when it is one of ours already: "-" and
 * /dev/stdout (1), /dev/stderr (2), /dev/fd/N and /proc/self/fd/N; -1
 * otherwise. Written through a dup, as the shell set it up (a file it
 * truncated or appends to, a pipe), never looked up. */
static int std_fd(const char *path)
{
	static const char *const dirs[] = { "/dev/fd/", "/proc/self/fd/" };
	char *end;
	long n;

	if (!strcmp(path, "-") || !strcmp(path, "/dev/stdout"))
		return STDOUT_FILENO;
	if (!strcmp(path, "/dev/stderr"))
		return STDERR_FILENO;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		size_t l = strlen(dirs[i]);

		if (strncmp(path, dirs[i], l) || !path[l])
			continue;
		n = strtol(path + l, &end, 10);
		if (!*end && n >= 0 && n < INT_MAX && path[l] != '-' && path[l] != '+')
			return (int)n;
	}
	return -1;
}

int sf_out_open(const char *path, mode_t mode, struct sf_user u, struct sf_out *ret)
{
	struct sf_out o = { .fd = -1, .dirfd = -1, .u = u };
	const char *slash = strrchr(path, '/');
	char prefix[256], *dir;
	struct stat st;
	struct sf_id id;
	int err = 0, fdn;

	*ret = o;
	if ((fdn = std_fd(path)) >= 0) {
		o.fd = fcntl(fdn, F_DUPFD_CLOEXEC, 3);
		if (o.fd < 0)
			return -errno;
		o.straight = true;
		*ret = o;
		return 0;
	}
	as_user(u, &id);
	if (stat(path, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) ||
				     S_ISSOCK(st.st_mode))) {
		/* /dev/null, /dev/stdout, a pipe: written as they are; O_NONBLOCK
		 * only for the open (a FIFO with no reader is an error, not a
		 * hang), then cleared */
		o.fd = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
		if (o.fd < 0)
			err = -errno;
		else if (fcntl(o.fd, F_SETFL, 0) < 0)
			err = -errno;
		as_self(&id);
		if (err) {
			if (o.fd >= 0)
				close(o.fd);
			return err;
		}
		o.straight = true;
		*ret = o;
		return 0;
	}
	as_self(&id);
	if (slash && !slash[1])
		return -EISDIR;
	dir = slash ? strndup(path, (size_t)(slash - path) + 1) : strdup(".");
	o.name = strdup(slash ? slash + 1 : path);
	if (!dir || !o.name) {
		free(dir);
		free(o.name);
		return -ENOMEM;
	}
	as_user(u, &id);
	o.dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (o.dirfd < 0)
		err = -errno;
	as_self(&id);
	free(dir);
	if (!err && fstatat(o.dirfd, o.name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    !S_ISREG(st.st_mode))
		err = S_ISLNK(st.st_mode) ? -ELOOP : S_ISDIR(st.st_mode) ? -EISDIR : -EEXIST;
	if (!err) {
		tmp_prefix(prefix, sizeof(prefix), o.name);
		o.fd = sf_create_tmp(o.dirfd, prefix, O_WRONLY, mode, u, o.tmp, sizeof(o.tmp));
		if (o.fd < 0)
			err = o.fd;
	}
	if (err) {
		if (o.dirfd >= 0)
			close(o.dirfd);
		free(o.name);
		return err;
	}
	*ret = o;
	return 0;
}

static void out_reset(struct sf_out *o)
{
	if (o->dirfd >= 0)
		close(o->dirfd);
	free(o->name);
	*o = (struct sf_out){ .fd = -1, .dirfd = -1 };
}

int sf_out_commit(struct sf_out *o, bool sync)
{
	int err = 0;

	if (o->straight) {
		if (o->fd >= 0 && close(o->fd) < 0)
			err = -errno;
		out_reset(o);
		return err;
	}
	if (o->fd < 0)
		return -EBADF;
	err = finish_tmp(o->dirfd, o->fd, o->tmp, o->name, o->u, sync, 0);
	out_reset(o);
	return err;
}

void sf_out_abort(struct sf_out *o)
{
	if (!o)
		return;
	if (o->fd >= 0)
		close(o->fd);
	if (!o->straight && o->tmp[0] && o->dirfd >= 0)
		sf_unlink(o->dirfd, o->tmp, o->u);
	out_reset(o);
}

int sf_write_file(const char *path, const void *data, size_t len, mode_t mode, struct sf_user u,
		  bool sync)
{
	struct sf_out o;
	int err = sf_out_open(path, mode, u, &o);

	if (err < 0)
		return err;
	err = write_all(o.fd, data, len);
	if (err) {
		sf_out_abort(&o);
		return err;
	}
	return sf_out_commit(&o, sync);
}

int sf_open_append(const char *path, mode_t mode, struct sf_user u)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	char *dir;
	struct stat st;
	struct sf_id id;
	int dirfd, fd, err = 0;

	if (!*name)
		return -EISDIR;
	dir = slash ? strndup(path, (size_t)(slash - path) + 1) : strdup(".");
	if (!dir)
		return -ENOMEM;
	as_user(u, &id);
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		err = -errno;
	as_self(&id);
	free(dir);
	if (err)
		return err;
	fd = sf_create(dirfd, name, O_WRONLY | O_APPEND, mode, u);
	if (fd == -EEXIST) {
		as_user(u, &id);
		fd = openat(dirfd, name, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
						 O_CLOEXEC);
		if (fd < 0)
			err = -errno;
		as_self(&id);
		if (err == -ELOOP || err == -ENXIO)	/* ENXIO: a FIFO without a reader */
			err = err == -ENXIO ? -EEXIST : err;
		if (!err && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)))
			err = -EEXIST;
		if (!err && fcntl(fd, F_SETFL, O_APPEND) < 0)
			err = -errno;
		if (err) {
			if (fd >= 0)
				close(fd);
			fd = err;
		}
	}
	close(dirfd);
	return fd;
}
