// SPDX-License-Identifier: MIT
/*
 * test-ksyms.c: /proc/kallsyms read into the kernel's text symbols
 * (linux/ksyms.h), on captured text: tests/fixtures/ksyms/proc/kallsyms
 * (this machine's, as root: the entry code, vfs_read and its neighbours,
 * schedule, three data symbols, and module and BPF symbols out of address
 * order with their "[module]" column) and tests/fixtures/ksyms-hidden (the
 * same file read as nobody: every address zero). Then the live file, where
 * the addresses may be seen.
 */
#include "t.h"

#include <errno.h>
#include <unistd.h>

#include "linux/ksyms.h"

/* The fixture tree NAME's directory (the "root" ksyms_load takes). */
static const char *root(const char *name)
{
	static char path[4096];

	snprintf(path, sizeof(path), "%s", t_fixture(name));
	return path;
}

static void check_find(const struct ksyms *k, uint64_t addr, const char *want)
{
	const char *got = ksyms_find(k, addr);

	if (!want) {
		CHECK(got == NULL);
		return;
	}
	CHECK_STR(got, want);
}

static void test_find(void)
{
	struct ksyms *k = NULL;

	CHECK_INT(ksyms_load(root("ksyms"), &k), 0);
	if (!k)
		return;
	check_find(k, 0xffffffff816d80f0ull, "vfs_read");	/* its first byte */
	check_find(k, 0xffffffff816d8123ull, "vfs_read");	/* inside */
	check_find(k, 0xffffffff816d84bfull, "vfs_read");	/* its last byte */
	check_find(k, 0xffffffff816d84c0ull, "__pfx___kernel_write_iter");
	check_find(k, 0xffffffff81000138ull, "syscall_return_via_sysret");	/* type t */
	check_find(k, 0xffffffff80000000ull, NULL);	/* below the first symbol */
	/* the data symbols (D) are not functions: an address past them is in
	 * the last text symbol before it */
	check_find(k, 0xffffffff82400010ull, "__pfx_preempt_schedule");
	/* module and BPF symbols, listed out of address order, found sorted;
	 * the name stops before the "[module]" column */
	check_find(k, 0xffffffffc0022d98ull, "bpf_prog_57d6573b267caca2_tb_waking");
	check_find(k, 0xffffffffc0026810ull, "bpf_prog_4193d02c0ca4c659_tb_switch");
	check_find(k, 0xffffffffc0027e00ull, "bpf_prog_6878f8f98e87e234_tb_io_start");
	check_find(k, 0xffffffffc0201004ull, "ftrace_trampoline");
	ksyms_free(k);
}

static void check_range(const struct ksyms *k, const char *name, uint64_t lo, uint64_t hi)
{
	uint64_t l = 0, h = 0;

	CHECK_INT(ksyms_range(k, name, &l, &h), 0);
	if (l != lo || h != hi)
		T_FAIL("%s: [%#" PRIx64 ", %#" PRIx64 "), expected [%#" PRIx64 ", %#" PRIx64 ")",
		       name, l, h, lo, hi);
}

static void test_range(void)
{
	struct ksyms *k = NULL;
	uint64_t l, h;

	CHECK_INT(ksyms_load(root("ksyms"), &k), 0);
	if (!k)
		return;
	check_range(k, "vfs_read", 0xffffffff816d80f0ull, 0xffffffff816d84c0ull);
	check_range(k, "schedule", 0xffffffff82266250ull, 0xffffffff822662f0ull);
	/* the next text symbol, the data ones between not counted */
	check_range(k, "kernel_write", 0xffffffff816d8870ull, 0xffffffff822652e0ull);
	/* four names at one address: the end is the next address, not the
	 * next name */
	check_range(k, "_stext", 0xffffffff81000000ull, 0xffffffff81000010ull);
	/* the highest symbol: one byte, as far as kallsyms says */
	check_range(k, "ftrace_trampoline", 0xffffffffc0201000ull, 0xffffffffc0201001ull);
	CHECK_INT(ksyms_range(k, "no_such_function", &l, &h), -ENOENT);
	CHECK_INT(ksyms_range(k, "__start_rodata", &l, &h), -ENOENT);	/* data */
	CHECK_INT(ksyms_range(NULL, "vfs_read", &l, &h), -ENOENT);
	CHECK(ksyms_find(NULL, 0xffffffff816d80f0ull) == NULL);
	ksyms_free(k);
	ksyms_free(NULL);
}

static void test_hidden(void)
{
	struct ksyms *k = NULL;
	char missing[4200];

	/* read as nobody with kptr_restrict 1: every address zero */
	CHECK_INT(ksyms_load(root("ksyms-hidden"), &k), -EACCES);
	CHECK(k == NULL);
	snprintf(missing, sizeof(missing), "%s/no-such-tree", root("ksyms"));
	CHECK_INT(ksyms_load(missing, &k), -ENOENT);
	CHECK(k == NULL);
}

/* The live kallsyms: as root with kptr_restrict below 2 the addresses are
 * there and vfs_read (every kernel has it) is found at its own start;
 * kptr_restrict 2 hides them from everyone (-EACCES). */
static void test_live(void)
{
	struct ksyms *k = NULL;
	uint64_t lo = 0, hi = 0;
	int restrict_ = -1, r;
	FILE *f = fopen("/proc/sys/kernel/kptr_restrict", "r");

	if (f) {
		if (fscanf(f, "%d", &restrict_) != 1)
			restrict_ = -1;
		fclose(f);
	}
	r = ksyms_load(NULL, &k);
	if (restrict_ == 2) {
		CHECK_INT(r, -EACCES);
	} else if (geteuid() == 0 && restrict_ >= 0) {
		CHECK_INT(r, 0);
	} else {
		CHECK(r == 0 || r == -EACCES);
	}
	if (r == 0) {
		CHECK_INT(ksyms_range(k, "vfs_read", &lo, &hi), 0);
		CHECK(hi > lo);
		check_find(k, lo, "vfs_read");
		check_find(k, hi - 1, "vfs_read");
	}
	ksyms_free(k);
}

int main(void)
{
	T_RUN(test_find);
	T_RUN(test_range);
	T_RUN(test_hidden);
	T_RUN(test_live);
	return t_exit();
}
