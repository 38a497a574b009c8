/* SPDX-License-Identifier: MIT */
/*
 * stacks.c: the sampled threads' user stacks (stacks.h, docs/WHERE.md).
 *
 * Two perf events per sampled thread (STACKS_THREADS slots: the frame
 * thread and the second sampled thread), sharing one mmap'ed ring per
 * thread (PERF_EVENT_IOC_SET_OUTPUT): a cpu-clock event every 1/HZ s of the
 * thread's CPU time, and a context-switch event (period 1) whose sample is
 * where the thread blocked. Each sample carries the user registers (x86-64:
 * the general registers and IP) and a copy of the top STACK_COPY bytes of
 * the user stack. The recorder drains the kernel's rings every period into
 * a ring of raw samples per thread (the last two seconds of its CPU time, or
 * fewer where the stacks are deep: RAW_BYTES, each sample taking the bytes
 * of stack the kernel copied, not STACK_COPY; mapped and touched when the
 * thread is set, so that memory does not grow, nor the sampling loop take
 * page faults, as it fills);
 * only a window asked for (a stall, an interval's switch-out) is unwound: libdw's dwfl with our own thread
 * callbacks, whose memory reads come from the copied stack and whose
 * initial registers are the sampled ones, the mappings reported from
 * /proc/PID/maps while the process lives. Facts from the kernel's
 * perf_event_open(2) and elfutils' libdwfl.h; perf's unwind-libdw.c does
 * the same with its own data structures.
 */
#include "linux/stacks.h"
#include "linux/ksyms.h"
#include "linux/symbolize.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifdef SS_HAVE_LIBDW

#include "core/grow.h"

#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <dwarf.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define STACK_COPY 16384	/* bytes of user stack per sample */
#define RAW_S 2			/* seconds of samples kept raw (2 * HZ, 64..8192) */
#define RAW_BYTES (12u << 20)	/* their bytes, a sampled thread: 2 s of CPU
				 * at 1000 Hz with 5.8 KiB of stack a sample,
				 * at least 0.7 s with 16 KiB (the fake game's
				 * frame thread: 7-10 KiB) */
