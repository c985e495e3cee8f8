/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Typed events: the fields map 1:1 to CTF types, nothing is parsed at run
 * time. The boilerplate, for a provider "myprovider":
 *
 * myprovider_tp.h, the provider header, included wherever events are traced:
 *
 *	#ifndef MYPROVIDER_TP_H
 *	#define MYPROVIDER_TP_H
 *	#include <ust/tracepoint_event.h>
 *
 *	TRACE_EVENT(myprovider, request_done,
 *		TP_ARGS(int, status, const char *, path, size_t, len),
 *		TP_FIELDS(
 *			ctf_integer(int, status, status)
 *			ctf_integer_hex(size_t, len, len)
 *			ctf_string(path, path)
 *			ctf_float(double, ratio, 0.5)
 *			ctf_array(char, tag, path, 4)
 *			ctf_sequence(uint8_t, bytes, path, size_t, len)))
 *	#endif
 *
 * myprovider_tp.c, exactly one .c file of the program or library, which
 * instantiates the probes and event descriptions:
 *
 *	#define UST_CREATE_PROBES
 *	#include "myprovider_tp.h"
 *
 * A call site:
 *
 *	#include "myprovider_tp.h"
 *	trace_myprovider_request_done(200, "/index", 6);
 *	ust_event(myprovider, request_done, status(), path, strlen(path));
 *
 * trace_PROVIDER_NAME() is an inline function, so its arguments are always
 * evaluated; ust_event() evaluates them only when the event is enabled.
 * Either costs one load and one branch when disabled.
 *
 * TP_ARGS lists (type, name) pairs, up to 10; TP_ARGS() or TP_ARGS(void)
 * for none. Each field is written byte-packed, in order:
 *	ctf_integer(type, field, expr)		sizeof(type) bytes, base 10
 *	ctf_integer_hex(type, field, expr)	the same, shown in base 16
 *	ctf_float(type, field, expr)		float or double
 *	ctf_string(field, expr)			up to its NUL; NULL is "(null)"
 *	ctf_array(type, field, expr, count)	count integers of type from expr
 *	ctf_sequence(type, field, expr, length_type, length_expr)
 *		the length (an unsigned length_type), then that many integers;
 *		an event whose sequence exceeds 256 MiB is dropped
 * Each expression is evaluated once. Integer and element types are 1, 2, 4
 * or 8 bytes, checked at compile time.
 *
 * UST_CREATE_PROBES applies to every TRACE_EVENT expanded while it is
 * defined (so define it before the provider header is first included in
 * that file); #undef it before including a provider whose probes live
 * elsewhere. Events belong to the object (executable or library) that
 * creates their probes and are only traced from it.
 */
#ifndef UST_TRACEPOINT_EVENT_H
#define UST_TRACEPOINT_EVENT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <ust/core.h>
#include <ust/marker.h>

#define TP_FIELDS(...)	__VA_ARGS__

/* Each field is a tuple, its kind first; TP_FIELDS is a sequence of them. */
#define ctf_integer(type, field, expr)		(__ust_integer, type, field, expr, 10)
#define ctf_integer_hex(type, field, expr)	(__ust_integer, type, field, expr, 16)
#define ctf_float(type, field, expr)		(__ust_float, type, field, expr)
#define ctf_string(field, expr)			(__ust_string, field, expr)
#define ctf_array(type, field, expr, count)	(__ust_array, type, field, expr, count)
#define ctf_sequence(type, field, expr, length_type, length_expr) \
	(__ust_sequence, type, field, expr, length_type, length_expr)

/*
 * Whether UST_CREATE_PROBES is defined where TRACE_EVENT expands, decided
 * then and there: an undefined UST_CREATE_PROBES stays that identifier and
 * selects the empty expansion, a defined one (empty or 1) selects the
 * definitions.
 */
#define __UST_TE_PROBES(prov, ev, level, pargs, fseq) \
	__UST_TE_CAT(__UST_TE_CREATE_, UST_CREATE_PROBES)(prov, ev, level, pargs, fseq)
