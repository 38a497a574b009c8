// SPDX-License-Identifier: MIT
/*
 * test-ring.c: the frame ring's consumer (src/frames/ring.c) against the
 * producer of include/stallscope-ring.h: one producer, several producer
 * threads racing a draining consumer, a child process attaching by name,
 * wrap-around, overruns, and a slot whose producer never commits; and
 * against a hostile producer: head far ahead, tail moved, head gone back,
 * the header overwritten, the memory truncated, a producer as fast as the
 * reader; a SIGBUS that is not the ring's still kills. A new ring's pages
 * are allocated at creation.
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "t.h"
#include "frames/ring.h"
#include "stallscope.h"

/* The layout docs/FORMAT.md ("Frame ring") promises. */
static void test_layout(void)
{
	CHECK_INT(sizeof(struct ss_ring_hdr), 64);
	CHECK_INT(offsetof(struct ss_ring_hdr, capacity), 12);
	CHECK_INT(offsetof(struct ss_ring_hdr, head), 16);
	CHECK_INT(offsetof(struct ss_ring_hdr, tail), 24);
	CHECK_INT(offsetof(struct ss_ring_hdr, overruns), 32);
	CHECK_INT(sizeof(struct ss_ring_entry), 24);
	CHECK_INT(offsetof(struct ss_ring_entry, t_ns), 8);
	CHECK_INT(offsetof(struct ss_ring_entry, tid), 16);
	CHECK_INT(offsetof(struct ss_ring_entry, source), 20);
	CHECK(memcmp(&(uint64_t){ SS_RING_MAGIC }, "SSRING01", 8) == 0);
}

static void test_new_bad(void)
{
	struct ring *r = NULL;

	CHECK_INT(ring_new(3, &r), -EINVAL);
	CHECK_INT(ring_new(1, &r), -EINVAL);
	CHECK_INT(ring_new(1u << 25, &r), -EINVAL);
	CHECK(r == NULL);
	ring_free(NULL);
}

static void test_single(void)
{
	struct ring_frame f[16];
	struct ring_stats st;
	struct ring *r;

	CHECK_INT(ring_new(0, &r), 0);
	CHECK(strncmp(ring_name(r), "/stallscope-", 12) == 0);
	CHECK_INT(ring_shared(r)->hdr.capacity, RING_CAPACITY_DEFAULT);
	CHECK_INT(ring_drain(r, 0, f, 16), 0);
	for (int i = 0; i < 10; i++)
		CHECK_INT(ss_ring_push(ring_shared(r), 1000 + i, 42, SS_SRC_GLX), 0);
	CHECK_INT(ring_drain(r, 0, f, 4), 4);
	CHECK_INT(f[0].t_ns, 1000);
	CHECK_INT(f[3].t_ns, 1003);
	CHECK_INT(f[3].tid, 42);
	CHECK_INT(f[3].source, SS_SRC_GLX);
	CHECK_INT(ring_drain(r, 0, f, 16), 6);
	CHECK_INT(f[5].t_ns, 1009);
	ring_stats(r, &st);
	CHECK_INT(st.drained, 10);
	CHECK_INT(st.overruns, 0);
	CHECK_INT(st.pending, 0);
	ring_free(r);
}

/* Two rings at once get two names; a freed ring's name is gone. */
static void test_names(void)
{
	struct ring *a, *b;
	char name[64];
	int fd;

	CHECK_INT(ring_new(16, &a), 0);
	CHECK_INT(ring_new(16, &b), 0);
	CHECK(strcmp(ring_name(a), ring_name(b)) != 0);
	snprintf(name, sizeof(name), "%s", ring_name(a));
	ring_free(a);
	ring_free(b);
	fd = shm_open(name, O_RDONLY, 0);
	CHECK(fd < 0 && errno == ENOENT);
	if (fd >= 0)
		close(fd);
}

/* A new ring's pages are allocated at once (ring_new: posix_fallocate and
 * MAP_POPULATE), not as the program's first lap writes them. */