#define RING_PAGES 1024		/* the kernel's ring: 4 MiB, ~250 samples at
				 * 16 KiB, drained every recorder period (and
				 * a stall's unwinding takes a few ms); halved
				 * down to 16 pages where the locked-memory
				 * limit (perf_event_mlock_kb) refuses it */
#define MAX_DEPTH 48
#define KDEPTH 24		/* kernel frames kept per sample */

/* perf's x86-64 register numbers (asm/perf_regs.h) */
enum { PR_AX, PR_BX, PR_CX, PR_DX, PR_SI, PR_DI, PR_BP, PR_SP, PR_IP, PR_R8 = 16 };
#define REGS_MASK (0x1ffull | (0xffull << PR_R8))	/* AX..IP, R8..R15 */
#define NREGS 17
/* index in the sample (bit order) -> DWARF register number (x86-64 psABI:
 * 0 rax, 1 rdx, 2 rcx, 3 rbx, 4 rsi, 5 rdi, 6 rbp, 7 rsp, 8-15 r8-r15, 16 rip) */
static const int sample_to_dwarf[NREGS] = { 0, 3, 2, 1, 4, 5, 6, 7, 16,
					    8, 9, 10, 11, 12, 13, 14, 15 };

/* A raw sample in the thread's ring: this, then its LEN bytes of stack
 * (from the sampled SP up), padded to 8. */
struct slot {
	uint64_t t_ns;
	int tid;
	uint32_t len;		/* bytes of stack copied */
	uint64_t regs[NREGS];	/* in sample order */
	uint32_t nk;		/* kernel frames (root: PERF_SAMPLE_CALLCHAIN) */
	uint64_t kips[KDEPTH];	/* innermost first */
};

_Static_assert(sizeof(struct slot) % 8 == 0, "a slot's stack is 8-aligned");

static inline const unsigned char *slot_stack(const struct slot *sl)
{
	return (const unsigned char *)(sl + 1);
}

static inline size_t slot_size(uint32_t len)
{
	return sizeof(struct slot) + (((size_t)len + 7) & ~(size_t)7);
}

#define PC_CACHE 1024	/* a stall's distinct PCs, looked at once each */

/* A line of /proc/PID/maps with code in it, read at a window's start. */
struct pmap {
	uint64_t start, end, pgoff;
	char *path;		/* "" for anonymous memory */
	int wmap;		/* -2: not looked at yet; -1: its frames are named
				 * now; >= 0: its index in the window's maps */
};

struct uw {
	const struct slot *cur;
	Dwfl *dwfl;
	struct stacks *s;
	int depth;
	size_t nfr;
	struct stacks_frame fr[KDEPTH + MAX_DEPTH];
	/* PC -> its frame, for one window: a stall's samples come back to
	 * the same few PCs (and libdw's symbol lookup, for the frames named
	 * now, walks the module's symbol table) */
	struct {
		uint64_t pc;
		bool used;
		struct stacks_frame f;
	} pcs[PC_CACHE];
};

/* One sampled thread: its two events, the kernel's ring they share, and
 * its ring of raw samples. */
struct sthread {
	int pid, tid;		/* 0: none */
	int fd_clk, fd_cs;
	void *ring;
	size_t ring_len;
	/* the raw samples: RAW_BYTES from `raw`, written at `wpos`; `off` the
	 * offsets of the `used` kept ones, oldest first from head - used (a
	 * ring of nslots). Kept samples are contiguous from the oldest, around
	 * the end, to wpos: a new one drops the oldest it would overlap. */
	unsigned char *raw;
	size_t wpos;
	uint32_t *off;		/* nslots */
	size_t nslots;
	size_t head;		/* next offset written */
	size_t used;
	bool callchain;		/* the samples carry the kernel's callchain */
};

struct stacks {
	int hz;
	struct uw u;		/* the unwinder; u.dwfl kept for dwfl_pid */
	int dwfl_pid;
	struct sthread th[STACKS_THREADS];
	unsigned char rec[sizeof(struct perf_event_header) + 64 + 8 * (PERF_MAX_STACK_DEPTH + 8) +
			  8 * NREGS + 16 + STACK_COPY + 64];
	struct ksyms *ksyms;	/* /proc/kallsyms, loaded at the first kernel frame */
	bool ksyms_tried;
	struct stacks_stats st;
	/* the window being unwound: the process's code mappings, the files
	 * its frames are in, the names given now, the distinct stacks */
	struct pmap *pm;
	size_t npm, cap_pm;
	struct stacks_map *wm;
	size_t nwm, cap_wm;
	char **wn;
	size_t nwn, cap_wn;
	struct stacks_stack *ws;
	size_t nws, cap_ws;
};

int stacks_supported(struct strbuf *why)
{
	(void)why;
	return 1;
}

/* Forgets the last window (its maps, names and stacks). */
static void window_reset(struct stacks *s)
{
	for (size_t i = 0; i < s->npm; i++)
		free(s->pm[i].path);
	for (size_t i = 0; i < s->nwm; i++)
		free(s->wm[i].path);
	for (size_t i = 0; i < s->nwn; i++)
		free(s->wn[i]);
	for (size_t i = 0; i < s->nws; i++)
		free(s->ws[i].frames);
	s->npm = s->nwm = s->nwn = s->nws = 0;
	for (size_t i = 0; i < PC_CACHE; i++)
		s->u.pcs[i].used = false;
}

static void drop_dwfl(struct stacks *s)
{
	if (s->u.dwfl)
		dwfl_end(s->u.dwfl);
	s->u.dwfl = NULL;
	s->dwfl_pid = 0;
}

static void close_events(struct sthread *t)
{
	if (t->ring)
		munmap(t->ring, t->ring_len);
	if (t->fd_cs >= 0)
		close(t->fd_cs);
	if (t->fd_clk >= 0)
		close(t->fd_clk);
	t->ring = NULL;
	t->fd_clk = t->fd_cs = -1;
	t->pid = t->tid = 0;
	t->used = t->head = t->wpos = 0;
}

int stacks_new(int hz, struct stacks **ret, struct strbuf *err)
{
	struct stacks *s;
	size_t n;

	if (hz < 1 || hz > 10000)
		return sb_error(err, -EINVAL, "stacks: %d Hz is out of 1..10000", hz);
	n = (size_t)hz * RAW_S;
	n = n < 64 ? 64 : n > 8192 ? 8192 : n;
	s = calloc(1, sizeof(*s));
	if (!s)
		return sb_error(err, -ENOMEM, "stacks");
	for (int k = 0; k < STACKS_THREADS; k++) {
		struct sthread *t = &s->th[k];

		t->fd_clk = t->fd_cs = -1;
		t->off = calloc(n, sizeof(*t->off));
		t->nslots = n;
		if (!t->off) {
			stacks_free(s);
			return sb_error(err, -ENOMEM, "stacks");
		}
	}
	s->hz = hz;
	s->u.s = s;
	/* kernel frames are root's: their names now, not in the middle of a
	 * run (reading kallsyms takes a few hundred ms) */
	if (geteuid() == 0) {
		s->ksyms_tried = true;
		if (ksyms_load(NULL, &s->ksyms) < 0)
			s->ksyms = NULL;
	}
	*ret = s;
	return 0;
}

void stacks_free(struct stacks *s)
{
	if (!s)
		return;
	for (int k = 0; k < STACKS_THREADS; k++) {
		close_events(&s->th[k]);
		free(s->th[k].off);
		if (s->th[k].raw)
			munmap(s->th[k].raw, RAW_BYTES);
	}
	drop_dwfl(s);
	window_reset(s);
	free(s->pm);
	free(s->wm);
	free(s->wn);
	free(s->ws);
	ksyms_free(s->ksyms);
	free(s);
}

static int open_event(int tid, uint64_t config, uint64_t period, bool user_only)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = config;
	a.sample_period = period;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_REGS_USER |
			PERF_SAMPLE_STACK_USER;
	if (!user_only) {
		/* the kernel's part only: the user part is unwound from the copy */
		a.sample_type |= PERF_SAMPLE_CALLCHAIN;
		a.exclude_callchain_user = 1;
	}
	a.sample_regs_user = REGS_MASK;
	a.sample_stack_user = STACK_COPY;
	a.exclude_kernel = user_only;
	a.exclude_hv = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	return (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static int paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int v = 99;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 99;
		fclose(f);
	}
	return v;
}

