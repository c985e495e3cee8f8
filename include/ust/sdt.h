/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * sys/sdt.h probes at UST's sites, when UST_SDT is 1 (the default of a
 * libust configured --with-sdt; -DUST_SDT=0 or 1 overrides it per file):
 * every marker and typed event is also a SystemTap-style static probe,
 * provider its channel or provider, name its name, arguments the site's
 * (up to 12; a marker with more has a probe without arguments), so that
 * perf probe sdt_*, bpftrace usdt: and gdb find the site by name.
 * Included by marker.h and tracepoint_event.h, not by applications.
 *
 * A disabled site still costs one load and one branch: the probe's
 * semaphore, the 16-bit counter that perf, bpftrace and gdb increment
 * while they are attached (uprobe ref_ctr_offset), is the upper half of
 * the site's own enabled word, whose lower half is libust's
 * (UST_SITE_UST_MASK; libust stores to that half only). Either makes the
 * word non-zero, and the site then sees which. The arguments are
 * evaluated once, into locals, whoever is attached. (C++ markers have no
 * semaphore: see __UST_SDT_DESC_ATTR.)
 *
 * The note is sys/sdt.h's version 3 note, built from sys/sdt.h's own
 * macros, with one difference: its semaphore is given as an address
 * operand (a marker's descriptor is a block-scope static, with no symbol
 * to name) where sys/sdt.h names a symbol PROVIDER_NAME_semaphore.
 */
#ifndef UST_SDT_H
#define UST_SDT_H

#include <stdint.h>
#include <sys/sdt.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define __UST_SDT_SEM_OFFSET	0
#else
#define __UST_SDT_SEM_OFFSET	2
#endif

/* A debugger or tracer is attached to one of the site's probes. */
#define __UST_SDT_ATTACHED(flags)	((uint32_t)(flags) >> 16)

#ifdef __cplusplus
#define __UST_SDT_AUTO	auto
#else
/* gcc >= 4.9 and clang have it; __extension__ keeps -pedantic quiet. */
#define __UST_SDT_AUTO	__extension__ __auto_type
#endif

#define __UST_SDT_NOTE(provider, name, n) \
	_SDT_DEF_MACROS \
	_SDT_ASM_1(990:	_SDT_NOP) \
	_SDT_ASM_3(	.pushsection .note.stapsdt, _SDT_ASM_AUTOGROUP, "note") \
	_SDT_ASM_1(	.balign 4) \
	_SDT_ASM_3(	.4byte 992f-991f, 994f-993f, _SDT_NOTE_TYPE) \
	_SDT_ASM_1(991:	.asciz _SDT_NOTE_NAME) \
	_SDT_ASM_1(992:	.balign 4) \
	_SDT_ASM_1(993:	_SDT_ASM_ADDR 990b) \
	_SDT_ASM_1(	_SDT_ASM_ADDR _.stapsdt.base) \
	_SDT_ASM_1(	_SDT_ASM_ADDR %c[__ust_sem]) \
	_SDT_ASM_STRING(provider) \
	_SDT_ASM_STRING(name) \
	_SDT_ASM_ARGS(n) \
	_SDT_ASM_SUBSTR(\x00) \
	_SDT_UNDEF_MACROS \
	_SDT_ASM_1(994:	.balign 4) \
	_SDT_ASM_1(	.popsection)

/* The probe of a site, with n arguments; sem is its semaphore's address. */
#define __UST_SDT_PROBE(provider, name, sem, n, arglist) \
	__UST_SDT_PROBE_(provider, name, sem, n, arglist)
