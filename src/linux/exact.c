// SPDX-License-Identifier: MIT
/*
 * exact.c: exact mode's loader (exact.h): the checks, the load with its
 * hooks chosen from the kernel's BTF, the mapped slots and the ring.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/hot.h"
#include "core/exact.h"
#include "core/syscalls.h"
#include "linux/exact.h"
#include "linux/ksyms.h"

#define BTF_PATH "/sys/kernel/btf/vmlinux"
#define READ_TRIES 64

static int kernel_at_least(int want_major, int want_minor)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u) < 0 || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return -1;
	return major > want_major || (major == want_major && minor >= want_minor);
}

#ifndef SS_HAVE_EXACT

int exact_check(struct strbuf *why)
{
	sb_error(why, 0, "this stallscope was built without exact mode (no clang, bpftool or "
		 "libbpf at build time, or not x86_64)");
	return -ENOTSUP;
}

int exact_open(const struct exact_opts *o, struct exact **ret, struct strbuf *why)
{
	return exact_check(why);
}

void exact_close(struct exact *x) {}
void exact_set_target(struct exact *x, unsigned slot, uint32_t tid) {}
int exact_read(const struct exact *x, unsigned slot, uint64_t now_ns, struct exact_slot *ret)
{
	return -ENOTSUP;
}
int exact_drain(struct exact *x, int (*fn)(void *, const struct exact_interval *), void *ctx)
{
	return 0;
}
bool exact_ring_empty(const struct exact *x) { return false; }
uint64_t exact_dropped(const struct exact *x) { return 0; }
const char *exact_flavour(const struct exact *x) { return ""; }
const char *exact_hooks(const struct exact *x) { return ""; }
const char *exact_missing(const struct exact *x) { return ""; }
const char *exact_symbol(const struct exact *x, uint64_t addr) { return NULL; }
int64_t exact_prog_ns(const struct exact *x, uint64_t *runs, uint64_t *misses) { return -1; }

#else /* SS_HAVE_EXACT */

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/capability.h>
#include <sys/syscall.h>

#include "exact.skel.h"

/* The hooks: a tracepoint and its programs in the two flavours. */
struct hook {
	const char *tp;
	size_t tb, rt; /* offsets of the programs in struct exact_bpf's progs */
	bool needed;   /* without it there is no exact mode */
};

#define PROG(f, n) offsetof(struct exact_bpf, progs.f##_##n)
#define HOOK(tp, n, need) { tp, PROG(tb, n), PROG(rt, n), need }
static const struct hook hooks[] = {
	HOOK("sched_switch", switch, true),
	HOOK("sched_waking", waking, false),
	HOOK("block_io_start", io_start, false),
	HOOK("block_io_done", io_done, false),
	HOOK("block_rq_issue", rq_issue, false),
	HOOK("block_rq_complete", rq_complete, false),
	HOOK("mm_vmscan_direct_reclaim_begin", dr_begin, false),
	HOOK("mm_vmscan_direct_reclaim_end", dr_end, false),
	HOOK("mm_vmscan_memcg_reclaim_begin", mr_begin, false),
	HOOK("mm_vmscan_memcg_reclaim_end", mr_end, false),
	HOOK("page_fault_user", fault, false),
};
#define NHOOKS (sizeof(hooks) / sizeof(hooks[0]))

struct exact {
	struct exact_bpf *skel;
	bool raw_tp;
	volatile struct exact_slot *slots; /* mapped */
	size_t slots_len;
	struct ring_buffer *rb;
	/* the ring's consumer and producer positions (the first word of its
	 * first two pages), mapped read-only beside libbpf's own mapping */
	const volatile unsigned long *rb_cons, *rb_prod;
	size_t rb_page;
	int (*fn)(void *ctx, const struct exact_interval *iv);
	void *fn_ctx;
	int fn_err;
	uint64_t bad;	/* ring records that failed exact_interval_check */
	struct bpf_link *links[NHOOKS];
	struct strbuf hooks, missing;
	struct ksyms *ksyms;
};

/* libbpf's messages: kept (the last lines), never printed. */
static char libbpf_last[512];