int stacks_set_thread(struct stacks *s, int which, int pid, int tid, struct strbuf *err)
{
	struct sthread *t;
	bool user_only = false;
	int e;

	if (which < 0 || which >= STACKS_THREADS)
		return sb_error(err, -EINVAL, "stacks: no thread slot %d", which);
	t = &s->th[which];
	if (tid == t->tid && pid == t->pid)
		return 0;
	close_events(t);
	if (tid <= 0)
		return 0;
	if (!t->raw) {
		t->raw = mmap(NULL, RAW_BYTES, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (t->raw == MAP_FAILED) {
			t->raw = NULL;
			return sb_error(err, -ENOMEM, "stacks: %u MiB for thread %d's samples",
					RAW_BYTES >> 20, tid);
		}
	}
	/* kernel-mode samples (in a system call, and every switch-out) need
	 * root or perf_event_paranoid <= 1; user-mode ones only the thread's
	 * owner at paranoid 2 */
	t->fd_clk = open_event(tid, PERF_COUNT_SW_CPU_CLOCK, 1000000000ull / (unsigned)s->hz, false);
	if (t->fd_clk < 0 && (errno == EACCES || errno == EPERM)) {
		user_only = true;
		t->fd_clk = open_event(tid, PERF_COUNT_SW_CPU_CLOCK,
				       1000000000ull / (unsigned)s->hz, true);
	}
	if (t->fd_clk < 0) {
		e = -errno;
		sb_error(err, e, "stacks: perf_event_open on thread %d: %s (perf_event_paranoid "
			 "is %d; user stacks need it <= 2 and the thread's owner, or root)",
			 tid, strerror(errno), paranoid());
		close_events(t);
		return e;
	}
	for (size_t pages = RING_PAGES; pages >= 16; pages /= 2) {
		t->ring_len = (1 + pages) * (size_t)sysconf(_SC_PAGESIZE);
		t->ring = mmap(NULL, t->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, t->fd_clk, 0);
		if (t->ring != MAP_FAILED || (errno != EPERM && errno != ENOMEM))
			break;
	}
	if (t->ring == MAP_FAILED) {
		e = -errno;
		t->ring = NULL;
		sb_error(err, e, "stacks: mmap of the perf ring: %s", strerror(errno));
		close_events(t);
		return e;
	}
	t->pid = pid;
	t->tid = tid;
	t->callchain = !user_only;
	if (!user_only) {
		t->fd_cs = open_event(tid, PERF_COUNT_SW_CONTEXT_SWITCHES, 1, false);
		if (t->fd_cs >= 0 && ioctl(t->fd_cs, PERF_EVENT_IOC_SET_OUTPUT, t->fd_clk) < 0) {
			close(t->fd_cs);
			t->fd_cs = -1;
		}
	}
	if (user_only || t->fd_cs < 0)
		sb_error(err, -EACCES, "stacks: user-mode CPU samples only (no switch-outs, no "
			 "samples inside system calls): they need root or perf_event_paranoid "
			 "<= 1 (it is %d)", paranoid());
	return user_only || t->fd_cs < 0 ? 1 : 0;
}

static void drop_oldest(struct sthread *t)
{
	t->used--;
}

static size_t oldest_off(const struct sthread *t)
{
	return t->off[(t->head + t->nslots - t->used) % t->nslots];
}

/* Room for SIZE bytes at the ring's write position: the oldest samples it
 * would overlap are dropped (a sample never wraps: where the end is too
 * near, the ones left there are the oldest and go, and it starts at 0). */
static struct slot *reserve(struct sthread *t, size_t size)
{
	size_t at = t->wpos;

	if (size > RAW_BYTES)
		return NULL;
	if (at + size > RAW_BYTES) {
		while (t->used && oldest_off(t) >= at)
			drop_oldest(t);
		at = 0;
	}
	while (t->used && (t->used == t->nslots ||
			   (oldest_off(t) >= at && oldest_off(t) < at + size)))
		drop_oldest(t);
	t->off[t->head] = (uint32_t)at;
	t->head = (t->head + 1) % t->nslots;
	t->used++;
	t->wpos = at + size;
	return (struct slot *)(t->raw + at);
}

static const struct slot *slot_at(const struct sthread *t, size_t k)
{
	return (const struct slot *)(t->raw +
				     t->off[(t->head + t->nslots - t->used + k) % t->nslots]);
}

static void take(struct stacks *s, struct sthread *t, const unsigned char *p, size_t len)
{
	const unsigned char *end = p + len;
	struct slot h, *sl;
	uint32_t pt[2];
	uint64_t abi, size, dyn;

	if (len < 8 + 8 + 8 || !t->raw)
		return;
	memcpy(pt, p, 8);
	memcpy(&h.t_ns, p + 8, 8);
	p += 16;
	h.nk = 0;
	if (t->callchain) {
		uint64_t nr, ip;

		if ((size_t)(end - p) < 8)
			return;
		memcpy(&nr, p, 8);
		p += 8;
		if (nr > (size_t)(end - p) / 8)
			return;
		for (uint64_t i = 0; i < nr; i++, p += 8) {
			memcpy(&ip, p, 8);
			if (ip >= (uint64_t)PERF_CONTEXT_MAX)
				continue;	/* a context marker */
			if (h.nk < KDEPTH)
				h.kips[h.nk++] = ip;
		}
	}
	if ((size_t)(end - p) < 8)
		return;
	memcpy(&abi, p, 8);
	p += 8;
	if (abi == PERF_SAMPLE_REGS_ABI_NONE)
		return;	/* a kernel thread, or no user state */
	if ((size_t)(end - p) < 8 * NREGS + 8)
		return;
	memcpy(h.regs, p, 8 * NREGS);
	p += 8 * NREGS;
	memcpy(&size, p, 8);
	p += 8;
	if (size > STACK_COPY || (size_t)(end - p) < size + 8)
		return;
	memcpy(&dyn, p + size, 8);
	if (dyn > size)
		dyn = size;
	h.len = (uint32_t)dyn;
	h.tid = (int)pt[1];
	sl = reserve(t, slot_size(h.len));
	if (!sl)
		return;
	memcpy(sl, &h, sizeof(h));
	memcpy(sl + 1, p, dyn);
	s->st.samples++;
}

static void drain_thread(struct stacks *s, struct sthread *t)
{
	struct perf_event_mmap_page *mp = t->ring;
	unsigned char *data;
	uint64_t head, tail, size;

	if (!mp)
		return;
	data = (unsigned char *)mp + mp->data_offset;
	size = mp->data_size;
	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	tail = mp->data_tail;
	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		size_t off = tail % size, n;

		for (size_t i = 0; i < sizeof(h); i++)
			((unsigned char *)&h)[i] = data[(off + i) % size];
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		n = h.size - sizeof(h);
		if (h.type == PERF_RECORD_SAMPLE && n <= sizeof(s->rec)) {
			size_t o = (off + sizeof(h)) % size, first = size - o < n ? size - o : n;

			memcpy(s->rec, data + o, first);
			memcpy(s->rec + first, data, n - first);
			take(s, t, s->rec, n);
		} else if (h.type == PERF_RECORD_LOST && n >= 16) {
			uint64_t lost = 0;

			for (size_t i = 0; i < 8; i++)
				((unsigned char *)&lost)[i] = data[(off + sizeof(h) + 8 + i) % size];
			s->st.lost += lost;
		}
		tail += h.size;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
}

void stacks_drain(struct stacks *s)
{
	for (int k = 0; k < STACKS_THREADS; k++)
		drain_thread(s, &s->th[k]);
}

/* ---------------------------------------------------------------- unwinding */

static pid_t uw_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct uw *u = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = u;
	return u->cur->tid;
}

