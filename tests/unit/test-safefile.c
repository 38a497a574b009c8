// SPDX-License-Identifier: MIT
/*
 * test-safefile.c: linux/safefile.h, the rules root's files are made by.
 * Each check is an attack or a mistake that must not work: a planted
 * symbolic link at a name we create, at a name we replace, at an output,
 * at a log we append to; a device given as an output (written, never
 * replaced); a FIFO (an error, never a hang); a directory swapped for a
 * link; a file copied by descriptor whatever its name points at by then;
 * temporary names nobody can guess. As root, also the user's identity:
 * what is made for uid 65534 is theirs from the start, and nothing is made
 * where that user could not make it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linux/safefile.h"
#include "t.h"

static char dir[] = "/tmp/test-safefile-XXXXXX";

/* The first bytes of PATH (without following a final link: NULL then). */
static const char *slurp(const char *path)
{
	static char buf[256];
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static char *at(const char *name)
{
	static char p[8][512];
	static int k;

	k = (k + 1) % 8;
	snprintf(p[k], sizeof(p[k]), "%s/%s", dir, name);
	return p[k];
}

static void test_mkdirs(void)
{
	struct strbuf made = STRBUF_INIT;
	struct stat st;
	int fd = -1;

	CHECK_INT(sf_mkdirs(at("a/b/c"), SF_SELF, &made, &fd), 0);
	CHECK_STR(made.buf, at("a"));	/* the top of what was made */
	CHECK(fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode));
	if (fd >= 0)
		close(fd);
	sb_reset(&made);
	CHECK_INT(sf_mkdirs(at("a/b/c/"), SF_SELF, &made, NULL), 0);
	CHECK_STR(made.buf, "");	/* nothing new */
	put(at("a/file"), "x");
	CHECK_INT(sf_mkdirs(at("a/file/d"), SF_SELF, NULL, NULL), -ENOTDIR);
	sb_release(&made);
}

static void test_create(void)
{
	char name[64], name2[64];
	int dfd = open(dir, O_RDONLY | O_DIRECTORY), fd;

	put(at("victim"), "precious");
	CHECK_INT(symlink(at("victim"), at("planted")), 0);
	/* a name that exists, a link above all, is never opened for writing */
	CHECK_INT(sf_create(dfd, "planted", O_WRONLY, 0644, SF_SELF), -EEXIST);
	CHECK_INT(sf_create(dfd, "victim", O_WRONLY, 0644, SF_SELF), -EEXIST);
	CHECK_INT(sf_create(dfd, "a/x", O_WRONLY, 0644, SF_SELF), -EINVAL);
	CHECK_STR(slurp(at("victim")), "precious");
	fd = sf_create(dfd, "new", O_WRONLY, 0600, SF_SELF);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	/* temporaries: a name nobody could plant beforehand */
	fd = sf_create_tmp(dfd, ".t", O_WRONLY, 0600, SF_SELF, name, sizeof(name));
	CHECK(fd >= 0 && !strncmp(name, ".t.", 3) && strlen(name) == 11);
	close(fd);
	fd = sf_create_tmp(dfd, ".t", O_WRONLY, 0600, SF_SELF, name2, sizeof(name2));
	CHECK(fd >= 0 && strcmp(name, name2));
	close(fd);
	close(dfd);
}

static void test_write_atomic(void)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	struct stat st;

	CHECK_INT(sf_write_atomic(dfd, "run.ini", "a=1\n", 4, 0644, SF_SELF, true), 0);
	CHECK_STR(slurp(at("run.ini")), "a=1\n");
	CHECK_INT(sf_write_atomic(dfd, "run.ini", "a=2\n", 4, 0644, SF_SELF, false), 0);
	CHECK_STR(slurp(at("run.ini")), "a=2\n");
	/* a link where the file goes: refused, and what it points at kept */
	CHECK_INT(sf_write_atomic(dfd, "planted", "evil", 4, 0644, SF_SELF, true), -ELOOP);
	CHECK_STR(slurp(at("victim")), "precious");
	CHECK(lstat(at("planted"), &st) == 0 && S_ISLNK(st.st_mode));
	/* the old way's planted temporary name: irrelevant now */
	CHECK_INT(symlink(at("victim"), at("run.ini.tmp")), 0);
	CHECK_INT(sf_write_atomic(dfd, "run.ini", "a=3\n", 4, 0644, SF_SELF, true), 0);
	CHECK_STR(slurp(at("victim")), "precious");
	CHECK_STR(slurp(at("run.ini")), "a=3\n");
	CHECK_INT(mkdir(at("adir"), 0755), 0);
	CHECK_INT(sf_write_atomic(dfd, "adir", "x", 1, 0644, SF_SELF, true), -EEXIST);
	close(dfd);
}

