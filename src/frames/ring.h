/* SPDX-License-Identifier: MIT */
/*
 * ring.h: the recorder's side of the frame ring (include/stallscope-ring.h):
 * create the shared-memory ring a run's presents are stamped into, name it
 * for the child's environment, drain committed entries in slot order, and
 * tear it down.
 *
 * One consumer per ring (the recorder), any number of producers (every
 * thread of the program and its children that present). Producers reserve a
 * slot by advancing head and commit it by writing seq = slot + 1 last; the
 * consumer reads slot `tail` only once it is committed and then advances
 * tail, which hands the slot back to the producers.
 *
 * A producer that dies (or is killed) between reserving and committing leaves
 * its slot uncommitted forever, and every later entry would wait behind it.
 * The consumer therefore skips a slot that stays uncommitted while a later
 * slot is committed for longer than the stuck timeout (1 s unless set),
 * counting it in `stuck`. A producer merely preempted for longer than that
 * loses its stamp the same way; the timeout is far above any scheduling
 * delay the recorder would otherwise report as a stall of its own.
 *
 * The ring is untrusted input: the producers are the recorded program,
 * which may be buggy or hostile and may write anything anywhere in the
 * shared memory, or truncate it, while the consumer may run as root. So the
 * consumer keeps its own tail and only tells the shared one to producers;
 * reads at most `capacity` slots per sample (a drain), so that no head makes
 * it loop; and stops reading for good, with the reason (ring_broken), once
 * the ring holds what no producer of ours could have made: a tail other
 * than the one it wrote, a head more than `capacity` ahead of its tail or
 * gone back, a changed magic, version or capacity, or memory that went
 * away (a SIGBUS while reading, caught: ring_new installs a SIGBUS handler
 * once per process that hands any other SIGBUS to the action before it).
 * The entries' contents (stamps, thread ids, sources) are the caller's to
 * judge.
 *
 * Errors are negative errno values; nothing here prints.
 */
#ifndef SS_FRAMES_RING_H
#define SS_FRAMES_RING_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* One present as drained from the ring. */
struct ring_frame {
	uint64_t t_ns;		/* CLOCK_MONOTONIC of the present, ns */
	uint32_t tid;		/* the presenting thread (kernel tid) */
	uint32_t source;	/* enum ss_frame_source (stallscope-ring.h) */
};

struct ring_stats {
	uint64_t drained;	/* entries handed to the caller so far */
	uint64_t overruns;	/* stamps producers dropped because the ring was full
				 * (the producers' own count: whatever they wrote) */
	uint64_t stuck;		/* slots skipped because their producer never committed */
	uint64_t pending;	/* slots reserved but not drained yet (head - tail; 0
				 * when head is not within capacity of tail) */
	uint64_t examined;	/* slot reads of every drain together (the work) */
	int broken;		/* the ring is no longer read (ring_broken says why) */
};

struct ring;

#define RING_CAPACITY_DEFAULT 65536u
#define RING_STUCK_NS_DEFAULT 1000000000ull

/*
 * Creates a ring of CAPACITY entries (a power of two, 2 .. 2^24; 0 means
 * RING_CAPACITY_DEFAULT) in a new POSIX shared-memory object named
 * "/stallscope-<pid>-<n>", mode 0600. Returns 0 and *ret (owned by the
 * caller, freed with ring_free), or -EINVAL (bad capacity) or the errno of
 * shm_open/ftruncate/mmap.
 */
int ring_new(uint32_t capacity, struct ring **ret);

/* Unmaps the ring, closes and unlinks its shared-memory object, frees R.
 * NULL-safe. Producers that still map it keep their mapping; the name is
 * gone, so no new process attaches. */
void ring_free(struct ring *r);

/* The ring's shared-memory name, the value for STALLSCOPE_RING; owned by R. */
const char *ring_name(const struct ring *r);

/* Gives the shared-memory object to UID:GID (for a child that runs as
 * another user than the recorder). Returns 0 or -errno of fchown. */
int ring_chown(struct ring *r, uid_t uid, gid_t gid);

/* Sets how long a slot may stay uncommitted behind committed ones before it
 * is skipped (ns; 0 restores RING_STUCK_NS_DEFAULT). */
void ring_set_stuck_ns(struct ring *r, uint64_t ns);

/*
 * Copies up to MAX committed entries, in slot order, into OUT and hands
 * their slots back to the producers. NOW_NS is the caller's CLOCK_MONOTONIC
 * (ss_now_ns()): it times stuck slots, and it names the sample: the calls
 * with one NOW_NS together read at most `capacity` slots (entries copied,
 * slots skipped or looked at past a stuck one); what is left waits for the
 * next NOW_NS, and producers that find the ring full meanwhile count
 * overruns. Returns the number of entries copied (0 .. MAX); never fails.
 * Call it until it returns less than MAX to empty the ring, as far as this
 * sample's budget goes. A broken ring (ring_broken) returns 0 for ever;
 * entries copied by the call that found it broken by a fault are dropped.
 */
size_t ring_drain(struct ring *r, uint64_t now_ns, struct ring_frame *out, size_t max);

/* NULL while the ring is read; else why it is not any more (owned by R),
 * with the NOW_NS of the drain that found it in *RET_NS (RET_NS may be
 * NULL). */
const char *ring_broken(const struct ring *r, uint64_t *ret_ns);

/* CLOCK_MONOTONIC when R was made (ns): no producer can have stamped a
 * present before it. */
uint64_t ring_created_ns(const struct ring *r);

/* The counters so far, written to *ret; head and overruns as the producers
 * left them (as last read once the ring is broken). */
void ring_stats(const struct ring *r, struct ring_stats *ret);

/*
 * Removes the rings that recorders killed before they could remove their
 * own left behind (a kill -9 leaves its 1.5 MB ring in /dev/shm for ever):
 * every shared-memory object named exactly stallscope-<pid>-<n> whose pid
 * is not a live process. A program still attached keeps its mapping; only
 * the name goes. Records and logs beside them (stallscope-<pid>-<stamp>.ssr,
 * .log, .out) stay: dump and report still read a killed run's record from
 * there. SHM_DIR: the directory to look in (tests), NULL for /dev/shm via
 * shm_unlink. Returns how many were removed, or -errno of opendir.
 */
int ring_reap_stale(const char *shm_dir);

/* The mapped ring itself, for tests and in-process producers (the same
 * layout the shim maps). Owned by R. */
struct ss_ring *ring_shared(struct ring *r);

#endif