static bool uw_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	*thread_argp = arg;
	return true;
}

static bool uw_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct uw *u = arg;
	uint64_t sp = u->cur->regs[PR_SP];

	(void)dwfl;
	if (addr < sp || addr - sp + sizeof(*result) > u->cur->len)
		return false;
	memcpy(result, slot_stack(u->cur) + (addr - sp), sizeof(*result));
	return true;
}

static bool uw_set_initial_registers(Dwfl_Thread *th, void *arg)
{
	struct uw *u = arg;
	Dwarf_Word r[NREGS];

	for (int i = 0; i < NREGS; i++)
		r[sample_to_dwarf[i]] = u->cur->regs[i];
	return dwfl_thread_state_registers(th, 0, NREGS, r);
}

static const Dwfl_Thread_Callbacks uw_callbacks = {
	.next_thread = uw_next_thread,
	.get_thread = uw_get_thread,
	.memory_read = uw_memory_read,
	.set_initial_registers = uw_set_initial_registers,
};

/* The process being reported (dwfl's find_elf has no argument of ours; the
 * recorder reports from one thread). */
static __thread int report_pid;

/* As dwfl_linux_proc_find_elf, and a program deleted (or replaced) while it
 * runs, "PATH (deleted)" in maps, is read through /proc/PID/exe, which still
 * holds it, so that its symbols are there. */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	static const char suf[] = " (deleted)";
	size_t n = strlen(name);

	if (report_pid > 0 && n > sizeof(suf) - 1 && !strcmp(name + n - (sizeof(suf) - 1), suf)) {
		char path[64], exe[4096];
		ssize_t len;
		int fd;

		snprintf(path, sizeof(path), "/proc/%d/exe", report_pid);
		len = readlink(path, exe, sizeof(exe) - 1);
		if (len > 0) {
			exe[len] = 0;
			if (!strcmp(exe, name) && (fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0)
				return fd;
		}
	}
	return dwfl_linux_proc_find_elf(mod, userdata, name, base, file_name, elfp);
}

