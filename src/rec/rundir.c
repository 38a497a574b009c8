// SPDX-License-Identifier: MIT
/*
 * rundir.c: where a run directory's record is (rec_rundir_record in rec.h):
 * RUNDIR/record.ssr, or the record_tmp that run.ini names when the recorder
 * was killed before moving it out of /dev/shm, or the move failed; and
 * where its final run.ini is (rec_rundir_ini): RUNDIR/run.ini, or beside
 * that record when the run directory could not take it.
 *
 * Apart from reader.c so that the reader (and its fuzz target) needs nothing
 * of run.ini's parser. Assumes run.ini is small (read whole).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/runini.h"
#include "rec/rec.h"

/* Where the recorder put the final run.ini when the run directory could
 * not take it: its record_tmp TMP with .ini for .ssr, into RET (NULL: only
 * whether it is there). True when it exists. */
static bool final_beside_into(const char *tmp, struct strbuf *ret)
{
	size_t n = strlen(tmp);
	char path[4096];

	if (n < 4 || strcmp(tmp + n - 4, ".ssr") || n >= sizeof(path))
		return false;
	snprintf(path, sizeof(path), "%.*s.ini", (int)(n - 4), tmp);
	if (access(path, R_OK) != 0)
		return false;
	return !ret || sb_adds(ret, path) == 0;
}

static bool final_beside(const char *tmp)
{
	return final_beside_into(tmp, NULL);
}

/* DIR/run.ini parsed, or NULL. */
static struct runini *read_ini(const char *path)
{
	struct strbuf text = STRBUF_INIT, perr = STRBUF_INIT;
	struct runini *ri = NULL;
	char buf[4096];
	size_t n;
	FILE *f = fopen(path, "re");

	if (!f)
		return NULL;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		if (sb_add(&text, buf, n) < 0)
			break;
	fclose(f);
	if (runini_parse(text.buf, text.len, path, &ri, &perr) < 0)
		ri = NULL;
	sb_release(&text);
	sb_release(&perr);
	return ri;
}

int rec_rundir_ini(const char *dir, struct strbuf *ret, struct strbuf *note)
{
	size_t n = strlen(dir);
	const char *sep = n && dir[n - 1] == '/' ? "" : "/";
	struct strbuf ini = STRBUF_INIT;
	struct runini *ri;
	const char *state, *tmp;
	int r = 0;

	if (sb_addf(&ini, "%s%srun.ini", dir, sep) < 0)
		return -ENOMEM;
	ri = read_ini(ini.buf);
	state = runini_get(ri, "state");
	tmp = runini_get(ri, "record_tmp");
	if (state && !strcmp(state, "recording") && tmp && final_beside_into(tmp, ret)) {
		if (note)
			sb_addf(note, "'%s' is the recorder's first; its final run.ini is at '%s' "
				      "(the run directory could not take it: full?)\n",
				ini.buf, ret->buf);
	} else if (sb_add(ret, ini.buf, ini.len) < 0) {
		r = -ENOMEM;
	}
	runini_free(ri);
	sb_release(&ini);
	return r;
}

int rec_rundir_record(const char *dir, struct strbuf *ret, struct strbuf *note)
{
	struct strbuf ini = STRBUF_INIT, text = STRBUF_INIT, perr = STRBUF_INIT;
	struct runini *ri = NULL;
	const char *tmp, *state;
	size_t n = strlen(dir);
	const char *sep = n && dir[n - 1] == '/' ? "" : "/";
	char buf[4096];
	FILE *f;
	int r = 0;

	if (sb_addf(&ini, "%s%srun.ini", dir, sep) < 0)
		return -ENOMEM;
	if (sb_addf(&text, "%s%srecord.ssr", dir, sep) < 0) {
		r = -ENOMEM;
		goto out;
	}
	if (access(text.buf, F_OK) == 0 || !(f = fopen(ini.buf, "re")))
		goto found;
	sb_reset(&text);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		if (sb_add(&text, buf, n) < 0)
			break;
	fclose(f);
	if (runini_parse(text.buf, text.len, ini.buf, &ri, &perr) == 0 &&
	    (tmp = runini_get(ri, "record_tmp")) && *tmp && access(tmp, R_OK) == 0) {
		state = runini_get(ri, "state");
		sb_reset(&text);
		if (sb_adds(&text, tmp) < 0) {
			r = -ENOMEM;
			goto out;
		}
		if (note)
			sb_addf(note, "'%s': no record.ssr; read the record where it grew, '%s' (%s)\n",
				dir, tmp,
				state && !strcmp(state, "recording") && !final_beside(tmp)
				    ? "the recorder did not finish: killed?"
				    : "its move into the run directory failed");
		goto found;
	}
	sb_reset(&text);
	if (sb_addf(&text, "%s%srecord.ssr", dir, sep) < 0) {
		r = -ENOMEM;
		goto out;
	}
found:
	if (sb_add(ret, text.buf, text.len) < 0)
		r = -ENOMEM;
out:
	runini_free(ri);
	sb_release(&ini);
	sb_release(&text);
	sb_release(&perr);
	return r;
}
