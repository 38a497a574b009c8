// SPDX-License-Identifier: MIT
/*
 * fuzz-spool.c: a libFuzzer target for the spool file (src/run/spool.c:
 * spool_push, `db push`), which lies in the user's data directory where
 * anything may have written it. The input is the spool file of database
 * "fuzz" (in a scratch $STALLSCOPE_SPOOL); spool_push reads it and sends
 * each run directory it names to a sender that takes those whose first
 * byte is even and refuses the others. Aborts, else: a run sent that holds
 * a newline or is empty; a count (sent, left) that disagrees with what the
 * sender saw; a rewritten spool that does not hold exactly the refused runs
 * (and the comment lines) in their order, so that nothing is lost or sent
 * twice. Then, on the same bytes: with no spool file, spool_push sends
 * nothing and says nothing is left; and spool_add (bench, when a server is
 * away) appends a run to the spool as it was found, after which spool_push
 * must send that run whole, last (a spool that does not end its last line
 * must not swallow it). Once, with no spool directory (no STALLSCOPE_SPOOL,
 * XDG_DATA_HOME or HOME: nothing to push) and with one that cannot be made
 * (a refusal that says why). Seeds: fuzz/corpus/spool/. Built and run by scripts/fuzz.sh
 * (`make fuzz`), tests/e2e/fuzz-readers.sh and scripts/fuzz-long.sh.
 *
 * fuzz-sources: src/run/spool.c src/core/strbuf.c src/core/grow.c
 * fuzz-reader: src/run/spool.c
 * fuzz-functions: ^(spool_push|spool_add|spool.c:spool_open)$
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db/db.h"
#include "run/spool.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* spool_add's, which makes the spool's directory: this target's exists
 * (but once, when it fails as a full disk would make it) */
static int parent_fails;

int db_make_parent(const char *path, struct strbuf *made)
{
	(void)path;
	(void)made;
	return parent_fails ? -ENOSPC : 0;
}

static struct strbuf refused = STRBUF_INIT;
static int nsent, nrefused;

static int send(void *ctx, const char *rundir)
{
	(void)ctx;
	if (!rundir[0] || strchr(rundir, '\n'))
		abort();
	if (((uint8_t)rundir[0] & 1) == 0) {
		nsent++;
		return 0;
	}
	nrefused++;
	sb_addf(&refused, "%s\n", rundir);
	return -1;
}

/* a run directory that does not exist (spool_add keeps it as given) */
#define ADDED "/nonexistent/ss-fuzz-spool-run"
static char last[4096];
static int nsends;

static int send_last(void *ctx, const char *rundir)
{
	(void)ctx;
	snprintf(last, sizeof(last), "%s", rundir);
	nsends++;
	return -1;	/* kept: the spool is rewritten as read */
}

static void write_spool(const char *path, const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
}

/* Once: no spool directory at all (no STALLSCOPE_SPOOL, XDG_DATA_HOME or
 * HOME): nothing to push; and a spool directory that cannot be made: a
 * refusal that says why. */
static void no_spool_dir(void)
{
	static const char *const vars[] = { "STALLSCOPE_SPOOL", "XDG_DATA_HOME", "HOME" };
	char *saved[3];
	struct strbuf err = STRBUF_INIT;
	size_t left = 7;

	for (int i = 0; i < 3; i++) {
		saved[i] = getenv(vars[i]) ? strdup(getenv(vars[i])) : NULL;
		unsetenv(vars[i]);
	}
	if (spool_push("fuzz", send, NULL, &left, &err) != 0 || left)
		abort();	/* no spool anywhere: nothing to push */
	for (int i = 0; i < 3; i++) {
		if (saved[i])
			setenv(vars[i], saved[i], 1);
		free(saved[i]);
	}
	sb_reset(&err);
	parent_fails = 1;
	if (spool_add("fuzz", "/nonexistent/ss-fuzz-spool-run", &err) != -ENOSPC || !err.len)
		abort();
	parent_fails = 0;
	sb_release(&err);
}

static char *made_dir;

static void cleanup(void)
{
	if (made_dir)
		rmdir(made_dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* on tmpfs where there is one: spool_push fsyncs, a disk's fsync
	 * would make this 100 times slower */
	static char dir[] = "/dev/shm/ss-fuzz-spool-XXXXXX";
	static int made;
	struct strbuf path = STRBUF_INIT, err = STRBUF_INIT, after = STRBUF_INIT;
	size_t left = 99;
	char buf[4096];
	ssize_t n;
	int fd, sent;

	if (!made) {
		if (!mkdtemp(dir)) {
			memcpy(dir, "/tmp/ss-fuzz-spool-XXXXXX", sizeof("/tmp/ss-fuzz-spool-XXXXXX"));
			if (!mkdtemp(dir))
				abort();
		}
		made_dir = dir;
		atexit(cleanup);
		setenv("STALLSCOPE_SPOOL", dir, 1);
		made = 1;
		no_spool_dir();
	}
	if (spool_path("fuzz", &path) < 0)
		abort();
	write_spool(path.buf, data, size);
	nsent = nrefused = 0;
	sb_reset(&refused);
	sent = spool_push("fuzz", send, NULL, &left, &err);
	if (sent < 0 || sent != nsent || left != (size_t)nrefused)
		abort();
	/* what stays: the comment lines and the refused runs, in order */
	fd = open(path.buf, O_RDONLY);
	if (fd < 0)
		abort();
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		sb_add(&after, buf, (size_t)n);
	close(fd);
	{
		struct strbuf runs = STRBUF_INIT;

		for (size_t i = 0; i < after.len;) {
			const char *nl = memchr(after.buf + i, '\n', after.len - i);
			size_t ll = nl ? (size_t)(nl - after.buf - i) + 1 : after.len - i;

			if (!nl)
				abort();	/* every line it writes ends */
			if (after.buf[i] != '#')
				sb_add(&runs, after.buf + i, ll);
			i += ll;
		}
		if (runs.len != refused.len || memcmp(runs.buf, refused.buf, runs.len))
			abort();
		sb_release(&runs);
	}
	/* no spool: nothing to send, nothing left */
	unlink(path.buf);
	if (spool_push("fuzz", send, NULL, &left, &err) != 0 || left != 0)
		abort();
	/* a run added to the spool as it was found comes back whole, last */
	write_spool(path.buf, data, size);
	sb_reset(&err);
	if (spool_add("fuzz", ADDED, &err) < 0)
		abort();
	last[0] = '\0';
	nsends = 0;
	if (spool_push("fuzz", send_last, NULL, &left, &err) != 0 || strcmp(last, ADDED) ||
	    left != (size_t)nsends)
		abort();
	/* a run directory with a newline is refused, the spool untouched */
	if (spool_add("fuzz", "/a\nb", &err) != -EINVAL)
		abort();
	unlink(path.buf);
	sb_release(&path);
	sb_release(&err);
	sb_release(&after);
	return 0;
}
