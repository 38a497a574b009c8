// SPDX-License-Identifier: MIT
/*
 * rundir.c: reading a run directory (rundir.h): its file names, the
 * directory opened once and its files opened under that fd, run.ini parsed
 * and typed, and the tmpfs fallbacks: where the record is when the recorder
 * was killed before moving it out of /dev/shm, or the move failed
 * (rundir_open_record), and where the final run.ini is when the run
 * directory could not take it (rundir_ini).
 *
 * A run directory comes from anywhere (docs/SECURITY.md): its files are
 * opened O_NOFOLLOW under the directory's fd, and only regular files are
 * read, whole up to core/file.h's caps. run.ini is text its owner can
 * write, and the readers may be root: a path in it is a path someone else
 * chose. So the tmpfs files it names are taken only when they are what the
 * recorder makes (TMP_DIR, TMP_PREFIX, the extension, a regular file owned
 * by the run directory's owner), checked on the file opened with
 * O_NOFOLLOW, and a refusal is said in the note.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/file.h"
#include "core/runini.h"
#include "run/rundir.h"
#include "run/rundir_int.h"

/* ---------------------------------------------------------------- names */

/* The one place a run directory's file names are spelled. */
static const struct {
	const char *name;
	const char *tmp_ext;	/* its name in tmpfs while it grows, or NULL */
} files[RUNDIR_NFILES] = {
	[RUNDIR_INI] = { "run.ini", "ini" },
	[RUNDIR_RECORD] = { "record.ssr", "ssr" },
	[RUNDIR_LOG] = { "program.log", "log" },
	[RUNDIR_OUT] = { "program.out", "out" },
	[RUNDIR_INTERFERENCE] = { "interference.log", NULL },
};

const char *rundir_file_name(enum rundir_file f)
{
	return (unsigned)f < RUNDIR_NFILES ? files[f].name : NULL;
}

const char *rundir_tmp_ext(int f)
{
	return (unsigned)f < RUNDIR_NFILES ? files[f].tmp_ext : NULL;
}

/* --------------------------------------------------------- the directory */

int rundir_open(const char *path, struct rundir **ret, struct strbuf *err)
{
	struct rundir *rd;
	struct stat st;
	int fd, r;

	fd = open(path, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		return sb_error(err, r, "cannot open the run directory '%s'", path);
	}
	rd = calloc(1, sizeof(*rd));
	if (!rd || fstat(fd, &st) < 0 || !(rd->path = strdup(path))) {
		r = rd && !rd->path && errno != ENOMEM ? -errno : -ENOMEM;
		free(rd);
		close(fd);
		return sb_error(err, r, "'%s'", path);
	}
	rd->fd = fd;
	rd->owner = st.st_uid;
	*ret = rd;
	return 0;
}

void rundir_close(struct rundir *rd)
{
	if (!rd)
		return;
	close(rd->fd);
	free(rd->path);
	free(rd);
}

int rundir_path(const struct rundir *rd, enum rundir_file f, struct strbuf *ret)
{
	return sb_add_path(ret, rd->path, rundir_file_name(f));
}

/* What kind of file mode M is, for "is not a regular file (a FIFO)". */
static const char *kind(mode_t m)
{
	return S_ISFIFO(m)  ? "a FIFO"
	       : S_ISCHR(m) ? "a character device"
	       : S_ISBLK(m) ? "a block device"
	       : S_ISSOCK(m) ? "a socket"
			     : "not a file";
}

int rundir_open_file(const struct rundir *rd, enum rundir_file f, uint64_t *ret_size,
		     struct strbuf *err)
{
	struct strbuf p = STRBUF_INIT;
	struct stat st;
	int fd, r = 0;

