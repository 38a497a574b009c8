// SPDX-License-Identifier: MIT
/*
 * procparse.c: pure parsers of /proc and /sys text (see procparse.h).
 *
 * They run every 10 ms on the recorder's hot path, so they scan once, touch
 * only the fields asked for and never allocate. Input is bounded by LEN and
 * need not be NUL-terminated; every read of BUF checks the bound first, so a
 * truncated buffer gives -EINVAL, never a read past its end.
 */
#include "linux/procparse.h"

#include <errno.h>
#include <string.h>

/* A cursor over [p, end). */
struct cur {
	const char *p;
	const char *end;
};

static bool cur_eof(const struct cur *c)
{
	return c->p >= c->end;
}

static void skip_blanks(struct cur *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
}

static void skip_line(struct cur *c)
{
	while (c->p < c->end && *c->p != '\n')
		c->p++;
	if (c->p < c->end)
		c->p++;
}

/* Skips blanks, then one token (up to a blank or newline). */
static void skip_token(struct cur *c)
{
	skip_blanks(c);
	while (c->p < c->end && *c->p != ' ' && *c->p != '\t' && *c->p != '\n')
		c->p++;
}

/* Skips blanks and parses an unsigned decimal; -EINVAL if none or overflow. */
static int get_u64(struct cur *c, uint64_t *ret)
{
	uint64_t v = 0;
	const char *start;

	skip_blanks(c);
	start = c->p;
	while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
		unsigned d = (unsigned)(*c->p - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
		c->p++;
	}
	if (c->p == start)
		return -EINVAL;
	/* A number must end at a separator (or the end of the buffer). */
	if (c->p < c->end && *c->p != ' ' && *c->p != '\t' && *c->p != '\n')
		return -EINVAL;
	*ret = v;
	return 0;
}

static int get_i64(struct cur *c, int64_t *ret)
{
	bool neg = false;
	uint64_t v;
	int r;

	skip_blanks(c);
	if (c->p < c->end && *c->p == '-') {
		neg = true;
		c->p++;
	}
	r = get_u64(c, &v);
	if (r < 0)
		return r;
	if (v > (uint64_t)INT64_MAX)
		return -EINVAL;
	*ret = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

/* Parses "0x..." hexadecimal (the syscall file's arguments). */
static int get_hex(struct cur *c, uint64_t *ret)
{
	uint64_t v = 0;
	const char *start;

	skip_blanks(c);
	if (c->end - c->p < 2 || c->p[0] != '0' || (c->p[1] != 'x' && c->p[1] != 'X'))
		return -EINVAL;
	c->p += 2;
	start = c->p;
	while (c->p < c->end) {
		char ch = *c->p;
		unsigned d;

		if (ch >= '0' && ch <= '9')
			d = (unsigned)(ch - '0');
		else if (ch >= 'a' && ch <= 'f')
			d = (unsigned)(ch - 'a' + 10);
		else if (ch >= 'A' && ch <= 'F')
			d = (unsigned)(ch - 'A' + 10);
		else
			break;
		if (c->p - start >= 16)
			return -EINVAL;
		v = v << 4 | d;
		c->p++;
	}
	if (c->p == start)
		return -EINVAL;
	*ret = v;
	return 0;
}

/* Does the text at C start with S? Advances past it if so. */
static bool eat(struct cur *c, const char *s)
{
	size_t n = strlen(s);

	if ((size_t)(c->end - c->p) < n || memcmp(c->p, s, n) != 0)
		return false;
	c->p += n;
	return true;
}

/* ---------------------------------------------------------------- task stat */

int pp_task_stat(const char *buf, size_t len, struct pp_task_stat *ret)
{
	const char *open, *close = NULL;
	struct pp_task_stat st = {0};
	struct cur c;
	uint64_t v;
	int64_t iv;
	size_t n;
	int field, r;

	open = memchr(buf, '(', len);
	if (!open)
		return -EINVAL;
	for (const char *p = buf + len; p > open; p--) {
		if (p[-1] == ')') {
			close = p - 1;
			break;
		}
	}
	if (!close || close <= open)
		return -EINVAL;
	n = (size_t)(close - open - 1);
	if (n >= sizeof(st.comm))
		n = sizeof(st.comm) - 1;
	memcpy(st.comm, open + 1, n);
	st.comm[n] = '\0';

	c.p = close + 1;
	c.end = buf + len;
	skip_blanks(&c);
	if (cur_eof(&c))
		return -EINVAL;
	st.state = *c.p++;
	/* Field 3 was the state; fields 4.. follow, numbers (some negative). */
	for (field = 4; field <= 39; field++) {
		/* Most fields are unsigned (rsslim is often 2^64-1); some,
		 * such as tpgid and nice, can be negative. */
		skip_blanks(&c);
		if (c.p < c.end && *c.p == '-') {
			r = get_i64(&c, &iv);
			v = (uint64_t)iv;
		} else {
			r = get_u64(&c, &v);
			iv = (int64_t)v;
		}
		if (r < 0)
			return r;
		switch (field) {
		case 10:
			st.minflt = v;
			break;
		case 12:
			st.majflt = v;
			break;
		case 14:
			st.utime = v;
			break;
		case 15:
			st.stime = v;
			break;
		case 20:
			st.num_threads = iv;
			break;
		case 39:
			st.processor = (int32_t)iv;
			break;
		default:
			break;
		}
	}
	*ret = st;
	return 0;
}

/* ---------------------------------------------------------------- schedstat */

int pp_schedstat(const char *buf, size_t len, struct pp_schedstat *ret)
{
	struct cur c = {buf, buf + len};
	struct pp_schedstat s;

	if (get_u64(&c, &s.run_ns) < 0 || get_u64(&c, &s.wait_ns) < 0 || get_u64(&c, &s.slices) < 0)
		return -EINVAL;
	*ret = s;
	return 0;
}

/* ---------------------------------------------------------------- syscall */

int pp_syscall(const char *buf, size_t len, struct pp_syscall *ret)
{
	struct cur c = {buf, buf + len};
	struct pp_syscall s = {.nr = -1};

	if (eat(&c, "running")) {
		s.running = true;
		*ret = s;
		return 0;
	}
	if (get_i64(&c, &s.nr) < 0 || s.nr < -1)
		return -EINVAL;
	if (s.nr >= 0) {
		for (int i = 0; i < 6; i++)
			if (get_hex(&c, &s.args[i]) < 0)
				return -EINVAL;
	}
	*ret = s;
	return 0;
}

/* ---------------------------------------------------------------- wchan */

int pp_wchan(const char *buf, size_t len, char *ret, size_t size)
{
	size_t n = len;

	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '\0'))
		n--;
	if (n == 0 || (n == 1 && buf[0] == '0')) {
		if (size == 0)
			return -EINVAL;
		ret[0] = '\0';
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		char ch = buf[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' || ch == '$'))
			return -EINVAL;
	}
	if (n >= size)
		return -EINVAL;
	memcpy(ret, buf, n);
	ret[n] = '\0';
	return 0;
}

