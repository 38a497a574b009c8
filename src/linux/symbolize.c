// SPDX-License-Identifier: MIT
/*
 * symbolize.c: names for places in ELF files at analysis time
 * (symbolize.h, docs/WHERE.md).
 *
 * One cache entry per build-id: the file's PT_LOAD segments (to turn a
 * file offset into the ELF virtual address its symbols use) and its
 * function symbols sorted by address, read once through libelf with
 * ELF_C_READ (pread of the parts asked for, never a mapping of the file,
 * which a file cut short under us would turn into SIGBUS). The lookup is a
 * binary search. Assumes a record names tens of files and its frames a
 * few thousand places: the cost is reading the symbol tables (libc's
 * debug file: ~10,000 functions), once.
 */
#include "linux/symbolize.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* C++ (and Rust's legacy, _ZN...) names demangled by libstdc++'s
 * __cxa_demangle, looked up at run time so that stallscope does not link
 * the C++ library: NULL where it is not installed (the names stay mangled). */
typedef char *(*demangle_fn)(const char *name, char *buf, size_t *len, int *status);

static demangle_fn demangler(void)
{
	static demangle_fn fn;
	static bool tried;

	if (!tried) {
		void *h = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);

		tried = true;
		if (h)
			*(void **)&fn = dlsym(h, "__cxa_demangle");
	}
	return fn;
}

void sym_demangle(struct strbuf *sb, const char *sym)
{
	demangle_fn d = !strncmp(sym, "_Z", 2) ? demangler() : NULL;
	char *dm = NULL;
	int st = -1;

	if (d)
		dm = d(sym, NULL, NULL, &st);
	sb_adds(sb, dm && st == 0 ? dm : sym);
	free(dm);
}

#ifdef SS_HAVE_LIBDW

#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include "core/file.h"
#include "core/grow.h"

#define DEBUG_DIR "/usr/lib/debug/.build-id/"
#define MAX_LOADS 64		/* PT_LOAD segments kept */
#define MAX_SYMTAB ((uint64_t)512 << 20)	/* bytes of one symbol table read */

struct sym {
	uint64_t addr, size;	/* a sizeless one: to the next symbol or its section's end */
	uint64_t sec_end;	/* the end of its section */
	uint32_t name;		/* offset in the entry's names */
	uint8_t bind;		/* 0 global, 1 weak, 2 local: the order preferred */
};

struct seg {
	uint64_t off, vaddr, filesz;
};

struct entry {
	uint8_t bid[64];
	size_t bid_len;
	int err;		/* 0: usable; else why not, in why */
	char *why;
	struct seg seg[MAX_LOADS];
	size_t nseg;
	struct sym *syms;
	size_t nsyms;
	char *names;
	size_t names_len, names_cap;
};

struct symbolizer {
	struct entry *e;
	size_t n, cap;
};

int symbolizer_new(struct symbolizer **ret)
{
	*ret = calloc(1, sizeof(**ret));
	if (!*ret)
		return -ENOMEM;
	elf_version(EV_CURRENT);
	return 0;
}

static void entry_release(struct entry *e)
{
	free(e->why);
	free(e->syms);
	free(e->names);
}

void symbolizer_free(struct symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		entry_release(&s->e[i]);
	free(s->e);
	free(s);
}

static void hex(struct strbuf *sb, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sb_addf(sb, "%02x", p[i]);
}

/* The build-id of E (the first GNU build-id note of an SHT_NOTE section)
 * into BID (*LEN bytes, at most 64); 0, or -ENOENT when it has none. */
static int elf_build_id(Elf *e, uint8_t *bid, size_t *len)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, no, dno;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		while (d && (off = gelf_getnote(d, off, &nh, &no, &dno)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)d->d_buf + no, "GNU", 4) && nh.n_descsz &&
			    nh.n_descsz <= 64) {
				memcpy(bid, (char *)d->d_buf + dno, nh.n_descsz);
				*len = nh.n_descsz;
				return 0;
			}
		}
	}
	return -ENOENT;
}

/* Whether E is a whole ELF file of SIZE bytes: its section headers, and
 * every section with bytes in the file, inside it. */
static bool elf_whole(Elf *e, uint64_t size)
{
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;
	size_t shnum;

	if (elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh) || elf_getshdrnum(e, &shnum) < 0)
		return false;
	if (eh.e_shoff > size || (uint64_t)shnum * eh.e_shentsize > size - eh.e_shoff)
		return false;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			return false;
		if (sh.sh_type != SHT_NOBITS && (sh.sh_offset > size || sh.sh_size > size - sh.sh_offset))
			return false;
	}
	return true;
}

/* Opens PATH as an ELF file of build-id E->bid: the fd and *RET_ELF, or a
 * negative errno with the reason in WHY. */
