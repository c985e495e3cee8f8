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
 * word non-zero; the site then runs its probe (a nop, a breakpoint while
 * attached) and calls libust if libust's half is set. The arguments are
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

/*
 * The probe of a site, with n arguments; sem is its semaphore's address.
 * gcc guesses an asm statement's size from its lines, and the note's
 * dozens of lines made every function with a site look too big to inline
 * (a disabled site then cost a call and a prologue: +1 ns); "asm inline"
 * (gcc >= 9, clang >= 11; __inline__ is the spelling -pedantic accepts)
 * counts it as the one nop it emits in .text.
 */
#define __UST_SDT_PROBE(provider, name, sem, n, arglist) \
	__UST_SDT_PROBE_(provider, name, sem, n, arglist)
#define __UST_SDT_PROBE_(provider, name, sem, n, arglist) \
	do { \
		__asm__ __volatile__ __inline__(__UST_SDT_NOTE(provider, name, n) \
						: : [__ust_sem] "i" (sem), \
						_SDT_ASM_OPERANDS_##n arglist); \
		__asm__ __volatile__ __inline__(_SDT_ASM_BASE); \
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
 * A marker's enabled branch: its arguments counted (__UST_SDT_COUNT: 0 to
 * 12, or MANY, whose probe has none), each evaluated once into a local,
 * the probe (a nop, and a uprobe's breakpoint only while one is attached)
 * before libust's call, so that the locals need not outlive the call and
 * the branch grows by the nop and one test only.
 */
#define __UST_SDT_MARK(chan, ev, desc, flags, ...) \
	__UST_SDT_MARK_(__UST_SDT_KIND(__VA_ARGS__), __UST_SDT_COUNT(__VA_ARGS__), \
			chan, ev, desc, flags, __VA_ARGS__)
#define __UST_SDT_MARK_(kind, n, ...)	__UST_SDT_MARK__(kind, n, __VA_ARGS__)
#define __UST_SDT_MARK__(kind, n, ...)	__UST_SDT_MARK_##kind(n, __VA_ARGS__)
#define __UST_SDT_COUNT(...) \
	__UST_ARG_PICK64(__VA_ARGS__, \
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, \
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, \
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, \
		12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, _)
#define __UST_SDT_KIND(...) \
	__UST_ARG_PICK64(__VA_ARGS__, \
		MANY, MANY, MANY, MANY, MANY, MANY, MANY, MANY, MANY, MANY, \
		MANY, MANY, MANY, MANY, MANY, MANY, MANY, MANY, MANY, MANY, \
		MANY, MANY, MANY, MANY, MANY, MANY, MANY, MANY, MANY, MANY, \
		MANY, MANY, MANY, MANY, MANY, MANY, MANY, MANY, MANY, MANY, \
		MANY, MANY, MANY, MANY, MANY, MANY, MANY, MANY, MANY, MANY, \
		SOME, SOME, SOME, SOME, SOME, SOME, SOME, SOME, SOME, SOME, SOME, SOME, \
		NONE, _)
#define __UST_SDT_MARK_NONE(n, chan, ev, desc, flags, fmt) \
	__UST_SDT_PROBE(chan, ev, __UST_SDT_MARK_SEM(desc), 0, ()); \
	if ((flags) & UST_SITE_UST_MASK) \
		ust_marker_emit(&(desc));
#define __UST_SDT_MARK_MANY(n, chan, ev, desc, flags, ...) \
	__UST_SDT_PROBE(chan, ev, __UST_SDT_MARK_SEM(desc), 0, ()); \
	if ((flags) & UST_SITE_UST_MASK) \
		ust_marker_emit(&(desc) __UST_ARG_REST(__VA_ARGS__));
#define __UST_SDT_MARK_SOME(n, chan, ev, desc, flags, ...) \
	__UST_SDT_LET(n, __VA_ARGS__) \
	__UST_SDT_PROBE(chan, ev, __UST_SDT_MARK_SEM(desc), n, (__UST_SDT_VARS(n, __VA_ARGS__))); \
	if ((flags) & UST_SITE_UST_MASK) \
		ust_marker_emit(&(desc), __UST_SDT_VARS(n, __VA_ARGS__));
/* The locals of n arguments after the format, the first named __ust_a<n>,
 * the last __ust_a1; and their list in the arguments' order. */
#define __UST_SDT_LET(n, fmt, ...)	__UST_SDT_MAP_##n(__UST_SDT_LET1, __UST_SDT_NOSEP, __VA_ARGS__)
#define __UST_SDT_VARS(n, fmt, ...)	__UST_SDT_MAP_##n(__UST_SDT_VAR1, __UST_SDT_COMMA, __VA_ARGS__)
#define __UST_SDT_LET1(i, a)		__UST_SDT_AUTO __ust_a##i = (a);
#define __UST_SDT_VAR1(i, a)		__ust_a##i
#define __UST_SDT_NOSEP()
#define __UST_SDT_COMMA()		,
/* m(i, a) of each of n arguments, i from n down to 1, sep() between:
 * the one ladder of arities (1 to 12) that both lists above walk. */
#define __UST_SDT_MAP_1(m, sep, a)	m(1, a)
#define __UST_SDT_MAP_2(m, sep, a, ...)	m(2, a) sep() __UST_SDT_MAP_1(m, sep, __VA_ARGS__)
#define __UST_SDT_MAP_3(m, sep, a, ...)	m(3, a) sep() __UST_SDT_MAP_2(m, sep, __VA_ARGS__)
#define __UST_SDT_MAP_4(m, sep, a, ...)	m(4, a) sep() __UST_SDT_MAP_3(m, sep, __VA_ARGS__)
#define __UST_SDT_MAP_5(m, sep, a, ...)	m(5, a) sep() __UST_SDT_MAP_4(m, sep, __VA_ARGS__)
#define __UST_SDT_MAP_6(m, sep, a, ...)	m(6, a) sep() __UST_SDT_MAP_5(m, sep, __VA_ARGS__)
#define __UST_SDT_MAP_7(m, sep, a, ...)	m(7, a) sep() __UST_SDT_MAP_6(m, sep, __VA_ARGS__)
#define __UST_SDT_MAP_8(m, sep, a, ...)	m(8, a) sep() __UST_SDT_MAP_7(m, sep, __VA_ARGS__)
#define __UST_SDT_MAP_9(m, sep, a, ...)	m(9, a) sep() __UST_SDT_MAP_8(m, sep, __VA_ARGS__)
#define __UST_SDT_MAP_10(m, sep, a, ...) m(10, a) sep() __UST_SDT_MAP_9(m, sep, __VA_ARGS__)
#define __UST_SDT_MAP_11(m, sep, a, ...) m(11, a) sep() __UST_SDT_MAP_10(m, sep, __VA_ARGS__)
#define __UST_SDT_MAP_12(m, sep, a, ...) m(12, a) sep() __UST_SDT_MAP_11(m, sep, __VA_ARGS__)

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