static void test_reserved(void)
{
	struct ring *r;
	struct stat st;
	char path[96];

	CHECK_INT(ring_new(0, &r), 0);
	snprintf(path, sizeof(path), "/dev/shm%s", ring_name(r));
	if (stat(path, &st) < 0) {
		ring_free(r);
		return;	/* shm_open's objects elsewhere: nothing to look at */
	}
	CHECK((size_t)st.st_blocks * 512 >= (size_t)st.st_size);
	CHECK((size_t)st.st_size >= ss_ring_size(RING_CAPACITY_DEFAULT));
	ring_free(r);
}

static void test_wrap(void)
{
	struct ring_frame f[8];
	uint64_t want = 0;
	struct ring *r;
	int bad = 0;

	CHECK_INT(ring_new(8, &r), 0);
	for (int round = 0; round < 1000; round++) {
		size_t n;

		for (int i = 0; i < 5; i++)
			ss_ring_push(ring_shared(r), round * 5 + i, 1, SS_SRC_VK);
		n = ring_drain(r, (uint64_t)round + 1, f, 8);	/* a sample each */
		bad += n != 5;
		for (size_t i = 0; i < n; i++)
			bad += f[i].t_ns != want++;
	}
	CHECK_INT(bad, 0);
	CHECK_INT(want, 5000);
	CHECK_INT(atomic_load(&ring_shared(r)->hdr.head), 5000);
	ring_free(r);
}

static void test_overrun(void)
{
	struct ring_frame f[8];
	struct ring_stats st;
	struct ring *r;

	CHECK_INT(ring_new(4, &r), 0);
	for (int i = 0; i < 4; i++)
		CHECK_INT(ss_ring_push(ring_shared(r), i, 1, SS_SRC_EGL), 0);
	CHECK_INT(ss_ring_push(ring_shared(r), 4, 1, SS_SRC_EGL), -1);
	CHECK_INT(ss_ring_push(ring_shared(r), 5, 1, SS_SRC_EGL), -1);
	ring_stats(r, &st);
	CHECK_INT(st.overruns, 2);
	CHECK_INT(st.pending, 4);
	CHECK_INT(ring_drain(r, 0, f, 8), 4);
	CHECK_INT(f[3].t_ns, 3);
	/* Room again after the drain; the dropped stamps stay dropped. */
	CHECK_INT(ss_ring_push(ring_shared(r), 6, 1, SS_SRC_EGL), 0);
	CHECK_INT(ring_drain(r, 1, f, 8), 1);
	CHECK_INT(f[0].t_ns, 6);
	ring_stats(r, &st);
	CHECK_INT(st.drained, 5);
	CHECK_INT(st.overruns, 2);
	ring_free(r);
}

/* A producer that reserved a slot and died before committing it. */
static void test_stuck(void)
{
	struct ring_frame f[8];
	struct ring_stats st;
	struct ss_ring *s;
	struct ring *r;

	CHECK_INT(ring_new(8, &r), 0);
	s = ring_shared(r);
	ring_set_stuck_ns(r, 1000);
	CHECK_INT(ss_ring_push(s, 10, 1, SS_SRC_GLX), 0);
	atomic_fetch_add(&s->hdr.head, 1);	/* reserved, never committed */
	/* Nothing after it yet: a producer mid-push, waited for however long. */
	CHECK_INT(ring_drain(r, 0, f, 8), 1);
	CHECK_INT(ring_drain(r, 1000000, f, 8), 0);
	CHECK_INT(ring_drain(r, 9000000, f, 8), 0);
	CHECK_INT(ss_ring_push(s, 12, 1, SS_SRC_GLX), 0);
	CHECK_INT(ss_ring_push(s, 13, 1, SS_SRC_GLX), 0);
	/* Later entries committed: timed from now, skipped once it has lasted. */
	CHECK_INT(ring_drain(r, 10000000, f, 8), 0);
	CHECK_INT(ring_drain(r, 10000500, f, 8), 0);
	ring_stats(r, &st);
	CHECK_INT(st.stuck, 0);
	CHECK_INT(ring_drain(r, 10001000, f, 8), 2);
	CHECK_INT(f[0].t_ns, 12);
	CHECK_INT(f[1].t_ns, 13);
	ring_stats(r, &st);
	CHECK_INT(st.stuck, 1);
	CHECK_INT(st.drained, 3);
	CHECK_INT(st.pending, 0);
	/* The ring goes on through the skipped slot's index. */
	for (int i = 0; i < 20; i++) {
		CHECK_INT(ss_ring_push(s, 100 + i, 1, SS_SRC_GLX), 0);
		CHECK_INT(ring_drain(r, 10002000 + (uint64_t)i, f, 8), 1);
		CHECK_INT(f[0].t_ns, 100 + i);
	}
	ring_free(r);
}

