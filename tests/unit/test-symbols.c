// SPDX-License-Identifier: MIT
/*
 * test-symbols.c: a record's user frames named at analysis time
 * (run/symbols.h, linux/symbolize.h), and the hostile mappings a record may
 * name: /dev/zero, a FIFO, a directory, a symbolic link to a large file, a
 * file whose build-id differs, an ELF file cut short. Each must end at once
 * (no hang, no crash) with "[unknown]" frames and one note for the mapping
 * naming it and why; the good mapping (this test's own binary, by its
 * build-id) names its function, and an offset past its symbols shows as
 * FILE+0xADDR.
 */
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/where.h"
#include "rec/rec.h"
#include "run/symbols.h"
#include "t.h"

__attribute__((noinline)) int symbols_marker(int x);
__attribute__((noinline)) int symbols_marker(int x)
{
	return x * 3 + 1;
}

static uint8_t self_bid[64];
static size_t self_bid_len;

static int find_bid(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size, (void)arg;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;

		if (ph->p_type != PT_NOTE)
			continue;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
			const char *name = p + sizeof(*n);
			const char *desc = name + ((n->n_namesz + 3) & ~3u);

			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && !memcmp(name, "GNU", 4) &&
			    n->n_descsz <= 64) {
				memcpy(self_bid, desc, n->n_descsz);
				self_bid_len = n->n_descsz;
				return 1;
			}
			p = desc + ((n->n_descsz + 3) & ~3u);
		}
	}
	return 1;	/* the first object is the program: only it */
}

/* The file offset of ADDR in this program, from /proc/self/maps. */
static uint64_t self_off(uintptr_t addr, char *path, size_t len)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[4096];
	uint64_t off = 0;

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long a, b, o;
		int at = 0;

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &a, &b, &o, &at) >= 3 && at &&
		    addr >= a && addr < b) {
			off = addr - a + o;
			snprintf(path, len, "%s", line + at);
			path[strcspn(path, "\n")] = 0;
			break;
		}
	}
	if (f)
		fclose(f);
	return off;
}

static int copy_cut(const char *from, const char *to, size_t n)
{
	char *buf = malloc(n);
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0600), ok;

	ok = buf && in >= 0 && out >= 0 && read(in, buf, n) == (ssize_t)n &&
	     write(out, buf, n) == (ssize_t)n;
	free(buf);
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return ok ? 0 : -1;
}

enum { M_GOOD, M_ZERO, M_FIFO, M_DIR, M_BIG, M_OTHER, M_CUT, M_GONE, NM };