/*
 * No separate debug file is ever opened while recording: the unwinder has
 * the CFI of the mapped files themselves (.eh_frame, and .debug_frame where
 * a file keeps one), and names are the analysis' (symbolize.c finds debug
 * files by build-id). libdw asks for one when .eh_frame cannot take a
 * frame further, most often where the copied stack ends inside a library,
 * which the debug file's .debug_frame cannot help either; loading it
 * (libc6-dbg's libc: 3.7 MB mapped, 5.6 MB of sections decompressed) took
 * a sample's time and stayed for the recorder's life (9.5 MB of RSS grew
 * 7 minutes into a soak). The symbols of the few frames named now (a
 * deleted file, the vDSO) come from the file's own tables.
 */
static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			char **debuginfo_file_name)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name;
	(void)debuglink_file, (void)debuglink_crc;
	*debuginfo_file_name = NULL;
	return -1;
}

static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = no_debuginfo,
};

/* The text of the frame at ADJ (a PC inside the call) named now: its
 * symbol (demangled: linux/symbolize.h), FILE+0xOFF, or [unknown]. */
static void frame_name(struct uw *u, Dwarf_Addr adj, struct strbuf *sb)
{
	Dwfl_Module *m = dwfl_addrmodule(u->dwfl, adj);
	const char *sym = NULL, *mod = NULL;
	Dwarf_Addr start = 0;
	size_t at = sb->len;

	if (m) {
		sym = dwfl_module_addrname(m, adj);
		mod = dwfl_module_info(m, NULL, &start, NULL, NULL, NULL, NULL, NULL);
	}
	if (sym && *sym) {
		sym_demangle(sb, sym);
	} else if (mod) {
		const char *b = strrchr(mod, '/');

		/* libdw calls the vDSO "[vdso: PID]" */
		sb_addf(sb, "%s+0x%llx", !strncmp(mod, "[vdso", 5) ? "[vdso]" : b ? b + 1 : mod,
			(unsigned long long)(adj - start));
	} else {
		sb_adds(sb, "[unknown]");
	}
	/* a file's or a symbol's name is the program's to choose: no tab or
	 * newline in ours (the text of an older record's ustack event) */
	for (size_t i = at; i < sb->len; i++)
		if (sb->buf[i] == '\t' || sb->buf[i] == '\n')
			sb->buf[i] = ' ';
}