static int open_elf(const struct entry *en, const char *path, Elf **ret_elf, struct strbuf *why)
{
	uint8_t bid[64];
	size_t blen = 0;
	uint64_t size = 0;
	Elf *e;
	int fd;

	fd = file_open_regular(path, NULL, 0, &size, why);
	if (fd < 0)
		return fd;
	if (size > SYM_FILE_MAX) {
		close(fd);
		sb_error(why, 0, "'%s' is larger than %llu GiB", path,
			 (unsigned long long)(SYM_FILE_MAX >> 30));
		return -EFBIG;
	}
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || !elf_whole(e, size)) {
		if (e)
			elf_end(e);
		close(fd);
		sb_error(why, 0, "'%s' is not a whole ELF file", path);
		return -EINVAL;
	}
	/* the build-id first: nothing else of a file that is not the one
	 * recorded is used */
	if (elf_build_id(e, bid, &blen) < 0 || blen != en->bid_len || memcmp(bid, en->bid, blen)) {
		sb_error(why, 0, "'%s' ", path);
		if (blen) {
			sb_adds(why, "has build-id ");
			hex(why, bid, blen);
		} else {
			sb_adds(why, "has no build-id");
		}
		elf_end(e);
		close(fd);
		return -ESTALE;
	}
	*ret_elf = e;
	return fd;
}

static void take_segments(struct entry *en, Elf *e)
{
	size_t n;

	if (elf_getphdrnum(e, &n) < 0)
		return;
	for (size_t i = 0; i < n && en->nseg < MAX_LOADS; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD)
			en->seg[en->nseg++] = (struct seg){ ph.p_offset, ph.p_vaddr, ph.p_filesz };
	}
}

static int add_name(struct entry *en, const char *s, uint32_t *ret)
{
	size_t n = strlen(s) + 1;

	if (en->names_len + n > UINT32_MAX)
		return -E2BIG;
	if (ARRAY_GROW(en->names, en->names_cap, en->names_len + n) < 0)
		return -ENOMEM;
	memcpy(en->names + en->names_len, s, n);
	*ret = (uint32_t)en->names_len;
	en->names_len += n;
	return 0;
}

/* The function symbols of E's section of TYPE (SHT_SYMTAB, SHT_DYNSYM)
 * into EN. 1 when it had such a section, 0 when not, or -ENOMEM. */
static int take_symbols(struct entry *en, Elf *e, Elf64_Word type)
{
	Elf_Scn *scn = NULL;
	size_t cap = 0;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || !sh.sh_entsize ||
		    sh.sh_size > MAX_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; i < n && en->nsyms < SYM_SYMS_MAX; i++) {
			GElf_Sym s;
			const char *name;
			int t;

			if (!gelf_getsym(d, (int)i, &s))
				break;
			t = GELF_ST_TYPE(s.st_info);
			if ((t != STT_FUNC && t != STT_GNU_IFUNC) || s.st_shndx == SHN_UNDEF ||
			    !s.st_value)
				continue;
			name = elf_strptr(e, sh.sh_link, s.st_name);
			if (!name || !*name)
				continue;
			GElf_Shdr ssh;
			Elf_Scn *sscn = s.st_shndx < SHN_LORESERVE ? elf_getscn(e, s.st_shndx) : NULL;
			uint64_t sec_end = sscn && gelf_getshdr(sscn, &ssh) ?
					   ssh.sh_addr + ssh.sh_size : s.st_value;
			if (ARRAY_GROW(en->syms, cap, en->nsyms + 1) < 0)
				return -ENOMEM;
			if (add_name(en, name, &en->syms[en->nsyms].name) < 0)
				return -ENOMEM;
			en->syms[en->nsyms].addr = s.st_value;
			en->syms[en->nsyms].size = s.st_size;
			en->syms[en->nsyms].sec_end = sec_end;
			en->syms[en->nsyms].bind = GELF_ST_BIND(s.st_info) == STB_GLOBAL ? 0 :
						   GELF_ST_BIND(s.st_info) == STB_WEAK ? 1 : 2;
			en->nsyms++;
		}
		return 1;
	}
	return 0;
}

static int by_addr(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (int)x->bind - (int)y->bind;
}

/* Fills EN (its build-id set) from PATH and the debug file: sets en->err
 * and en->why when neither can be read. */