/* ---------------------------------------------------------------- keyed */

int pp_keyed(const char *buf, size_t len, const char *const *names, size_t n, int64_t *vals)
{
	struct cur c = {buf, buf + len};
	int found = 0;

	while (!cur_eof(&c)) {
		const char *key = c.p;
		size_t klen;

		while (c.p < c.end && *c.p != ' ' && *c.p != ':' && *c.p != '\n')
			c.p++;
		klen = (size_t)(c.p - key);
		if (c.p < c.end && *c.p == ':')
			c.p++;
		for (size_t i = 0; i < n; i++) {
			if (strlen(names[i]) == klen && memcmp(names[i], key, klen) == 0) {
				int64_t v;

				if (get_i64(&c, &v) < 0)
					return -EINVAL;
				vals[i] = v;
				found++;
				break;
			}
		}
		skip_line(&c);
	}
	return found;
}

/* ---------------------------------------------------------------- block stat */

int pp_blkstat(const char *buf, size_t len, struct pp_blkstat *ret)
{
	struct cur c = {buf, buf + len};
	uint64_t v[11];

	for (int i = 0; i < 11; i++)
		if (get_u64(&c, &v[i]) < 0)
			return -EINVAL;
	*ret = (struct pp_blkstat){
	    .rd_ios = v[0],
	    .rd_merges = v[1],
	    .rd_sectors = v[2],
	    .rd_ticks = v[3],
	    .wr_ios = v[4],
	    .wr_merges = v[5],
	    .wr_sectors = v[6],
	    .wr_ticks = v[7],
	    .in_flight = v[8],
	    .io_ticks = v[9],
	    .time_in_queue = v[10],
	};
	return 0;
}

/* ---------------------------------------------------------------- psi */