static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[512];
	size_t n;

	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(line, sizeof(line), fmt, ap);
	n = strcspn(line, "\n");
	line[n] = '\0';
	if (n)
		snprintf(libbpf_last, sizeof(libbpf_last), "%s", line);
	return 0;
}

static bool have_caps(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = { 0 };

	if (geteuid() == 0)
		return true;
	if (syscall(SYS_capget, &h, d) < 0)
		return false;
#ifndef CAP_BPF
#define CAP_PERFMON 38
#define CAP_BPF 39
#endif
	uint64_t eff = (uint64_t)d[1].effective << 32 | d[0].effective;

	return (eff >> CAP_SYS_ADMIN & 1) || ((eff >> CAP_BPF & 1) && (eff >> CAP_PERFMON & 1));
}

/* WHY's reason (no strerror after it: the reason says it) and E. */
static int why_not(struct strbuf *why, int e, const char *text)
{
	sb_error(why, 0, "%s", text);
	return e;
}

int exact_check(struct strbuf *why)
{
#if !defined(__x86_64__)
	return why_not(why, -ENOTSUP, "exact mode is built for x86_64 only");
#endif
	if (kernel_at_least(5, 8) == 0)
		return why_not(why, -ENOTSUP, "the kernel is older than 5.8 (no BPF ring buffer)");
	if (access(BTF_PATH, R_OK) < 0)
		return why_not(why, -ENOTSUP, "no kernel BTF: " BTF_PATH " is missing "
					      "(CONFIG_DEBUG_INFO_BTF)");
	if (!have_caps())
		return why_not(why, -EPERM,
			       "not permitted to load BPF: needs root, or CAP_BPF and CAP_PERFMON");
	return 0;
}

static struct bpf_program *prog_at(struct exact_bpf *skel, size_t off)
{
	return *(struct bpf_program **)((char *)skel + off);
}

/* The class table and the swap path's ranges, before load. */
static void set_rodata(struct exact *x, const struct exact_opts *o)
{
	struct exact_bpf *skel = x->skel;
	static const char *const swap_fns[2] = { "do_swap_page", "swap_read_folio" };

	for (size_t i = 0; i < syscall_count(); i++) {
		const struct syscall_info *sc = syscall_at(i);
		int nr = syscall_nr(sc, SYSCALL_ABI_NATIVE);

		if (nr >= 0 && nr < EXACT_SYSCALLS)
			skel->rodata->sys_class[nr] = (uint8_t)sc->cls;
	}
	skel->rodata->take_stacks = !o->no_stacks;
	for (int i = 0; i < 2 && x->ksyms; i++) {
		uint64_t lo, hi;

		if (ksyms_range(x->ksyms, swap_fns[i], &lo, &hi) == 0) {
			skel->rodata->swap_lo[i] = lo;
			skel->rodata->swap_hi[i] = hi;
		}
	}
}

/* Chooses the programs to load from the tracepoints the kernel has. */
static void choose_hooks(struct exact *x)
{
	struct btf *btf = btf__load_vmlinux_btf();
	bool have[NHOOKS];
	char name[128];

	for (size_t i = 0; i < NHOOKS; i++) {
		snprintf(name, sizeof(name), "btf_trace_%s", hooks[i].tp);
		have[i] = !btf || btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) >= 0;
	}
	btf__free(btf);
	/* block_io_start/done since 6.5, block_rq_issue/complete before */
	bool io_new = have[2] && have[3], io_old = have[4] && have[5];

	for (size_t i = 0; i < NHOOKS; i++) {
		bool old_io = i == 4 || i == 5, new_io = i == 2 || i == 3;

		if (!have[i] && !(new_io && io_old) && !(old_io && io_new))
			(void)sb_addf(&x->missing, "%s%s", x->missing.len ? " " : "", hooks[i].tp);
		if (old_io && io_new)
			have[i] = false;
		bpf_program__set_autoload(prog_at(x->skel, hooks[i].tb), have[i] && !x->raw_tp);
		bpf_program__set_autoload(prog_at(x->skel, hooks[i].rt), have[i] && x->raw_tp);
	}
}

