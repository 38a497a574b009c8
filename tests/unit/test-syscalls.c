// SPDX-License-Identifier: MIT
/* test-syscalls.c: the one syscall table (core/syscalls.h). */
#include <string.h>

#include "core/syscalls.h"
#include "t.h"

static void test_lookup(void)
{
	const struct syscall_info *s;

	s = syscall_lookup(SYSCALL_ABI_X86_64, 17);
	CHECK(s && !strcmp(s->name, "pread64") && s->cls == SYSC_READ && s->takes_fd);
	s = syscall_lookup(SYSCALL_ABI_AARCH64, 67);
	CHECK(s && !strcmp(s->name, "pread64"));
	s = syscall_lookup(SYSCALL_ABI_X86_64, 202);
	CHECK(s && !strcmp(s->name, "futex") && s->cls == SYSC_FUTEX && !s->takes_fd);
	s = syscall_lookup(SYSCALL_ABI_X86_64, 3);	/* close: an fd, but not one the sampler reads */
	CHECK(s && s->cls == SYSC_META && !s->takes_fd);
	s = syscall_lookup(SYSCALL_ABI_X86_64, 16);
	CHECK(s && s->cls == SYSC_IOCTL && s->takes_fd);
	s = syscall_lookup(SYSCALL_ABI_AARCH64, 29);
	CHECK(s && !strcmp(s->name, "ioctl"));
	CHECK(syscall_lookup(SYSCALL_ABI_X86_64, 187) && syscall_lookup(SYSCALL_ABI_X86_64, 187)->takes_fd);	/* readahead */
	CHECK(syscall_lookup(SYSCALL_ABI_X86_64, -1) == NULL);
	CHECK(syscall_lookup(SYSCALL_ABI_X86_64, 100000) == NULL);
	CHECK(syscall_lookup(SYSCALL_ABI_AARCH64, 2) == NULL);	/* open: no such call on aarch64 */
	CHECK(syscall_abi_of("aarch64") == SYSCALL_ABI_AARCH64 &&
	      syscall_abi_of("arm64") == SYSCALL_ABI_AARCH64);
	CHECK(syscall_abi_of("x86_64") == SYSCALL_ABI_X86_64 &&
	      syscall_abi_of(NULL) == SYSCALL_ABI_X86_64);
}

/* No number means two calls on one ABI (a lookup would hide one), no
 * name is there twice, and every entry is found by its numbers. */
static void test_unique(void)
{
	size_t n = syscall_count();

	CHECK(n > 70);
	for (size_t i = 0; i < n; i++) {
		const struct syscall_info *a = syscall_at(i);

		CHECK(a->x86_64 >= 0 || a->aarch64 >= 0);
		CHECK(a->x86_64 < 0 || syscall_lookup(SYSCALL_ABI_X86_64, a->x86_64) == a);
		CHECK(a->aarch64 < 0 || syscall_lookup(SYSCALL_ABI_AARCH64, a->aarch64) == a);
		for (size_t k = i + 1; k < n; k++) {
			const struct syscall_info *b = syscall_at(k);

			if (!strcmp(a->name, b->name) || (a->x86_64 >= 0 && a->x86_64 == b->x86_64) ||
			    (a->aarch64 >= 0 && a->aarch64 == b->aarch64))
				T_FAIL("'%s' and '%s' share a name or a number", a->name, b->name);
		}
	}
	CHECK(syscall_at(n) == NULL);
}

int main(void)
{
	T_RUN(test_lookup);
	T_RUN(test_unique);
	return t_exit();
}