static void test_hostile(void)
{
	char dir[] = "/tmp/test-symbols-XXXXXXXX", self[4096] = "", p[NM][4200], rpath[4300];
	static const char *const want[NM] = {
		NULL, "not a regular file (a character device)", "not a regular file (a FIFO)",
		"is a directory", "larger than 4 GiB", "has build-id", "not a whole ELF file",
		"No such file or directory",
	};
	uint8_t other[20] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 };
	uint64_t off, cnt[NM];
	uint32_t st[NM];
	struct rec_writer *w = NULL;
	struct rec *r = NULL;
	struct strbuf notes = STRBUF_INIT;
	struct where wh;
	int fd;

	dl_iterate_phdr(find_bid, NULL);
	off = self_off((uintptr_t)&symbols_marker, self, sizeof(self));
	if (!self_bid_len || !self[0] || self[0] != '/') {
		/* the only case here: skipped (77), not passed */
		t_skip("this test binary has no build-id or mapping (linked without --build-id?)");
	}
	CHECK(mkdtemp(dir) != NULL);
	snprintf(p[M_GOOD], sizeof(p[0]), "%s", self);
	snprintf(p[M_ZERO], sizeof(p[0]), "/dev/zero");
	snprintf(p[M_FIFO], sizeof(p[0]), "%s/fifo", dir);
	snprintf(p[M_DIR], sizeof(p[0]), "%s/adir", dir);
	snprintf(p[M_BIG], sizeof(p[0]), "%s/big-link", dir);
	snprintf(p[M_OTHER], sizeof(p[0]), "%s/other", dir);
	snprintf(p[M_CUT], sizeof(p[0]), "%s/cut", dir);
	snprintf(p[M_GONE], sizeof(p[0]), "%s/gone", dir);
	CHECK_INT(mkfifo(p[M_FIFO], 0600), 0);
	CHECK_INT(mkdir(p[M_DIR], 0700), 0);
	snprintf(rpath, sizeof(rpath), "%s/big", dir);
	fd = open(rpath, O_WRONLY | O_CREAT, 0600);
	CHECK(fd >= 0 && ftruncate(fd, (off_t)5 << 30) == 0);	/* sparse: costs nothing */
	if (fd >= 0)
		close(fd);
	CHECK_INT(symlink(rpath, p[M_BIG]), 0);
	struct stat sst;

	CHECK_INT(stat(self, &sst), 0);
	CHECK_INT(copy_cut(self, p[M_OTHER], (size_t)sst.st_size), 0);
	CHECK_INT(copy_cut(self, p[M_CUT], 3000), 0);

	snprintf(rpath, sizeof(rpath), "%s/r.ssr", dir);
	CHECK_INT(rec_writer_new(rpath, &w), 0);
	CHECK_INT(rec_writer_begin(w), 0);
	for (int i = 0; i < NM; i++) {
		/* "other" is a whole copy of this binary, refused by its
		 * build-id alone */
		uint32_t m;

		/* a build-id each: the cache is by build-id, and a good file of a
		 * build-id names every mapping of it */
		other[0] = (uint8_t)i;
		m = i == M_GOOD ? rec_writer_umap(w, p[i], self_bid, self_bid_len)
				: rec_writer_umap(w, p[i], other, 20);
		struct rec_uframe uf = { .kind = REC_UF_ADDR, .ref = m, .off = off };
		uint32_t f[2];

		f[0] = rec_writer_uframe(w, &uf);
		uf.off = 0x10;	/* in the ELF header: no symbol */
		f[1] = rec_writer_uframe(w, &uf);
		st[i] = rec_writer_ustack(w, f, 2);
		cnt[i] = 1;
	}
	CHECK_INT(rec_writer_uset(w, &(struct rec_uset){ .t_ns = 10, .tid = 1, .n = NM, .stack = st,
							  .count = cnt }), 0);
	CHECK_INT(rec_writer_close(w), 0);
	CHECK_INT(rec_read_file(rpath, &r, NULL), 0);
	if (!r)
		goto out;
	CHECK_INT(run_symbols(r, "r.ssr", &notes), 0);
	if (getenv("KEEP"))
		for (size_t i = 0; i < r->nuframes; i++)
			fprintf(stderr, "frame %zu: %s\n", i,
				r->uframe_names && r->uframe_names[i] ? r->uframe_names[i] : "-");
	CHECK_INT(where_stall(r, 0, 100, &wh), 0);
	CHECK_INT((int)wh.n, 2);	/* the good one, and the [unknown]s merged */
	for (size_t k = 0; k < wh.n; k++) {
		const struct where_stack *s = &wh.st[k];

		if (s->n == 1) {
			CHECK_STR(s->frames[0], "symbols_marker");
			CHECK(!strncmp(s->frames[1], strrchr(self, '/') + 1, strlen(strrchr(self, '/') + 1)));
			CHECK(strstr(s->frames[1], "+0x") != NULL);
		} else {
			CHECK_INT((int)s->n, NM - 1);
			CHECK_STR(s->frames[0], "[unknown]");
			CHECK_STR(s->frames[1], "[unknown]");
		}
	}
	where_free(&wh);
	/* one note per refused mapping, saying which and why */
	for (int i = 1; i < NM; i++) {
		char *at = strstr(notes.buf, p[i]), *nl, *again;

		CHECK(at != NULL);
		if (!at)
			continue;
		nl = strchr(at, '\n');
		CHECK(nl && memmem(at, (size_t)(nl - at), want[i], strlen(want[i])) != NULL);
		CHECK(memmem(at, nl ? (size_t)(nl - at) : strlen(at), ": its frames show as [unknown]",
			     30) != NULL);
		again = nl ? strstr(nl, p[i]) : NULL;
		CHECK(!again || (again[strlen(p[i])] != ' '));
	}
	CHECK(strstr(notes.buf, "'r.ssr': stacks: ") == notes.buf);
	CHECK(strstr(notes.buf, self) == NULL || strstr(notes.buf, self) != strstr(notes.buf, p[M_GOOD]));
	if (t_failed)
		fprintf(stderr, "notes:\n%s", notes.buf);
out:
	rec_free(r);
	sb_release(&notes);
	if (!getenv("KEEP"))
		unlink(rpath);
	unlink(p[M_FIFO]);
	rmdir(p[M_DIR]);
	unlink(p[M_BIG]);
	unlink(p[M_OTHER]);
	unlink(p[M_CUT]);
	snprintf(rpath, sizeof(rpath), "%s/big", dir);
	unlink(rpath);
	rmdir(dir);
}

int main(void)
{
	T_RUN(test_hostile);
	return t_exit();
}