static void test_copy(void)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY), fd;

	put(at("grown"), "the record");
	fd = open(at("grown"), O_RDONLY);
	CHECK(fd >= 0);
	/* the name swapped for a link after we opened it: we copy what we
	 * hold, not what the name points at now */
	CHECK_INT(unlink(at("grown")), 0);
	CHECK_INT(symlink(at("victim"), at("grown")), 0);
	CHECK(!sf_same(dfd, "grown", fd));
	CHECK_INT(sf_copy(fd, dfd, "record.ssr", 0644, SF_SELF), 0);
	CHECK_STR(slurp(at("record.ssr")), "the record");
	CHECK_INT(sf_copy(fd, dfd, "planted", 0644, SF_SELF), -ELOOP);
	CHECK_STR(slurp(at("victim")), "precious");
	close(fd);
	close(dfd);
}

static void test_out(void)
{
	struct sf_out o;
	struct stat st;

	/* a file: a temporary, renamed over it when whole */
	CHECK_INT(sf_out_open(at("page.html"), 0644, SF_SELF, &o), 0);
	CHECK(!o.straight && o.tmp[0]);
	CHECK(write(o.fd, "<p>", 3) == 3);
	CHECK(access(at("page.html"), F_OK) != 0);	/* not half a page */
	CHECK_INT(sf_out_commit(&o, true), 0);
	CHECK_STR(slurp(at("page.html")), "<p>");
	/* aborted: the old one stays, no temporary left */
	CHECK_INT(sf_out_open(at("page.html"), 0644, SF_SELF, &o), 0);
	sf_out_abort(&o);
	CHECK_STR(slurp(at("page.html")), "<p>");
	/* a link at the name: refused at the open, the target kept */
	CHECK_INT(sf_out_open(at("planted"), 0644, SF_SELF, &o), -ELOOP);
	CHECK_INT(sf_out_open(at("adir"), 0644, SF_SELF, &o), -EISDIR);
	CHECK_STR(slurp(at("victim")), "precious");
	/* ... and a link planted between the open and the commit */
	CHECK_INT(sf_out_open(at("late"), 0644, SF_SELF, &o), 0);
	CHECK_INT(symlink(at("victim"), at("late")), 0);
	CHECK_INT(sf_out_commit(&o, false), -ELOOP);
	CHECK_STR(slurp(at("victim")), "precious");
	/* a character device is written, never replaced */
	CHECK_INT(sf_out_open("/dev/null", 0644, SF_SELF, &o), 0);
	CHECK(o.straight);
	CHECK(write(o.fd, "x", 1) == 1);
	CHECK_INT(sf_out_commit(&o, true), 0);
	CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
	/* a FIFO nobody reads: an error at once, not a hang */
	CHECK_INT(mkfifo(at("fifo"), 0600), 0);
	CHECK_INT(sf_out_open(at("fifo"), 0644, SF_SELF, &o), -ENXIO);
	CHECK_INT(sf_write_file(at("list"), "a\n", 2, 0644, SF_SELF, true), 0);
	CHECK_STR(slurp(at("list")), "a\n");
}

static void test_append(void)
{
	int fd;

	fd = sf_open_append(at("log"), 0644, SF_SELF);
	CHECK(fd >= 0 && write(fd, "1\n", 2) == 2);
	close(fd);
	fd = sf_open_append(at("log"), 0644, SF_SELF);
	CHECK(fd >= 0 && write(fd, "2\n", 2) == 2);
	close(fd);
	CHECK_STR(slurp(at("log")), "1\n2\n");
	CHECK_INT(sf_open_append(at("planted"), 0644, SF_SELF), -ELOOP);
	CHECK_INT(sf_open_append(at("fifo"), 0644, SF_SELF), -EEXIST);
	CHECK_INT(sf_open_append(at("adir"), 0644, SF_SELF), -EISDIR);
	CHECK_STR(slurp(at("victim")), "precious");
}