#define NPROD 4
#define PER_PROD 200000

struct prod {
	struct ss_ring *s;
	uint32_t id;
	int ok, full;
};

static void *producer(void *arg)
{
	struct prod *p = arg;

	for (uint64_t i = 0; i < PER_PROD; i++) {
		if (ss_ring_push(p->s, i, p->id, SS_SRC_MARKER) == 0)
			p->ok++;
		else
			p->full++;
	}
	return NULL;
}

static void test_threads(void)
{
	struct prod p[NPROD];
	pthread_t th[NPROD];
	struct ring_frame f[256];
	int64_t last[NPROD];
	uint64_t got[NPROD] = { 0 }, total = 0, sent = 0, full = 0;
	struct ring_stats st;
	struct ring *r;
	int bad = 0, done;

	CHECK_INT(ring_new(1024, &r), 0);
	/* A producer preempted mid-push for 1 s (the default) on a loaded
	 * machine is not what this test is about: test_stuck is. */
	ring_set_stuck_ns(r, 600000000000ull);
	for (int i = 0; i < NPROD; i++) {
		p[i] = (struct prod){ .s = ring_shared(r), .id = (uint32_t)i };
		last[i] = -1;
		pthread_create(&th[i], NULL, producer, &p[i]);
	}
	do {
		size_t n = ring_drain(r, ss_now_ns(), f, 256);

		for (size_t k = 0; k < n; k++) {
			uint32_t id = f[k].tid;

			if (id >= NPROD || f[k].source != SS_SRC_MARKER) {
				bad++;
				continue;
			}
			/* One thread's stamps come out in the order it pushed them. */
			bad += (int64_t)f[k].t_ns <= last[id];
			last[id] = (int64_t)f[k].t_ns;
			got[id]++;
			total++;
		}
		ring_stats(r, &st);
		done = st.overruns + total >= (uint64_t)NPROD * PER_PROD;
	} while (!done);
	for (int i = 0; i < NPROD; i++) {
		pthread_join(th[i], NULL);
		sent += p[i].ok;
		full += p[i].full;
		CHECK_INT(got[i], p[i].ok);
	}
	ring_stats(r, &st);
	CHECK_INT(bad, 0);
	CHECK_INT(total, sent);
	CHECK_INT(st.overruns, full);
	CHECK_INT(st.drained, total);
	CHECK_INT(st.stuck, 0);
	CHECK_INT(st.pending, 0);
	ring_free(r);
}

/* A child attaches by name from the environment, as a program would. */
static void test_child(void)
{
	struct ring_frame f[64];
	struct ring *r;
	size_t got = 0;
	int status = -1;
	pid_t pid;

	CHECK_INT(ring_new(64, &r), 0);
	pid = fork();
	if (pid == 0) {
		setenv(SS_RING_ENV, ring_name(r), 1);
		for (int i = 0; i < 50; i++)
			if (stallscope_frame() != 0)
				_exit(1);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	got = ring_drain(r, 0, f, 64);
	CHECK_INT(got, 50);
	CHECK_INT(f[0].tid, pid);
	CHECK_INT(f[49].source, SS_SRC_MARKER);
	CHECK(f[49].t_ns > f[0].t_ns);
	ring_free(r);
}

/* ring_reap_stale: in a directory standing for /dev/shm, the ring of a
 * dead pid goes; a live pid's, our own, a record beside them and names not
 * a ring's stay. */
static void test_reap_stale(void)
{
	char dir[] = "/tmp/ss-test-ring-XXXXXX", path[128];
	const char *keep[4];
	char k[4][64], gone[64];
	pid_t dead = fork();
	int st;

	if (dead == 0)
		_exit(0);
	waitpid(dead, &st, 0);
	if (!mkdtemp(dir)) {
		T_FAIL("mkdtemp");
		return;
	}
	snprintf(gone, sizeof(gone), "stallscope-%d-0", (int)dead);
	snprintf(k[0], sizeof(k[0]), "stallscope-%d-1", (int)getppid());
	snprintf(k[1], sizeof(k[1]), "stallscope-%d-2", (int)getpid());
	snprintf(k[2], sizeof(k[2]), "stallscope-%d-20261201T000000Z.ssr", (int)dead);
	snprintf(k[3], sizeof(k[3]), "stallscope-x%d-3", (int)dead);
	for (int i = 0; i < 4; i++)
		keep[i] = k[i];
	snprintf(path, sizeof(path), "%s/%s", dir, gone);
	fclose(fopen(path, "w"));
	for (int i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, keep[i]);
		fclose(fopen(path, "w"));
	}
	CHECK_INT(ring_reap_stale(dir), 1);
	snprintf(path, sizeof(path), "%s/%s", dir, gone);
	CHECK(access(path, F_OK) != 0);
	for (int i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, keep[i]);
		if (access(path, F_OK) != 0)
			T_FAIL("'%s' was removed", keep[i]);
		unlink(path);
	}
	rmdir(dir);
	CHECK_INT(ring_reap_stale("/nonexistent-dir"), -ENOENT);
}

