/* SPDX-License-Identifier: LGPL-2.1-only */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include "libustcomm/format.h"
#include "libustcomm/log_repeat.h"

/* Kinds followed at once; a new one takes the slot of the oldest window
 * (its count told first), so memory stays fixed whatever is logged. */
#define REPEAT_SLOTS	32
#define REPEAT_SAMPLE	96	/* of the window's first line, in its summary */

struct repeat_slot {
	const char *fmt;		/* the kind; NULL: free */
	uint64_t start_s;		/* the window's, CLOCK_MONOTONIC */
	unsigned long written;		/* lines of the window written */
	unsigned long suppressed;	/* lines of the window not written */
	char sample[REPEAT_SAMPLE];
};

static pthread_mutex_t repeat_lock = PTHREAD_MUTEX_INITIALIZER;
static struct repeat_slot repeat_slots[REPEAT_SLOTS];
/* Lines suppressed and not told yet, read without the lock by flush(). */
static unsigned long repeat_pending;

static uint64_t repeat_now_s(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)now.tv_sec;
}

/* Tells slot's suppressed lines, if any, and forgets them. */
static void repeat_tell(const char *prefix, struct repeat_slot *slot, ustcomm_log_put_fn put)
{
	char note[REPEAT_SAMPLE + 256];
	int n;

	if (!slot->suppressed)
		return;
	n = ustcomm_format(note, sizeof(note),
			   "%s: warning: %lu more messages like \"%s\" were not written: at most %d of a kind are written each %d s\n",
			   prefix, slot->suppressed, slot->sample, LOG_REPEAT_BURST,
			   LOG_REPEAT_WINDOW_S);
	__atomic_fetch_sub(&repeat_pending, slot->suppressed, __ATOMIC_RELAXED);
	slot->suppressed = 0;
	if (n > 0)
		put(note, (size_t)n);
}

static bool repeat_window_over(const struct repeat_slot *slot, uint64_t now)
{
	return now - slot->start_s >= LOG_REPEAT_WINDOW_S;
}

static void repeat_flush_locked(const char *prefix, bool all, uint64_t now,
				ustcomm_log_put_fn put)
{
	int i;

	for (i = 0; i < REPEAT_SLOTS; i++) {
		if (repeat_slots[i].fmt && (all || repeat_window_over(&repeat_slots[i], now)))
			repeat_tell(prefix, &repeat_slots[i], put);
	}
}

/* fmt's slot, or the one it takes over (the free or oldest one). Slots
 * are taken in order and never freed: past the first free one, none is
 * fmt's. */
static struct repeat_slot *repeat_slot_of(const char *fmt)
{
	struct repeat_slot *oldest = &repeat_slots[0];
	int i;

	for (i = 0; i < REPEAT_SLOTS; i++) {
		if (repeat_slots[i].fmt == fmt)
			return &repeat_slots[i];
		if (!repeat_slots[i].fmt)
			return &repeat_slots[i];
		if (repeat_slots[i].start_s < oldest->start_s)
			oldest = &repeat_slots[i];
	}
	return oldest;
}

/* The line without its end of line, as much as the sample holds. */
static void repeat_sample(struct repeat_slot *slot, const char *line)
{
	size_t len = strcspn(line, "\n");

	if (len >= sizeof(slot->sample))
		len = sizeof(slot->sample) - 1;
	memcpy(slot->sample, line, len);
	slot->sample[len] = '\0';
}

bool ustcomm_log_repeat_admit(const char *prefix, const char *fmt, const char *line,
			      ustcomm_log_put_fn put)
{
	uint64_t now = repeat_now_s();
	struct repeat_slot *slot;
	bool admit = true;

	pthread_mutex_lock(&repeat_lock);
	repeat_flush_locked(prefix, false, now, put);
	slot = repeat_slot_of(fmt);
	if (slot->fmt != fmt) {
		/* Taken over: what the former kind suppressed is told first. */
		if (slot->fmt)
			repeat_tell(prefix, slot, put);
		slot->fmt = fmt;
		slot->start_s = now;
		slot->written = 0;
	} else if (repeat_window_over(slot, now)) {
		slot->start_s = now;
		slot->written = 0;
	}
	if (slot->written < LOG_REPEAT_BURST) {
		if (!slot->written)
			repeat_sample(slot, line);
		slot->written++;
	} else {
		slot->suppressed++;
		__atomic_fetch_add(&repeat_pending, 1, __ATOMIC_RELAXED);
		admit = false;
	}
	pthread_mutex_unlock(&repeat_lock);
	return admit;
}

void ustcomm_log_repeat_flush(const char *prefix, bool all, ustcomm_log_put_fn put)
{
	if (!__atomic_load_n(&repeat_pending, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&repeat_lock);
	repeat_flush_locked(prefix, all, repeat_now_s(), put);
	pthread_mutex_unlock(&repeat_lock);
}
