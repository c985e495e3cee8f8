/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How fast ustd gives sub-buffers back to the writers (ustd --stats): per
 * trace, the distribution of the time from a packet becoming full (its
 * timestamp_end, the writers' switch) to its sub-buffer being free again,
 * split into the wait until ustd runs its drain and the write itself, and
 * the time the writers took to fill a packet. A writer discards when a
 * sub-buffer is not free one ring after it became full, so the first must
 * stay below subbuf_count - 1 times the last (manual 10.7).
 */
#ifndef USTD_DRAIN_STATS_H
#define USTD_DRAIN_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Log-linear buckets: 8 per power of two (12.5 % wide), exact below 8. */
#define USTD_HIST_SUB		8
#define USTD_HIST_BUCKETS	(64 * USTD_HIST_SUB)

struct ustd_hist {
	uint64_t n;
	uint64_t max;
	uint32_t bucket[USTD_HIST_BUCKETS];
};

struct ustd_drain_stats {
	int tsc;			/* the application's clock is the TSC */
	uint64_t t0_clock, t0_ns;	/* first sample, to convert TSC ticks */
	uint64_t t1_clock, t1_ns;	/* last sample */
	struct ustd_hist full_to_free;	/* timestamp_end to release */
	struct ustd_hist wait;		/* timestamp_end to the drain's start */
	struct ustd_hist write;		/* taking, writing, clearing, releasing */
	struct ustd_hist fill;		/* timestamp_begin to timestamp_end */
	uint32_t subbuf_count;		/* of the last stream seen */
	/* How the last file made was written: NULL straight from the ring
	 * (O_DIRECT, io_uring), else why through the page cache. */
	const char *page_cache_why;
	bool written;			/* a file was made */
	/* Straight from the ring, while the device lagged (stream_direct.h):
	 * packets copied out of the ring, packets through the page cache;
	 * and the same while a file was being closed (a rotation). */
	uint64_t lag_copied, lag_buffered;
	uint64_t close_copied, close_buffered;
};

/* The application's clock now, and the tick-to-ns anchor. */
uint64_t ustd_drain_stats_now(struct ustd_drain_stats *st);

/* One packet: its times (application clock) and the drain's. */
void ustd_drain_stats_packet(struct ustd_drain_stats *st, uint32_t subbuf_count,
			     uint64_t ts_begin, uint64_t ts_end, uint64_t drain_start,
			     uint64_t write_start, uint64_t freed);

/* A stream file of the trace is made: written straight from the ring
 * (page_cache_why NULL) or through the page cache, for that reason. */
void ustd_drain_stats_path(struct ustd_drain_stats *st, const char *page_cache_why);

/* One line: "<what>: N packets, ...", or nothing when no packet was seen. */
void ustd_drain_stats_report(const struct ustd_drain_stats *st, const char *what,
			     uint64_t discarded, FILE *f);

#endif
