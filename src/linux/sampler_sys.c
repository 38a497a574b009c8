// SPDX-License-Identifier: MIT
/*
 * sampler_sys.c: the system around the program: the disks under its root
 * file system and swap (their stat), pressure (PSI, system-wide and its
 * cgroup's), /proc/vmstat gated on the signals that it can have moved
 * (docs/FORMAT.md, "Sample fields", says why that is exact), /proc/stat and
 * meminfo, and the other processes watched by their stat: the display
 * server, kswapd0 and kcompactd0.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hot.h"
#include "linux/discover.h"
#include "linux/procparse.h"
#include "linux/sampler_int.h"

SS_HOT static void sample_other(struct sampler *s, struct other *o, bool slow)
{
	struct pp_task_stat st;
	ssize_t n;
	bool moved = true;

	if (o->pid == 0 || o->gone)
		return;
	if (o->has_clk) {
		int64_t c = sampler_cpu_clock(s, o->clk, C_OTHER_CLOCK);

		if (c >= 0) {
			moved = c != o->last_clk;
			o->last_clk = c;
			if (o->f_cpu >= 0)
				s->cur[o->f_cpu] = c;
		}
	}
	/* Its state and faults change only when it runs. */
	if (!moved && s->gate && !slow && !(s->nsample == 0)) {
		s->costs[C_OTHER_STAT].skipped++;
		return;
	}
	n = sampler_src_read(s, &o->stat, 1024, C_OTHER_STAT);
	if (n == -ESRCH || n == -ENOENT) {
		o->gone = true;
		if (o->f_state >= 0)
			s->cur[o->f_state] = 'X';
		sampler_note(s, true, o->pid, "%s (pid %d) gone", o->prefix, o->pid);
		return;
	}
	if (n < 0 || pp_task_stat(s->buf, (size_t)n, &st) < 0) {
		sampler_src_failed(s, &o->stat, n < 0 ? (int)n : -EINVAL, o->pid);
		return;
	}
	if (o->f_state >= 0)
		s->cur[o->f_state] = (unsigned char)st.state;
	if (o->f_majflt >= 0)
		s->cur[o->f_majflt] = (int64_t)st.majflt;
	if (!o->has_clk && o->f_cpu >= 0)
		s->cur[o->f_cpu] = (int64_t)((st.utime + st.stime) * s->tick_ns);
}

int sampler_setup_vmstat(struct sampler *s)
{
	int64_t vals[VM_N];
	bool found[VM_N];
	char path[PATH_SIZE];
	ssize_t n;
	int r;

	if (discover_path(path, sizeof(path), s->root, "/proc/vmstat") < 0 ||
	    sampler_src_open(s, &s->vmstat, path) < 0) {
		sampler_note(s, false, 0, "vmstat: cannot open /proc/vmstat");
		return 0;
	}
	n = sampler_src_read(s, &s->vmstat, BUF_SIZE, C_VMSTAT);
	if (n < 0) {
		sampler_note(s, false, 0, "vmstat: cannot read /proc/vmstat: %s", strerror((int)-n));
		sampler_src_close(&s->vmstat);
		return 0;
	}
	s->vm_names = calloc(VM_N, sizeof(*s->vm_names));
	s->vm_field = calloc(VM_N, sizeof(*s->vm_field));
	s->vm_vals = calloc(VM_N, sizeof(*s->vm_vals));
	if (!s->vm_names || !s->vm_field || !s->vm_vals)
		return -ENOMEM;
	for (size_t i = 0; i < VM_N; i++) {
		const char *one[1] = {field_vm_key[i]};

		vals[i] = -1;
		found[i] = pp_keyed(s->buf, (size_t)n, one, 1, &vals[i]) == 1;
	}
	for (size_t i = 0; i < VM_N; i++) {
		if (!found[i]) {
			sampler_note(s, false, 0, "vm.%s: not in /proc/vmstat on this kernel",
				 field_vm_key[i]);
			continue;
		}
		r = sampler_add_field(s, REC_INT, "%s", field_vm[i]);
		if (r < 0)
			return r;
		s->vm_names[s->nvm] = field_vm_key[i];
		s->vm_field[s->nvm] = r;
		s->nvm++;
	}
	return 0;
}

static int setup_psi(struct sampler *s, struct psi_src *p, enum psi_scope scope,
		     enum psi_res res, const char *dir, const char *file)
{
	char path[PATH_SIZE];
	struct pp_psi v;
	ssize_t n;
	int r;

