// SPDX-License-Identifier: MIT
/*
 * rundir.c: rundir.h. The directories are made through src/linux's recsys
 * (mkdir -p with an owner, the numbered new directory); this file holds the
 * policy: the names, the owner, the refusal to record over a run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "linux/recsys.h"
#include "run/rundir.h"

#define NSEC 1000000000ull

void rundir_owner(uid_t *uid, gid_t *gid)
{
	const char *su = getenv("SUDO_UID"), *sg = getenv("SUDO_GID");

	*uid = (uid_t)-1;
	*gid = (gid_t)-1;
	if (geteuid() == 0 && su && sg) {
		*uid = (uid_t)strtoul(su, NULL, 10);
		*gid = (gid_t)strtoul(sg, NULL, 10);
	}
}

void rundir_stamp(char *buf, size_t size, uint64_t real_ns, bool usec)
{
	time_t t = (time_t)(real_ns / NSEC);
	struct tm tm;

	gmtime_r(&t, &tm);
	if (usec) {
		char s[32];

		strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%S", &tm);
		snprintf(buf, size, "%s.%06uZ", s, (unsigned)(real_ns % NSEC / 1000));
	} else {
		strftime(buf, size, "%Y%m%dT%H%M%SZ", &tm);
	}
}

bool rundir_holds_run(const char *dir)
{
	struct strbuf p = STRBUF_INIT;
	bool yes;

	sb_add_path(&p, dir, "record.ssr");
	yes = access(p.buf, F_OK) == 0;
	sb_reset(&p);
	sb_add_path(&p, dir, "run.ini");
	yes = yes || access(p.buf, F_OK) == 0;
	sb_release(&p);
	return yes;
}

int rundir_create(const char *outdir, const char *program, uint64_t real_ns, uid_t uid,
		  gid_t gid, struct strbuf *path, struct strbuf *made, struct strbuf *err)
{
	struct strbuf top = STRBUF_INIT;
	char stamp[32];
	int r;

	sb_reset(path);
	if (outdir) {
		r = recsys_mkdirs(outdir, uid, gid, &top);
		if (r < 0) {
			sb_release(&top);
			return sb_error(err, r, "cannot create run directory '%s'", outdir);
		}
		/* never a tree of new directories in silence (a typo in -o) */
		if (made && top.len && strcmp(top.buf, outdir))
			sb_adds(made, top.buf);
		sb_release(&top);
		if (rundir_holds_run(outdir)) {
			sb_error(err, 0, "'%s' already holds a run; choose another directory with -o",
				 outdir);
			return -EEXIST;
		}
		return sb_adds(path, outdir) < 0 ? sb_error(err, -ENOMEM, "'%s'", outdir) : 0;
	}
	rundir_stamp(stamp, sizeof(stamp), real_ns, false);
	r = recsys_mkdirs("runs", uid, gid, NULL);
	if (r < 0)
		return sb_error(err, r, "cannot create 'runs'");
	r = recsys_new_rundir("runs", stamp, program, NULL, uid, gid, path);
	if (r < 0)
		return sb_error(err, r, "cannot create a run directory under 'runs'");
	return 0;
}

int rundir_tmp_paths(const char *dir, const char *stamp, struct rundir_tmp *t)
{
	struct stat st;
	int pid = (int)getpid(), n = 0;

	t->in_place = !(stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) &&
			access("/dev/shm", W_OK) == 0);
	if (!t->in_place) {
		n |= snprintf(t->rec, sizeof(t->rec), "/dev/shm/stallscope-%d-%s.ssr", pid, stamp) >=
		     (int)sizeof(t->rec);
		n |= snprintf(t->log, sizeof(t->log), "/dev/shm/stallscope-%d-%s.log", pid, stamp) >=
		     (int)sizeof(t->log);
		n |= snprintf(t->out, sizeof(t->out), "/dev/shm/stallscope-%d-%s.out", pid, stamp) >=
		     (int)sizeof(t->out);
		n |= snprintf(t->ini, sizeof(t->ini), "/dev/shm/stallscope-%d-%s.ini", pid, stamp) >=
		     (int)sizeof(t->ini);
	} else {
		n |= snprintf(t->rec, sizeof(t->rec), "%s/record.ssr", dir) >= (int)sizeof(t->rec);
		n |= snprintf(t->log, sizeof(t->log), "%s/program.log", dir) >= (int)sizeof(t->log);
		n |= snprintf(t->out, sizeof(t->out), "%s/program.out", dir) >= (int)sizeof(t->out);
		t->ini[0] = '\0';
	}
	return n ? -ENAMETOOLONG : 0;
}