/* Keeps NAME (a copy) for the window; the copy, or NULL on ENOMEM. */
static const char *keep_name(struct stacks *s, const char *name)
{
	char *c = strdup(name);

	if (!c || ARRAY_GROW(s->wn, s->cap_wn, s->nwn + 1) < 0) {
		free(c);
		return NULL;
	}
	return s->wn[s->nwn++] = c;
}

/* The process's code mappings as /proc/PID/maps has them now. 0 or a
 * negative errno. */
static int maps_read(struct stacks *s, int pid)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		unsigned long long a, b, off;
		char perm[8];
		int at = 0;
		char *p;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &a, &b, perm, &off, &at) < 4 ||
		    !at || !strchr(perm, 'x'))
			continue;
		p = line + at;
		p[strcspn(p, "\n")] = 0;
		if (ARRAY_GROW(s->pm, s->cap_pm, s->npm + 1) < 0)
			break;
		s->pm[s->npm] = (struct pmap){ a, b, off, strdup(p), -2 };
		if (!s->pm[s->npm].path)
			break;
		s->npm++;
	}
	free(line);
	fclose(f);
	return 0;
}

static struct pmap *maps_find(struct stacks *s, uint64_t pc)
{
	size_t lo = 0, hi = s->npm;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->pm[mid].end <= pc)
			lo = mid + 1;
		else if (s->pm[mid].start > pc)
			hi = mid;
		else
			return &s->pm[mid];
	}
	return NULL;
}

static bool ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), k = strlen(suf);

	return n >= k && !strcmp(s + n - k, suf);
}

/* The window's index of the file of mapping M (whose code holds PC), or
 * -1 when its frames are to be named now: a file deleted (or replaced)
 * while the program runs, which will not be there for the analysis, or
 * one whose build-id cannot be read (nothing could check the file then). */
static int map_index(struct stacks *s, struct pmap *m, Dwarf_Addr pc)
{
	const unsigned char *bits;
	Dwfl_Module *mod;
	GElf_Addr vaddr;
	Dwarf_Addr bias;
	int n;

	if (m->wmap != -2)
		return m->wmap;
	m->wmap = -1;
	if (ends_with(m->path, " (deleted)"))
		return -1;
	for (size_t i = 0; i < s->nwm; i++)
		if (!strcmp(s->wm[i].path, m->path))
			return m->wmap = (int)i;
	mod = dwfl_addrmodule(s->u.dwfl, pc);
	if (!mod || !dwfl_module_getelf(mod, &bias))
		return -1;
	n = dwfl_module_build_id(mod, &bits, &vaddr);
	if (n <= 0 || n > 64 || ARRAY_GROW(s->wm, s->cap_wm, s->nwm + 1) < 0)
		return -1;
	s->wm[s->nwm].path = strdup(m->path);
	if (!s->wm[s->nwm].path)
		return -1;
	memcpy(s->wm[s->nwm].build_id, bits, (size_t)n);
	s->wm[s->nwm].build_id_len = (size_t)n;
	return m->wmap = (int)s->nwm++;
}

