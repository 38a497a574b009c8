// SPDX-License-Identifier: MIT
/*
 * rundir.c: where a run directory's record is (rec_rundir_record in rec.h):
 * RUNDIR/record.ssr, or the record_tmp that run.ini names when the recorder
 * was killed before moving it out of /dev/shm, or the move failed; and
 * where its final run.ini is (rec_rundir_ini): RUNDIR/run.ini, or beside
 * that record when the run directory could not take it.
 *
 * run.ini is text its owner can write, and the readers may be root: a path
 * in it is a path someone else chose. So the tmpfs files it names are taken
 * only when they are what the recorder makes (TMP_DIR, TMP_PREFIX, the
 * extension, a regular file owned by the run directory's owner), checked
 * on the file opened with O_NOFOLLOW, and a refusal is said in the note.
 *
 * Apart from reader.c so that the reader (and its fuzz target) needs nothing
 * of run.ini's parser. run.ini is read whole, FILE_TEXT_MAX at most.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/file.h"
#include "core/runini.h"
#include "rec/rec.h"

/* Where and under what name the recorder keeps a recording's files while
 * it runs (src/run/rundir.c, rundir_tmp_paths): TMP_DIR TMP_PREFIX ... .ssr,
 * .ini; the middle part is the recorder's own. */
#define TMP_DIR "/dev/shm/"
#define TMP_PREFIX "stallscope-"

/* Whether P is TMP_DIR TMP_PREFIX<something>EXT, with no '/' after TMP_DIR. */
static bool tmp_name_ok(const char *p, const char *ext)
{
	size_t dl = strlen(TMP_DIR), pl = strlen(TMP_PREFIX), el = strlen(ext), bl;
	const char *base;

	if (strncmp(p, TMP_DIR, dl))
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
	if (uid == (uid_t)-1) {
		sb_adds(why, "the run directory's owner is not known");
		return -EPERM;
	}
	if (!tmp_name_ok(p, ext)) {
		sb_addf(why, "not a name the recorder gives (" TMP_DIR TMP_PREFIX "*%s)", ext);
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

/* The owner of run directory DIR, or (uid_t)-1. */
static uid_t dir_owner(const char *dir)
{
	struct stat st;

	return stat(dir, &st) == 0 ? st.st_uid : (uid_t)-1;
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

/* run.ini at PATH parsed (FILE_TEXT_MAX at most), or NULL. */
static struct runini *read_ini(const char *path)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct runini *ri = NULL;

	if (file_read_text(path, NULL, FILE_TEXT_MAX, &text, &err) < 0 ||
	    runini_parse(text.buf, text.len, path, &ri, &err) < 0)
		ri = NULL;
	sb_release(&text);
	sb_release(&err);
	return ri;
}

int rec_rundir_ini(const char *dir, struct strbuf *ret_path, struct strbuf *ret_text,
		   struct strbuf *note, struct strbuf *err)
{
	struct strbuf ini = STRBUF_INIT, text = STRBUF_INIT, beside = STRBUF_INIT;
	struct strbuf why = STRBUF_INIT;
	struct runini *ri = NULL;
	const char *state, *tmp;
	int fd = -1, r;

	if (sb_add_path(&ini, dir, "run.ini") < 0) {
		r = sb_error(err, -ENOMEM, "'%s'", dir);
		goto out;
	}
	r = file_read_text(ini.buf, NULL, FILE_TEXT_MAX, &text, err);
	if (r < 0)
		goto out;
	if (runini_parse(text.buf, text.len, ini.buf, &ri, &why) < 0)
		ri = NULL; /* the caller's own parse says what is wrong */
	state = runini_get(ri, "state");
	tmp = runini_get(ri, "record_tmp");
	if (state && !strcmp(state, "recording") && tmp && *tmp) {
		if (beside_name(tmp, &beside)) {
			fd = tmp_open(beside.buf, ".ini", dir_owner(dir), &why);
		} else {
			fd = -EPERM;
			sb_reset(&why);
			sb_addf(&why,
				"not a name the recorder gives (" TMP_DIR TMP_PREFIX "*.ssr)");
		}
		if (fd < 0 && fd != -ENOENT && note)
			sb_addf(note,
				"'%s': the final run.ini beside record_tmp '%s' is not read: "
				"%s\n",
				ini.buf, tmp, why.buf);
	}
	if (fd >= 0) {
		sb_reset(&text);
		r = file_read_fd(fd, beside.buf, NULL, FILE_TEXT_MAX, &text, err);
		if (r < 0)
			goto out;
		if (note)
			sb_addf(note,
				"'%s' is the recorder's first; its final run.ini is at '%s' "
				"(the run directory could not take it: full?)\n",
				ini.buf, beside.buf);
		r = sb_add(ret_path, beside.buf, beside.len);
	} else {
		r = sb_add(ret_path, ini.buf, ini.len);
	}
	if (r == 0)
		r = sb_add(ret_text, text.buf, text.len);
	if (r < 0)
		sb_error(err, r, "'%s'", dir);
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
 * rec_rundir_record and rec_rundir_open_record: the record's path into RET,
 * what to know about it into NOTE, and, with WANT_FD, the file opened
 * (returned) or the error (ERR).
 */
static int find_record(const char *dir, struct strbuf *ret, struct strbuf *note, bool want_fd,
		       struct strbuf *err)
{
	struct strbuf ini = STRBUF_INIT, path = STRBUF_INIT, why = STRBUF_INIT;
	struct strbuf beside = STRBUF_INIT;
	struct runini *ri = NULL;
	const char *tmp = NULL, *state;
	bool refused = false;
	int fd = -1, r = 0;
	uid_t owner;

	if (sb_add_path(&ini, dir, "run.ini") < 0 || sb_add_path(&path, dir, "record.ssr") < 0) {
		r = sb_error(err, -ENOMEM, "'%s'", dir);
		goto out;
	}
	if (access(path.buf, F_OK) == 0 || !(ri = read_ini(ini.buf)) ||
	    !(tmp = runini_get(ri, "record_tmp")) || !*tmp)
		goto found;
	owner = dir_owner(dir);
	fd = tmp_open(tmp, ".ssr", owner, &why);
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
			int bfd = tmp_open(beside.buf, ".ini", owner, &why);

			final = bfd >= 0;
			if (bfd >= 0)
				close(bfd);
		}
		sb_addf(note, "'%s': no record.ssr; read the record where it grew, '%s' (%s)\n",
			dir, tmp,
			state && !strcmp(state, "recording") && !final
			    ? "the recorder did not finish: killed?"
			    : "its move into the run directory failed");
	}
	sb_reset(&path);
	if (sb_adds(&path, tmp) < 0) {
		r = sb_error(err, -ENOMEM, "'%s'", dir);
		goto out;
	}
found:
	if (want_fd && fd < 0) {
		fd = file_open_regular(path.buf, NULL, 0, NULL, err);
		if (fd < 0) {
			/* the error is all a failed reading shows: the refusal too */
			if (refused && err)
				sb_addf(err, " (and record_tmp '%s' in '%s' is not read: %s)", tmp,
					ini.buf, why.buf);
			r = fd;
			goto out;
		}
	}
	if (sb_add(ret, path.buf, path.len) < 0) {
		r = sb_error(err, -ENOMEM, "'%s'", dir);
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

int rec_rundir_record(const char *dir, struct strbuf *ret, struct strbuf *note)
{
	return find_record(dir, ret, note, false, NULL);
}

int rec_rundir_open_record(const char *dir, struct strbuf *ret, struct strbuf *note,
			   struct strbuf *err)
{
	return find_record(dir, ret, note, true, err);
}
