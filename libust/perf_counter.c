/* SPDX-License-Identifier: LGPL-2.1-only */
/* Per-thread perf counters read in user space (perf_counter.h). */
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <urcu/arch.h>
#include <urcu/system.h>

#include "libust/perf_counter.h"
#include "libustcomm/event_context.h"
#include "libustcomm/perf_event.h"

enum slot_state {
	SLOT_CLOSED = 0,	/* not opened yet in this thread */
	SLOT_OPENING,		/* being opened: a signal handler records 0 */
	SLOT_OPEN,
	SLOT_FAILED,		/* cannot be opened, or the thread is exiting */
};

struct perf_slot {
	int state;
	int fd;
	struct perf_event_mmap_page *pc;
};

/* initial-exec: the write path reads a slot off the thread pointer. */
static __thread struct perf_slot perf_slots[USTCOMM_CTX_PERF_NR]
	__attribute__((tls_model("initial-exec")));
static pthread_key_t perf_key;
static int perf_key_ok;

static void perf_close_slots(void)
{
	struct perf_slot *s;
	unsigned i;

	for (i = 0; i < USTCOMM_CTX_PERF_NR; i++) {
		s = &perf_slots[i];
		if (s->state != SLOT_OPEN) {
			s->state = SLOT_FAILED;
			continue;
		}
		/* Failed first: a handler running from here on records 0
		 * rather than read a page being unmapped. */
		s->state = SLOT_FAILED;
		cmm_barrier();
		munmap(s->pc, (size_t)sysconf(_SC_PAGESIZE));
		close(s->fd);
	}
}

/* Thread exit: the key's value is only a flag that the thread has counters. */
static void perf_thread_exit(void *unused)
{
	(void)unused;
	perf_close_slots();
}

void ust_perf_init(void)
{
	perf_key_ok = pthread_key_create(&perf_key, perf_thread_exit) == 0;
}

static void perf_slot_open(struct perf_slot *s, int id)
{
	void *page;
	int fd;

	s->state = SLOT_OPENING;
	cmm_barrier();
	fd = ustcomm_perf_open(id);
	if (fd < 0)
		goto fail;
	page = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
	if (page == MAP_FAILED) {
		close(fd);
		goto fail;
	}
	/*
	 * glibc keeps the values of the first 32 keys in the thread
	 * descriptor itself: for those, pthread_setspecific() stores and
	 * never allocates, which is what makes it usable here, in what may
	 * be a signal handler. Without the key the thread's counter stays
	 * open until the process exits.
	 */
	if (perf_key_ok)
		pthread_setspecific(perf_key, (void *)1);
	s->fd = fd;
	s->pc = page;
	cmm_barrier();
	s->state = SLOT_OPEN;
	return;
fail:
	s->state = SLOT_FAILED;
}

#if defined(__x86_64__) || defined(__i386__)
static uint64_t perf_rdpmc(uint32_t counter)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
	return (uint64_t)hi << 32 | lo;
}
#endif

/*
 * The kernel updates the page under its seqlock (lock is incremented
 * before and after each update) on the CPU this thread runs on, when the
 * counter is scheduled in or out: only an interrupt can come between our
 * loads, so the compiler barriers pair with the kernel's barrier()s around
 * its update and a changed lock means try again.
 */
static int perf_read_page(const struct perf_slot *s, uint64_t *value)
{
#if defined(__x86_64__) || defined(__i386__)
	struct perf_event_mmap_page *pc = s->pc;
	uint32_t seq, idx;
	uint64_t count;
	int64_t pmc;
	unsigned width;

	do {
		seq = CMM_LOAD_SHARED(pc->lock);
		cmm_barrier();
		idx = CMM_LOAD_SHARED(pc->index);
		if (!pc->cap_user_rdpmc || !idx)
			return -1;
		count = CMM_LOAD_SHARED(pc->offset);
		width = pc->pmc_width;
		pmc = (int64_t)(perf_rdpmc(idx - 1) << (64 - width)) >> (64 - width);
		count += (uint64_t)pmc;
		cmm_barrier();
	} while (CMM_LOAD_SHARED(pc->lock) != seq);
	*value = count;
	return 0;
#else
	(void)s;
	(void)value;
	return -1;
#endif
}

uint64_t ust_perf_read(int id)
{
	struct perf_slot *s = &perf_slots[id - USTCOMM_CTX_PERF_FIRST];
	uint64_t value = 0;

	if (__builtin_expect(s->state != SLOT_OPEN, 0)) {
		if (s->state != SLOT_CLOSED)
			return 0;
		perf_slot_open(s, id);
		if (s->state != SLOT_OPEN)
			return 0;
	}
	if (perf_read_page(s, &value) == 0)
		return value;
	/* Software counters, and hardware ones multiplexed out. */
	if (read(s->fd, &value, sizeof(value)) != sizeof(value))
		return 0;
	return value;
}

void ust_perf_after_fork_child(void)
{
	unsigned i;

	/* The pages are not mapped in the child; the descriptors count the
	 * parent's thread. */
	for (i = 0; i < USTCOMM_CTX_PERF_NR; i++) {
		if (perf_slots[i].state == SLOT_OPEN)
			close(perf_slots[i].fd);
		perf_slots[i].state = SLOT_CLOSED;
	}
}