#define __UST_SDT_PROBE_(provider, name, sem, n, arglist) \
	do { \
		__asm__ __volatile__(__UST_SDT_NOTE(provider, name, n) \
				     : : [__ust_sem] "i" (sem), \
				     _SDT_ASM_OPERANDS_##n arglist); \
		__asm__ __volatile__(_SDT_ASM_BASE); \
	} while (0)

/*
 * perf and bpftrace find a semaphore's place in the file through the
 * section named .probes, where sys/sdt.h puts its semaphores: a
 * semaphore elsewhere would be taken for one at a wrong offset. The
 * descriptors whose word serves as semaphore are placed there, and only
 * those: a typed event's (file scope), a C marker's. A C++ marker's static
 * may be a COMDAT object (inline function, template), which cannot share
 * a section with the others (core.h), so its probe has no semaphore: it
 * fires while libust records the marker.
 */
#define __UST_SDT_DESC_ATTR	__attribute__((section(".probes")))
#define __UST_SDT_SEM(desc)	((char *)&(desc).enabled + __UST_SDT_SEM_OFFSET)
#ifdef __cplusplus
#define __UST_SDT_MARK_DESC_ATTR
#define __UST_SDT_MARK_SEM(desc)	((char *)0)
#else
#define __UST_SDT_MARK_DESC_ATTR	__UST_SDT_DESC_ATTR
#define __UST_SDT_MARK_SEM(desc)	__UST_SDT_SEM(desc)
#endif

/*
 * A marker's enabled branch: its arguments counted (__UST_SDT_COUNT gives
 * 0 to 12, or MANY), each evaluated once into a local that both consumers
 * read.
 */
#define __UST_SDT_MARK(chan, ev, desc, flags, ...) \
	__UST_ARG_CAT(__UST_SDT_MARK_, __UST_SDT_COUNT(__VA_ARGS__))(chan, ev, desc, flags, \
								    __VA_ARGS__)
#define __UST_SDT_COUNT(...) \
	__UST_ARG_PICK64(__VA_ARGS__, \
		MANY, MANY, MANY, MANY, MANY, MANY, MANY, MANY, MANY, MANY, \
		MANY, MANY, MANY, MANY, MANY, MANY, MANY, MANY, MANY, MANY, \
		MANY, MANY, MANY, MANY, MANY, MANY, MANY, MANY, MANY, MANY, \
		MANY, MANY, MANY, MANY, MANY, MANY, MANY, MANY, MANY, MANY, \
		MANY, MANY, MANY, MANY, MANY, MANY, MANY, MANY, MANY, MANY, \
		12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, _)
#define __UST_SDT_MARK_MANY(chan, ev, desc, flags, ...) \
	if ((flags) & UST_SITE_UST_MASK) \
		ust_marker_emit(&(desc) __UST_ARG_REST(__VA_ARGS__)); \
	if (__UST_SDT_ATTACHED(flags)) \
		__UST_SDT_PROBE(chan, ev, __UST_SDT_MARK_SEM(desc), 0, ());
#define __UST_SDT_MARK_0(chan, ev, desc, flags, fmt) \
	if ((flags) & UST_SITE_UST_MASK) \
		ust_marker_emit(&(desc)); \
	if (__UST_SDT_ATTACHED(flags)) \
		__UST_SDT_PROBE(chan, ev, __UST_SDT_MARK_SEM(desc), 0, ());
#define __UST_SDT_MARK_1(chan, ev, desc, flags, fmt, a1) \
	__UST_SDT_AUTO __ust_a1 = (a1); \
	if ((flags) & UST_SITE_UST_MASK) \
		ust_marker_emit(&(desc), __ust_a1); \
	if (__UST_SDT_ATTACHED(flags)) \
		__UST_SDT_PROBE(chan, ev, __UST_SDT_MARK_SEM(desc), 1, (__ust_a1));
#define __UST_SDT_MARK_2(chan, ev, desc, flags, fmt, a1, a2) \
	__UST_SDT_AUTO __ust_a1 = (a1); \
	__UST_SDT_AUTO __ust_a2 = (a2); \
	if ((flags) & UST_SITE_UST_MASK) \
		ust_marker_emit(&(desc), __ust_a1, __ust_a2); \
	if (__UST_SDT_ATTACHED(flags)) \
		__UST_SDT_PROBE(chan, ev, __UST_SDT_MARK_SEM(desc), 2, (__ust_a1, __ust_a2));
#define __UST_SDT_MARK_3(chan, ev, desc, flags, fmt, a1, a2, a3) \
	__UST_SDT_AUTO __ust_a1 = (a1); \
	__UST_SDT_AUTO __ust_a2 = (a2); \
	__UST_SDT_AUTO __ust_a3 = (a3); \
	if ((flags) & UST_SITE_UST_MASK) \
		ust_marker_emit(&(desc), __ust_a1, __ust_a2, __ust_a3); \
	if (__UST_SDT_ATTACHED(flags)) \
		__UST_SDT_PROBE(chan, ev, __UST_SDT_MARK_SEM(desc), 3, (__ust_a1, __ust_a2, __ust_a3));
#define __UST_SDT_MARK_4(chan, ev, desc, flags, fmt, a1, a2, a3, a4) \
	__UST_SDT_AUTO __ust_a1 = (a1); \
	__UST_SDT_AUTO __ust_a2 = (a2); \
	__UST_SDT_AUTO __ust_a3 = (a3); \
	__UST_SDT_AUTO __ust_a4 = (a4); \
	if ((flags) & UST_SITE_UST_MASK) \
		ust_marker_emit(&(desc), __ust_a1, __ust_a2, __ust_a3, __ust_a4); \
	if (__UST_SDT_ATTACHED(flags)) \
		__UST_SDT_PROBE(chan, ev, __UST_SDT_MARK_SEM(desc), 4, (__ust_a1, __ust_a2, __ust_a3, __ust_a4));
#define __UST_SDT_MARK_5(chan, ev, desc, flags, fmt, a1, a2, a3, a4, a5) \
	__UST_SDT_AUTO __ust_a1 = (a1); \
	__UST_SDT_AUTO __ust_a2 = (a2); \
	__UST_SDT_AUTO __ust_a3 = (a3); \
	__UST_SDT_AUTO __ust_a4 = (a4); \
	__UST_SDT_AUTO __ust_a5 = (a5); \
	if ((flags) & UST_SITE_UST_MASK) \
		ust_marker_emit(&(desc), __ust_a1, __ust_a2, __ust_a3, __ust_a4, __ust_a5); \
	if (__UST_SDT_ATTACHED(flags)) \
		__UST_SDT_PROBE(chan, ev, __UST_SDT_MARK_SEM(desc), 5, (__ust_a1, __ust_a2, __ust_a3, __ust_a4, __ust_a5));
#define __UST_SDT_MARK_6(chan, ev, desc, flags, fmt, a1, a2, a3, a4, a5, a6) \
	__UST_SDT_AUTO __ust_a1 = (a1); \
	__UST_SDT_AUTO __ust_a2 = (a2); \
	__UST_SDT_AUTO __ust_a3 = (a3); \
	__UST_SDT_AUTO __ust_a4 = (a4); \
	__UST_SDT_AUTO __ust_a5 = (a5); \
	__UST_SDT_AUTO __ust_a6 = (a6); \
	if ((flags) & UST_SITE_UST_MASK) \
		ust_marker_emit(&(desc), __ust_a1, __ust_a2, __ust_a3, __ust_a4, __ust_a5, __ust_a6); \
	if (__UST_SDT_ATTACHED(flags)) \
		__UST_SDT_PROBE(chan, ev, __UST_SDT_MARK_SEM(desc), 6, (__ust_a1, __ust_a2, __ust_a3, __ust_a4, __ust_a5, __ust_a6));
#define __UST_SDT_MARK_7(chan, ev, desc, flags, fmt, a1, a2, a3, a4, a5, a6, a7) \
	__UST_SDT_AUTO __ust_a1 = (a1); \
	__UST_SDT_AUTO __ust_a2 = (a2); \
	__UST_SDT_AUTO __ust_a3 = (a3); \
	__UST_SDT_AUTO __ust_a4 = (a4); \
	__UST_SDT_AUTO __ust_a5 = (a5); \
	__UST_SDT_AUTO __ust_a6 = (a6); \
	__UST_SDT_AUTO __ust_a7 = (a7); \
	if ((flags) & UST_SITE_UST_MASK) \
		ust_marker_emit(&(desc), __ust_a1, __ust_a2, __ust_a3, __ust_a4, __ust_a5, __ust_a6, __ust_a7); \
	if (__UST_SDT_ATTACHED(flags)) \
		__UST_SDT_PROBE(chan, ev, __UST_SDT_MARK_SEM(desc), 7, (__ust_a1, __ust_a2, __ust_a3, __ust_a4, __ust_a5, __ust_a6, __ust_a7));
#define __UST_SDT_MARK_8(chan, ev, desc, flags, fmt, a1, a2, a3, a4, a5, a6, a7, a8) \
	__UST_SDT_AUTO __ust_a1 = (a1); \
	__UST_SDT_AUTO __ust_a2 = (a2); \
	__UST_SDT_AUTO __ust_a3 = (a3); \
	__UST_SDT_AUTO __ust_a4 = (a4); \
	__UST_SDT_AUTO __ust_a5 = (a5); \
	__UST_SDT_AUTO __ust_a6 = (a6); \
	__UST_SDT_AUTO __ust_a7 = (a7); \
	__UST_SDT_AUTO __ust_a8 = (a8); \
	if ((flags) & UST_SITE_UST_MASK) \
		ust_marker_emit(&(desc), __ust_a1, __ust_a2, __ust_a3, __ust_a4, __ust_a5, __ust_a6, __ust_a7, __ust_a8); \
	if (__UST_SDT_ATTACHED(flags)) \
		__UST_SDT_PROBE(chan, ev, __UST_SDT_MARK_SEM(desc), 8, (__ust_a1, __ust_a2, __ust_a3, __ust_a4, __ust_a5, __ust_a6, __ust_a7, __ust_a8));
#define __UST_SDT_MARK_9(chan, ev, desc, flags, fmt, a1, a2, a3, a4, a5, a6, a7, a8, a9) \
	__UST_SDT_AUTO __ust_a1 = (a1); \
	__UST_SDT_AUTO __ust_a2 = (a2); \
	__UST_SDT_AUTO __ust_a3 = (a3); \
	__UST_SDT_AUTO __ust_a4 = (a4); \
	__UST_SDT_AUTO __ust_a5 = (a5); \
	__UST_SDT_AUTO __ust_a6 = (a6); \
	__UST_SDT_AUTO __ust_a7 = (a7); \
	__UST_SDT_AUTO __ust_a8 = (a8); \
	__UST_SDT_AUTO __ust_a9 = (a9); \
	if ((flags) & UST_SITE_UST_MASK) \
		ust_marker_emit(&(desc), __ust_a1, __ust_a2, __ust_a3, __ust_a4, __ust_a5, __ust_a6, __ust_a7, __ust_a8, __ust_a9); \
	if (__UST_SDT_ATTACHED(flags)) \
		__UST_SDT_PROBE(chan, ev, __UST_SDT_MARK_SEM(desc), 9, (__ust_a1, __ust_a2, __ust_a3, __ust_a4, __ust_a5, __ust_a6, __ust_a7, __ust_a8, __ust_a9));
#define __UST_SDT_MARK_10(chan, ev, desc, flags, fmt, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10) \
	__UST_SDT_AUTO __ust_a1 = (a1); \
	__UST_SDT_AUTO __ust_a2 = (a2); \
	__UST_SDT_AUTO __ust_a3 = (a3); \
	__UST_SDT_AUTO __ust_a4 = (a4); \
	__UST_SDT_AUTO __ust_a5 = (a5); \
	__UST_SDT_AUTO __ust_a6 = (a6); \
	__UST_SDT_AUTO __ust_a7 = (a7); \
	__UST_SDT_AUTO __ust_a8 = (a8); \
	__UST_SDT_AUTO __ust_a9 = (a9); \
	__UST_SDT_AUTO __ust_a10 = (a10); \
	if ((flags) & UST_SITE_UST_MASK) \
		ust_marker_emit(&(desc), __ust_a1, __ust_a2, __ust_a3, __ust_a4, __ust_a5, __ust_a6, __ust_a7, __ust_a8, __ust_a9, __ust_a10); \
	if (__UST_SDT_ATTACHED(flags)) \
		__UST_SDT_PROBE(chan, ev, __UST_SDT_MARK_SEM(desc), 10, (__ust_a1, __ust_a2, __ust_a3, __ust_a4, __ust_a5, __ust_a6, __ust_a7, __ust_a8, __ust_a9, __ust_a10));
#define __UST_SDT_MARK_11(chan, ev, desc, flags, fmt, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11) \
	__UST_SDT_AUTO __ust_a1 = (a1); \
	__UST_SDT_AUTO __ust_a2 = (a2); \
	__UST_SDT_AUTO __ust_a3 = (a3); \
	__UST_SDT_AUTO __ust_a4 = (a4); \
	__UST_SDT_AUTO __ust_a5 = (a5); \
	__UST_SDT_AUTO __ust_a6 = (a6); \
	__UST_SDT_AUTO __ust_a7 = (a7); \
	__UST_SDT_AUTO __ust_a8 = (a8); \
	__UST_SDT_AUTO __ust_a9 = (a9); \
	__UST_SDT_AUTO __ust_a10 = (a10); \
	__UST_SDT_AUTO __ust_a11 = (a11); \
	if ((flags) & UST_SITE_UST_MASK) \
		ust_marker_emit(&(desc), __ust_a1, __ust_a2, __ust_a3, __ust_a4, __ust_a5, __ust_a6, __ust_a7, __ust_a8, __ust_a9, __ust_a10, __ust_a11); \
	if (__UST_SDT_ATTACHED(flags)) \
		__UST_SDT_PROBE(chan, ev, __UST_SDT_MARK_SEM(desc), 11, (__ust_a1, __ust_a2, __ust_a3, __ust_a4, __ust_a5, __ust_a6, __ust_a7, __ust_a8, __ust_a9, __ust_a10, __ust_a11));
#define __UST_SDT_MARK_12(chan, ev, desc, flags, fmt, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12) \
	__UST_SDT_AUTO __ust_a1 = (a1); \
	__UST_SDT_AUTO __ust_a2 = (a2); \
	__UST_SDT_AUTO __ust_a3 = (a3); \
	__UST_SDT_AUTO __ust_a4 = (a4); \
	__UST_SDT_AUTO __ust_a5 = (a5); \
	__UST_SDT_AUTO __ust_a6 = (a6); \
	__UST_SDT_AUTO __ust_a7 = (a7); \
	__UST_SDT_AUTO __ust_a8 = (a8); \
	__UST_SDT_AUTO __ust_a9 = (a9); \
	__UST_SDT_AUTO __ust_a10 = (a10); \
	__UST_SDT_AUTO __ust_a11 = (a11); \
	__UST_SDT_AUTO __ust_a12 = (a12); \
	if ((flags) & UST_SITE_UST_MASK) \
		ust_marker_emit(&(desc), __ust_a1, __ust_a2, __ust_a3, __ust_a4, __ust_a5, __ust_a6, __ust_a7, __ust_a8, __ust_a9, __ust_a10, __ust_a11, __ust_a12); \
	if (__UST_SDT_ATTACHED(flags)) \
		__UST_SDT_PROBE(chan, ev, __UST_SDT_MARK_SEM(desc), 12, (__ust_a1, __ust_a2, __ust_a3, __ust_a4, __ust_a5, __ust_a6, __ust_a7, __ust_a8, __ust_a9, __ust_a10, __ust_a11, __ust_a12));

/* A typed event's argument count from __UST_TE_NARGS (1: none, 2 per pair). */
#define __UST_SDT_TE_N(pargs)	__UST_ARG_CAT(__UST_SDT_TE_N_, __UST_TE_NARGS pargs)
#define __UST_SDT_TE_N_1	0
#define __UST_SDT_TE_N_2	1
#define __UST_SDT_TE_N_4	2
#define __UST_SDT_TE_N_6	3
#define __UST_SDT_TE_N_8	4
#define __UST_SDT_TE_N_10	5
#define __UST_SDT_TE_N_12	6
#define __UST_SDT_TE_N_14	7
#define __UST_SDT_TE_N_16	8
#define __UST_SDT_TE_N_18	9
#define __UST_SDT_TE_N_20	10

#endif /* UST_SDT_H */