/* The frame at ADJ (a PC inside the call). */
static void frame_of(struct uw *u, Dwarf_Addr adj, struct stacks_frame *f)
{
	struct stacks *s = u->s;
	size_t h = (size_t)((adj * 0x9e3779b97f4a7c15ull) >> 54) % PC_CACHE;
	struct pmap *m;
	int wi = -1;

	if (u->pcs[h].used && u->pcs[h].pc == adj) {
		*f = u->pcs[h].f;
		return;
	}
	memset(f, 0, sizeof(*f));
	m = maps_find(s, adj);
	if (!m) {
		f->kind = REC_UF_UNKNOWN;
	} else if ((m->path[0] != '/' && strcmp(m->path, "[vdso]")) ||
		   !strncmp(m->path, "/memfd:", 7)) {
		f->kind = REC_UF_JIT;	/* code in memory of no file */
	} else if (m->path[0] == '/' && (wi = map_index(s, m, adj)) >= 0) {
		f->kind = REC_UF_ADDR;
		f->map = (uint32_t)wi;
		f->off = adj - m->start + m->pgoff;
	} else {
		struct strbuf sb = STRBUF_INIT;

		frame_name(u, adj, &sb);
		f->kind = REC_UF_NAMED;
		f->name = sb.buf ? keep_name(s, sb.buf) : NULL;
		if (!f->name)
			f->kind = REC_UF_UNKNOWN;
		sb_release(&sb);
	}
	u->pcs[h].pc = adj;
	u->pcs[h].f = *f;
	u->pcs[h].used = true;
}

static int uw_frame(Dwfl_Frame *st, void *arg)
{
	struct uw *u = arg;
	Dwarf_Addr pc, adj;
	bool act = false;

	if (!dwfl_frame_pc(st, &pc, &act))
		return DWARF_CB_ABORT;
	adj = act ? pc : pc - 1;
	frame_of(u, adj, &u->fr[u->nfr++]);
	return ++u->depth >= MAX_DEPTH ? DWARF_CB_ABORT : DWARF_CB_OK;
}

static bool frame_eq(const struct stacks_frame *a, const struct stacks_frame *b)
{
	if (a->kind != b->kind)
		return false;
	if (a->kind == REC_UF_ADDR)
		return a->map == b->map && a->off == b->off;
	if (a->kind == REC_UF_NAMED || a->kind == REC_UF_KERNEL)
		return !strcmp(a->name, b->name);
	return true;
}

/* Adds the stack in U->fr to the window's, one sample. 0 or -ENOMEM. */
static int add_stack(struct stacks *s, const struct uw *u)
{
	size_t i, k;

	for (i = 0; i < s->nws; i++) {
		if (s->ws[i].nframes != u->nfr)
			continue;
		for (k = 0; k < u->nfr && frame_eq(&s->ws[i].frames[k], &u->fr[k]); k++)
			;
		if (k == u->nfr)
			break;
	}
	if (i == s->nws) {
		struct stacks_frame *fr;

		if (ARRAY_GROW(s->ws, s->cap_ws, s->nws + 1) < 0)
			return -ENOMEM;
		fr = malloc(u->nfr * sizeof(*fr));
		if (!fr)
			return -ENOMEM;
		memcpy(fr, u->fr, u->nfr * sizeof(*fr));
		s->ws[s->nws++] = (struct stacks_stack){ .n = 0, .nframes = u->nfr, .frames = fr };
	}
	s->ws[i].n++;
	return 0;
}

static int ws_cmp(const void *a, const void *b)
{
	const struct stacks_stack *x = a, *y = b;

	return x->n != y->n ? (x->n < y->n ? 1 : -1) : 0;
}

/* A Dwfl for S's process with its modules as /proc/PID/maps has them now:
 * kept from stall to stall (modules re-reported with the same file and range
 * keep their ELF, CFI and symbol tables), made anew for a new process. */
static int dwfl_for(struct stacks *s, int pid, const struct slot *first)
{
	report_pid = pid;
	if (s->u.dwfl && s->dwfl_pid != pid)
		drop_dwfl(s);
	if (!s->u.dwfl) {
		s->u.dwfl = dwfl_begin(&proc_callbacks);
		if (!s->u.dwfl)
			return -ENOMEM;
		s->dwfl_pid = pid;
		if (dwfl_linux_proc_report(s->u.dwfl, pid) != 0 ||
		    dwfl_report_end(s->u.dwfl, NULL, NULL) != 0) {
			drop_dwfl(s);
			return -ESRCH;
		}
		s->u.cur = first;
		if (!dwfl_attach_state(s->u.dwfl, NULL, pid, &uw_callbacks, &s->u)) {
			drop_dwfl(s);
			return -ENOTSUP;
		}
		return 0;
	}
	dwfl_report_begin(s->u.dwfl);
	if (dwfl_linux_proc_report(s->u.dwfl, pid) != 0 ||
	    dwfl_report_end(s->u.dwfl, NULL, NULL) != 0) {
		drop_dwfl(s);
		return -ESRCH;
	}
	return 0;
}