static void test_adopt(void)
{
	int fd = -1;

	CHECK_INT(mkdir(at("empty"), 0755), 0);
	CHECK_INT(sf_dir_adopt(at("empty"), SF_SELF, &fd), 0);
	CHECK(fd >= 0);
	close(fd);
	CHECK_INT(symlink(at("empty"), at("linked")), 0);
	if (geteuid() == 0) {
		/* as root: the directory itself, empty, root's or the user's */
		CHECK_INT(sf_dir_adopt(at("linked"), SF_SELF, &fd), -ELOOP);
		CHECK_INT(sf_dir_adopt(at("a"), SF_SELF, &fd), -ENOTEMPTY);
		CHECK_INT(chown(at("empty"), 65534, 65534), 0);
		CHECK_INT(sf_dir_adopt(at("empty"), SF_SELF, &fd), -EPERM);
		CHECK_INT(sf_dir_adopt(at("empty"), ((struct sf_user){ 65534, 65534 }), &fd), 0);
		close(fd);
		CHECK_INT(sf_dir_adopt(at("empty"), ((struct sf_user){ 1234, 1234 }), &fd), -EPERM);
	}
	CHECK_INT(sf_dir_adopt(at("victim"), SF_SELF, &fd), -ENOTDIR);
}

/* As root for a user: made as that user, and only where they could. */
static void test_as_user(void)
{
	struct sf_user u = { 65534, 65534 };
	struct strbuf made = STRBUF_INIT;
	struct stat st;
	int dfd, fd;

	if (geteuid() != 0)
		return;
	CHECK_INT(mkdir(at("home"), 0755), 0);
	CHECK_INT(chown(at("home"), 65534, 65534), 0);
	CHECK_INT(sf_mkdirs(at("home/runs/x"), u, &made, &dfd), 0);
	CHECK(stat(at("home/runs"), &st) == 0 && st.st_uid == 65534 && st.st_gid == 65534);
	CHECK(stat(at("home/runs/x"), &st) == 0 && st.st_uid == 65534);
	fd = sf_create(dfd, "run.ini", O_WRONLY, 0644, u);
	CHECK(fd >= 0 && fstat(fd, &st) == 0 && st.st_uid == 65534 && st.st_gid == 65534);
	close(fd);
	CHECK_INT(sf_write_atomic(dfd, "run.ini", "a=1\n", 4, 0644, u, true), 0);
	CHECK(stat(at("home/runs/x/run.ini"), &st) == 0 && st.st_uid == 65534);
	close(dfd);
	/* where the user cannot write, neither can root for them: root's
	 * 0700 directory, and a root-owned file in it, are out of reach */
	CHECK_INT(mkdir(at("rootonly"), 0700), 0);
	CHECK_INT(sf_mkdirs(at("rootonly/x"), u, NULL, NULL), -EACCES);
	CHECK_INT(sf_write_file(at("rootonly/f"), "x", 1, 0644, u, true), -EACCES);
	CHECK_INT(sf_open_append(at("rootonly/log"), 0644, u), -EACCES);
	/* and the identity is ours again afterwards */
	fd = open(at("rootonly/mine"), O_WRONLY | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0 && fstat(fd, &st) == 0 && st.st_uid == 0);
	if (fd >= 0)
		close(fd);
	sb_release(&made);
}

static void test_invoking_user(void)
{
	struct sf_user u;

	setenv("SUDO_UID", "1000", 1);
	setenv("SUDO_GID", "1001", 1);
	u = sf_invoking_user();
	if (geteuid() == 0)
		CHECK(u.uid == 1000 && u.gid == 1001);
	else
		CHECK(sf_is_self(u));	/* not root: nothing to give */
	setenv("SUDO_UID", "10x", 1);
	CHECK(sf_is_self(sf_invoking_user()));
	setenv("SUDO_UID", "0", 1);
	CHECK(sf_is_self(sf_invoking_user()));
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	CHECK(sf_is_self(sf_invoking_user()));
}

int main(void)
{
	char cmd[128];

	if (!mkdtemp(dir))
		t_skip("cannot make a temporary directory");
	chmod(dir, 0755);
	T_RUN(test_mkdirs);
	T_RUN(test_create);
	T_RUN(test_write_atomic);
	T_RUN(test_copy);
	T_RUN(test_out);
	T_RUN(test_append);
	T_RUN(test_adopt);
	T_RUN(test_as_user);
	T_RUN(test_invoking_user);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove '%s'\n", dir);
	return t_exit();
}
