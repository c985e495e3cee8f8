/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include "libustcomm/log.h"
#include "ustd/output/writeback.h"

/* Writeback is started, and the drain nudges the thread, a MiB at a time:
 * per packet, the system calls would cost more than they save. */
#define WB_STEP		(1u << 20)

/*
 * A file taken over. The drain writes len, then closed, each with a
 * store-release; the thread reads closed, then len, each with a
 * load-acquire, so that a file seen closed is seen at its final length.
 * The other fields are the thread's own, but for nudged (the drain's).
 */
struct ustd_wb_file {
	struct ustd_wb_file *next;	/* the inbox, then the thread's list */
	int fd;				/* the thread's duplicate */
	uint64_t chunk;			/* reserve this much ahead; 0: none */
	uint64_t window;
	uint64_t len;			/* drain → thread */
	int closed;			/* drain → thread */
	uint64_t nudged;		/* the drain's: len at its last nudge */
	uint64_t kicked;		/* writeback started below this */
	uint64_t dropped;		/* cache given back below this */
	uint64_t reserved;		/* blocks reserved below this */
};

static struct {
	pthread_t thread;
	bool running;
	int efd;			/* the drain's nudges */
	int stop;			/* drain → thread, after the last close */
	/* Files the drain opened since the thread last looked: pushed with
	 * a CAS (release), taken whole with an exchange (acquire). */
	struct ustd_wb_file *inbox;
	struct ustd_wb_file *files;	/* the thread's */
} wb = { .efd = -1 };

static void wb_nudge(void)
{
	uint64_t one = 1;

	/* Only fails when the counter is saturated: the thread has a
	 * wakeup pending anyway. */
	if (write(wb.efd, &one, sizeof(one)) < 0)
		ustcomm_dbg("writeback: nudging the thread: %s", strerror(errno));
}

/* Blocks ahead of the drain, so that its writes find them reserved
 * (ext4: a third less CPU per write; manual 10.7). A failure (a full disk)
 * ends the reserving; the drain's write says what is wrong. Not before
 * the first packet: most streams of thread buffers stay empty, and
 * giving back what was reserved past a file's end costs its close
 * 0.3 to 3 ms. */
static void wb_reserve(struct ustd_wb_file *f, uint64_t len)
{
	uint64_t from = f->reserved > len ? f->reserved : len;

	if (!f->chunk || !len || len + f->chunk / 2 < f->reserved)
		return;
	if (fallocate(f->fd, FALLOC_FL_KEEP_SIZE, (off_t)from, (off_t)f->chunk) < 0) {
		ustcomm_dbg("writeback: reserving blocks: %s", strerror(errno));
		f->chunk = 0;
		return;
	}
	f->reserved = from + f->chunk;
}

/*
 * SYNC_FILE_RANGE_WRITE only starts writeback of what is dirty. The range
 * dropped a window later was started long before, but POSIX_FADV_DONTNEED
 * skips pages still dirty or under writeback, and never looks at them
 * again: on a slow disk (CI) 55 of 91 MiB stayed cached that way. So the
 * thread first waits for that range's writeback; usually it is done and
 * the wait costs nothing, and when the disk lags only this thread waits.
 */
static void wb_work(struct ustd_wb_file *f, uint64_t len, bool closed)
{
	if (!closed)
		wb_reserve(f, len);
	if (len - f->kicked >= WB_STEP || (closed && len > f->kicked)) {
		if (sync_file_range(f->fd, (off_t)f->kicked, (off_t)(len - f->kicked),
				    SYNC_FILE_RANGE_WRITE) < 0)
			ustcomm_dbg("writeback: starting: %s", strerror(errno));
		f->kicked = len;
	}
	if (len > f->window && len - f->window >= f->dropped + WB_STEP) {
		off_t from = (off_t)f->dropped, n = (off_t)(len - f->window - f->dropped);

		if (sync_file_range(f->fd, from, n, SYNC_FILE_RANGE_WAIT_BEFORE |
				    SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER) < 0)
			ustcomm_dbg("writeback: waiting for written pages: %s", strerror(errno));
		if (posix_fadvise(f->fd, from, n, POSIX_FADV_DONTNEED))
			ustcomm_dbg("writeback: dropping written pages failed");
		/* Pairs with the load-acquire in ustd_wb_caught_up(). */
		__atomic_store_n(&f->dropped, len - f->window, __ATOMIC_RELEASE);
	}
}

