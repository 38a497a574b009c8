/* SPDX-License-Identifier: MIT */
/*
 * safefile.h: creating files and directories as a process that may be root,
 * in places another user may write: the invoking user's run directory, an
 * -o path, tmpfs. The one place where the project creates, replaces or
 * gives away a file (docs/SECURITY.md has the model); its rules:
 *
 *  - Everything is created relative to a directory fd held open, with
 *    O_CREAT|O_EXCL|O_NOFOLLOW: a name that exists (a planted symbolic link,
 *    anybody's file) is never opened for writing, let alone written through.
 *  - Temporary names are unpredictable (NAME.XXXXXXXX from getrandom), so
 *    nobody can plant one before it is made.
 *  - Under sudo (root with SUDO_UID/SUDO_GID, struct sf_user not SF_SELF)
 *    the file system calls are made with the invoking user's file-system
 *    identity (setfsuid/setfsgid around each call, as OpenSSH's uidswap
 *    does for a user's files): root creates and replaces only what that
 *    user could, and what is made is theirs from its first instant, so
 *    nothing is chowned by path, ever. Elsewhere ownership is given with
 *    fchown on the descriptor just opened.
 *  - A directory made with mkdirat is opened O_NOFOLLOW|O_DIRECTORY and
 *    checked to be a directory of the user's before anything goes in it.
 *  - A rename replaces only a regular file (or nothing); a character
 *    device, a FIFO or a socket given as an output is written straight
 *    and never replaced.
 *
 * Names given with a directory fd are single path components (no '/').
 * Everything returns 0, a descriptor, or a negative errno; nothing prints.
 * The identity switch is per thread (setfsuid), so other threads of the
 * process keep root's.
 */
#ifndef SS_LINUX_SAFEFILE_H
#define SS_LINUX_SAFEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/strbuf.h"

/* Whose files they are: the invoking user under sudo, else SF_SELF (the
 * process's own identity; files are left as created). */
struct sf_user {
	uid_t uid;
	gid_t gid;
};

#define SF_SELF ((struct sf_user){ (uid_t)-1, (gid_t)-1 })

/* The user files are made for: SUDO_UID/SUDO_GID (decimal, not 0) when the
 * effective uid is 0, else SF_SELF. */
struct sf_user sf_invoking_user(void);

static inline bool sf_is_self(struct sf_user u)
{
	return u.uid == (uid_t)-1;
}

/*
 * mkdir -p PATH (0755), as U: each missing directory made with mkdirat
 * under its parent's fd and checked (sf_mkdir). The first one made (the top
 * of what was new) is appended to MADE when not NULL. Existing components
 * are resolved as the kernel resolves them (the invoker's path). PATH's
 * directory fd into *RET_FD (O_DIRECTORY|O_CLOEXEC) when RET_FD is not
 * NULL. 0, or -ENOTDIR (a component is not a directory), or an errno.
 */
int sf_mkdirs(const char *path, struct sf_user u, struct strbuf *made, int *ret_fd);

/* A new directory NAME in DIRFD (0755), as U; -EEXIST when the name is
 * taken by anything. Its fd into *RET_FD when not NULL, opened O_NOFOLLOW
 * and checked to be a directory owned by U (or by us, for SF_SELF). */
int sf_mkdir(int dirfd, const char *name, struct sf_user u, int *ret_fd);

/*
 * An existing directory PATH to create a run in: not a symbolic link (its
 * last component), a directory, owned by U's uid (by our euid for
 * SF_SELF), and empty. 0 with its fd in *RET_FD; -ELOOP (a symbolic link),
 * -ENOTDIR, -EPERM (someone else's) or -ENOTEMPTY.
 */
int sf_dir_adopt(const char *path, struct sf_user u, int *ret_fd);

/* Creates NAME in DIRFD: O_WRONLY (or FLAGS' access mode) |O_CREAT|O_EXCL|
 * O_NOFOLLOW|O_CLOEXEC|FLAGS, MODE, as U. The fd, or -EEXIST when NAME
 * exists as anything, or an errno. */
int sf_create(int dirfd, const char *name, int flags, mode_t mode, struct sf_user u);

