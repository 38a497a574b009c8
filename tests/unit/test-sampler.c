// SPDX-License-Identifier: MIT
/*
 * test-sampler.c: the sampler on a fake tree (exact values) and on a live
 * child process with a known thread layout: a main thread that sleeps, one
 * that spins, one blocked in read() on a pipe. Checks the declared fields,
 * what a blocked thread reads as (syscall, fd, fd target, wchan), the thread
 * snapshot, a kernel stack once blocked 50 ms (root only), a thread that
 * exits and a process that exits. No assertion depends on timing.
 */
#include "t.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "linux/sampler.h"
#include "t-sampler.h"

/* ---------------------------------------------------------------- fake tree */

static void test_fake_tree(void)
{
	struct sampler_opts o = {.pid = 1234, .root = t_fixture("tree-lvm"), .intern = intern};
	const struct sampler_field *f;
	const struct sampler_meta *m;
	struct sampler *s = NULL;
	int64_t *v;
	size_t nf, nm;
	bool found_roles = false;

	CHECK_INT(sampler_new(&o, &s), 0);
	if (!s)
		return;
	nf = sampler_fields(s, &f);
	v = calloc(nf, sizeof(*v));
	CHECK_INT(sampler_sample(s, 1000, v), 0);

	/* The frame thread (the main thread, blocked in read() on fd 3). */
	CHECK_INT(v[field(s, "ft.tid")], 1234);
	CHECK_INT(v[field(s, "ft.state")], 'S');
	CHECK_INT(v[field(s, "ft.minflt")], 2869);
	CHECK_INT(v[field(s, "ft.utime_ns")], 6 * 10000000ll);
	CHECK_INT(v[field(s, "ft.run_ns")], 10514577);
	CHECK_INT(v[field(s, "ft.wait_ns")], 8224901);
	CHECK_INT(v[field(s, "ft.slices")], 3);
	CHECK_INT(v[field(s, "ft.syscall")], 0);
	CHECK_INT(v[field(s, "ft.fd")], 3);
	CHECK_STR(str(v[field(s, "ft.fd_target")]), "/dev/dri/renderD128");
	CHECK_STR(str(v[field(s, "ft.wchan")]), "anon_pipe_read");
	CHECK_INT(f[field(s, "ft.wchan")].kind, REC_STR);
	CHECK_INT(v[field(s, "ft2.tid")], 0);
	CHECK_INT(v[field(s, "proc.threads")], 1);
	CHECK_INT(v[field(s, "proc.minflt")], 2869);

	/* Disks: dm-0, nvme0n1, zram0, sda; the fake stat files are alike. */
	CHECK(field(s, "disk.dm-0.rd_ios") >= 0);
	CHECK(field(s, "disk.zram1.rd_ios") < 0);
	CHECK_INT(v[field(s, "disk.nvme0n1.rd_ios")], 45511);
	CHECK_INT(v[field(s, "disk.sda.wr_sectors")], 922112);
	CHECK_INT(v[field(s, "disk.zram0.io_ticks")], 8492);

	CHECK_INT(v[field(s, "psi.memory.some_us")], 2000);
	CHECK_INT(v[field(s, "psi.io.full_us")], 900);
	CHECK(field(s, "psi.cpu.full_us") < 0);
	CHECK_INT(v[field(s, "cg.memory.full_us")], 500);
	CHECK_INT(v[field(s, "cg.cpu.some_us")], 1000);

	CHECK_INT(v[field(s, "srv.state")], 'S');
	CHECK_INT(v[field(s, "kswapd.state")], 'S');
	CHECK(field(s, "kcompactd.state") >= 0);

	/* GPU: i915's engines are declared from the driver; the fdinfo's render
	 * time counts once although two fds share its DRM client. */
	CHECK_INT(v[field(s, "gpu.render_ns")], 25662044495);
	CHECK_INT(v[field(s, "gpu.copy_ns")], 0);
	CHECK_INT(v[field(s, "gpu.other_ns")], 0);

	CHECK_INT(v[field(s, "vm.pgmajfault")], 411);
	CHECK_INT(v[field(s, "vm.pswpin")], 7);
	CHECK_INT(v[field(s, "sys.idle_ns")], 102780 * 10000000ll);
	CHECK_INT(v[field(s, "sys.mem_avail_kb")], 24339768);

	nm = sampler_meta(s, &m);
	for (size_t i = 0; i < nm; i++)
		if (strcmp(m[i].key, "disk.zram0") == 0)
			found_roles = strcmp(m[i].value, "swap,zram") == 0;
	CHECK(found_roles);
	CHECK(has_note(s, "zram1: not initialized"));
	{
		const struct rec_thread *th;

		CHECK_INT(sampler_threads(s, &th), 1);
		CHECK_STR(str(th[0].name), "game.x86_64");
		CHECK_INT(th[0].cpu_ns, 10514577);
	}
	/* Field names are unique. */
	for (size_t i = 0; i < nf; i++)
		for (size_t k = i + 1; k < nf; k++)
			if (strcmp(f[i].name, f[k].name) == 0)
				T_FAIL("field '%s' declared twice", f[i].name);
	free(v);
	sampler_free(s);

	o.pid = 4321;
	CHECK_INT(sampler_new(&o, &s), -ESRCH);
	o.intern = NULL;
	CHECK_INT(sampler_new(&o, &s), -EINVAL);
	sampler_free(NULL);
}

/* A gated sampler and an ungated one (no_gate, which reads every source
 * every sample) under O, and a row of values for each; false when one
 * could not be made (what was made is the caller's to free). */
static bool sampler_pair(struct sampler_opts *o, struct sampler **g, struct sampler **ng,
			 int64_t **v, int64_t **w)
{
	const struct sampler_field *f;

	CHECK_INT(sampler_new(o, g), 0);
	o->no_gate = true;
	CHECK_INT(sampler_new(o, ng), 0);
	if (!*g || !*ng)
		return false;
	*v = calloc(sampler_fields(*g, &f), sizeof(**v));
	*w = calloc(sampler_fields(*ng, &f), sizeof(**w));
	return *v && *w;
}

/* Fills in DIR, a mkdtemp template, with a copy of the fake tree that a
 * test may change. */
