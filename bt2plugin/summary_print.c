/* SPDX-License-Identifier: LGPL-2.1-only */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bt2plugin/span_stats.h"
#include "bt2plugin/summary_print.h"
#include "bt2plugin/xml_text.h"

static int by_name(const void *a, const void *b)
{
	return strcmp((*(struct ust_sum_row *const *)a)->name,
		      (*(struct ust_sum_row *const *)b)->name);
}

static int by_cpu(const void *a, const void *b)
{
	int64_t x = (*(struct ust_sum_row *const *)a)->cpu, y = (*(struct ust_sum_row *const *)b)->cpu;

	return (x > y) - (x < y);
}

static int by_pid(const void *a, const void *b)
{
	int64_t x = (*(struct ust_sum_row *const *)a)->pid, y = (*(struct ust_sum_row *const *)b)->pid;

	return (x > y) - (x < y);
}

static int by_thread(const void *a, const void *b)
{
	const struct ust_sum_row *x = *(struct ust_sum_row *const *)a;
	const struct ust_sum_row *y = *(struct ust_sum_row *const *)b;

	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* Events per second over the row's own span of time; 0 for a single instant. */
static double rate(uint64_t count, int64_t first, int64_t last)
{
	return last > first ? (double)count * 1e9 / (double)(last - first) : 0.0;
}

static double secs(int64_t ns)
{
	return (double)ns / 1e9;
}

static const char *human_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	size_t u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", v, units[u]);
	return buf;
}

static const unsigned int pcts[] = { 50, 90, 99 };

/* Per span name: count, min, p50, p90, p99, max in microseconds to the ns,
 * and the spans still open at the end of the trace. */
static void print_spans_text(FILE *f, const struct ust_sum_tables *tb)
{
	size_t i, k, w = 4;

	if (!tb->nr_spans)
		return;
	for (i = 0; i < tb->nr_spans; i++)
		if (strlen(tb->spans[i]->name) > w)
			w = strlen(tb->spans[i]->name);
	fprintf(f, "\n%-*s %10s %14s %14s %14s %14s %14s %9s\n", (int)w, "span", "count",
		"min (us)", "p50 (us)", "p90 (us)", "p99 (us)", "max (us)", "unclosed");
	for (i = 0; i < tb->nr_spans; i++) {
		const struct ust_span_stat *sp = tb->spans[i];

		fprintf(f, "%-*s %10zu %14.3f", (int)w, sp->name, sp->nr,
			sp->nr ? (double)sp->dur[0] / 1e3 : 0.0);
		for (k = 0; k < sizeof(pcts) / sizeof(pcts[0]); k++)
			fprintf(f, " %14.3f", (double)ust_span_percentile(sp, pcts[k]) / 1e3);
		fprintf(f, " %14.3f %9" PRIu64 "\n", sp->nr ? (double)sp->dur[sp->nr - 1] / 1e3 : 0.0,
			sp->unclosed);
	}
}

static void print_text(FILE *f, const struct ust_sum_totals *t, const struct ust_sum_tables *tb)
{
	int64_t dur = t->events ? t->last_ns - t->first_ns : 0;
	size_t i, w = 5;
	char size[32];

	fprintf(f, "duration          %.6f s\n", secs(dur));
	fprintf(f, "events            %" PRIu64 " recorded, %" PRIu64 " discarded", t->events,
		t->discarded);
	if (t->discarded_packets)
		fprintf(f, ", %" PRIu64 " packets discarded", t->discarded_packets);
	if (t->suspect)
		fprintf(f, ", %" PRIu64 " loss report%s with a suspect count (>= 2^63, not added)",
			t->suspect, t->suspect > 1 ? "s" : "");
	fprintf(f, "\nrate              %.0f events/s\n", rate(t->events, t->first_ns, t->last_ns));
	fprintf(f, "packets           %" PRIu64 " in %" PRIu64 " streams\n", t->packets, t->streams);
	if (t->have_bytes)
		fprintf(f, "size              %s on disk\n", human_size(t->bytes, size, sizeof(size)));
	for (i = 0; i < tb->nr_events; i++)
		if (strlen(tb->events[i]->name) > w)
			w = strlen(tb->events[i]->name);
	fprintf(f, "\n%-*s %12s %14s %12s %12s\n", (int)w, "event", "count", "events/s",
		"first (s)", "last (s)");
	for (i = 0; i < tb->nr_events; i++) {
		const struct ust_sum_row *r = tb->events[i];

		fprintf(f, "%-*s %12" PRIu64 " %14.0f %12.6f %12.6f\n", (int)w, r->name, r->count,
			rate(r->count, r->first_ns, r->last_ns), secs(r->first_ns - t->first_ns),
			secs(r->last_ns - t->first_ns));
	}
	if (tb->nr_procs) {
		for (i = 0, w = 4; i < tb->nr_procs; i++)
			if (strlen(tb->procs[i]->name) > w)
				w = strlen(tb->procs[i]->name);
		fprintf(f, "\n%-8s %-*s %12s %14s\n", "pid", (int)w, "name", "count", "events/s");
		for (i = 0; i < tb->nr_procs; i++) {
			const struct ust_sum_row *r = tb->procs[i];

			fprintf(f, "%-8" PRId64 " %-*s %12" PRIu64 " %14.0f\n", r->pid, (int)w, r->name,
				r->count, rate(r->count, r->first_ns, r->last_ns));
		}
	}
	if (tb->nr_cpus) {
		fprintf(f, "\n%-8s %12s %14s\n", "cpu", "count", "events/s");
		for (i = 0; i < tb->nr_cpus; i++)
			fprintf(f, "%-8" PRId64 " %12" PRIu64 " %14.0f\n", tb->cpus[i]->cpu,
				tb->cpus[i]->count,
				rate(tb->cpus[i]->count, tb->cpus[i]->first_ns, tb->cpus[i]->last_ns));
	}
	if (tb->nr_threads) {
		fprintf(f, "\n%-8s %-8s %12s %14s\n", "pid", "tid", "count", "events/s");
		for (i = 0; i < tb->nr_threads; i++) {
			const struct ust_sum_row *r = tb->threads[i];

			fprintf(f, "%-8" PRId64 " %-8" PRId64 " %12" PRIu64 " %14.0f\n", r->pid, r->tid,
				r->count, rate(r->count, r->first_ns, r->last_ns));
		}
	}
	print_spans_text(f, tb);
}