static void entry_load(struct entry *en, const char *path)
{
	struct strbuf why = STRBUF_INIT, dbg = STRBUF_INIT, dwhy = STRBUF_INIT;
	Elf *e = NULL, *de = NULL;
	int fd, dfd, had = 0;

	fd = open_elf(en, path, &e, &why);
	sb_adds(&dbg, DEBUG_DIR);
	hex(&dbg, en->bid, 1);
	sb_addc(&dbg, '/');
	hex(&dbg, en->bid + 1, en->bid_len - 1);
	sb_adds(&dbg, ".debug");
	dfd = en->bid_len >= 2 ? open_elf(en, dbg.buf, &de, &dwhy) : -ENOENT;
	if (fd < 0 && dfd < 0) {
		en->err = fd;
		en->why = strdup(why.len ? why.buf : "unreadable");
		goto out;
	}
	/* the segments: the file's, or (the file gone) the debug file's,
	 * which keeps the program headers */
	take_segments(en, fd >= 0 ? e : de);
	if (fd >= 0)
		had = take_symbols(en, e, SHT_SYMTAB);
	if (had <= 0 && dfd >= 0)
		had = take_symbols(en, de, SHT_SYMTAB);
	if (had <= 0 && fd >= 0)
		had = take_symbols(en, e, SHT_DYNSYM);
	if (had < 0) {
		en->err = -ENOMEM;
		en->why = strdup("out of memory");
	}
	if (en->nsyms > 1)
		qsort(en->syms, en->nsyms, sizeof(*en->syms), by_addr);
	/* a sizeless symbol (_init, some assembly) covers up to the next
	 * symbol, within its own section (not the PLT after .init) */
	for (size_t i = 0, j = 0; i < en->nsyms; i++) {
		struct sym *y = &en->syms[i];
		uint64_t end = y->sec_end;

		if (y->size)
			continue;
		if (j < i + 1)
			j = i + 1;
		while (j < en->nsyms && en->syms[j].addr <= y->addr)
			j++;
		if (j < en->nsyms && en->syms[j].addr < end)
			end = en->syms[j].addr;
		y->size = end > y->addr ? end - y->addr : 0;
	}
out:
	if (e)
		elf_end(e);
	if (de)
		elf_end(de);
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	sb_release(&why);
	sb_release(&dbg);
	sb_release(&dwhy);
}

static struct entry *entry_get(struct symbolizer *s, const char *path, const uint8_t *bid,
			       size_t len)
{
	struct entry *en;

	for (size_t i = 0; i < s->n; i++)
		if (s->e[i].bid_len == len && !memcmp(s->e[i].bid, bid, len))
			return &s->e[i];
	if (ARRAY_GROW(s->e, s->cap, s->n + 1) < 0)
		return NULL;
	en = &s->e[s->n++];
	memset(en, 0, sizeof(*en));
	memcpy(en->bid, bid, len);
	en->bid_len = len;
	entry_load(en, path);
	return en;
}

/* The symbol covering VADDR in EN, or NULL: the last one at or before it
 * whose size covers it (a few back, for nested ones). */
static const struct sym *lookup(const struct entry *en, uint64_t vaddr)
{
	size_t lo = 0, hi = en->nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (en->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	for (size_t i = lo, k = 0; i-- > 0 && k < 16; k++) {
		const struct sym *c = &en->syms[i];

		if (c->size && vaddr < c->addr + c->size) {
			/* the first of its aliases: global before weak before local */
			while (i && en->syms[i - 1].addr == c->addr)
				i--;
			return &en->syms[i];
		}
	}
	return NULL;
}

int symbolizer_name(struct symbolizer *s, const char *path, const uint8_t *bid, size_t len,
		    uint64_t off, struct strbuf *ret, struct strbuf *why)
{
	const struct entry *en;
	const struct sym *sym;
	const char *base;
	uint64_t vaddr = off;
	bool in_seg = false;

	if (!len || len > 64) {
		sb_adds(ret, "[unknown]");
		sb_adds(why, "no build-id");
		return -EINVAL;
	}
	en = entry_get(s, path, bid, len);
	if (!en || en->err) {
		sb_adds(ret, "[unknown]");
		sb_adds(why, en ? en->why : "out of memory");
		return en ? en->err : -ENOMEM;
	}
	for (size_t i = 0; i < en->nseg; i++)
		if (off >= en->seg[i].off && off - en->seg[i].off < en->seg[i].filesz) {
			vaddr = off - en->seg[i].off + en->seg[i].vaddr;
			in_seg = true;
			break;
		}
	sym = in_seg ? lookup(en, vaddr) : NULL;
	if (sym) {
		sym_demangle(ret, en->names + sym->name);
		return 1;
	}
	base = strrchr(path, '/');
	sb_addf(ret, "%s+0x%llx", base ? base + 1 : path, (unsigned long long)vaddr);
	return 0;
}

#else /* !SS_HAVE_LIBDW */

int symbolizer_new(struct symbolizer **ret)
{
	*ret = NULL;
	return -ENOTSUP;
}

void symbolizer_free(struct symbolizer *s)
{
	(void)s;
}

int symbolizer_name(struct symbolizer *s, const char *path, const uint8_t *bid, size_t len,
		    uint64_t off, struct strbuf *ret, struct strbuf *why)
{
	(void)s, (void)path, (void)bid, (void)len, (void)off;
	sb_adds(ret, "[unknown]");
	sb_adds(why, "this build has no libelf (scripts/deps.sh build installs libdw-dev)");
	return -ENOTSUP;
}

#endif