static bool tree_copy(char *dir)
{
	char cmd[8192];

	if (!mkdtemp(dir)) {
		T_FAIL("mkdtemp: %s", strerror(errno));
		return false;
	}
	snprintf(cmd, sizeof(cmd), "cp -a '%s/.' '%s'", t_fixture("tree-lvm"), dir);
	if (system(cmd) != 0) {
		T_FAIL("'%s' failed", cmd);
		return false;
	}
	return true;
}

static void tree_remove(const char *dir)
{
	char cmd[8192];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		T_FAIL("'%s' failed", cmd);
}

/* A file that could not be opened is noted with the open's own reason (not
 * a later read's EBADF): the fake tree without the thread's syscall file. */
static void test_open_error_noted(void)
{
	char dir[] = "/tmp/ss-test-sampler.XXXXXX", path[4096];
	struct sampler_opts o = {.pid = 1234, .intern = intern};
	const struct sampler_field *f;
	struct sampler *s = NULL;
	int64_t *v;

	if (!tree_copy(dir))
		return;
	snprintf(path, sizeof(path), "%s/proc/1234/task/1234/syscall", dir);
	CHECK_INT(unlink(path), 0);
	o.root = dir;
	CHECK_INT(sampler_new(&o, &s), 0);
	if (s) {
		v = calloc(sampler_fields(s, &f), sizeof(*v));
		CHECK_INT(sampler_sample(s, 1000, v), 0);
		CHECK_INT(v[field(s, "ft.syscall")], -2);
		CHECK(has_note(s, "task/1234/syscall': No such file or directory"));
		CHECK(!has_note(s, "Bad file descriptor"));
		free(v);
	}
	sampler_free(s);
	tree_remove(dir);
}

/* A thread whose stat says asleep but whose syscall file says "running" (it
 * woke between the two reads, and is asleep again by the state's second
 * read): where it slept is not known, -2, never -1 (which says "in no
 * syscall", a fault, and made a storm of reads look like disk faults). */
static void test_syscall_race(void)
{
	char dir[] = "/tmp/ss-test-sampler.XXXXXX", path[4096];
	struct sampler_opts o = {.pid = 1234, .intern = intern};
	const struct sampler_field *f;
	struct sampler *s = NULL;
	int64_t *v;
	FILE *fp;

	if (!tree_copy(dir))
		return;
	snprintf(path, sizeof(path), "%s/proc/1234/task/1234/syscall", dir);
	fp = fopen(path, "w");
	CHECK(fp != NULL);
	if (fp) {
		fputs("running\n", fp);
		fclose(fp);
	}
	o.root = dir;
	CHECK_INT(sampler_new(&o, &s), 0);
	if (s) {
		v = calloc(sampler_fields(s, &f), sizeof(*v));
		CHECK_INT(sampler_sample(s, 1000, v), 0);
		CHECK_INT(v[field(s, "ft.state")], 'S');
		CHECK_INT(v[field(s, "ft.syscall")], -2);
		CHECK_INT(v[field(s, "ft.fd")], -1);
		free(v);
	}
	sampler_free(s);
	tree_remove(dir);
}

/* ---------------------------------------------------------------- live */

static int pipe_fds[2];
static volatile int stop;

static void *spin(void *arg)
{
	(void)arg;
	while (!stop)
		;
	return NULL;
}

static void *reader(void *arg)
{
	char c;

	(void)arg;
	if (read(pipe_fds[0], &c, 1) < 0)
		return NULL;
	return NULL;
}

/* Whether thread TID of PID sleeps in a pipe read (its wchan says pipe). */
static bool reader_blocked(pid_t pid, pid_t tid)
{
	char path[64], buf[128] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/wchan", (int)pid, (int)tid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return strstr(buf, "pipe") != NULL;
}

/* The child: main sleeps; a spinner; a reader blocked on a pipe. Writes the
 * reader's tid to OUT. */
static void child(int out)
{
	pthread_t a, b;
	pid_t tid;

	pthread_create(&a, NULL, spin, NULL);
	pthread_create(&b, NULL, reader, NULL);
	pthread_setname_np(b, "reader thread");
	/* Find the reader's tid by its name among the tasks (tids are not
	 * next to the pid on a busy machine: others fork in between). */
	for (;;) {
		char path[300], buf[256];
		struct dirent *e;
		DIR *d = opendir("/proc/self/task");
		FILE *f;
		bool found = false;

		while (d && !found && (e = readdir(d))) {
			snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
			f = fopen(path, "r");
			if (!f)
				continue;
			if (fgets(buf, sizeof(buf), f) && strncmp(buf, "reader thread", 13) == 0) {
				tid = atoi(e->d_name);
				found = true;
			}
			fclose(f);
		}
		if (d)
			closedir(d);
		if (found)
			break;
		usleep(1000);
	}
	if (write(out, &tid, sizeof(tid)) != sizeof(tid))
		_exit(1);
	for (;;)
		pause();
}

static void test_live(void)
{
	struct sampler_opts o = {.intern = intern};
	const struct sampler_event *ev;
	struct sampler *s = NULL;
	int sync[2];
	pid_t pid, rtid = 0;
	int64_t *v;
	size_t nf, ne;
	const struct sampler_field *f;
	bool stack = false, gone = false;
	int r;

	if (pipe(pipe_fds) < 0 || pipe(sync) < 0) {
		T_FAIL("pipe: %s", strerror(errno));
		return;
	}
	pid = fork();
	if (pid == 0) {
		close(sync[0]);
		child(sync[1]);
		_exit(0);
	}
	close(sync[1]);
	if (read(sync[0], &rtid, sizeof(rtid)) != sizeof(rtid)) {
		T_FAIL("child did not start");
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return;
	}
	close(sync[0]);
	/* The reader has a name now but may not be in read() yet (on a loaded
	 * machine it may not have run at all): wait, 20 s at most. */
	for (int i = 0; i < 4000 && !reader_blocked(pid, rtid); i++)
		usleep(5000);

	o.pid = pid;
	o.profile = true;
	CHECK_INT(sampler_new(&o, &s), 0);
	if (!s) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return;
	}
	nf = sampler_fields(s, &f);
	v = calloc(nf, sizeof(*v));

	/* Sample 0 is slow: the thread snapshot has the three threads. */
	CHECK_INT(sampler_sample(s, 1000000000ull, v), 0);
	{
		const struct rec_thread *th;
		size_t n = sampler_threads(s, &th);
		bool named = false;

		CHECK_INT(n, 3);
		for (size_t i = 0; i < n; i++)
			named |= th[i].tid == (uint32_t)rtid &&
				 strcmp(str(th[i].name), "reader thread") == 0;
		CHECK(named);
	}
	CHECK_INT(v[field(s, "ft.tid")], pid);
	CHECK_INT(v[field(s, "proc.threads")], 3);
	CHECK(v[field(s, "proc.cpu_ns")] > 0);

	/* The reader as frame thread: blocked in read() on its pipe. */
	CHECK_INT(sampler_set_thread(s, 0, rtid), 0);
	CHECK_INT(sampler_set_thread(s, 1, 999999999), -ESRCH);
	CHECK_INT(sampler_set_thread(s, 2, rtid), -EINVAL);
	CHECK_INT(sampler_sample(s, 1010000000ull, v), 0);
	CHECK_INT(v[field(s, "ft.tid")], rtid);
	CHECK(v[field(s, "ft.state")] == 'S');