#define __UST_TE_CAT(a, b)	__UST_TE_CAT_(a, b)
#define __UST_TE_CAT_(a, b)	a##b
#define __UST_TE_CREATE_(prov, ev, level, pargs, fseq) \
	__UST_TE_DEFINE(prov, ev, level, pargs, fseq)
#define __UST_TE_CREATE_1(prov, ev, level, pargs, fseq) \
	__UST_TE_DEFINE(prov, ev, level, pargs, fseq)
#define __UST_TE_CREATE_UST_CREATE_PROBES(prov, ev, level, pargs, fseq)

#define TRACE_EVENT(prov, ev, args, fseq) \
	TRACE_EVENT_LEVEL(prov, ev, UST_LOGLEVEL_DEFAULT, TP_ARGS(args), fseq)

/* TRACE_EVENT with a severity (enum ust_loglevel), for --loglevel rules. */
#define TRACE_EVENT_LEVEL(prov, ev, level, args, fseq) \
	__UST_TE_DECLARE(prov, ev, (args)) \
	__UST_TE_PROBES(prov, ev, level, (args), fseq)

/* trace_PROVIDER_NAME(args) that evaluates its arguments only when enabled. */
#define ust_event(prov, ...) \
	__UST_TE_EVENT(prov, __UST_ARG_FIRST(__VA_ARGS__), (__UST_ARG_TAIL(__VA_ARGS__)))
