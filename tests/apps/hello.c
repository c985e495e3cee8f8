/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The demo and reference program: every way of instrumenting a program
 * (markers, a tracepoint with a probe, a typed event), with known values
 * that the end-to-end tests check field by field.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <ust/marker.h>

#include "hello_tp.h"
#define UST_CREATE_PROBES
#include "hello_events.h"

DEFINE_TRACE(hello_tptest);

static void hello_probe(void *data, int anint)
{
	trace_mark(ust, tp_probe, "anint %d tag %s", anint, (const char *)data);
}

int main(int argc, char **argv)
{
	int i, n = argc > 1 ? atoi(argv[1]) : 5;
	static char tag[] = "probe-data";

	register_trace_hello_tptest(hello_probe, tag);
	for (i = 0; i < n; i++) {
		trace_mark(ust, search_event, "dn %s count %d", "cn=bob,dc=example", i);
		trace_hello_tptest(i);
		trace_myprovider_request_done(200 + i, "/index", 6);
	}
	trace_mark(ust, all_types,
		   "c %c hh %hhd h %hd i %i u %u x %x l %ld ll %lld z %zu j %jd "
		   "p %p f %f lf %lf s %s hu %hhu lx %lx",
		   'A', (signed char)-5, (short)-300, -70000, 4000000000u, 0xdeadbeefu,
		   -5000000000L, -1LL, (size_t)123456789, (intmax_t)-42,
		   (void *)0x1234, 1.5, -2.25, "hello", (unsigned char)250, 0xabcdefUL);
	trace_mark(ust, unnamed, "%d %u", -1, 2u);
	trace_mark(ust, no_args, "");
	trace_mark(ust, null_string, "s %s", (const char *)NULL);
	unregister_trace_hello_tptest(hello_probe, tag);
	trace_hello_tptest(-1);
	printf("hello: %d iterations done\n", n);
	return 0;
}