/* The file is complete: what was reserved past its end is given back. */
static void wb_finish(struct ustd_wb_file *f, uint64_t len)
{
	if (f->reserved > len && ftruncate(f->fd, (off_t)len) < 0)
		ustcomm_dbg("writeback: freeing the blocks reserved past a file: %s",
			    strerror(errno));
	close(f->fd);
	free(f);
}

/* One look at every file. */
static void wb_pass(void)
{
	struct ustd_wb_file *in, **p, *f;
	uint64_t len;
	int closed;

	/* Pairs with the CAS-release in ustd_wb_open(). */
	in = __atomic_exchange_n(&wb.inbox, NULL, __ATOMIC_ACQUIRE);
	while (in) {
		f = in;
		in = in->next;
		f->next = wb.files;
		wb.files = f;
	}
	for (p = &wb.files; (f = *p);) {
		closed = __atomic_load_n(&f->closed, __ATOMIC_ACQUIRE);
		len = __atomic_load_n(&f->len, __ATOMIC_ACQUIRE);
		wb_work(f, len, closed);
		if (closed) {
			*p = f->next;
			wb_finish(f, len);
		} else {
			p = &f->next;
		}
	}
}

static void *wb_thread(void *arg)
{
	struct sched_param sp = { 0 };
	uint64_t n;
	int stop;

	(void)arg;
	/* ustd may run SCHED_FIFO to drain ahead of the writers
	 * (sched.h); this thread only waits for the disk, and must not
	 * take a CPU from them. */
	pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
	do {
		/* An eventfd read fails only on a bad size: never here. */
		if (read(wb.efd, &n, sizeof(n)) < 0 && errno != EINTR)
			ustcomm_dbg("writeback thread: %s", strerror(errno));
		stop = __atomic_load_n(&wb.stop, __ATOMIC_ACQUIRE);
		wb_pass();
	} while (!stop);
	return NULL;
}

int ustd_writeback_start(void)
{
	int ret;

	wb.efd = eventfd(0, EFD_CLOEXEC);
	if (wb.efd < 0) {
		ret = -errno;
		goto end;
	}
	ret = -pthread_create(&wb.thread, NULL, wb_thread, NULL);
	if (ret < 0) {
		close(wb.efd);
		wb.efd = -1;
	}
end:
	if (ret < 0)
		ustcomm_err("cannot start the writeback thread: %s; trace files are left to the kernel's page cache",
			    strerror(-ret));
	wb.running = ret == 0;
	return ret;
}

void ustd_writeback_stop(void)
{
	if (!wb.running)
		return;
	/* Pairs with the load-acquire in wb_thread(): the closes made
	 * before this are seen by its last pass. */
	__atomic_store_n(&wb.stop, 1, __ATOMIC_RELEASE);
	wb_nudge();
	pthread_join(wb.thread, NULL);
	/* The streams are closed before ustd stops: only a file the drain
	 * never closed is left, and the drain still has it open. */
	while (wb.files) {
		struct ustd_wb_file *f = wb.files;

		wb.files = f->next;
		close(f->fd);
		free(f);
	}
	close(wb.efd);
	wb.efd = -1;
	wb.running = false;
}

struct ustd_wb_file *ustd_wb_open(int fd, uint64_t prealloc_chunk, uint64_t window)
{
	struct ustd_wb_file *f;

	if (!wb.running)
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (f->fd < 0) {
		free(f);
		return NULL;
	}
	f->chunk = prealloc_chunk;
	f->window = window;
	/* The release pairs with the exchange-acquire in wb_pass(): the
	 * thread sees the file initialised. */
	f->next = __atomic_load_n(&wb.inbox, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&wb.inbox, &f->next, f, true, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED))
		;
	/* The first blocks are reserved before the first packet comes. */
	wb_nudge();
	return f;
}

void ustd_wb_written(struct ustd_wb_file *f, uint64_t len)
{
	if (!f)
		return;
	__atomic_store_n(&f->len, len, __ATOMIC_RELEASE);
	if (len - f->nudged >= WB_STEP) {
		f->nudged = len;
		wb_nudge();
	}
}

bool ustd_wb_caught_up(const struct ustd_wb_file *f)
{
	if (!f)
		return true;
	return f->len <= f->window + 2 * WB_STEP ||
		__atomic_load_n(&f->dropped, __ATOMIC_ACQUIRE) + f->window + 2 * WB_STEP >= f->len;
}

void ustd_wb_close(struct ustd_wb_file *f, uint64_t len)
{
	if (!f)
		return;
	__atomic_store_n(&f->len, len, __ATOMIC_RELEASE);
	__atomic_store_n(&f->closed, 1, __ATOMIC_RELEASE);
	wb_nudge();
}