int pp_psi(const char *buf, size_t len, struct pp_psi *ret)
{
	struct cur c = {buf, buf + len};
	struct pp_psi s = {0};

	while (!cur_eof(&c)) {
		bool some = eat(&c, "some "), full = !some && eat(&c, "full ");
		bool got = false;

		if (!some && !full) {
			skip_line(&c);
			continue;
		}
		/* Tokens avg10=.. avg60=.. avg300=.. total=N */
		while (c.p < c.end && *c.p != '\n') {
			skip_blanks(&c);
			if (eat(&c, "total=")) {
				uint64_t v;

				if (get_u64(&c, &v) < 0)
					return -EINVAL;
				if (some) {
					s.some_us = v;
					s.has_some = true;
				} else {
					s.full_us = v;
					s.has_full = true;
				}
				got = true;
			} else {
				skip_token(&c);
			}
		}
		if (!got)
			return -EINVAL;
		skip_line(&c);
	}
	if (!s.has_some)
		return -EINVAL;
	*ret = s;
	return 0;
}

/* ---------------------------------------------------------------- /proc/stat */

int pp_cpustat(const char *buf, size_t len, struct pp_cpustat *ret)
{
	struct cur c = {buf, buf + len};
	uint64_t v[8];

	if (!eat(&c, "cpu "))
		return -EINVAL;
	for (int i = 0; i < 8; i++)
		if (get_u64(&c, &v[i]) < 0)
			return -EINVAL;
	*ret = (struct pp_cpustat){
	    .user = v[0],
	    .nice = v[1],
	    .system = v[2],
	    .idle = v[3],
	    .iowait = v[4],
	    .irq = v[5],
	    .softirq = v[6],
	    .steal = v[7],
	};
	return 0;
}

/* ---------------------------------------------------------------- mountinfo */

/* Copies one space-separated token of mountinfo into OUT, decoding the
 * kernel's octal escapes (\040 space, \011 tab, \012 newline, \134 '\'). */
static int get_escaped(struct cur *c, char *out, size_t size)
{
	size_t n = 0;

	skip_blanks(c);
	if (cur_eof(c) || *c->p == '\n')
		return -EINVAL;
	while (c->p < c->end && *c->p != ' ' && *c->p != '\t' && *c->p != '\n') {
		char ch = *c->p++;

		if (ch == '\\' && c->end - c->p >= 3 && c->p[0] >= '0' && c->p[0] <= '3' &&
		    c->p[1] >= '0' && c->p[1] <= '7' && c->p[2] >= '0' && c->p[2] <= '7') {
			ch = (char)((c->p[0] - '0') << 6 | (c->p[1] - '0') << 3 | (c->p[2] - '0'));
			c->p += 3;
		}
		if (n + 1 >= size)
			return -EINVAL;
		out[n++] = ch;
	}
	out[n] = '\0';
	return 0;
}

/* Parses one mountinfo line at C (up to its newline) into *m. */
static int mount_line(struct cur *c, struct pp_mount *m)
{
	uint64_t id, parent, major = 0, minor;
	const char *start;

	if (get_u64(c, &id) < 0 || get_u64(c, &parent) < 0)
		return -EINVAL;
	skip_blanks(c);
	start = c->p;
	while (c->p < c->end && *c->p >= '0' && *c->p <= '9' && major < 1u << 20)
		major = major * 10 + (uint64_t)(*c->p++ - '0');
	if (c->p == start || c->p >= c->end || *c->p != ':')
		return -EINVAL;
	c->p++;
	if (get_u64(c, &minor) < 0)
		return -EINVAL;
	m->major = (unsigned)major;
	m->minor = (unsigned)minor;
	if (get_escaped(c, m->root, sizeof(m->root)) < 0 ||
	    get_escaped(c, m->point, sizeof(m->point)) < 0)
		return -EINVAL;
	/* Mount options, then optional fields up to "-". */
	skip_token(c);
	for (;;) {
		skip_blanks(c);
		if (cur_eof(c) || *c->p == '\n')
			return -EINVAL;
		if (*c->p == '-' && (c->end - c->p == 1 || c->p[1] == ' ')) {
			c->p++;
			break;
		}
		skip_token(c);
	}
	if (get_escaped(c, m->fstype, sizeof(m->fstype)) < 0 ||
	    get_escaped(c, m->source, sizeof(m->source)) < 0)
		return -EINVAL;
	return 0;
}

int pp_mountinfo_find(const char *buf, size_t len, const char *point, const char *fstype,
		      struct pp_mount *ret)
{
	struct cur c = {buf, buf + len};
	struct pp_mount m, best;
	bool found = false;