#define __UST_TE_EVENT(prov, ev, args)	__UST_TE_EVENT_(prov, ev, args)
#define __UST_TE_EVENT_(prov, ev, args) \
	do { \
		if (ust_unlikely(ust_site_enabled(__ust_event_##prov##___##ev.enabled))) \
			__UST_TE_FIRE(prov, ev) args; \
	} while (0)

/*
 * What an enabled site calls: the probe, or with UST_SDT a function that
 * is the site's sys/sdt.h probe (ust/sdt.h), once per inlined copy, and
 * calls the probe when libust's half of the word is set. The sys/sdt.h
 * probe comes first, so that the arguments need not outlive the call.
 */
#if UST_SDT
#include <ust/sdt.h>
#define __UST_TE_FIRE(prov, ev)	__ust_sdt_##prov##___##ev
#define __UST_TE_SDT(prov, ev, pargs) \
	static inline __ust_noinstr __attribute__((unused, always_inline)) void \
	__ust_sdt_##prov##___##ev(__UST_TE_PROTO pargs) \
	{ \
		__UST_SDT_PROBE(prov, ev, __UST_SDT_SEM(__ust_event_##prov##___##ev), \
				__UST_SDT_TE_N(pargs), (__UST_TE_NAMES pargs)); \
		if (ust_site_enabled(__ust_event_##prov##___##ev.enabled) & UST_SITE_UST_MASK) \
			__ust_probe_##prov##___##ev(__UST_TE_NAMES pargs); \
	}
#else
#define __UST_TE_FIRE(prov, ev)	__ust_probe_##prov##___##ev
#define __UST_TE_SDT(prov, ev, pargs)
#define __UST_SDT_DESC_ATTR
#endif

/* What every file that includes the provider header sees. The descriptor
 * and the probe have C linkage: a provider header serves C and C++ files of
 * one program alike. */
#define __UST_TE_DECLARE(prov, ev, pargs) \
	__UST_EXTERN_C struct ust_event_desc __ust_event_##prov##___##ev \
		__attribute__((visibility("hidden"))); \
	__UST_EXTERN_C void __ust_probe_##prov##___##ev(__UST_TE_PROTO pargs) \
		__attribute__((visibility("hidden"))); \
	__UST_TE_SDT(prov, ev, pargs) \
	static inline __ust_noinstr __attribute__((unused)) void trace_##prov##_##ev(__UST_TE_PROTO pargs) \
	{ \
		if (ust_unlikely(ust_site_enabled(__ust_event_##prov##___##ev.enabled))) \
			__UST_TE_FIRE(prov, ev)(__UST_TE_NAMES pargs); \
	}

/*
 * The probe, in the UST_CREATE_PROBES file only: every expression is
 * evaluated once, the size summed in straight-line code, the filter (when
 * libust flags one) run on the values, then the fields are copied into
 * the reserved payload in order. The field array ends with an empty entry
 * so that an event without fields still has one, and so does the filter's
 * argument array.
 */
#define __UST_TE_DEFINE(prov, ev, level, pargs, fseq) \
	static const struct ust_field_desc __ust_fields_##prov##___##ev[] = { \
		__UST_TE_EACH(DESC, fseq) \
		__UST_FIELD_DESC_INIT(NULL, 0, 0, 0, 0, 0, 0) \
	}; \
	__attribute__((visibility("hidden"))) __UST_SDT_DESC_ATTR \
	struct ust_event_desc __ust_event_##prov##___##ev = \
		__UST_EVENT_DESC_INIT(#prov, #ev, NULL, __ust_fields_##prov##___##ev, \
				      sizeof(__ust_fields_##prov##___##ev) / \
				      sizeof(__ust_fields_##prov##___##ev[0]) - 1, \
				      (level)); \
	static struct ust_event_desc *__ust_event_ptr_##prov##___##ev \
		__attribute__((section(UST_SECTION_EVENTS), used)) = \
		&__ust_event_##prov##___##ev; \
	/* Filtered or watched by a trigger: out of line, so that the common \
	 * probe below saves no more registers than it needs itself. */ \
	static __ust_noinstr __attribute__((noinline, cold)) void \
	__ust_probe_filtered_##prov##___##ev(__UST_TE_PROTO_IP pargs) \
	{ \
		__UST_TE_EACH(PREP, fseq) \
		size_t __ust_len = 0 __UST_TE_EACH(SIZE, fseq); \
		struct ust_event_ctx __ust_ctx; \
		__UST_TE_EACH(CHECK, fseq) \
		const union ust_filter_arg __ust_fargs[] = { \
			__UST_TE_EACH(FARG, fseq) \
			__ust_te_farg_s64(0) \
		}; \
		if (ust_event_reserve_filtered(&__ust_ctx, &__ust_event_##prov##___##ev, \
					       __ust_len, __ust_fargs, __ust_ip) < 0) \
			return; \
		__UST_TE_WRITE(fseq) \
		/* Triggers see the event once it is committed. */ \
		if (ust_unlikely(ust_site_enabled(__ust_event_##prov##___##ev.enabled) & \
				 UST_SITE_TRIGGER)) \
			ust_event_trigger(&__ust_event_##prov##___##ev, __ust_fargs, __ust_ip); \
	} \
	__ust_noinstr void __ust_probe_##prov##___##ev(__UST_TE_PROTO_UNUSED pargs) \
	{ \
		__UST_TE_EACH(PREP, fseq) \
		size_t __ust_len = 0 __UST_TE_EACH(SIZE, fseq); \
		struct ust_event_ctx __ust_ctx; \
		__UST_TE_EACH(CHECK, fseq) \
		if (ust_unlikely(ust_site_enabled(__ust_event_##prov##___##ev.enabled) & \
				 UST_SITE_FILTERED)) { \
			__ust_probe_filtered_##prov##___##ev(__UST_TE_NAMES_IP pargs); \
			return; \
		} \
		if (ust_event_reserve_ip(&__ust_ctx, &__ust_event_##prov##___##ev, \
					 __ust_len, __builtin_return_address(0)) < 0) \
			return; \
		__UST_TE_WRITE(fseq) \
	}

/* The payload copied into the reserved event, then the commit. */
#define __UST_TE_WRITE(fseq) \
	{ \
		char *__ust_p = __ust_ctx.payload; \
		__UST_TE_EACH(WRITE, fseq) \
		(void)__ust_p; \
	} \
	ust_event_commit(&__ust_ctx);

/* Parameter lists from TP_ARGS pairs. */
#define __UST_TE_PROTO(...)		__UST_TE_PARAMS(, __VA_ARGS__)
#define __UST_TE_PROTO_UNUSED(...)	__UST_TE_PARAMS(__attribute__((unused)), __VA_ARGS__)
#define __UST_TE_PARAMS(attr, ...) \
	__UST_ARG_CAT(__UST_TE_PARAMS_, __UST_TE_NARGS(__VA_ARGS__))(attr, __VA_ARGS__)
#define __UST_TE_NAMES(...) \
	__UST_ARG_CAT(__UST_TE_NAMES_, __UST_TE_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define __UST_TE_NARGS(...) \
	__UST_TE_PICK23(__VA_ARGS__, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, \
			10, 9, 8, 7, 6, 5, 4, 3, 2, 1, _)
#define __UST_TE_PICK23(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, \
			_13, _14, _15, _16, _17, _18, _19, _20, _21, _22, n, ...) n
/* The filtered probe's parameters and arguments: the site's address first,
 * then the tracepoint's (none for TP_ARGS(void): 3 items). */
#define __UST_TE_PROTO_IP(...) \
	__UST_TE_PARAMS(__attribute__((unused)), const void *, __ust_ip, __VA_ARGS__)
#define __UST_TE_NAMES_IP(...) \
	__UST_TE_NAMES(const void *, __builtin_return_address(0), __VA_ARGS__)
#define __UST_TE_PARAMS_3(attr, t1, a1, v) t1 a1 attr
#define __UST_TE_NAMES_3(t1, a1, v) a1
#define __UST_TE_PARAMS_22(attr, t1, a1, t2, a2, t3, a3, t4, a4, t5, a5, t6, a6, t7, a7, t8, a8, t9, a9, t10, a10, t11, a11) \
	t1 a1 attr, t2 a2 attr, t3 a3 attr, t4 a4 attr, t5 a5 attr, t6 a6 attr, t7 a7 attr, t8 a8 attr, t9 a9 attr, t10 a10 attr, t11 a11 attr
#define __UST_TE_NAMES_22(t1, a1, t2, a2, t3, a3, t4, a4, t5, a5, t6, a6, t7, a7, t8, a8, t9, a9, t10, a10, t11, a11) \
	a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11
#define __UST_TE_PARAMS_1(attr, v) void
#define __UST_TE_PARAMS_2(attr, t1, a1) \
	t1 a1 attr
#define __UST_TE_PARAMS_4(attr, t1, a1, t2, a2) \
	t1 a1 attr, t2 a2 attr
#define __UST_TE_PARAMS_6(attr, t1, a1, t2, a2, t3, a3) \
	t1 a1 attr, t2 a2 attr, t3 a3 attr
#define __UST_TE_PARAMS_8(attr, t1, a1, t2, a2, t3, a3, t4, a4) \
	t1 a1 attr, t2 a2 attr, t3 a3 attr, t4 a4 attr
#define __UST_TE_PARAMS_10(attr, t1, a1, t2, a2, t3, a3, t4, a4, t5, a5) \
	t1 a1 attr, t2 a2 attr, t3 a3 attr, t4 a4 attr, t5 a5 attr
#define __UST_TE_PARAMS_12(attr, t1, a1, t2, a2, t3, a3, t4, a4, t5, a5, t6, a6) \
	t1 a1 attr, t2 a2 attr, t3 a3 attr, t4 a4 attr, t5 a5 attr, t6 a6 attr
#define __UST_TE_PARAMS_14(attr, t1, a1, t2, a2, t3, a3, t4, a4, t5, a5, t6, a6, t7, a7) \
	t1 a1 attr, t2 a2 attr, t3 a3 attr, t4 a4 attr, t5 a5 attr, t6 a6 attr, t7 a7 attr
#define __UST_TE_PARAMS_16(attr, t1, a1, t2, a2, t3, a3, t4, a4, t5, a5, t6, a6, t7, a7, t8, a8) \
	t1 a1 attr, t2 a2 attr, t3 a3 attr, t4 a4 attr, t5 a5 attr, t6 a6 attr, t7 a7 attr, t8 a8 attr
#define __UST_TE_PARAMS_18(attr, t1, a1, t2, a2, t3, a3, t4, a4, t5, a5, t6, a6, t7, a7, t8, a8, t9, a9) \
	t1 a1 attr, t2 a2 attr, t3 a3 attr, t4 a4 attr, t5 a5 attr, t6 a6 attr, t7 a7 attr, t8 a8 attr, t9 a9 attr
#define __UST_TE_PARAMS_20(attr, t1, a1, t2, a2, t3, a3, t4, a4, t5, a5, t6, a6, t7, a7, t8, a8, t9, a9, t10, a10) \
	t1 a1 attr, t2 a2 attr, t3 a3 attr, t4 a4 attr, t5 a5 attr, t6 a6 attr, t7 a7 attr, t8 a8 attr, t9 a9 attr, t10 a10 attr
#define __UST_TE_NAMES_1(v)
#define __UST_TE_NAMES_2(t1, a1) \
	a1
#define __UST_TE_NAMES_4(t1, a1, t2, a2) \
	a1, a2
#define __UST_TE_NAMES_6(t1, a1, t2, a2, t3, a3) \
	a1, a2, a3
#define __UST_TE_NAMES_8(t1, a1, t2, a2, t3, a3, t4, a4) \
	a1, a2, a3, a4
#define __UST_TE_NAMES_10(t1, a1, t2, a2, t3, a3, t4, a4, t5, a5) \
	a1, a2, a3, a4, a5
#define __UST_TE_NAMES_12(t1, a1, t2, a2, t3, a3, t4, a4, t5, a5, t6, a6) \
	a1, a2, a3, a4, a5, a6
#define __UST_TE_NAMES_14(t1, a1, t2, a2, t3, a3, t4, a4, t5, a5, t6, a6, t7, a7) \
	a1, a2, a3, a4, a5, a6, a7
#define __UST_TE_NAMES_16(t1, a1, t2, a2, t3, a3, t4, a4, t5, a5, t6, a6, t7, a7, t8, a8) \
	a1, a2, a3, a4, a5, a6, a7, a8
#define __UST_TE_NAMES_18(t1, a1, t2, a2, t3, a3, t4, a4, t5, a5, t6, a6, t7, a7, t8, a8, t9, a9) \
	a1, a2, a3, a4, a5, a6, a7, a8, a9
#define __UST_TE_NAMES_20(t1, a1, t2, a2, t3, a3, t4, a4, t5, a5, t6, a6, t7, a7, t8, a8, t9, a9, t10, a10) \
	a1, a2, a3, a4, a5, a6, a7, a8, a9, a10

/*
 * Applies op to every tuple of a field sequence "(...)(...)": the two
 * expanders alternate, each consuming one tuple, so that neither is expanded
 * inside itself; the one left after the last tuple is pasted into an _END
 * that expands to nothing. The expansion goes through variadic macros only,
 * since what op produces contains commas.
 */
#define __UST_TE_EACH(op, fseq)	__UST_TE_EACH_END(__UST_TE_##op##_A fseq)
#define __UST_TE_EACH_END(...)		__UST_TE_EACH_PASTE(__VA_ARGS__)
#define __UST_TE_EACH_PASTE(...)	__VA_ARGS__##_END
#define __UST_TE_DESC_A(kind, ...)	__UST_TE_DESC_##kind(__VA_ARGS__) __UST_TE_DESC_B
#define __UST_TE_DESC_B(kind, ...)	__UST_TE_DESC_##kind(__VA_ARGS__) __UST_TE_DESC_A
#define __UST_TE_DESC_A_END
#define __UST_TE_DESC_B_END
#define __UST_TE_PREP_A(kind, ...)	__UST_TE_PREP_##kind(__VA_ARGS__) __UST_TE_PREP_B
#define __UST_TE_PREP_B(kind, ...)	__UST_TE_PREP_##kind(__VA_ARGS__) __UST_TE_PREP_A
#define __UST_TE_PREP_A_END
#define __UST_TE_PREP_B_END
#define __UST_TE_SIZE_A(kind, ...)	__UST_TE_SIZE_##kind(__VA_ARGS__) __UST_TE_SIZE_B
#define __UST_TE_SIZE_B(kind, ...)	__UST_TE_SIZE_##kind(__VA_ARGS__) __UST_TE_SIZE_A
#define __UST_TE_SIZE_A_END
#define __UST_TE_SIZE_B_END
#define __UST_TE_CHECK_A(kind, ...)	__UST_TE_CHECK_##kind(__VA_ARGS__) __UST_TE_CHECK_B
#define __UST_TE_CHECK_B(kind, ...)	__UST_TE_CHECK_##kind(__VA_ARGS__) __UST_TE_CHECK_A
#define __UST_TE_CHECK_A_END
#define __UST_TE_CHECK_B_END
#define __UST_TE_WRITE_A(kind, ...)	__UST_TE_WRITE_##kind(__VA_ARGS__) __UST_TE_WRITE_B
#define __UST_TE_WRITE_B(kind, ...)	__UST_TE_WRITE_##kind(__VA_ARGS__) __UST_TE_WRITE_A
#define __UST_TE_WRITE_A_END
#define __UST_TE_WRITE_B_END
#define __UST_TE_FARG_A(kind, ...)	__UST_TE_FARG_##kind(__VA_ARGS__) __UST_TE_FARG_B
#define __UST_TE_FARG_B(kind, ...)	__UST_TE_FARG_##kind(__VA_ARGS__) __UST_TE_FARG_A
#define __UST_TE_FARG_A_END
#define __UST_TE_FARG_B_END

#define __UST_TE_SIGNED(type)		((type)-1 < (type)1)
#define __UST_TE_ASSERT_INT(type, what) \
	__UST_STATIC_ASSERT(sizeof(type) == 1 || sizeof(type) == 2 || \
		       sizeof(type) == 4 || sizeof(type) == 8, \
		       what ": the type must be an integer of 1, 2, 4 or 8 bytes");

/* Field descriptors. */
#define __UST_TE_DESC___ust_integer(type, field, expr, radix) \
	__UST_FIELD_DESC_INIT(#field, UST_FIELD_INTEGER, sizeof(type), \
			      __UST_TE_SIGNED(type), (radix), 0, 0),
#define __UST_TE_DESC___ust_float(type, field, expr) \
	__UST_FIELD_DESC_INIT(#field, UST_FIELD_FLOAT, sizeof(type), 1, 10, 0, 0),
#define __UST_TE_DESC___ust_string(field, expr) \
	__UST_FIELD_DESC_INIT(#field, UST_FIELD_STRING, 0, 0, 0, 0, 0),
#define __UST_TE_DESC___ust_array(type, field, expr, count) \
	__UST_FIELD_DESC_INIT(#field, UST_FIELD_ARRAY, sizeof(type), \
			      __UST_TE_SIGNED(type), 10, 0, (count)),
#define __UST_TE_DESC___ust_sequence(type, field, expr, ltype, lexpr) \
	__UST_FIELD_DESC_INIT(#field, UST_FIELD_SEQUENCE, sizeof(type), \
			      __UST_TE_SIGNED(type), 10, sizeof(ltype), 0),

/* Declarations only: each expression evaluated once, into a local. */
#define __UST_TE_PREP___ust_integer(type, field, expr, radix) \
	__UST_TE_ASSERT_INT(type, "ctf_integer " #field) \
	type __ust_f_##field = (type)(expr);
#define __UST_TE_PREP___ust_float(type, field, expr) \
	__UST_STATIC_ASSERT(sizeof(type) == 4 || sizeof(type) == 8, \
		       "ctf_float " #field ": the type must be float or double"); \
	type __ust_f_##field = (type)(expr);
#define __UST_TE_PREP___ust_string(field, expr) \
	const char *__ust_f_##field = __ust_te_string(expr); \
	size_t __ust_l_##field = strlen(__ust_f_##field);
#define __UST_TE_PREP___ust_array(type, field, expr, count) \
	__UST_TE_ASSERT_INT(type, "ctf_array " #field) \
	const void *__ust_f_##field = (expr);
#define __UST_TE_PREP___ust_sequence(type, field, expr, ltype, lexpr) \
	__UST_TE_ASSERT_INT(type, "ctf_sequence " #field) \
	__UST_TE_ASSERT_INT(ltype, "ctf_sequence " #field " length") \
	__UST_STATIC_ASSERT(!__UST_TE_SIGNED(ltype), \
		       "ctf_sequence " #field ": the length type must be unsigned"); \
	const void *__ust_f_##field = (expr); \
	ltype __ust_l_##field = (ltype)(lexpr);

/* Payload bytes, as terms of a sum. */
#define __UST_TE_SIZE___ust_integer(type, field, expr, radix)	+ sizeof(type)
#define __UST_TE_SIZE___ust_float(type, field, expr)		+ sizeof(type)
#define __UST_TE_SIZE___ust_string(field, expr)			+ __ust_l_##field + 1
#define __UST_TE_SIZE___ust_array(type, field, expr, count) \
	+ (size_t)(count) * sizeof(type)
#define __UST_TE_SIZE___ust_sequence(type, field, expr, ltype, lexpr) \
	+ sizeof(ltype) + (size_t)__ust_l_##field * sizeof(type)

/* Sequences are bounded so that the sum above cannot wrap. */
#define __UST_TE_SEQ_MAX_BYTES		((uint64_t)1 << 28)
#define __UST_TE_CHECK___ust_integer(type, field, expr, radix)
#define __UST_TE_CHECK___ust_float(type, field, expr)
#define __UST_TE_CHECK___ust_string(field, expr)
#define __UST_TE_CHECK___ust_array(type, field, expr, count)
#define __UST_TE_CHECK___ust_sequence(type, field, expr, ltype, lexpr) \
	if (!__ust_te_sequence_fits(__ust_l_##field, sizeof(type))) \
		return;

/* The filter's view of each field (union ust_filter_arg). */
#define __UST_TE_FARG___ust_integer(type, field, expr, radix) \
	__ust_te_farg_s64((int64_t)__ust_f_##field),
#define __UST_TE_FARG___ust_float(type, field, expr) \
	__ust_te_farg_dbl((double)__ust_f_##field),
#define __UST_TE_FARG___ust_string(field, expr) \
	__ust_te_farg_str(__ust_f_##field),
#define __UST_TE_FARG___ust_array(type, field, expr, count)	__ust_te_farg_s64(0),
#define __UST_TE_FARG___ust_sequence(type, field, expr, ltype, lexpr)	__ust_te_farg_s64(0),

/* Copies into the payload at __ust_p. */
#define __UST_TE_WRITE___ust_integer(type, field, expr, radix) \
	memcpy(__ust_p, &__ust_f_##field, sizeof(type)); \
	__ust_p += sizeof(type);
#define __UST_TE_WRITE___ust_float(type, field, expr) \
	memcpy(__ust_p, &__ust_f_##field, sizeof(type)); \
	__ust_p += sizeof(type);
#define __UST_TE_WRITE___ust_string(field, expr) \
	memcpy(__ust_p, __ust_f_##field, __ust_l_##field); \
	__ust_p[__ust_l_##field] = '\0'; \
	__ust_p += __ust_l_##field + 1;
#define __UST_TE_WRITE___ust_array(type, field, expr, count) \
	memcpy(__ust_p, __ust_f_##field, (size_t)(count) * sizeof(type)); \
	__ust_p += (size_t)(count) * sizeof(type);
#define __UST_TE_WRITE___ust_sequence(type, field, expr, ltype, lexpr) \
	memcpy(__ust_p, &__ust_l_##field, sizeof(ltype)); \
	__ust_p += sizeof(ltype); \
	if (__ust_l_##field) \
		memcpy(__ust_p, __ust_f_##field, (size_t)__ust_l_##field * sizeof(type)); \
	__ust_p += (size_t)__ust_l_##field * sizeof(type);

static inline __ust_noinstr const char *__ust_te_string(const char *s)
{
	return s ? s : "(null)";
}

/* Union members by name without C99's designators, which C++ lacks. */
static inline __ust_noinstr union ust_filter_arg __ust_te_farg_s64(int64_t v)
{
	union ust_filter_arg a;

	a.s64 = v;
	return a;
}

static inline __ust_noinstr union ust_filter_arg __ust_te_farg_dbl(double v)
{
	union ust_filter_arg a;

	a.dbl = v;
	return a;
}

static inline __ust_noinstr union ust_filter_arg __ust_te_farg_str(const char *v)
{
	union ust_filter_arg a;

	a.str = v;
	return a;
}

static inline __ust_noinstr int __ust_te_sequence_fits(uint64_t length, size_t elem_size)
{
	return length <= __UST_TE_SEQ_MAX_BYTES / elem_size;
}

#endif /* UST_TRACEPOINT_EVENT_H */