	p->f_some = p->f_full = -1;
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (sampler_src_open(s, &p->f, path) < 0) {
		sampler_src_close(&p->f);
		return 1;
	}
	n = sampler_src_read(s, &p->f, 256, C_PSI);
	if (n < 0 || pp_psi(s->buf, (size_t)n, &v) < 0) {
		sampler_note(s, false, 0, "%s.%s: cannot read '%s': %s", field_psi_scope[scope],
			 field_psi_res[res], path, n < 0 ? strerror((int)-n) : "unexpected format");
		sampler_src_close(&p->f);
		return 1;
	}
	r = sampler_add_field(s, REC_INT, "%s", field_psi_some[scope][res]);
	if (r < 0)
		return r;
	p->f_some = r;
	if (res != PSI_CPU && v.has_full) {	/* the CPU's "full" is all zeros */
		r = sampler_add_field(s, REC_INT, "%s", field_psi_full[scope][res]);
		if (r < 0)
			return r;
		p->f_full = r;
	}
	return 0;
}

static int setup_other(struct sampler *s, enum other_proc which, int pid, bool majflt)
{
	struct other *o = &s->others[which];
	const char *prefix = field_other_prefix[which];
	int r;

	o->prefix = prefix;
	o->pid = 0;
	o->f_state = o->f_majflt = o->f_cpu = -1;
	sampler_src_init(&o->stat);
	if (pid <= 0)
		return 0;
	if (sampler_src_openf(s, &o->stat, "%s/proc/%d/stat", s->root, pid) < 0) {
		sampler_note(s, false, 0, "%s: cannot open /proc/%d/stat", prefix, pid);
		sampler_src_close(&o->stat);
		return 0;
	}
	o->pid = pid;
	o->has_clk = sampler_proc_clock(s, pid, &o->clk);
	o->last_clk = -1;
	if ((r = sampler_add_field(s, REC_INT, "%s.state", prefix)) < 0)
		return r;
	o->f_state = r;
	if (majflt) {
		if ((r = sampler_add_field(s, REC_INT, "%s.majflt", prefix)) < 0)
			return r;
		o->f_majflt = r;
	}
	if ((r = sampler_add_field(s, REC_INT, "%s.cpu_ns", prefix)) < 0)
		return r;
	o->f_cpu = r;
	return 0;
}

/* Mixes V into the signature H. Not a sum: in_flight goes down as rd_ios
 * goes up, and a sum would hide that both moved. */