#if defined(__x86_64__)
	CHECK_INT(v[field(s, "ft.syscall")], SYS_read);
	CHECK_INT(v[field(s, "ft.fd")], pipe_fds[0]);
	CHECK(strncmp(str(v[field(s, "ft.fd_target")]), "pipe:[", 6) == 0);
#endif
	CHECK(strstr(str(v[field(s, "ft.wchan")]), "pipe") != NULL);
	CHECK_INT(sampler_threads(s, &(const struct rec_thread *){NULL}), 0);

	/* 60 ms later by the caller's clock: a kernel stack, when root. */
	CHECK_INT(sampler_sample(s, 1070000000ull, v), 0);
	ne = sampler_events(s, &ev);
	for (size_t i = 0; i < ne; i++)
		if (strcmp(ev[i].kind, "stack") == 0 && ev[i].tid == rtid)
			stack = strstr(ev[i].text, "pipe") != NULL;
	if (geteuid() == 0)
		CHECK(stack);
	else
		CHECK(has_note(s, "kernel stacks: not root"));
	/* The next stack comes 250 ms after the first, not sooner. */
	CHECK_INT(sampler_sample(s, 1100000000ull, v), 0);
	ne = sampler_events(s, &ev);
	for (size_t i = 0; i < ne; i++)
		CHECK(strcmp(ev[i].kind, "stack") != 0);

	/* The reader returns and exits: its state reads 'X' and a note says so. */
	if (write(pipe_fds[1], "x", 1) != 1)
		T_FAIL("write");
	for (int i = 0; i < 4000 && !gone; i++) {	/* 20 s at most */
		usleep(5000);
		CHECK_INT(sampler_sample(s, 1200000000ull + (uint64_t)i * 100000ull, v), 0);
		ne = sampler_events(s, &ev);
		for (size_t k = 0; k < ne; k++)
			gone |= strcmp(ev[k].kind, "note") == 0 && strstr(ev[k].text, "gone");
	}
	CHECK(gone);
	CHECK_INT(v[field(s, "ft.state")], 'X');
	CHECK_INT(sampler_set_thread(s, 0, pid), 0);

	/* The process exits: the sample says so, before and after the reap. */
	kill(pid, SIGKILL);
	r = 0;
	for (int i = 0; i < 4000 && r == 0; i++) {	/* 20 s at most */
		usleep(5000);
		r = sampler_sample(s, 3000000000ull, v);
	}
	CHECK_INT(r, -ESRCH);
	waitpid(pid, NULL, 0);
	CHECK_INT(sampler_sample(s, 3010000000ull, v), -ESRCH);
	{
		const struct sampler_cost *c;
		size_t n = sampler_costs(s, &c);
		uint64_t reads = 0;

		for (size_t i = 0; i < n; i++)
			reads += c[i].reads;
		CHECK(reads > 0);
	}
	free(v);
	sampler_free(s);
}

/* Writes TEXT into DIR/REL (a file of the copied fake tree). */
static void put(const char *dir, const char *rel, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	if (!f) {
		T_FAIL("cannot write '%s'", path);
		return;
	}
	fputs(text, f);
	fclose(f);
}

/* The gates, on a copy of the fake tree whose files the test changes: vmstat
 * moving alone is not read until a signal moves or a slow sample comes; a
 * disk read brings it in the same sample; no_gate reads it every time. */
static void test_gates(void)
{
	char dir[] = "/tmp/ss-test-sampler.XXXXXX";
	struct sampler_opts o = {.pid = 1234, .intern = intern};
	struct sampler *g = NULL, *ng = NULL;
	int64_t *v = NULL, *w = NULL;
	int vm, proc_min;
	const char *vm1 = "pgmajfault 500\npswpin 7\npgscan_direct 1\n";
	const char *vm2 = "pgmajfault 600\npswpin 7\npgscan_direct 2\n";
	const char *disk2 = "   45512     7774  3662570    13655     9688    11401   922112     "
			    "2790        0     8492    17589     5530       76   194912      889 "
			    "    1108      254\n";

	if (!tree_copy(dir))
		return;
	o.root = dir;
	o.slow_every = 100;
	if (!sampler_pair(&o, &g, &ng, &v, &w))
		goto out;
	vm = field(g, "vm.pgmajfault");
	proc_min = field(g, "proc.minflt");
	CHECK_INT(sampler_sample(g, 1, v), 0); /* slow: reads all */
	CHECK_INT(v[vm], 411);

	/* vmstat and the process's stat move, no signal does. */
	put(dir, "proc/vmstat", vm1);
	put(dir, "proc/1234/stat",
	    "1234 (game.x86_64) S 1 1 1 0 -1 4194304 3000 0 0 0 6 4 0 0 "
	    "20 0 1 0 62870 16965632 3347 18446744073709551615 1 1 1 0 0 0 "
	    "0 0 0 1 0 0 17 1 0 0 0 0 0\n");
	CHECK_INT(sampler_sample(g, 2, v), 0);
	CHECK_INT(sampler_sample(ng, 2, w), 0);
	CHECK_INT(v[vm], 411); /* gated: kept, as no signal moved */
	CHECK_INT(v[proc_min], 2869); /* the same gate, on the disks' counters */
	CHECK_INT(w[vm], 500); /* ungated: read */
	CHECK_INT(w[proc_min], 3000);

	/* A read on a watched disk: both gates open in the same sample (the
	 * program's thread ran: a process's stat moves only then,
	 * test_quiet_process). */
	put(dir, "sys/devices/virtual/block/zram0/stat", disk2);
	put(dir, "proc/1234/task/1234/schedstat", "10600000 8224901 4\n");
	CHECK_INT(sampler_sample(g, 3, v), 0);
	CHECK_INT(v[vm], 500);
	CHECK_INT(v[proc_min], 3000);
	CHECK_INT(v[field(g, "vm.pgscan_direct")], 1);

	/* PSI memory moving opens the vmstat gate (the thread ran: a program
	 * that did not has the disks and PSI unread, test_quiet_system). */
	put(dir, "proc/1234/task/1234/schedstat", "10700000 8224901 5\n");
	put(dir, "proc/vmstat", vm2);
	put(dir, "proc/pressure/memory",
	    "some avg10=0.00 avg60=0.00 avg300=0.00 total=2100\n"
	    "full avg10=0.00 avg60=0.00 avg300=0.00 total=900\n");
	CHECK_INT(sampler_sample(g, 4, v), 0);
	CHECK_INT(v[vm], 600);
	CHECK_INT(v[field(g, "vm.pgscan_direct")], 2);
	{
		const struct sampler_cost *c;
		size_t n = sampler_costs(g, &c);
		uint64_t skipped = 0;

		for (size_t i = 0; i < n; i++)
			if (strcmp(c[i].source, "vmstat") == 0)
				skipped = c[i].skipped;
		CHECK_INT(skipped, 1);
	}
	free(v);
	free(w);
out:
	sampler_free(g);
	sampler_free(ng);
	tree_remove(dir);
}