static void xml_row_times(FILE *f, const struct ust_sum_row *r)
{
	fprintf(f, " count=\"%" PRIu64 "\" first_ns=\"%" PRId64 "\" last_ns=\"%" PRId64
		"\" rate=\"%.3f\"/>\n", r->count, r->first_ns, r->last_ns,
		rate(r->count, r->first_ns, r->last_ns));
}

static void print_xml(FILE *f, const struct ust_sum_totals *t, const struct ust_sum_tables *tb)
{
	size_t i;

	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	      "<summary xmlns=\"https://ust.dev/xml/ns/summary\">\n", f);
	fprintf(f, "  <totals events=\"%" PRIu64 "\" events_discarded=\"%" PRIu64
		"\" packets_discarded=\"%" PRIu64 "\" packets=\"%" PRIu64
		"\" streams=\"%" PRIu64 "\" first_ns=\"%" PRId64 "\" last_ns=\"%" PRId64
		"\" duration_ns=\"%" PRId64 "\"", t->events, t->discarded,
		t->discarded_packets, t->packets, t->streams, t->first_ns, t->last_ns,
		t->events ? t->last_ns - t->first_ns : 0);
	if (t->have_bytes)
		fprintf(f, " bytes=\"%" PRIu64 "\"", t->bytes);
	if (t->suspect)
		fprintf(f, " suspect_discard_reports=\"%" PRIu64 "\"", t->suspect);
	fputs("/>\n", f);
	fputs("  <events>\n", f);
	for (i = 0; i < tb->nr_events; i++) {
		fputs("    <event name=\"", f);
		ust_xml_escaped(f, tb->events[i]->name);
		putc('"', f);
		xml_row_times(f, tb->events[i]);
	}
	fputs("  </events>\n  <processes>\n", f);
	for (i = 0; i < tb->nr_procs; i++) {
		fprintf(f, "    <process pid=\"%" PRId64 "\" name=\"", tb->procs[i]->pid);
		ust_xml_escaped(f, tb->procs[i]->name);
		putc('"', f);
		xml_row_times(f, tb->procs[i]);
	}
	fputs("  </processes>\n  <cpus>\n", f);
	for (i = 0; i < tb->nr_cpus; i++) {
		fprintf(f, "    <cpu id=\"%" PRId64 "\"", tb->cpus[i]->cpu);
		xml_row_times(f, tb->cpus[i]);
	}
	fputs("  </cpus>\n  <threads>\n", f);
	for (i = 0; i < tb->nr_threads; i++) {
		fprintf(f, "    <thread pid=\"%" PRId64 "\" tid=\"%" PRId64 "\"", tb->threads[i]->pid,
			tb->threads[i]->tid);
		xml_row_times(f, tb->threads[i]);
	}
	fputs("  </threads>\n  <spans>\n", f);
	for (i = 0; i < tb->nr_spans; i++) {
		const struct ust_span_stat *sp = tb->spans[i];
		int64_t total = 0;
		size_t k;

		for (k = 0; k < sp->nr; k++)
			total += sp->dur[k];
		fputs("    <span name=\"", f);
		ust_xml_escaped(f, sp->name);
		fprintf(f, "\" count=\"%zu\" min_ns=\"%" PRId64 "\"", sp->nr, sp->nr ? sp->dur[0] : 0);
		for (k = 0; k < sizeof(pcts) / sizeof(pcts[0]); k++)
			fprintf(f, " p%u_ns=\"%" PRId64 "\"", pcts[k], ust_span_percentile(sp, pcts[k]));
		fprintf(f, " max_ns=\"%" PRId64 "\" total_ns=\"%" PRId64 "\" unclosed=\"%" PRIu64 "\"/>\n",
			sp->nr ? sp->dur[sp->nr - 1] : 0, total, sp->unclosed);
	}
	fputs("  </spans>\n", f);
}

void ust_sum_print(FILE *f, const struct ust_sum_totals *t, struct ust_sum_tables *tables,
		   bool xml)
{
	qsort(tables->events, tables->nr_events, sizeof(*tables->events), by_name);
	qsort(tables->procs, tables->nr_procs, sizeof(*tables->procs), by_pid);
	qsort(tables->cpus, tables->nr_cpus, sizeof(*tables->cpus), by_cpu);
	qsort(tables->threads, tables->nr_threads, sizeof(*tables->threads), by_thread);
	if (xml)
		print_xml(f, t, tables);
	else
		print_text(f, t, tables);
}

void ust_sum_print_end(FILE *f, bool xml)
{
	if (xml)
		fputs("</summary>\n", f);
}
