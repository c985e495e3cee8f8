/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Tracepoints: instrumentation points that call whatever probes are
 * connected to them.
 *
 *	tp.h	DECLARE_TRACE(hello_tptest, TP_PROTO(int anint), TP_ARGS(anint));
 *		DECLARE_TRACE_NOARGS(hello_tick);
 *	tp.c	DEFINE_TRACE(hello_tptest);
 *	site	trace_hello_tptest(42);
 *		ust_trace(hello_tptest, expensive());	(arguments evaluated only when enabled)
 *	probe	void probe_fn(void *data, int anint) { trace_mark(ust, hello, "anint %d", anint); }
 *		register_trace_hello_tptest(probe_fn, data);
 *		unregister_trace_hello_tptest(probe_fn, data);
 *
 * A tracepoint belongs to one object (the executable or a shared library):
 * DEFINE_TRACE it in the object whose code calls trace_NAME(). Probes are
 * registered by name and connect to the tracepoints of that name in every
 * object, including objects loaded later. Unregistering returns after an
 * RCU grace period: the probe is no longer running and its data may be
 * freed. Neither may be called from a probe. When the object that holds a
 * probe's code is unloaded (dlclose), libust disconnects that probe and
 * waits for a grace period before the object's destructor returns.
 */
#ifndef UST_TRACEPOINT_H
#define UST_TRACEPOINT_H

#include <ust/core.h>
#include <ust/marker.h>

#define DECLARE_TRACE(name, proto, args) \
	__UST_DECLARE_TRACE(name, (proto), (args), \
			    (void *__ust_data, proto), (__ust_p->data, args))

#define DECLARE_TRACE_NOARGS(name) \
	__UST_DECLARE_TRACE(name, (void), (), (void *__ust_data), (__ust_p->data))

/* The entry is not const: core.h's UST_SECTION_EVENTS says why. */
#define DEFINE_TRACE(tp) \
	__attribute__((visibility("hidden"))) \
	struct ust_tracepoint __ust_tracepoint_##tp = { 0, #tp, NULL, NULL }; \
	static struct ust_tracepoint *__ust_tracepoint_ptr_##tp \
		__attribute__((section(UST_SECTION_TRACEPOINTS), used)) = \
		&__ust_tracepoint_##tp

/* trace_NAME(args) that evaluates its arguments only when enabled. */
#define ust_trace(...) \
	__UST_TRACE(__UST_ARG_FIRST(__VA_ARGS__), (__UST_ARG_TAIL(__VA_ARGS__)))
#define __UST_TRACE(name, args)	__UST_TRACE_(name, args)
#define __UST_TRACE_(name, args) \
	do { \
		if (ust_unlikely(ust_site_enabled(__ust_tracepoint_##name.enabled))) \
			__ust_tracepoint_call_##name args; \
	} while (0)

/*
 * The probe array is published by rcu_assign_pointer() in libust and freed
 * after a grace period, so it is walked inside an RCU read-side section; the
 * consume load pairs with that publication. The call is kept out of line so
 * that a disabled trace_NAME() is only a load and a branch. The closing tag
 * declaration takes the semicolon after DECLARE_TRACE(...).
 */
#define __UST_DECLARE_TRACE(name, proto, args, data_proto, data_args) \
	__UST_EXTERN_C struct ust_tracepoint __ust_tracepoint_##name \
		__attribute__((visibility("hidden"))); \
	static __ust_noinstr __attribute__((noinline, unused)) void \
	__ust_tracepoint_call_##name proto \
	{ \
		const struct ust_tracepoint_probe *__ust_p; \
		ust_rcu_read_lock(); \
		__ust_p = __atomic_load_n(&__ust_tracepoint_##name.probes, \
					  __ATOMIC_CONSUME); \
		if (__ust_p) \
			for (; __ust_p->func; __ust_p++) \
				((void (*) data_proto)__ust_p->func) data_args; \
		ust_rcu_read_unlock(); \
	} \
	static inline __ust_noinstr __attribute__((unused)) void trace_##name proto \
	{ \
		if (ust_unlikely(ust_site_enabled(__ust_tracepoint_##name.enabled))) \
			__ust_tracepoint_call_##name args; \
	} \
	static inline __ust_noinstr __attribute__((unused)) int register_trace_##name(void (*__ust_probe) data_proto, \
						 void *__ust_probe_data) \
	{ \
		return ust_tracepoint_probe_register(#name, (void (*)(void))__ust_probe, \
						     __ust_probe_data); \
	} \
	static inline __ust_noinstr __attribute__((unused)) int unregister_trace_##name(void (*__ust_probe) data_proto, \
						   void *__ust_probe_data) \
	{ \
		return ust_tracepoint_probe_unregister(#name, (void (*)(void))__ust_probe, \
						       __ust_probe_data); \
	} \
	struct __ust_tracepoint_declared_##name

#endif