static uint64_t mix(uint64_t h, int64_t v)
{
	h ^= (uint64_t)v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

SS_HOT uint64_t sampler_io_signal(const struct sampler *s)
{
	uint64_t h = 0;

	for (size_t i = 0; i < s->ndisks; i++) {
		const int64_t *d = s->cur + s->disks[i].base;

		h = mix(h, d[DF_RD_IOS]);
		h = mix(h, d[DF_WR_IOS]);
		h = mix(h, d[DF_IN_FLIGHT]);
	}
	h = mix(h, s->cur[s->th[TH_FT].base + TF_MAJFLT]);
	h = mix(h, s->cur[s->th[TH_FT2].base + TF_MAJFLT]);
	return h;
}

/* The signature of the signals that vmstat's counters can have moved: the
 * I/O signals, PSI memory and the process's major faults. */
SS_HOT static uint64_t vm_signal(const struct sampler *s)
{
	uint64_t h = sampler_io_signal(s);

	h = mix(h, s->psi[PSI_MEMORY].f_some >= 0 ? s->cur[s->psi[PSI_MEMORY].f_some] : 0);
	return mix(h, s->cur[s->f_proc[PF_MAJFLT]]);
}

SS_HOT void sampler_read_psi(struct sampler *s, struct psi_src *p, enum cost kind)
{
	struct pp_psi v;
	ssize_t n;

	if (p->f_some < 0)
		return;
	n = sampler_src_read(s, &p->f, 256, kind);
	if (n < 0 || pp_psi(s->buf, (size_t)n, &v) < 0) {
		sampler_src_failed(s, &p->f, n < 0 ? (int)n : -EINVAL, 0);
		return;
	}
	s->cur[p->f_some] = (int64_t)v.some_us;
	if (p->f_full >= 0)
		s->cur[p->f_full] = (int64_t)v.full_us;
}

int sampler_setup_disks(struct sampler *s, struct strbuf *why)
{
	struct disc_disk dd[MAX_DISKS];
	size_t nd = 0;
	int r;

	(void)discover_disks(s->root, s->o.pid, dd, MAX_DISKS, &nd, why);
	for (size_t i = 0; i < nd; i++) {
		struct disk *d = &s->disks[s->ndisks];
		char roles[32], key[96];

		sampler_src_init(&d->stat);
		if (sampler_src_openf(s, &d->stat, "%s/sys/class/block/%s/stat", s->root, dd[i].name) <
		    0) {
			sampler_note(s, false, 0, "disk %s: cannot open its stat", dd[i].name);
			sampler_src_close(&d->stat);
			continue;
		}
		memcpy(d->name, dd[i].name, sizeof(d->name)); /* both 64 bytes, NUL-terminated */
		for (int k = 0; k < DF_N; k++) {
			r = sampler_add_field(s, REC_INT, "%s%s.%s", FIELD_DISK_PREFIX, d->name,
					  field_disk_suffix[k]);
			if (r < 0)
				return r;
			if (k == 0)
				d->base = r;
		}
		discover_roles(dd[i].roles, roles, sizeof(roles));
		snprintf(key, sizeof(key), "%s%s", FIELD_DISK_PREFIX, d->name);
		sampler_add_meta(s, key, "%s", roles);
		s->ndisks++;
	}
	return 0;
}

/* Pressure, system-wide and the program's cgroup. */
int sampler_setup_pressure(struct sampler *s, struct strbuf *why)
{
	char dir[PATH_SIZE], file[32];
	bool any = false;
	int r;

	if (discover_path(dir, sizeof(dir), s->root, "/proc/pressure") < 0)
		return -ENAMETOOLONG;
	for (int i = 0; i < PSI_N; i++) {
		r = setup_psi(s, &s->psi[i], PSI_SYSTEM, i, dir, field_psi_res[i]);
		if (r < 0)
			return r;
		any |= r == 0;
	}
	if (!any)
		sampler_note(s, false, 0,
			 "psi: no /proc/pressure (kernel without CONFIG_PSI, or psi=0): psi.* "
			 "not recorded, vmstat read every sample");
	if (discover_cgroup(s->root, s->o.pid, dir, sizeof(dir), why) != 0)
		return 0;	/* s->cg stays as sampler_new made it: not declared */
	for (int i = 0; i < PSI_N; i++) {
		snprintf(file, sizeof(file), "%s.pressure", field_psi_res[i]);
		r = setup_psi(s, &s->cg[i], PSI_CGROUP, i, dir, file);
		if (r < 0)
			return r;
	}
	sampler_add_meta(s, "cgroup", "%s", dir);
	return 0;
}

/* The display server, kswapd0 and kcompactd0. */
int sampler_setup_others(struct sampler *s, struct strbuf *why)
{
	const char *kt_names[2] = { "kswapd0", "kcompactd0" };
	int kt_pids[2] = { 0, 0 }, srv_pid = 0, r;
	char srv_name[64];

	if (discover_display_server(s->root, &srv_pid, srv_name, sizeof(srv_name), why) == 0)
		sampler_add_meta(s, "srv", "%s %d", srv_name, srv_pid);
	if ((r = setup_other(s, OTHER_SRV, srv_pid, true)) < 0)
		return r;
	(void)discover_by_comm(s->root, kt_names, 2, kt_pids);
	if (!kt_pids[0])
		sampler_note(s, false, 0, "kswapd: no kswapd0 found");
	if (!kt_pids[1])
		sampler_note(s, false, 0, "kcompactd: no kcompactd0 found");
	if ((r = setup_other(s, OTHER_KSWAPD, kt_pids[0], false)) < 0)
		return r;
	return setup_other(s, OTHER_KCOMPACTD, kt_pids[1], false);
}

/* /proc/stat and /proc/meminfo, slow sources. */
int sampler_setup_sys(struct sampler *s)
{
	char path[PATH_SIZE];
	int r;

	if (discover_path(path, sizeof(path), s->root, "/proc/stat") == 0 &&
	    sampler_src_open(s, &s->sys_stat, path) == 0) {
		for (int i = 0; i < SYS_N; i++) {
			if ((r = sampler_add_field(s, REC_INT, "%s", field_sys[i])) < 0)
				return r;
			s->f_sys[i] = r;
		}
	} else {
		sampler_note(s, false, 0, "sys: cannot open /proc/stat");
		sampler_src_close(&s->sys_stat);
	}
	s->f_mem_avail = -1;
	if (discover_path(path, sizeof(path), s->root, "/proc/meminfo") == 0 &&
	    sampler_src_open(s, &s->meminfo, path) == 0) {
		if ((r = sampler_add_field(s, REC_INT, "%s", FIELD_SYS_MEM_AVAIL)) < 0)
			return r;
		s->f_mem_avail = r;
	} else {
		sampler_note(s, false, 0, "sys: cannot open /proc/meminfo");
		sampler_src_close(&s->meminfo);
	}
	return 0;
}

SS_HOT void sampler_read_disks(struct sampler *s)
{
	for (size_t i = 0; i < s->ndisks; i++) {
		struct disk *d = &s->disks[i];
		struct pp_blkstat b;
		int64_t *v = s->cur + d->base;
		ssize_t n = sampler_src_read(s, &d->stat, 512, C_DISK);

		if (n < 0 || pp_blkstat(s->buf, (size_t)n, &b) < 0) {
			sampler_src_failed(s, &d->stat, n < 0 ? (int)n : -EINVAL, 0);
			continue;
		}
		v[DF_RD_IOS] = (int64_t)b.rd_ios;
		v[DF_RD_SECTORS] = (int64_t)b.rd_sectors;
		v[DF_RD_TICKS] = (int64_t)b.rd_ticks;
		v[DF_WR_IOS] = (int64_t)b.wr_ios;
		v[DF_WR_SECTORS] = (int64_t)b.wr_sectors;
		v[DF_IN_FLIGHT] = (int64_t)b.in_flight;
		v[DF_IO_TICKS] = (int64_t)b.io_ticks;
	}
}

/* The display server every sample; kswapd and kcompactd when memory
 * pressure moved (their work is a memory stall), and on slow samples. */
SS_HOT void sampler_sample_others(struct sampler *s, bool slow, bool first, bool mem_moved)
{
	sample_other(s, &s->others[OTHER_SRV], slow);
	for (int i = OTHER_KSWAPD; i < OTHER_N; i++) {
		if (s->gate && !slow && !first && !mem_moved) {
			if (s->others[i].pid)
				s->costs[C_OTHER_CLOCK].skipped++;
			continue;
		}
		sample_other(s, &s->others[i], slow);
	}
}

/* vmstat, last: the signals it is gated on are fresh. */
SS_HOT void sampler_read_vmstat(struct sampler *s, bool slow)
{
	bool have_psi = s->psi[PSI_MEMORY].f_some >= 0;
	uint64_t sig;
	ssize_t n;

	if (!s->nvm)
		return;
	sig = vm_signal(s);
	if (s->gate && have_psi && !slow && s->gate_valid && sig == s->gate_sig) {
		s->costs[C_VMSTAT].skipped++;
		return;
	}
	n = sampler_src_read(s, &s->vmstat, BUF_SIZE, C_VMSTAT);
	if (n >= 0 && pp_keyed(s->buf, (size_t)n, s->vm_names, s->nvm, s->vm_vals) >= 0) {
		for (size_t i = 0; i < s->nvm; i++)
			s->cur[s->vm_field[i]] = s->vm_vals[i];
		s->gate_sig = sig;
		s->gate_valid = true;
	} else {
		sampler_src_failed(s, &s->vmstat, n < 0 ? (int)n : -EINVAL, 0);
	}
}

/* /proc/stat's CPU times and MemAvailable: slow samples. */
void sampler_read_sys(struct sampler *s)
{
	static const char *const mi[1] = { "MemAvailable" };
	struct pp_cpustat c;
	int64_t v;
	ssize_t n;

	if (s->f_sys[SYS_USER] >= 0) {
		n = sampler_src_read(s, &s->sys_stat, 512, C_SYS_STAT);
		if (n >= 0 && pp_cpustat(s->buf, (size_t)n, &c) == 0) {
			s->cur[s->f_sys[SYS_USER]] = (int64_t)((c.user + c.nice) * s->tick_ns);
			s->cur[s->f_sys[SYS_SYSTEM]] =
				(int64_t)((c.system + c.irq + c.softirq) * s->tick_ns);
			s->cur[s->f_sys[SYS_IDLE]] = (int64_t)(c.idle * s->tick_ns);
			s->cur[s->f_sys[SYS_IOWAIT]] = (int64_t)(c.iowait * s->tick_ns);
			s->cur[s->f_sys[SYS_STEAL]] = (int64_t)(c.steal * s->tick_ns);
		} else {
			sampler_src_failed(s, &s->sys_stat, n < 0 ? (int)n : -EINVAL, 0);
		}
	}
	if (s->f_mem_avail >= 0) {
		n = sampler_src_read(s, &s->meminfo, 512, C_MEMINFO);
		if (n >= 0 && pp_keyed(s->buf, (size_t)n, mi, 1, &v) == 1)
			s->cur[s->f_mem_avail] = v;
		else
			sampler_src_failed(s, &s->meminfo, n < 0 ? (int)n : -EINVAL, 0);
	}
}