/* The wchan gate: a thread that ran and blocked again in the same call (the
 * same syscall line) keeps its wchan; a new line reads it; no_gate always
 * reads it and counts the moved value the gate would have kept. And a frame
 * thread that turns zombie makes the process's stat be read at once, which
 * ends the run when the process has gone. */
static void test_wchan_gate(void)
{
	char dir[] = "/tmp/ss-test-sampler.XXXXXX";
	struct sampler_opts o = {.pid = 1234, .intern = intern, .slow_every = 100};
	struct sampler *g = NULL, *ng = NULL;
	const struct sampler_cost *c;
	int64_t *v = NULL, *w = NULL;
	int wchan;
	size_t n;

	if (!tree_copy(dir))
		return;
	o.root = dir;
	if (!sampler_pair(&o, &g, &ng, &v, &w))
		goto out;
	wchan = field(g, "ft.wchan");
	CHECK_INT(sampler_sample(g, 1, v), 0);
	CHECK_INT(sampler_sample(ng, 1, w), 0);
	CHECK_STR(str(v[wchan]), "anon_pipe_read");

	/* It ran (schedstat moved) and sleeps in the same call, at a wchan
	 * that differs (a made-up case): the gate keeps the old one. */
	put(dir, "proc/1234/task/1234/schedstat", "10600000 8224901 4\n");
	put(dir, "proc/1234/task/1234/wchan", "futex_wait_queue");
	CHECK_INT(sampler_sample(g, 2, v), 0);
	CHECK_INT(sampler_sample(ng, 2, w), 0);
	CHECK_STR(str(v[wchan]), "anon_pipe_read");
	CHECK_STR(str(w[wchan]), "futex_wait_queue");
	n = sampler_costs(ng, &c);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(c[i].source, "task wchan") == 0) {
			CHECK_INT(c[i].would_skip, 1);
			CHECK_INT(c[i].missed, 1);
		}
	}

	/* It ran again and sleeps in another call: wchan is read. */
	put(dir, "proc/1234/task/1234/schedstat", "10700000 8224901 5\n");
	put(dir, "proc/1234/task/1234/syscall",
	    "202 0x7f8bd2c9d9d0 0x80 0x2 0x0 0x0 0x0 0x7ffd1d22d4a8 0x7f8bd34b82ad\n");
	CHECK_INT(sampler_sample(g, 3, v), 0);
	CHECK_STR(str(v[wchan]), "futex_wait_queue");
	CHECK_INT(v[field(g, "ft.syscall")], 202);

	/* The process ends: its only thread a zombie, then the process. It
	 * ran to exit (schedstat moves: a sleeping thread is read no more,
	 * test_quiet_thread). */
	put(dir, "proc/1234/task/1234/schedstat", "10800000 8224901 6\n");
	put(dir, "proc/1234/task/1234/stat",
	    "1234 (game.x86_64) Z 1 1 1 0 -1 4194304 2869 0 0 0 6 4 0 0 "
	    "20 0 1 0 62870 0 0 18446744073709551615 0 0 0 0 0 0 "
	    "0 0 0 0 0 0 17 1 0 0 0 0 0\n");
	put(dir, "proc/1234/stat",
	    "1234 (game.x86_64) Z 1 1 1 0 -1 4194304 2869 0 0 0 6 4 0 0 "
	    "20 0 1 0 62870 0 0 18446744073709551615 0 0 0 0 0 0 "
	    "0 0 0 0 0 0 17 1 0 0 0 0 0\n");
	CHECK_INT(sampler_sample(g, 4, v), -ESRCH);
out:
	free(v);
	free(w);
	sampler_free(g);
	sampler_free(ng);
	tree_remove(dir);
}

/* Issue 31: a thread blocked at the last read whose schedstat (run time,
 * slices) did not move has not run, so nothing of it changed: the sample
 * reads nothing more of it (the task stat's skips count it), and its fields
 * stay as they were: sleeping. The fake tree then changes the task's stat
 * without moving schedstat, which no kernel does (a task leaves S only by
 * being woken and switched in), to see that nothing was read. When
 * schedstat moves, the sample reads it at once. A slow sample reads it
 * all regardless; no_gate always. */
