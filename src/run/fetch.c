// SPDX-License-Identifier: MIT
/*
 * fetch.c: prefetch's fetch (fetch.h). What is not resident now is measured
 * range by range (mincore), prefetch_choose picks what fits the budget in disk
 * order, and the reads go one chunk in flight at a time, the system looked
 * at before each range (prefetch_should_stop). The files are opened as
 * linux/prefetch.h opens them: regular files only, no links followed.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linux/prefetch.h"
#include "linux/sched.h"
#include "core/file.h"
#include "run/fetch.h"

#define MIB 1048576.0

uint64_t fetch_budget(uint64_t mem_avail_kb, double mb, double reserve_mb)
{
	uint64_t budget = (uint64_t)(mb * MIB), avail = mem_avail_kb * 1024,
		 reserve = (uint64_t)(reserve_mb * MIB);

	if (avail < reserve)
		return 0;
	return avail - reserve < budget ? avail - reserve : budget;
}

uint64_t fetch_listed_bytes(const struct prefetch_list *l)
{
	uint64_t b = 0;

	for (size_t i = 0; i < l->n; i++)
		for (size_t k = 0; k < l->f[i].n; k++)
			b += l->f[i].r[k].len;
	return b;
}

static double mono_s(void)
{
	return (double)sched_now_ns() / 1e9;
}

static int cmp_order(const void *pa, const void *pb, void *ctx)
{
	const struct prefetch_list *l = ctx;
	size_t i = *(const size_t *)pa, j = *(const size_t *)pb;
	uint32_t a = l->f[i].order, b = l->f[j].order;

	if (a != b)
		return a < b ? -1 : 1;
	return i < j ? -1 : i > j;	/* prefetch_choose's order for equal ones */
}

/* What of each range is not resident now, in prefetch_choose's order (files by
 * first use) into MISSING (a slot per range); the resident bytes into
 * *ALREADY. A file that cannot be opened counts as missing whole. */
static int measure_missing(const struct prefetch_list *l, uint64_t *missing, uint64_t *already)
{
	size_t *byorder = calloc(l->n + 1, sizeof(*byorder)), k = 0;

	if (!byorder)
		return -ENOMEM;
	for (size_t i = 0; i < l->n; i++)
		byorder[i] = i;
	qsort_r(byorder, l->n, sizeof(*byorder), cmp_order, (void *)l);
	for (size_t j = 0; j < l->n; j++) {
		const struct prefetch_file *f = &l->f[byorder[j]];
		int ffd = pfl_open(f->path);

		for (size_t m = 0; m < f->n; m++, k++) {
			missing[k] = f->r[m].len;
			if (ffd >= 0 && pfl_missing(ffd, f->r[m].off, f->r[m].len, &missing[k]) == 0)
				*already += f->r[m].len - missing[k];
		}
		if (ffd >= 0)
			close(ffd);
	}
	free(byorder);
	return 0;
}

/* The chosen reads RD[0..NRD-1], each range's system checked first. */
static void read_chosen(const struct prefetch_list *l, const struct prefetch_read *rd, size_t nrd,
			const struct fetch_opts *o, const struct prefetch_sys *start, double t0,
			char *buf, struct fetch_result *res)
{
	double limit = o->limit_s > 0 ? o->limit_s : FETCH_LIMIT_S;
	int fd = -1, fd_file = -1;

	res->why = PREFETCH_STOP_DONE;
	for (size_t i = 0; i < nrd; i++) {
		struct prefetch_sys now;
		enum prefetch_stop why;
		long n;

		pfl_sys(&now);
		why = prefetch_should_stop(start, &now, (uint64_t)(o->reserve_mb * 1024), mono_s() - t0,
				     limit, o->watch && kill(o->watch, 0) < 0 && errno == ESRCH);
		if (why != PREFETCH_GO) {
			res->why = why;
			break;
		}
		if (fd_file != (int)rd[i].file) {
			if (fd >= 0)
				close(fd);
			fd = pfl_open(l->f[rd[i].file].path);
			fd_file = (int)rd[i].file;
			res->files += fd >= 0;
		}
		if (fd < 0)
			continue;
		n = pfl_read(fd, rd[i].off, rd[i].len, buf);
		if (n > 0) {
			res->reads += n;
			res->got += rd[i].len;
		}
	}
	if (fd >= 0)
		close(fd);
}

int fetch_run(const char *exe, const struct prefetch_list *l, const struct fetch_opts *o,
	      struct fetch_result *ret, struct strbuf *err)
{
	struct prefetch_read *rd = NULL;
	struct prefetch_sys start;
	uint64_t *missing = NULL;
	size_t nrd = 0, total = 0;
	double t0 = mono_s();
	char *buf = NULL;
	struct stat st;
	int r = -ENOMEM;

	memset(ret, 0, sizeof(*ret));
	ret->listed = fetch_listed_bytes(l);
	if (exe && stat(exe, &st) == 0 &&
	    (l->exe_size != (uint64_t)st.st_size || l->exe_mtime != st.st_mtime)) {
		sb_addf(err, "'%s' changed since its list was learnt: the list is stale; 'prefetch "
			     "learn' learns it anew", exe);
		return -ESTALE;
	}
	for (size_t i = 0; i < l->n; i++)
		total += l->f[i].n;
	missing = calloc(total + 1, sizeof(*missing));
	buf = malloc(PFL_CHUNK);
	if (!missing || !buf || measure_missing(l, missing, &ret->already) < 0)
		goto out;
	/* the budget is MemAvailable's at the start (pfl_sys leaves it 0
	 * where it cannot say: nothing is read then) */
	memset(&start, 0, sizeof(start));
	pfl_sys(&start);
	ret->budget = fetch_budget(start.mem_avail_kb, o->mb, o->reserve_mb);
	if (prefetch_choose(l, missing, ret->budget, pfl_page(), &rd, &nrd) < 0)
		goto out;
	ret->prio_err = pfl_lower_priority(o->io);
	read_chosen(l, rd, nrd, o, &start, t0, buf, ret);
	ret->seconds = mono_s() - t0;
	r = 0;
out:
	if (r < 0)
		sb_addf(err, "prefetch: %s", strerror(-r));
	free(rd);
	free(missing);
	free(buf);
	return r;
}

/* The most a list file may be: a range line is about 30 bytes, so this is
 * two million ranges, far past any game's. */
#define LIST_MAX ((size_t)64 << 20)

int fetch_list_read(const char *path, struct prefetch_list *l, struct strbuf *err)
{
	struct strbuf buf = STRBUF_INIT;
	int r = file_read_text(path, NULL, LIST_MAX, &buf, err);

	if (r == 0)
		r = prefetch_list_parse(buf.buf, buf.len, path, l, err);
	else if (r != -ENOENT && r != -ENOMEM)
		r = -EINVAL;	/* said in ERR */
	sb_release(&buf);
	return r;
}