static int on_interval(void *ctx, void *data, size_t len)
{
	struct exact *x = ctx;
	struct exact_interval iv;

	if (!x->fn)
		return 0;
	if (exact_interval_check(data, len, &iv) < 0) {
		x->bad++;
		return 0;
	}
	int r = x->fn(x->fn_ctx, &iv);

	if (r < 0) {
		x->fn_err = r;
		return r;
	}
	return 0;
}

static int load_flavour(struct exact *x, const struct exact_opts *o, struct strbuf *why)
{
	int r;

	x->skel = exact_bpf__open();
	if (!x->skel)
		return sb_error(why, -errno ? -errno : -ENOMEM, "cannot open the BPF object: %s",
				libbpf_last);
	set_rodata(x, o);
	choose_hooks(x);
	r = exact_bpf__load(x->skel);
	if (r < 0)
		return sb_error(why, r, "the kernel refused the %s program (%s)",
				x->raw_tp ? "raw_tp" : "tp_btf", libbpf_last);
	for (size_t i = 0; i < NHOOKS; i++) {
		struct bpf_program *p = prog_at(x->skel, x->raw_tp ? hooks[i].rt : hooks[i].tb);

		if (!bpf_program__autoload(p))
			continue;
		x->links[i] = bpf_program__attach(p);
		if (!x->links[i]) {
			r = -errno;
			if (hooks[i].needed)
				return sb_error(why, r, "cannot attach to %s (%s)", hooks[i].tp,
						libbpf_last);
			(void)sb_addf(&x->missing, "%s%s", x->missing.len ? " " : "", hooks[i].tp);
			continue;
		}
		(void)sb_addf(&x->hooks, "%s%s", x->hooks.len ? " " : "", hooks[i].tp);
	}
	return 0;
}

static void unload(struct exact *x)
{
	ring_buffer__free(x->rb);
	x->rb = NULL;
	if (x->rb_cons)
		munmap((void *)x->rb_cons, x->rb_page);
	if (x->rb_prod)
		munmap((void *)x->rb_prod, x->rb_page);
	x->rb_cons = x->rb_prod = NULL;
	if (x->slots)
		munmap((void *)x->slots, x->slots_len);
	x->slots = NULL;
	for (size_t i = 0; i < NHOOKS; i++) {
		bpf_link__destroy(x->links[i]);
		x->links[i] = NULL;
	}
	exact_bpf__destroy(x->skel);
	x->skel = NULL;
	sb_reset(&x->hooks);
	sb_reset(&x->missing);
}

int exact_open(const struct exact_opts *o, struct exact **ret, struct strbuf *why)
{
	struct exact *x;
	long page = sysconf(_SC_PAGESIZE);
	void *m;
	int r = exact_check(why);

	if (r < 0)
		return r;
	libbpf_set_print(libbpf_log);
	x = calloc(1, sizeof(*x));
	if (!x)
		return sb_error(why, -ENOMEM, "exact mode");
	sb_init(&x->hooks);
	sb_init(&x->missing);
	/* without the symbols, swap faults read as file faults and stacks as
	 * addresses (said in run.ini) */
	(void)ksyms_load(NULL, &x->ksyms);
	x->raw_tp = o->raw_tp;
	r = load_flavour(x, o, why);
	if (r < 0 && !x->raw_tp && r != -EPERM) {
		/* tp_btf refused: the raw tracepoints take the same programs */
		unload(x);
		x->raw_tp = true;
		r = load_flavour(x, o, why);
	}
	if (r < 0)
		goto fail;
	x->slots_len = (sizeof(struct exact_slot) * EXACT_SLOTS + (size_t)page - 1) &
		       ~((size_t)page - 1);
	m = mmap(NULL, x->slots_len, PROT_READ, MAP_SHARED, bpf_map__fd(x->skel->maps.slots), 0);
	if (m == MAP_FAILED) {
		r = sb_error(why, -errno, "cannot map the exact counters");
		goto fail;
	}
	x->slots = m;
	x->skel->bss->ctl.min_interval_ns = o->min_interval_ns ? o->min_interval_ns : 500000;
	x->skel->bss->ctl.wake_slack_ns = EXACT_WAKE_SLACK_NS;
	x->rb = ring_buffer__new(bpf_map__fd(x->skel->maps.intervals), on_interval, x, NULL);
	if (!x->rb) {
		r = sb_error(why, -errno, "cannot map the interval ring");
		goto fail;
	}
	/* Without these the ring is drained every sample, as before. */
	x->rb_page = (size_t)sysconf(_SC_PAGESIZE);
	m = mmap(NULL, x->rb_page, PROT_READ, MAP_SHARED, bpf_map__fd(x->skel->maps.intervals), 0);
	if (m != MAP_FAILED) {
		x->rb_cons = m;
		m = mmap(NULL, x->rb_page, PROT_READ, MAP_SHARED,
			 bpf_map__fd(x->skel->maps.intervals), (off_t)x->rb_page);
		if (m != MAP_FAILED)
			x->rb_prod = m;
	}
	*ret = x;
	return 0;
fail:
	exact_close(x);
	return r;
}