	if (!rundir_file_name(f))
		return -EINVAL;
	fd = openat(rd->fd, files[f].name,
		    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		r = -errno;
	else if (S_ISREG(st.st_mode)) {
		if (ret_size)
			*ret_size = (uint64_t)st.st_size;
		return fd;
	}
	if (fd >= 0)
		close(fd);
	if (rundir_path(rd, f, &p) < 0)
		return sb_error(err, -ENOMEM, "'%s'", rd->path);
	if (r == -ELOOP)
		sb_error(err, 0, "'%s' is a symbolic link; a run directory's files are read "
			 "only as themselves", p.buf);
	else if (r < 0)
		sb_error(err, r, "cannot open '%s'", p.buf);
	else if (S_ISDIR(st.st_mode))
		sb_error(err, 0, "'%s' is a directory", p.buf), r = -EISDIR;
	else
		sb_error(err, 0, "'%s' is not a regular file (%s)", p.buf, kind(st.st_mode)),
			r = -EINVAL;
	sb_release(&p);
	return r;
}

bool rundir_has(const struct rundir *rd, enum rundir_file f)
{
	struct stat st;

	return rundir_file_name(f) &&
	       fstatat(rd->fd, files[f].name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

int rundir_read(const struct rundir *rd, enum rundir_file f, size_t max, struct strbuf *ret,
		struct strbuf *err)
{
	struct strbuf p = STRBUF_INIT;
	int fd, r;

	fd = rundir_open_file(rd, f, NULL, err);
	if (fd < 0)
		return fd;
	rundir_path(rd, f, &p);
	r = file_read_fd(fd, p.buf, NULL, max, ret, err);
	close(fd);
	sb_release(&p);
	return r;
}

/* ----------------------------------------------------- tmpfs fallbacks */

/* Whether P is TMP_DIR/TMP_PREFIX<something>EXT, with no '/' after TMP_DIR. */
static bool tmp_name_ok(const char *p, const char *ext)
{
	size_t dl = strlen(TMP_DIR "/"), pl = strlen(TMP_PREFIX), el = strlen(ext), bl;
	const char *base;

	if (strncmp(p, TMP_DIR "/", dl))
		return false;
	base = p + dl;
	bl = strlen(base);
	return !strchr(base, '/') && bl > pl + el && !strncmp(base, TMP_PREFIX, pl) &&
	       !strcmp(base + bl - el, ext);
}

/*
 * Opens the tmpfs file P (a record_tmp, or the final run.ini beside it) of
 * a run directory owned by UID, when it is one the recorder makes (EXT:
 * ".ssr" or ".ini"). Returns the fd; -ENOENT when it is not there (nothing
 * to say); another negative errno when it is refused, with why in WHY.
 */
static int tmp_open(const char *p, const char *ext, uid_t uid, struct strbuf *why)
{
	struct strbuf err = STRBUF_INIT;
	struct stat st;
	int fd;

	sb_reset(why);
	if (!tmp_name_ok(p, ext)) {
		sb_addf(why, "not a name the recorder gives (" TMP_DIR "/" TMP_PREFIX "*%s)", ext);
		return -EPERM;
	}
	fd = file_open_regular(p, NULL, FILE_NOFOLLOW, NULL, &err);
	if (fd < 0) {
		if (fd != -ENOENT)
			sb_add(why, err.buf, err.len);
		sb_release(&err);
		return fd;
	}
	sb_release(&err);
	if (fstat(fd, &st) < 0) {
		int r = -errno;

		sb_addf(why, "%s", strerror(-r));
		close(fd);
		return r;
	}
	if (st.st_uid != uid) {
		sb_addf(why, "it is owned by uid %u, the run directory by uid %u",
			(unsigned)st.st_uid, (unsigned)uid);
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* The final run.ini beside record_tmp TMP: TMP with .ini for .ssr, into
 * RET; false when TMP does not end in .ssr. */
static bool beside_name(const char *tmp, struct strbuf *ret)
{
	size_t n = strlen(tmp);

	sb_reset(ret);
	if (n < 4 || strcmp(tmp + n - 4, ".ssr"))
		return false;
	return sb_addf(ret, "%.*s.ini", (int)(n - 4), tmp) == 0;
}

/* RD's own run.ini parsed (FILE_TEXT_MAX at most), or NULL. */
static struct runini *read_ini(const struct rundir *rd)
{
	struct strbuf text = STRBUF_INIT, p = STRBUF_INIT, err = STRBUF_INIT;
	struct runini *ri = NULL;

	if (rundir_read(rd, RUNDIR_INI, FILE_TEXT_MAX, &text, &err) < 0 ||
	    rundir_path(rd, RUNDIR_INI, &p) < 0 ||
	    runini_parse(text.buf, text.len, p.buf, &ri, &err) < 0)
		ri = NULL;
	sb_release(&text);
	sb_release(&p);
	sb_release(&err);
	return ri;
}

int rundir_ini(const struct rundir *rd, struct runini **ret, struct strbuf *ret_path,
	       struct strbuf *note, struct strbuf *err)
{
	struct strbuf ini = STRBUF_INIT, text = STRBUF_INIT, beside = STRBUF_INIT;
	struct strbuf why = STRBUF_INIT;
	struct runini *ri = NULL;
	const char *state, *tmp, *name;
	int fd = -1, r;

	if (rundir_path(rd, RUNDIR_INI, &ini) < 0) {
		r = sb_error(err, -ENOMEM, "'%s'", rd->path);
		goto out;
	}
	r = rundir_read(rd, RUNDIR_INI, FILE_TEXT_MAX, &text, err);
	if (r < 0)
		goto out;
	if (runini_parse(text.buf, text.len, ini.buf, &ri, &why) < 0)
		ri = NULL;	/* the parse below says what is wrong */
	state = runini_get(ri, "state");
	tmp = runini_get(ri, "record_tmp");
	if (state && !strcmp(state, "recording") && tmp && *tmp) {
		if (beside_name(tmp, &beside)) {
			fd = tmp_open(beside.buf, ".ini", rd->owner, &why);
		} else {
			fd = -EPERM;
			sb_reset(&why);
			sb_addf(&why, "not a name the recorder gives (" TMP_DIR "/" TMP_PREFIX
				"*.ssr)");
		}
		if (fd < 0 && fd != -ENOENT && note)
			sb_addf(note, "'%s': the final run.ini beside record_tmp '%s' is not read: "
				"%s\n", ini.buf, tmp, why.buf);
	}
	name = ini.buf;
	if (fd >= 0) {
		sb_reset(&text);
		r = file_read_fd(fd, beside.buf, NULL, FILE_TEXT_MAX, &text, err);
		if (r < 0)
			goto out;
		if (note)
			sb_addf(note, "'%s' is the recorder's first; its final run.ini is at '%s' "
				"(the run directory could not take it: full?)\n", ini.buf, beside.buf);
		name = beside.buf;
	}
	runini_free(ri);
	ri = NULL;
	r = runini_parse(text.buf, text.len, name, &ri, err);
	if (r == 0 && ret_path && sb_adds(ret_path, name) < 0)
		r = sb_error(err, -ENOMEM, "'%s'", rd->path);
	if (r == 0) {
		*ret = ri;
		ri = NULL;
	}
out:
	if (fd >= 0)
		close(fd);
	runini_free(ri);
	sb_release(&ini);
	sb_release(&text);
	sb_release(&beside);
	sb_release(&why);
	return r;
}

/*
 * rundir_record_path and rundir_open_record: the record's path into RET,
 * what to know about it into NOTE, and, with WANT_FD, the file opened
 * (returned) or the error (ERR).
 */
static int find_record(const struct rundir *rd, struct strbuf *ret, struct strbuf *note,
		       bool want_fd, struct strbuf *err)
{
	struct strbuf ini = STRBUF_INIT, path = STRBUF_INIT, why = STRBUF_INIT;
	struct strbuf beside = STRBUF_INIT;
	struct runini *ri = NULL;
	const char *tmp = NULL, *state;
	bool refused = false, tmp_taken = false;
	struct stat st;
	int fd = -1, r = 0;

	if (rundir_path(rd, RUNDIR_INI, &ini) < 0 || rundir_path(rd, RUNDIR_RECORD, &path) < 0) {
		r = sb_error(err, -ENOMEM, "'%s'", rd->path);
		goto out;
	}
	/* anything at record.ssr is the record, and its opening judges it */
	if (fstatat(rd->fd, rundir_file_name(RUNDIR_RECORD), &st, AT_SYMLINK_NOFOLLOW) == 0 ||
	    !(ri = read_ini(rd)) || !(tmp = runini_get(ri, "record_tmp")) || !*tmp)
		goto found;
	fd = tmp_open(tmp, ".ssr", rd->owner, &why);
	if (fd == -ENOENT)
		goto found;
	if (fd < 0) {
		if (note)
			sb_addf(note, "'%s': no record.ssr, and record_tmp '%s' is not read: %s\n",
				ini.buf, tmp, why.buf);
		refused = true;
		goto found;
	}
	if (note) {
		bool final = false;

		state = runini_get(ri, "state");
		if (state && !strcmp(state, "recording") && beside_name(tmp, &beside)) {
			int bfd = tmp_open(beside.buf, ".ini", rd->owner, &why);

			final = bfd >= 0;
			if (bfd >= 0)
				close(bfd);
		}
		sb_addf(note, "'%s': no record.ssr; read the record where it grew, '%s' (%s)\n",
			rd->path, tmp,
			state && !strcmp(state, "recording") && !final
			    ? "the recorder did not finish: killed?"
			    : "its move into the run directory failed");
	}
	tmp_taken = true;
	sb_reset(&path);
	if (sb_adds(&path, tmp) < 0) {
		r = sb_error(err, -ENOMEM, "'%s'", rd->path);
		goto out;
	}
found:
	if (want_fd && !tmp_taken) {
		fd = rundir_open_file(rd, RUNDIR_RECORD, NULL, err);
		if (fd < 0) {
			/* the error is all a failed reading shows: the refusal too */
			if (refused && err)
				sb_addf(err, " (and record_tmp '%s' in '%s' is not read: %s)", tmp,
					ini.buf, why.buf);
			r = fd;
			goto out;
		}
	} else if (!want_fd && fd >= 0) {
		close(fd);
		fd = -1;
	}
	if (sb_add(ret, path.buf, path.len) < 0) {
		r = sb_error(err, -ENOMEM, "'%s'", rd->path);
	} else if (want_fd) {
		r = fd; /* the caller's now */
		fd = -1;
	}
out:
	if (fd >= 0)
		close(fd);
	runini_free(ri);
	sb_release(&ini);
	sb_release(&path);
	sb_release(&why);
	sb_release(&beside);
	return r;
}

int rundir_record_path(const struct rundir *rd, struct strbuf *ret, struct strbuf *note)
{
	return find_record(rd, ret, note, false, NULL);
}

int rundir_open_record(const struct rundir *rd, struct strbuf *ret_path, struct strbuf *note,
		       struct strbuf *err)
{
	return find_record(rd, ret_path, note, true, err);
}

/* ------------------------------------------------------ run.ini's facts */

const char *const rundir_cost_names[RUNDIR_NCOSTS] = {
	"samples", "missed", "cpu_s", "us_per_sample", "cpu_pct", "late_p99_ms",
	"late_max_ms", "bytes_per_sample",
};

/* KEY of INI as a number, NaN when absent or not one; *GIVEN whether present. */
static double number(const struct runini *ini, const char *key, bool *given)
{
	const char *v = runini_get(ini, key);
	char *end;
	double x;

	if (given)
		*given = v != NULL;
	if (!v)
		return NAN;
	x = strtod(v, &end);
	return end != v && !*end ? x : NAN;
}

void rundir_costs(const struct runini *ini, struct rundir_costs *ret)
{
	char key[64];

	memset(ret, 0, sizeof(*ret));
	for (size_t k = 0; k < RUNDIR_NCOSTS; k++) {
		snprintf(key, sizeof(key), "recorder_%s", rundir_cost_names[k]);
		ret->v[k] = number(ini, key, NULL);
	}
	for (uint32_t src = 0; src <= REC_SOURCE_MAX; src++) {
		ret->frames[src] = NAN;
		if (src == 0)
			continue;
		snprintf(key, sizeof(key), "frames_%s", rec_source_name(src));
		ret->frames[src] = number(ini, key, &ret->frames_given[src]);
	}
	ret->frame_pid = number(ini, "frame_pid", NULL);
	ret->frame_process = runini_get(ini, "frame_process");
}
