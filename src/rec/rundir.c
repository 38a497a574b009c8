// SPDX-License-Identifier: MIT
/*
 * rundir.c: where a run directory's record is (rec_rundir_record in rec.h):
 * RUNDIR/record.ssr, or the record_tmp that run.ini names when the recorder
 * was killed before moving it out of /dev/shm, or the move failed.
 *
 * Apart from reader.c so that the reader (and its fuzz target) needs nothing
 * of run.ini's parser. Assumes run.ini is small (read whole).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/runini.h"
#include "rec/rec.h"

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
				state && !strcmp(state, "recording")
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