void exact_close(struct exact *x)
{
	if (!x)
		return;
	unload(x);
	sb_release(&x->hooks);
	sb_release(&x->missing);
	ksyms_free(x->ksyms);
	free(x);
}

void exact_set_target(struct exact *x, unsigned slot, uint32_t tid)
{
	if (slot < EXACT_SLOTS)
		__atomic_store_n(&x->skel->bss->ctl.targets[slot], tid, __ATOMIC_RELEASE);
}

SS_HOT int exact_read(const struct exact *x, unsigned slot, uint64_t now_ns, struct exact_slot *ret)
{
	uint32_t want;
	int r;

	if (slot >= EXACT_SLOTS)
		return -EINVAL;
	want = __atomic_load_n(&x->skel->bss->ctl.targets[slot], __ATOMIC_RELAXED);
	r = exact_slot_read(&x->slots[slot], ret, READ_TRIES, NULL, NULL);
	if (r < 0)
		return r;
	if (!want || ret->tid != want || ret->state == XS_UNSEEN)
		return -ESRCH;
	exact_slot_close_open(ret, now_ns, x->skel->bss->ctl.wake_slack_ns);
	return 0;
}

SS_HOT int exact_drain(struct exact *x, int (*fn)(void *ctx, const struct exact_interval *iv), void *ctx)
{
	int n;

	x->fn = fn;
	x->fn_ctx = ctx;
	x->fn_err = 0;
	n = ring_buffer__consume(x->rb);
	if (x->fn_err < 0)
		return x->fn_err;
	return n < 0 ? n : n;
}

SS_HOT bool exact_ring_empty(const struct exact *x)
{
	if (!x->rb_cons || !x->rb_prod)
		return false;
	return __atomic_load_n(x->rb_prod, __ATOMIC_ACQUIRE) ==
	       __atomic_load_n(x->rb_cons, __ATOMIC_ACQUIRE);
}

uint64_t exact_dropped(const struct exact *x)
{
	return __atomic_load_n(&x->skel->bss->ctl.dropped, __ATOMIC_RELAXED) + x->bad;
}


const char *exact_flavour(const struct exact *x)
{
	return x->raw_tp ? "raw_tp" : "tp_btf";
}

const char *exact_hooks(const struct exact *x)
{
	return x->hooks.buf;
}

const char *exact_missing(const struct exact *x)
{
	return x->missing.buf;
}

const char *exact_symbol(const struct exact *x, uint64_t addr)
{
	return ksyms_find(x->ksyms, addr);
}

int64_t exact_prog_ns(const struct exact *x, uint64_t *runs, uint64_t *misses)
{
	int64_t ns = 0;
	uint64_t n = 0, m = 0;

	for (size_t i = 0; i < NHOOKS; i++) {
		struct bpf_program *p = prog_at(x->skel, x->raw_tp ? hooks[i].rt : hooks[i].tb);
		struct bpf_prog_info info;
		uint32_t len = sizeof(info);

		if (!x->links[i])
			continue;
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len) < 0)
			return -1;
		ns += (int64_t)info.run_time_ns;
		n += info.run_cnt;
		m += info.recursion_misses;
	}
	if (runs)
		*runs = n;
	if (misses)
		*misses = m;
	return ns;
}

#endif /* SS_HAVE_EXACT */