/* ------------------------------------------------------------ hostile producers */

/*
 * Runs FN(R) in a child with 10 s to live (a reader that loops for ever, or
 * dies of SIGBUS, must fail the test, not hang or kill it): the child exits
 * 0, or 64 + its failed checks. Returns 0, or -1 (said) when checks failed
 * in it, or it was killed, timed out or died otherwise.
 */
static int in_child(struct ring *r, int (*fn)(struct ring *), const char *what)
{
	int st = 0;
	pid_t pid = fork();

	if (pid == 0) {
		alarm(10);
		t_failed = 0;
		fn(r);
		_exit(t_failed ? 64 + (t_failed > 60 ? 60 : t_failed) : 0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid) {
		T_FAIL("%s: fork or wait failed", what);
		return -1;
	}
	if (WIFSIGNALED(st)) {
		T_FAIL("%s: the reader was killed by SIG%s%s", what, sigabbrev_np(WTERMSIG(st)),
		       WTERMSIG(st) == SIGALRM ? " (it did not return in 10 s)" : "");
		return -1;
	}
	if (WEXITSTATUS(st) > 64 && WEXITSTATUS(st) <= 124)
		T_FAIL("%s: %d checks failed in the child", what, WEXITSTATUS(st) - 64);
	else if (WEXITSTATUS(st))
		T_FAIL("%s: the reader died (exit status %d: a sanitizer's report?)", what,
		       WEXITSTATUS(st));
	return WEXITSTATUS(st) ? -1 : 0;
}

/* Head set to tail + 2^62 with one later slot committed (issue 26's
 * repro): each drain returns at once, reads at most a ring's worth, and the
 * ring is broken for good. */
static int far_ahead(struct ring *r)
{
	struct ss_ring *s = ring_shared(r);
	struct ring_frame f[64];
	struct ring_stats st;
	uint64_t t, ns = 0;
	const char *why;

	ring_set_stuck_ns(r, 1);
	for (int i = 0; i < 3; i++)
		CHECK_INT(ss_ring_push(s, 500 + i, 7, SS_SRC_MARKER), 0);
	CHECK_INT(ring_drain(r, 1, f, 64), 3);
	t = atomic_load(&s->hdr.tail);
	atomic_store(&s->hdr.head, t + (1ull << 62));
	atomic_store(&s->e[(t + 1) & 1023].seq, t + 2);
	for (uint64_t now = 2; now < 6; now++)
		CHECK_INT(ring_drain(r, now, f, 64), 0);
	ring_stats(r, &st);
	CHECK(st.broken);
	CHECK(st.examined <= 3 + 1024);
	CHECK_INT(st.pending, 0);
	why = ring_broken(r, &ns);
	CHECK(why && strstr(why, "head 4611686018427387907"));
	CHECK_INT(ns, 2);
	/* never read again, even if it looks sane */
	atomic_store(&s->hdr.head, t);
	CHECK_INT(ss_ring_push(s, 600, 7, SS_SRC_MARKER), 0);
	CHECK_INT(ring_drain(r, 7, f, 64), 0);
	return t_failed;
}

static void test_far_ahead(void)
{
	struct ring *r;

	CHECK_INT(ring_new(1024, &r), 0);
	in_child(r, far_ahead, "head far ahead");
	ring_free(r);
}

/* A tail moved back (the rewinding flood of issue 26): nothing is read
 * twice, the ring is broken. And a head that went back. */
static void test_tail_moved(void)
{
	struct ring_frame f[64];
	struct ss_ring *s;
	struct ring *r;
	const char *why;

	CHECK_INT(ring_new(64, &r), 0);
	s = ring_shared(r);
	for (int i = 0; i < 40; i++)
		ss_ring_push(s, 100 + i, 1, SS_SRC_MARKER);
	CHECK_INT(ring_drain(r, 1, f, 64), 40);
	atomic_store(&s->hdr.tail, 8);
	CHECK_INT(ring_drain(r, 2, f, 64), 0);
	why = ring_broken(r, NULL);
	CHECK(why && strstr(why, "tail was moved to 8, the reader's being 40"));
	atomic_store(&s->hdr.tail, 40);
	CHECK_INT(ring_drain(r, 3, f, 64), 0);
	ring_free(r);

	CHECK_INT(ring_new(64, &r), 0);
	s = ring_shared(r);
	for (int i = 0; i < 10; i++)
		ss_ring_push(s, 100 + i, 1, SS_SRC_MARKER);
	CHECK_INT(ring_drain(r, 1, f, 4), 4);
	atomic_store(&s->hdr.head, 7);
	CHECK_INT(ring_drain(r, 2, f, 64), 0);
	why = ring_broken(r, NULL);
	CHECK(why && strstr(why, "head went back from 10 to 7"));
	ring_free(r);

	/* the constant fields of the header */
	CHECK_INT(ring_new(64, &r), 0);
	ring_shared(r)->hdr.capacity = 1u << 30;
	CHECK_INT(ss_ring_push(ring_shared(r), 1, 1, SS_SRC_MARKER), 0);
	CHECK_INT(ring_drain(r, 1, f, 64), 0);
	why = ring_broken(r, NULL);
	CHECK(why && strstr(why, "header"));
	ring_free(r);
}

/* A producer that refills the ring as fast as it is read: the drains of
 * one sample (one NOW_NS) end after a ring's worth, and the next sample
 * gets the next. */
static void test_budget(void)
{
	struct ring_frame f[8];
	struct ring_stats st;
	uint64_t got = 0, next = 0;
	struct ss_ring *s;
	struct ring *r;
	int calls = 0;
	size_t n;

	CHECK_INT(ring_new(64, &r), 0);
	s = ring_shared(r);
	while (ss_ring_push(s, next, 1, SS_SRC_MARKER) == 0)
		next++;
	do {
		n = ring_drain(r, 1000, f, 8);
		got += n;
		for (size_t i = 0; i < n; i++)
			ss_ring_push(s, next++, 1, SS_SRC_MARKER);
	} while (n == 8 && ++calls < 1000);
	CHECK(calls < 1000);
	CHECK_INT(got, 64);
	ring_stats(r, &st);
	CHECK_INT(st.examined, 64);
	CHECK_INT(st.pending, 64);
	CHECK(!st.broken);
	CHECK_INT(ring_drain(r, 2000, f, 8), 8);
	CHECK_INT(f[0].t_ns, 64);
	ring_free(r);

	/* The look past an uncommitted slot is work too: with every slot but
	 * the last uncommitted, one sample reads at most the capacity. */
	CHECK_INT(ring_new(1024, &r), 0);
	s = ring_shared(r);
	atomic_store(&s->hdr.head, 1024);
	atomic_store(&s->e[1023].seq, 1024);
	for (uint64_t now = 1; now <= 3; now++) {
		CHECK_INT(ring_drain(r, now, f, 8), 0);
		CHECK_INT(ring_drain(r, now, f, 8), 0);
		ring_stats(r, &st);
		CHECK(st.examined <= now * 1024);
	}
	CHECK(!ring_broken(r, NULL));
	ring_free(r);
}

/* Slots committed last to first, as racing producers may: all read, in
 * slot order, none skipped, nothing broken. */
static void test_out_of_order(void)
{
	struct ring_frame f[32];
	struct ring_stats st;
	struct ss_ring *s;
	struct ring *r;
	size_t n;

	CHECK_INT(ring_new(32, &r), 0);
	s = ring_shared(r);
	atomic_store(&s->hdr.head, 16);
	for (int i = 15; i >= 0; i--) {
		s->e[i].t_ns = 1000 + (uint64_t)i;
		s->e[i].tid = 3;
		s->e[i].source = SS_SRC_VK;
		atomic_store(&s->e[i].seq, (uint64_t)i + 1);
		n = ring_drain(r, 100 + 15 - (uint64_t)i, f, 32);
		CHECK_INT(n, i ? 0 : 16);
	}
	CHECK_INT(f[0].t_ns, 1000);
	CHECK_INT(f[15].t_ns, 1015);
	ring_stats(r, &st);
	CHECK_INT(st.stuck, 0);
	CHECK(!st.broken);
	ring_free(r);
}

/* The shared-memory object truncated under the reader: no SIGBUS, the
 * ring broken, its figures as last read. */
static int truncated(struct ring *r)
{
	struct ring_frame f[8];
	struct ring_stats st;
	const char *why;
	int fd;

	CHECK_INT(ss_ring_push(ring_shared(r), 5, 1, SS_SRC_GLX), 0);
	CHECK_INT(ring_drain(r, 1, f, 8), 1);
	fd = shm_open(ring_name(r), O_RDWR, 0);
	CHECK(fd >= 0 && ftruncate(fd, 0) == 0);
	CHECK_INT(ring_drain(r, 2, f, 8), 0);
	why = ring_broken(r, NULL);
	CHECK(why && strstr(why, "truncated"));
	ring_stats(r, &st);
	CHECK(st.broken);
	CHECK_INT(st.drained, 1);
	close(fd);
	return t_failed;
}

static void test_truncated(void)
{
	struct ring *r;

	CHECK_INT(ring_new(1024, &r), 0);
	in_child(r, truncated, "ring truncated");
	ring_free(r);
}

/* The guard keeps to the ring: a SIGBUS sent, or a fault on other memory,
 * still ends the process (under ASan, with its report). */
static void test_other_sigbus(void)
{
	char path[] = "/tmp/ss-test-ring-bus-XXXXXX";
	struct ring *r;
	int st, fd;
	pid_t pid;

	CHECK_INT(ring_new(16, &r), 0);	/* the handler is in */
	fprintf(stderr, "(two children die of SIGBUS next: a report from each is expected)\n");
	pid = fork();
	if (pid == 0) {
		raise(SIGBUS);
		_exit(0);
	}
	CHECK(waitpid(pid, &st, 0) == pid && !(WIFEXITED(st) && WEXITSTATUS(st) == 0));
	fd = mkstemp(path);
	CHECK(fd >= 0 && ftruncate(fd, 4096) == 0);
	pid = fork();
	if (pid == 0) {
		volatile char *p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);

		if (p == MAP_FAILED || ftruncate(fd, 0) < 0)
			_exit(3);
		(void)p[0];
		_exit(0);
	}
	CHECK(waitpid(pid, &st, 0) == pid && !(WIFEXITED(st) && (WEXITSTATUS(st) == 0 ||
								   WEXITSTATUS(st) == 3)));
	close(fd);
	unlink(path);
	ring_free(r);
}

int main(void)
{
	T_RUN(test_reap_stale);
	T_RUN(test_layout);
	T_RUN(test_new_bad);
	T_RUN(test_single);
	T_RUN(test_names);
	T_RUN(test_reserved);
	T_RUN(test_wrap);
	T_RUN(test_overrun);
	T_RUN(test_stuck);
	T_RUN(test_threads);
	T_RUN(test_child);
	T_RUN(test_far_ahead);
	T_RUN(test_tail_moved);
	T_RUN(test_budget);
	T_RUN(test_out_of_order);
	T_RUN(test_truncated);
	T_RUN(test_other_sigbus);
	return t_exit();
}