	while (!cur_eof(&c)) {
		const char *line = c.p;
		struct cur lc;

		skip_line(&c);
		lc.p = line;
		lc.end = c.p;
		while (lc.end > lc.p && lc.end[-1] == '\n')
			lc.end--;
		if (lc.end == lc.p)
			continue;
		if (mount_line(&lc, &m) < 0)
			return -EINVAL;
		if (point && strcmp(m.point, point) != 0)
			continue;
		if (fstype && strcmp(m.fstype, fstype) != 0)
			continue;
		best = m;
		found = true;
	}
	if (!found)
		return -ENOENT;
	*ret = best;
	return 0;
}

/* ---------------------------------------------------------------- swaps */

int pp_swaps(const char *buf, size_t len, struct pp_swap *ret, size_t max)
{
	struct cur c = {buf, buf + len};
	size_t n = 0;

	if (!eat(&c, "Filename"))
		return -EINVAL;
	skip_line(&c);
	while (!cur_eof(&c)) {
		struct pp_swap s = {0};
		char type[32];

		skip_blanks(&c);
		if (!cur_eof(&c) && *c.p == '\n') {
			c.p++;
			continue;
		}
		if (get_escaped(&c, s.path, sizeof(s.path)) < 0 ||
		    get_escaped(&c, type, sizeof(type)) < 0)
			return -EINVAL;
		s.is_file = strcmp(type, "file") == 0;
		if (n < max)
			ret[n] = s;
		n++;
		skip_line(&c);
	}
	return (int)n;
}

/* ---------------------------------------------------------------- DRM fdinfo */

/* Copies [p, p + n) into OUT (SIZE bytes) if it fits. */
static bool copy_str(char *out, size_t size, const char *p, size_t n)
{
	if (n >= size)
		return false;
	memcpy(out, p, n);
	out[n] = '\0';
	return true;
}

int pp_drm_fdinfo(const char *buf, size_t len, struct pp_drm *ret)
{
	struct cur c = {buf, buf + len};
	struct pp_drm d;

	memset(&d, 0, sizeof(d));
	while (!cur_eof(&c)) {
		if (eat(&c, "drm-driver:")) {
			const char *v;

			skip_blanks(&c);
			v = c.p;
			while (c.p < c.end && *c.p != '\n' && *c.p != ' ')
				c.p++;
			if (!copy_str(d.driver, sizeof(d.driver), v, (size_t)(c.p - v)))
				return -EINVAL;
		} else if (eat(&c, "drm-client-id:")) {
			if (get_u64(&c, &d.client_id) < 0)
				return -EINVAL;
			d.has_client_id = true;
		} else if (eat(&c, "drm-engine-")) {
			const char *name = c.p;
			size_t nlen;
			uint64_t v;

			while (c.p < c.end && *c.p != ':' && *c.p != '\n')
				c.p++;
			nlen = (size_t)(c.p - name);
			if (cur_eof(&c) || *c.p != ':')
				return -EINVAL;
			c.p++;
			/* drm-engine-capacity-NAME is a count of engines, not time. */
			if (nlen > 9 && memcmp(name, "capacity-", 9) == 0) {
				skip_line(&c);
				continue;
			}
			if (get_u64(&c, &v) < 0)
				return -EINVAL;
			skip_blanks(&c);
			if (eat(&c, "ns") && d.nengines < PP_DRM_MAX_ENGINES &&
			    copy_str(d.engines[d.nengines].name, sizeof(d.engines[0].name), name,
				     nlen)) {
				d.engines[d.nengines].ns = v;
				d.nengines++;
			}
		}
		skip_line(&c);
	}
	*ret = d;
	return 0;
}

/* ---------------------------------------------------------------- cgroup */

int pp_cgroup(const char *buf, size_t len, struct pp_cgroup *ret)
{
	struct cur c = {buf, buf + len};
	struct pp_cgroup g = {0};

	while (!cur_eof(&c)) {
		if (*c.p == '\n') {
			c.p++;
			continue;
		}
		if (eat(&c, "0::")) {
			const char *v = c.p;

			while (c.p < c.end && *c.p != '\n')
				c.p++;
			if (!copy_str(g.v2_path, sizeof(g.v2_path), v, (size_t)(c.p - v)) ||
			    g.v2_path[0] != '/')
				return -EINVAL;
			g.has_v2 = true;
		} else {
			const char *colon = memchr(c.p, ':', (size_t)(c.end - c.p));

			if (!colon)
				return -EINVAL;
			g.has_v1 = true;
		}
		skip_line(&c);
	}
	if (!g.has_v2 && !g.has_v1)
		return -EINVAL;
	*ret = g;
	return 0;
}