static void test_quiet_thread(void)
{
	char dir[] = "/tmp/ss-test-sampler.XXXXXX";
	struct sampler_opts o = {.pid = 1234, .intern = intern, .slow_every = 5};
	struct sampler *g = NULL, *ng = NULL;
	const struct sampler_cost *c;
	int64_t *v = NULL, *w = NULL;
	const char *running = "1234 (game.x86_64) R 13484 13484 3698 0 -1 4194304 2900 6494 0 0 "
			      "9 4 11 24 20 0 1 0 62870 16965632 3347 18446744073709551615 0 0 0 "
			      "0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
	int state, minflt, run;
	int64_t run_before;
	uint64_t skipped = 0;
	size_t n;

	if (!tree_copy(dir))
		return;
	o.root = dir;
	if (!sampler_pair(&o, &g, &ng, &v, &w))
		goto out;
	state = field(g, "ft.state");
	minflt = field(g, "ft.minflt");
	run = field(g, "ft.run_ns");
	CHECK_INT(sampler_sample(g, 1, v), 0);	/* slow: all read */
	CHECK_INT(sampler_sample(ng, 1, w), 0);
	CHECK_INT(v[state], 'S');
	CHECK_INT(v[minflt], 2869);
	CHECK_INT(sampler_sample(g, 2, v), 0);	/* quiet */
	CHECK_INT(v[state], 'S');

	/* the stat alone changes: not read, as schedstat says it did not run */
	put(dir, "proc/1234/task/1234/stat", running);
	CHECK_INT(sampler_sample(g, 3, v), 0);
	CHECK_INT(sampler_sample(ng, 3, w), 0);
	CHECK_INT(v[state], 'S');
	CHECK_INT(v[minflt], 2869);
	CHECK_INT(w[state], 'R');	/* no_gate: read */
	n = sampler_costs(g, &c);
	for (size_t i = 0; i < n; i++)
		if (strcmp(c[i].source, "task stat") == 0)
			skipped = c[i].skipped;
	CHECK_INT(skipped, 2);

	/* it ran: seen at once */
	run_before = v[run];
	put(dir, "proc/1234/task/1234/schedstat", "10600000 8224901 4\n");
	CHECK_INT(sampler_sample(g, 4, v), 0);
	CHECK_INT(v[state], 'R');
	CHECK_INT(v[minflt], 2900);
	CHECK_INT(v[run] - run_before, 10600000 - 10514577);

	/* running: read every sample, even when schedstat stands still (a
	 * thread on a CPU since the last tick) */
	put(dir, "proc/1234/task/1234/stat",
	    "1234 (game.x86_64) S 13484 13484 3698 0 -1 4194304 2950 6494 0 0 "
	    "9 4 11 24 20 0 1 0 62870 16965632 3347 18446744073709551615 0 0 0 "
	    "0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n");
	CHECK_INT(sampler_sample(g, 5, v), 0);
	CHECK_INT(v[state], 'S');
	CHECK_INT(v[minflt], 2950);

	/* asleep again and quiet; a slow sample (the 6th: 5 % 5) reads it */
	put(dir, "proc/1234/task/1234/stat", running);
	CHECK_INT(sampler_sample(g, 6, v), 0);	/* the 6th sample: slow */
	CHECK_INT(v[state], 'R');
out:
	free(v);
	free(w);
	sampler_free(g);
	sampler_free(ng);
	tree_remove(dir);
}

/* Issue 31: a process whose every thread is sampled and quiet has not run,
 * so its stat (faults, times, thread count) is as it was: a watched disk
 * moving (another program's I/O) does not make the sample read it. The
 * fake tree changes the process's stat without its thread running, which
 * no kernel does, to see that it was not read; the fields then equal what
 * the last read gave. Once the thread runs, the same disk signal reads it.
 * A process with a thread that is not sampled is read as before, and
 * no_gate reads it every time. */
static void test_quiet_process(void)
{
	char dir[] = "/tmp/ss-test-sampler.XXXXXX";
	struct sampler_opts o = {.pid = 1234, .intern = intern, .slow_every = 100};
	struct sampler *g = NULL, *ng = NULL;
	int64_t *v = NULL, *w = NULL;
	int proc_min, threads;
	const char *disk2 = "   45512     7774  3662570    13655     9688    11401   922112     "
			    "2790        0     8492    17589     5530       76   194912      889 "
			    "    1108      254\n";
	const char *disk3 = "   45513     7774  3662570    13655     9688    11401   922112     "
			    "2790        0     8492    17589     5530       76   194912      889 "
			    "    1108      254\n";
	const char *disk4 = "   45514     7774  3662570    13655     9688    11401   922112     "
			    "2790        0     8492    17589     5530       76   194912      889 "
			    "    1108      254\n";
	const char *two = "1234 (game.x86_64) S 1 1 1 0 -1 4194304 3100 0 0 0 6 4 0 0 "
			  "20 0 2 0 62870 16965632 3347 18446744073709551615 1 1 1 0 0 0 "
			  "0 0 0 1 0 0 17 1 0 0 0 0 0\n";

	if (!tree_copy(dir))
		return;
	o.root = dir;
	if (!sampler_pair(&o, &g, &ng, &v, &w))
		goto out;
	proc_min = field(g, "proc.minflt");
	threads = field(g, "proc.threads");
	CHECK(threads >= 0);
	if (threads < 0)
		goto out;
	CHECK_INT(sampler_sample(g, 1, v), 0);	/* all read */
	CHECK_INT(v[proc_min], 2869);
	CHECK_INT(v[threads], 1);

	/* another program reads the disk; the program's one thread is asleep */
	put(dir, "proc/1234/stat",
	    "1234 (game.x86_64) S 1 1 1 0 -1 4194304 3000 0 0 0 6 4 0 0 "
	    "20 0 1 0 62870 16965632 3347 18446744073709551615 1 1 1 0 0 0 "
	    "0 0 0 1 0 0 17 1 0 0 0 0 0\n");
	put(dir, "sys/devices/virtual/block/zram0/stat", disk2);
	CHECK_INT(sampler_sample(g, 2, v), 0);
	CHECK_INT(sampler_sample(ng, 2, w), 0);
	CHECK_INT(v[proc_min], 2869);	/* not read: nothing of it ran */
	CHECK_INT(w[proc_min], 3000);	/* no_gate: read */

	/* it ran: the disk's signal reads the process's stat again */
	put(dir, "proc/1234/task/1234/schedstat", "10600000 8224901 4\n");
	put(dir, "sys/devices/virtual/block/zram0/stat", disk3);
	CHECK_INT(sampler_sample(g, 3, v), 0);
	CHECK_INT(v[proc_min], 3000);

	/* two threads, one of them not sampled: a quiet frame thread says
	 * nothing of the other, so the disk's signal reads the stat */
	put(dir, "proc/1234/stat", two);
	put(dir, "proc/1234/task/1234/schedstat", "10700000 8224901 5\n");
	put(dir, "sys/devices/virtual/block/zram0/stat", disk4);
	CHECK_INT(sampler_sample(g, 4, v), 0);
	CHECK_INT(v[threads], 2);
	CHECK_INT(v[proc_min], 3100);
	put(dir, "proc/1234/stat",
	    "1234 (game.x86_64) S 1 1 1 0 -1 4194304 3200 0 0 0 6 4 0 0 "
	    "20 0 2 0 62870 16965632 3347 18446744073709551615 1 1 1 0 0 0 "
	    "0 0 0 1 0 0 17 1 0 0 0 0 0\n");
	put(dir, "sys/devices/virtual/block/zram0/stat", disk2);
	CHECK_INT(sampler_sample(g, 5, v), 0);	/* frame thread quiet */
	CHECK_INT(v[proc_min], 3200);
out:
	free(v);
	free(w);
	sampler_free(g);
	sampler_free(ng);
	tree_remove(dir);
}