int stacks_window(struct stacks *s, int which, uint64_t a_ns, uint64_t b_ns,
		  struct stacks_out *out)
{
	struct uw *u = &s->u;
	const struct sthread *t;
	int got = 0, e = 0;
	bool ready = false;

	memset(out, 0, sizeof(*out));
	if (which < 0 || which >= STACKS_THREADS)
		return -EINVAL;
	t = &s->th[which];
	/* the mappings may have changed since the last window */
	window_reset(s);
	if (!t->used || !t->pid)
		return 0;
	for (size_t k = 0; k < t->used && !e; k++) {
		const struct slot *sl = slot_at(t, k);
		size_t nk;

		if (sl->t_ns < a_ns || sl->t_ns > b_ns)
			continue;
		if (!ready) {
			e = dwfl_for(s, t->pid, sl);
			if (e < 0)
				break;
			maps_read(s, t->pid);
			ready = true;
		}
		u->cur = sl;
		u->depth = 0;
		u->nfr = 0;
		if (sl->nk && !s->ksyms_tried) {
			s->ksyms_tried = true;
			if (ksyms_load(NULL, &s->ksyms) < 0)
				s->ksyms = NULL;
		}
		for (uint32_t q = 0; q < sl->nk; q++) {
			const char *name = s->ksyms ? ksyms_find(s->ksyms, sl->kips[q]) : NULL;
			struct stacks_frame *f = &u->fr[u->nfr];

			if (!name) {
				char a[32];

				snprintf(a, sizeof(a), "0x%llx", (unsigned long long)sl->kips[q]);
				name = keep_name(s, a);
			}
			if (!name)
				continue;
			memset(f, 0, sizeof(*f));
			f->kind = REC_UF_KERNEL;
			f->name = name;
			u->nfr++;
		}
		nk = u->nfr;
		dwfl_getthread_frames(u->dwfl, sl->tid, uw_frame, u);
		if (u->nfr == nk) {	/* no user frame at all */
			memset(&u->fr[u->nfr], 0, sizeof(u->fr[0]));
			u->fr[u->nfr++].kind = REC_UF_UNKNOWN;
		}
		got++;
		e = add_stack(s, u);
	}
	if (s->nws > 1)
		qsort(s->ws, s->nws, sizeof(*s->ws), ws_cmp);
	s->st.unwound += (uint64_t)got;
	s->st.windows++;
	if (e)
		return e;
	out->nmaps = s->nwm;
	out->maps = s->wm;
	out->n = s->nws;
	out->st = s->ws;
	return got;
}

void stacks_stats(const struct stacks *s, struct stacks_stats *st)
{
	*st = s->st;
}

#else /* !SS_HAVE_LIBDW */

int stacks_supported(struct strbuf *why)
{
	sb_adds(why, "stacks: this build has no libdw (scripts/deps.sh build installs libdw-dev)");
	return 0;
}

int stacks_new(int hz, struct stacks **ret, struct strbuf *err)
{
	(void)hz;
	*ret = NULL;
	return sb_error(err, -ENOTSUP, "stacks: this build has no libdw (scripts/deps.sh build "
			"installs libdw-dev)");
}

void stacks_free(struct stacks *s)
{
	(void)s;
}

int stacks_set_thread(struct stacks *s, int which, int pid, int tid, struct strbuf *err)
{
	(void)s, (void)which, (void)pid, (void)tid, (void)err;
	return -ENOTSUP;
}

void stacks_drain(struct stacks *s)
{
	(void)s;
}

int stacks_window(struct stacks *s, int which, uint64_t a_ns, uint64_t b_ns,
		  struct stacks_out *out)
{
	(void)s, (void)which, (void)a_ns, (void)b_ns;
	memset(out, 0, sizeof(*out));
	return -ENOTSUP;
}

void stacks_stats(const struct stacks *s, struct stacks_stats *st)
{
	(void)s;
	memset(st, 0, sizeof(*st));
}

#endif
