/* SPDX-License-Identifier: GPL-2.0-only */
#include <inttypes.h>
#include "libustcomm/clock.h"
#include "ustd/conn/drain_stats.h"

static unsigned hist_index(uint64_t v)
{
	unsigned e;

	if (v < USTD_HIST_SUB)
		return (unsigned)v;
	e = 63u - (unsigned)__builtin_clzll(v);
	/* e >= 3: the top bit and the 3 bits below it. */
	return (e - 2) * USTD_HIST_SUB + (unsigned)((v >> (e - 3)) & (USTD_HIST_SUB - 1));
}

/* The middle of bucket i. */
static uint64_t hist_value(unsigned i)
{
	unsigned e = i / USTD_HIST_SUB + 2, sub = i % USTD_HIST_SUB;
	uint64_t lo;

	if (i < USTD_HIST_SUB)
		return i;
	lo = ((uint64_t)(USTD_HIST_SUB + sub)) << (e - 3);
	return lo + (((uint64_t)1 << (e - 3)) >> 1);
}

static void hist_add(struct ustd_hist *h, uint64_t v)
{
	h->bucket[hist_index(v)]++;
	h->n++;
	if (v > h->max)
		h->max = v;
}

/* The value under which a fraction p of the samples lie (within 12.5 %). */
static uint64_t hist_pct(const struct ustd_hist *h, double p)
{
	uint64_t want = (uint64_t)(p * (double)h->n), seen = 0;
	unsigned i;

	for (i = 0; i < USTD_HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen > want)
			return hist_value(i) < h->max ? hist_value(i) : h->max;
	}
	return h->max;
}

uint64_t ustd_drain_stats_now(struct ustd_drain_stats *st)
{
	uint64_t clock = ust_clock_read_kind(st->tsc), ns = st->tsc ? ust_clock_read_kind(0) : clock;

	if (!st->t0_ns) {
		st->t0_clock = clock;
		st->t0_ns = ns;
	}
	st->t1_clock = clock;
	st->t1_ns = ns;
	return clock;
}

/* A clock that has not moved since the packet's time reads as 0, not as
 * a huge unsigned difference (TSCs of two CPUs a few ticks apart). */
static uint64_t stats_diff(uint64_t later, uint64_t earlier)
{
	return later > earlier ? later - earlier : 0;
}

void ustd_drain_stats_packet(struct ustd_drain_stats *st, uint32_t subbuf_count,
			     uint64_t ts_begin, uint64_t ts_end, uint64_t drain_start,
			     uint64_t write_start, uint64_t freed)
{
	st->subbuf_count = subbuf_count;
	hist_add(&st->full_to_free, stats_diff(freed, ts_end));
	hist_add(&st->wait, stats_diff(drain_start, ts_end));
	hist_add(&st->write, stats_diff(freed, write_start));
	hist_add(&st->fill, stats_diff(ts_end, ts_begin));
}

static void stats_print_hist(const struct ustd_hist *h, double us_per_tick, FILE *f)
{
	fprintf(f, "p50 %.0f p90 %.0f p99 %.0f max %.0f",
		(double)hist_pct(h, 0.50) * us_per_tick, (double)hist_pct(h, 0.90) * us_per_tick,
		(double)hist_pct(h, 0.99) * us_per_tick, (double)h->max * us_per_tick);
}

void ustd_drain_stats_path(struct ustd_drain_stats *st, const char *page_cache_why)
{
	st->page_cache_why = page_cache_why;
	st->written = true;
}

void ustd_drain_stats_report(const struct ustd_drain_stats *st, const char *what,
			     uint64_t discarded, FILE *f)
{
	double us_per_tick = 1e-3;

	if (!st->full_to_free.n)
		return;
	/* TSC ticks per ns from the first and last samples of the trace. */
	if (st->tsc && st->t1_ns > st->t0_ns && st->t1_clock > st->t0_clock)
		us_per_tick = 1e-3 * (double)(st->t1_ns - st->t0_ns) /
			(double)(st->t1_clock - st->t0_clock);
	fprintf(f, "ustd: drain of %s: %" PRIu64 " packets, %" PRIu64
		" events discarded; us from full to free: ", what, st->full_to_free.n, discarded);
	stats_print_hist(&st->full_to_free, us_per_tick, f);
	fprintf(f, "; waiting for the drain: ");
	stats_print_hist(&st->wait, us_per_tick, f);
	fprintf(f, "; writing: ");
	stats_print_hist(&st->write, us_per_tick, f);
	fprintf(f, "; filling a packet: ");
	stats_print_hist(&st->fill, us_per_tick, f);
	fprintf(f, "; sub-buffers %u", st->subbuf_count);
	if (st->written && !st->page_cache_why && st->lag_buffered)
		fprintf(f, "; written with O_DIRECT through io_uring (the device lagged: %" PRIu64
			" packets copied out of the ring, %" PRIu64 " through the page cache)",
			st->lag_copied, st->lag_buffered);
	else if (st->written && !st->page_cache_why)
		fprintf(f, "; written with O_DIRECT through io_uring");
	else if (st->written)
		fprintf(f, "; written through the page cache (%s)", st->page_cache_why);
	if (st->close_copied || st->close_buffered)
		fprintf(f, "; at files' closes %" PRIu64 " packets copied out of the ring, %" PRIu64
			" through the page cache", st->close_copied, st->close_buffered);
	fputc('\n', f);
}