/* Writes a disk's stat with RD_IOS reads into DIR/REL. */
static void put_disk(const char *dir, const char *rel, int rd_ios)
{
	char text[512];

	snprintf(text, sizeof(text),
		 "   %d     7774  3662570    13655     9688    11401   922112     "
		 "2790        0     8492    17589     5530       76   194912      889 "
		 "    1108      254\n", rd_ios);
	put(dir, rel, text);
}

/* The skips and reads counted for SRC (sampler_costs' source name) so far. */
static uint64_t skips_of(struct sampler *s, const char *src)
{
	return cost_of(s, src).skipped;
}

static uint64_t reads_of(struct sampler *s, const char *src)
{
	return cost_of(s, src).reads;
}

/* Do V and W (two samplers' samples of one tree) agree on every field of
 * the frame threads (ft.*, ft2.*)? (The process's are gated on their own,
 * test_quiet_process.) */
static bool same_program(struct sampler *s, const int64_t *v, const int64_t *w)
{
	return same_fields(s, v, w, "ft");
}

/* Issue 31: a program whose every thread is sampled, quiet and asleep in S
 * did no I/O and made no memory stall, so the disks and PSI are not read
 * (exact mode's gate, from what the snapshot sampler knows): another
 * program's read and pressure show when a thread runs or at the next slow
 * sample. A thread in D reads them every sample. The program's own fields
 * are those the ungated sampler reads, sample for sample. */
static void test_quiet_system(void)
{
	char dir[] = "/tmp/ss-test-sampler.XXXXXX";
	struct sampler_opts o = {.pid = 1234, .intern = intern, .slow_every = 5};
	struct sampler *g = NULL, *ng = NULL;
	int64_t *v = NULL, *w = NULL;
	int rd, psi;
	const char *zram = "sys/devices/virtual/block/zram0/stat";
	const char *sleeping = "1234 (game.x86_64) S 13484 13484 3698 0 -1 4194304 2869 6494 0 0 "
			       "6 4 11 24 20 0 1 0 62870 16965632 3347 18446744073709551615 0 0 0 "
			       "0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
	const char *in_d = "1234 (game.x86_64) D 13484 13484 3698 0 -1 4194304 2869 6494 0 0 "
			   "6 4 11 24 20 0 1 0 62870 16965632 3347 18446744073709551615 0 0 0 "
			   "0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
	int k = 0;

	if (!tree_copy(dir))
		return;
	o.root = dir;
	if (!sampler_pair(&o, &g, &ng, &v, &w))
		goto out;
	rd = field(g, "disk.zram0.rd_ios");
	psi = field(g, "psi.memory.some_us");
#define BOTH()                                                     \
	do {                                                       \
		k++;                                               \
		CHECK_INT(sampler_sample(g, (uint64_t)k, v), 0);   \
		CHECK_INT(sampler_sample(ng, (uint64_t)k, w), 0);  \
		CHECK(same_program(g, v, w));                      \
	} while (0)
	BOTH();	/* slow: all read */
	CHECK_INT(v[rd], 45511);

	/* another program reads the disk and stalls on memory: kept */
	put_disk(dir, zram, 45512);
	put(dir, "proc/pressure/memory",
	    "some avg10=0.00 avg60=0.00 avg300=0.00 total=2100\n"
	    "full avg10=0.00 avg60=0.00 avg300=0.00 total=900\n");
	BOTH();
	CHECK_INT(v[rd], 45511);
	CHECK_INT(v[psi], 2000);
	CHECK_INT(w[rd], 45512);	/* no_gate: read */
	CHECK_INT(w[psi], 2100);
	BOTH();
	CHECK_INT(v[rd], 45511);
	CHECK_INT(skips_of(g, "disk stat"), 2);

	/* the thread runs and sleeps again: read */
	put(dir, "proc/1234/task/1234/schedstat", "10600000 8224901 4\n");
	BOTH();
	CHECK_INT(v[rd], 45512);
	CHECK_INT(v[psi], 2100);

	/* quiet again: kept, until the slow sample (the 6th) */
	put_disk(dir, zram, 45513);
	BOTH();
	CHECK_INT(v[rd], 45512);
	BOTH();
	CHECK_INT(v[rd], 45513);

	/* it runs and blocks in D: the disks are read while it stays there */
	put(dir, "proc/1234/task/1234/schedstat", "10700000 8224901 5\n");
	put(dir, "proc/1234/task/1234/stat", in_d);
	BOTH();
	CHECK_INT(v[field(g, "ft.state")], 'D');
	put_disk(dir, zram, 45514);
	BOTH();	/* quiet, in D */
	CHECK_INT(v[rd], 45514);
	CHECK_INT(skips_of(g, "disk stat"), 3);

	/* it runs, makes a thread (the process's stat, not read as no disk
	 * moved, says 2) and sleeps in S: the thread count read before it ran
	 * says nothing of what it made, so the disks are read */
	put(dir, "proc/1234/task/1234/schedstat", "10800000 8224901 6\n");
	put(dir, "proc/1234/task/1234/stat", sleeping);
	put(dir, "proc/1234/stat",
	    "1234 (game.x86_64) S 1 1 1 0 -1 4194304 2869 0 0 0 6 4 0 0 "
	    "20 0 2 0 62870 16965632 3347 18446744073709551615 1 1 1 0 0 0 "
	    "0 0 0 1 0 0 17 1 0 0 0 0 0\n");
	BOTH();
	CHECK_INT(v[field(g, "proc.threads")], 1);	/* not read */
	put_disk(dir, zram, 45515);
	BOTH();	/* quiet, in S: the new thread reads */
	CHECK_INT(v[rd], 45515);
#undef BOTH
out:
	free(v);
	free(w);
	sampler_free(g);
	sampler_free(ng);
	tree_remove(dir);
}