/* As sf_create, with the name PREFIX.XXXXXXXX (8 random characters of
 * [A-Za-z0-9]) into NAME (SIZE bytes); tried again on a collision. */
int sf_create_tmp(int dirfd, const char *prefix, int flags, mode_t mode, struct sf_user u,
		  char *name, size_t size);

/* 8 characters of [A-Za-z0-9] from getrandom, and a NUL, into OUT: the
 * unpredictable part of a name several files share. */
void sf_random(char out[9]);

/* renameat(DIRFD, FROM, DIRFD, TO), as U, only when TO is absent or a
 * regular file: -ELOOP when it is a symbolic link, -EEXIST when it is
 * anything else (a directory, a device). */
int sf_replace(int dirfd, const char *from, const char *to, struct sf_user u);

/* unlinkat(DIRFD, NAME), as U; 0 or an errno. */
int sf_unlink(int dirfd, const char *name, struct sf_user u);

/* rmdir(PATH), as U: an empty directory of a run that recorded nothing. */
int sf_rmdir(const char *path, struct sf_user u);

/* Whether NAME in DIRFD is still the file FD is open on (same device and
 * inode, by lstat): what may be removed or renamed by name. */
bool sf_same(int dirfd, const char *name, int fd);

/* fsync of a directory; 0 or an errno. */
int sf_fsync_dir(int dirfd);

/*
 * Writes LEN bytes of DATA to NAME in DIRFD, whole or not at all: a
 * temporary (sf_create_tmp, MODE), written, fsynced (SYNC), renamed over
 * NAME (sf_replace), the directory fsynced (SYNC). On failure the temporary
 * is gone and NAME untouched. As U.
 */
int sf_write_atomic(int dirfd, const char *name, const void *data, size_t len, mode_t mode,
		    struct sf_user u, bool sync);

/* Copies the file IN (from its start, by pread: its offset is left) to NAME
 * in DIRFD whole or not at all, as sf_write_atomic does (always fsynced).
 * For a file that grew in a shared directory: what is copied is what we
 * held open, whatever its name now points at. */
int sf_copy(int in, int dirfd, const char *name, mode_t mode, struct sf_user u);

/*
 * An output file a command writes (-o FILE). "-" and /dev/stdout are
 * standard output, /dev/stderr, /dev/fd/N and /proc/self/fd/N the
 * descriptor they name (dup'ed, never looked up); a character device, a FIFO or a socket is opened as it is, for
 * writing, without O_CREAT, and never replaced; anything else is written
 * to a temporary in FILE's directory that sf_out_commit renames over FILE
 * (only when FILE is absent or a regular file: a symbolic link named FILE
 * is refused with -ELOOP, a directory with -EISDIR, anything else with
 * -EEXIST). As U, mode MODE.
 */
struct sf_out {
	int fd;			/* write here (the temporary, or the file itself) */
	int dirfd;		/* FILE's directory, or -1 when written straight */
	struct sf_user u;
	char *name;		/* FILE's last component */
	char tmp[256];		/* the temporary's name in dirfd; "" straight */
	bool straight;		/* stdout, a device, a FIFO, a socket */
};

int sf_out_open(const char *path, mode_t mode, struct sf_user u, struct sf_out *ret);

/* Closes the output, renaming the temporary over FILE (fsynced first when
 * SYNC). 0 or an errno, after which the temporary is gone. O is reset. */
int sf_out_commit(struct sf_out *o, bool sync);

/* Closes the output and removes the temporary; FILE untouched. NULL-safe
 * and harmless twice. */
void sf_out_abort(struct sf_out *o);

/* The whole of DATA to PATH through sf_out (a device or FIFO written
 * straight, else a temporary renamed over PATH). 0 or an errno. */
int sf_write_file(const char *path, const void *data, size_t len, mode_t mode, struct sf_user u,
		  bool sync);

/*
 * Opens PATH to append to (a log or a list a user keeps): created (MODE)
 * when absent, else opened O_NOFOLLOW|O_NONBLOCK (no hang on a FIFO) and
 * only when it is a regular file: -ELOOP for a symbolic link, -EISDIR for
 * a directory, -EEXIST for anything else. As U. The fd or an errno.
 */
int sf_open_append(const char *path, mode_t mode, struct sf_user u);

#endif
