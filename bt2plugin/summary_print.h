/* SPDX-License-Identifier: LGPL-2.1-only */
/* The summary's two presentations: aligned text and XML (doc/xml/ust-summary.xsd). */
#ifndef UST_BT2_SUMMARY_PRINT_H
#define UST_BT2_SUMMARY_PRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct ust_sum_row {
	char *name;			/* event rows, process rows */
	struct ust_sum_row *next;	/* event rows of the same name hash */
	int64_t cpu;			/* CPU rows */
	int64_t pid, tid;		/* thread rows; process rows: pid */
	uint64_t count;
	int64_t first_ns, last_ns;
};

struct ust_sum_totals {
	uint64_t events, discarded, discarded_packets, packets, bytes, streams;
	uint64_t suspect;		/* loss reports with a count >= 2^63, not added */
	int64_t first_ns, last_ns;
	bool have_bytes;		/* bytes is the size on disk */
};

struct ust_span_stat;

struct ust_sum_tables {
	struct ust_sum_row **events, **procs, **cpus, **threads;
	size_t nr_events, nr_procs, nr_cpus, nr_threads;
	struct ust_span_stat **spans;	/* sorted by name, durations sorted (span_stats.h) */
	size_t nr_spans;
};

/* Sorts the tables (events by name, processes by pid, CPUs by number,
 * threads by pid, tid)
 * and prints them; in XML, more elements may follow before
 * ust_sum_print_end() closes the document. */
void ust_sum_print(FILE *f, const struct ust_sum_totals *t, struct ust_sum_tables *tables,
		   bool xml);
void ust_sum_print_end(FILE *f, bool xml);

#endif