/* The text of thread TID's "stack" event in the last sample, or NULL. */
static const char *stack_of(struct sampler *s, int tid)
{
	const struct sampler_event *ev;
	size_t n = sampler_events(s, &ev);

	for (size_t i = 0; i < n; i++)
		if (strcmp(ev[i].kind, "stack") == 0 && ev[i].tid == tid)
			return ev[i].text;
	return NULL;
}

/* Issue 31: a quiet thread's kernel stack is what it was at the last read
 * (a task's stack moves only while it runs): a stack due then is that text
 * again, the same event, not a read. The fake tree changes the stack file
 * while schedstat stands still, which no kernel does, to see that it was
 * not read; once schedstat moves, the next stack due is read. Root only
 * (kernel stacks are). */
static void test_quiet_stack(void)
{
	char dir[] = "/tmp/ss-test-sampler.XXXXXX";
	struct sampler_opts o = {.pid = 1234, .intern = intern, .slow_every = 1000};
	struct sampler *g = NULL;
	const struct sampler_field *f;
	const struct sampler_cost *c;
	const char *st;
	uint64_t ms = 1000000, skipped = 0;
	int64_t *v = NULL;
	size_t n;

	if (geteuid() != 0) {
		fprintf(stderr, "skip: test_quiet_stack: kernel stacks are read as root only\n");
		return;
	}
	if (!tree_copy(dir))
		return;
	put(dir, "proc/1234/task/1234/stack", "[<0>] pipe_read+0x2f8/0x480\n[<0>] vfs_read+0x2f6/0x340\n");
	o.root = dir;
	CHECK_INT(sampler_new(&o, &g), 0);
	if (!g)
		goto out;
	v = calloc(sampler_fields(g, &f), sizeof(*v));
	CHECK_INT(sampler_sample(g, 10 * ms, v), 0);	/* blocked: read whole */
	CHECK(stack_of(g, 1234) == NULL);		/* not 50 ms yet */
	CHECK_INT(sampler_sample(g, 70 * ms, v), 0);	/* quiet; its first stack */
	st = stack_of(g, 1234);
	CHECK_STR(st ? st : "", "pipe_read+0x2f8/0x480\nvfs_read+0x2f6/0x340\n");

	/* still quiet: the stack due 250 ms later is the same text, unread */
	put(dir, "proc/1234/task/1234/stack", "[<0>] do_sys_poll+0x1/0x2\n");
	CHECK_INT(sampler_sample(g, 200 * ms, v), 0);
	CHECK(stack_of(g, 1234) == NULL);		/* not due */
	CHECK_INT(sampler_sample(g, 330 * ms, v), 0);
	st = stack_of(g, 1234);
	CHECK_STR(st ? st : "", "pipe_read+0x2f8/0x480\nvfs_read+0x2f6/0x340\n");
	n = sampler_costs(g, &c);
	for (size_t i = 0; i < n; i++)
		if (strcmp(c[i].source, "task stack") == 0)
			skipped = c[i].skipped;
	CHECK_INT(skipped, 1);

	/* it ran and sleeps again: a new episode, its stack read */
	put(dir, "proc/1234/task/1234/schedstat", "10600000 8224901 4\n");
	CHECK_INT(sampler_sample(g, 340 * ms, v), 0);
	CHECK(stack_of(g, 1234) == NULL);		/* a new episode: 50 ms */
	CHECK_INT(sampler_sample(g, 400 * ms, v), 0);
	st = stack_of(g, 1234);
	CHECK_STR(st ? st : "", "do_sys_poll+0x1/0x2\n");
out:
	free(v);
	sampler_free(g);
	tree_remove(dir);
}

/* A process that execs: the sampler keeps reading it (same pid, new comm),
 * never fails, and ends with -ESRCH when it exits. */
static void test_exec(void)
{
	struct sampler_opts o = {.intern = intern, .slow_every = 2};
	struct sampler *s = NULL;
	const struct sampler_field *f;
	const struct rec_thread *th;
	bool renamed = false;
	int64_t *v;
	pid_t pid;
	int r = 0;

	pid = fork();
	if (pid == 0) {
		usleep(100000);
		execl("/bin/sleep", "sleep", "0.3", (char *)NULL);
		_exit(127);
	}
	o.pid = pid;
	CHECK_INT(sampler_new(&o, &s), 0);
	if (!s) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return;
	}
	v = calloc(sampler_fields(s, &f), sizeof(*v));
	for (int i = 0; i < 400 && r == 0; i++) {
		r = sampler_sample(s, (uint64_t)i * 10000000ull, v);
		if (sampler_threads(s, &th) == 1 && strcmp(str(th[0].name), "sleep") == 0)
			renamed = true;
		if (r == 0)
			usleep(5000);
	}
	CHECK(renamed);
	CHECK_INT(r, -ESRCH); /* it exited (a zombie until reaped) */
	waitpid(pid, NULL, 0);
	free(v);
	sampler_free(s);
}

/* The naive mode reads the same values as the kept-open one. */
static void test_naive_same(void)
{
	struct sampler_opts o = {.pid = 1234, .root = t_fixture("tree-lvm"), .intern = intern};
	struct sampler *a = NULL, *b = NULL;
	const struct sampler_field *fa, *fb;
	int64_t *va, *vb;
	size_t na, nb;

	CHECK_INT(sampler_new(&o, &a), 0);
	o.naive = true;
	CHECK_INT(sampler_new(&o, &b), 0);
	if (!a || !b)
		goto out;
	na = sampler_fields(a, &fa);
	nb = sampler_fields(b, &fb);
	CHECK_INT(na, nb);
	va = calloc(na, sizeof(*va));
	vb = calloc(nb, sizeof(*vb));
	CHECK_INT(sampler_sample(a, 1, va), 0);
	CHECK_INT(sampler_sample(b, 1, vb), 0);
	for (size_t i = 0; i < na && i < nb; i++)
		if (va[i] != vb[i])
			T_FAIL("field '%s': %lld kept-open, %lld naive", fa[i].name,
			       (long long)va[i], (long long)vb[i]);
	free(va);
	free(vb);
out:
	sampler_free(a);
	sampler_free(b);
}

/* test_quiet_system on a real sleeping program: the gated sampler skips the
 * disks (where there are watched ones), its samples after the first quiet
 * one are unchanged ones (sampler_same; not with a display server, whose
 * clock is read every sample), and its program's fields are those the
 * ungated one reads beside it, sample for sample. */
static void test_quiet_system_live(void)
{
	struct sampler_opts o = {.intern = intern, .slow_every = 100, .profile = true};
	struct sampler *g = NULL, *ng = NULL;
	const struct sampler_field *f;
	int64_t *v = NULL, *w = NULL;
	bool disks = false;
	int same = 0;
	int64_t run;
	uint64_t reads;
	size_t nf;
	pid_t pid = sleeper(0);

	if (pid < 0) {
		T_FAIL("cannot start a sleeping child");
		return;
	}
	usleep(20000);	/* into pause() */
	o.pid = pid;
	if (!sampler_pair(&o, &g, &ng, &v, &w))
		goto out;
	nf = sampler_fields(g, &f);
	for (size_t i = 0; i < nf; i++)
		disks |= strncmp(f[i].name, "disk.", 5) == 0;
	for (int k = 1; k <= 20; k++) {
		CHECK_INT(sampler_sample(g, (uint64_t)k, v), 0);
		same += sampler_same(g);
		CHECK_INT(sampler_sample(ng, (uint64_t)k, w), 0);
		CHECK(!sampler_same(ng));
		CHECK(same_program(g, v, w));
		usleep(1000);
	}
	CHECK_INT(v[field(g, "ft.state")], 'S');
	if (field(g, "srv.cpu_ns") < 0)
		CHECK(same >= 15);

	/* it runs (a signal handler) and sleeps again: the sample that finds
	 * its schedstat moved reads it whole, from that schedstat */
	run = v[field(g, "ft.run_ns")];
	reads = reads_of(g, "task schedstat");
	kill(pid, SIGUSR1);
	usleep(20000);
	CHECK_INT(sampler_sample(g, 21, v), 0);
	CHECK(!sampler_same(g));
	CHECK_INT(reads_of(g, "task schedstat") - reads, 1);	/* not read twice */
	CHECK_INT(sampler_sample(ng, 21, w), 0);
	CHECK(same_program(g, v, w));
	CHECK(v[field(g, "ft.run_ns")] > run);
	if (disks)
		CHECK(skips_of(g, "disk stat") >= 15);
	else
		fprintf(stderr, "note: test_quiet_system_live: no watched disk, no skip to see\n");
out:
	free(v);
	free(w);
	sampler_free(g);
	sampler_free(ng);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* sampler_set_process: the sampler moves to another process (a launcher's
 * child that presents); the process counters continue exactly from the old
 * one's (the new one sleeps, so nothing moves), never with its whole life
 * added; a process or thread that is not there leaves the old one sampled. */
static void test_set_process(void)
{
	struct sampler_opts o = {.intern = intern};
	struct sampler *s = NULL;
	pid_t a = sleeper(10), b = sleeper(3000);
	int64_t *v = NULL;
	int fmin, fmaj, ftid, ft2;
	int64_t min_a;

	if (a <= 0 || b <= 0) {
		T_FAIL("cannot start the children");
		goto out;
	}
	o.pid = a;
	CHECK_INT(sampler_new(&o, &s), 0);
	if (!s)
		goto out;
	fmin = field(s, "proc.minflt");
	fmaj = field(s, "proc.majflt");
	ftid = field(s, "ft.tid");
	ft2 = field(s, "ft2.tid");
	CHECK(fmin >= 0 && fmaj >= 0 && ftid >= 0 && ft2 >= 0);
	if (fmin < 0 || fmaj < 0 || ftid < 0 || ft2 < 0)
		goto out;
	v = calloc(sampler_fields(s, &(const struct sampler_field *){ NULL }), sizeof(*v));
	CHECK_INT(sampler_sample(s, 1, v), 0);
	min_a = v[fmin];
	CHECK(min_a > 0);
	CHECK_INT(v[ftid], a);

	CHECK_INT(sampler_set_process(s, 999999999, 0), -ESRCH);
	CHECK_INT(sampler_set_process(s, b, a), -ESRCH);	/* a's thread is not b's */
	CHECK_INT(sampler_sample(s, 2, v), 0);
	CHECK_INT(v[ftid], a);
	CHECK_INT(v[fmin], min_a);

	CHECK_INT(sampler_set_process(s, b, 0), 0);
	CHECK_INT(sampler_sample(s, 3, v), 0);
	CHECK_INT(v[ftid], b);
	CHECK_INT(v[ft2], 0);
	/* b took 3000 faults before, none since: the counter stays */
	CHECK_INT(v[fmin], min_a);
	CHECK(v[fmaj] >= 0);
	/* gone: the sampler says so */
	kill(b, SIGKILL);
	waitpid(b, NULL, 0);
	b = 0;
	CHECK_INT(sampler_sample(s, 4, v), -ESRCH);
	/* and back to a */
	CHECK_INT(sampler_set_process(s, a, a), 0);
	CHECK_INT(sampler_sample(s, 5, v), 0);
	CHECK_INT(v[ftid], a);
	CHECK_INT(v[fmin], min_a);
out:
	free(v);
	sampler_free(s);
	if (a > 0) {
		kill(a, SIGKILL);
		waitpid(a, NULL, 0);
	}
	if (b > 0) {
		kill(b, SIGKILL);
		waitpid(b, NULL, 0);
	}
}

int main(void)
{
	T_RUN(test_fake_tree);
	T_RUN(test_quiet_thread);
	T_RUN(test_quiet_process);
	T_RUN(test_quiet_system);
	T_RUN(test_quiet_system_live);
	T_RUN(test_quiet_stack);
	T_RUN(test_open_error_noted);
	T_RUN(test_syscall_race);
	T_RUN(test_naive_same);
	T_RUN(test_gates);
	T_RUN(test_wchan_gate);
	T_RUN(test_live);
	T_RUN(test_exec);
	T_RUN(test_set_process);
	intern_free();
	return t_exit();
}
