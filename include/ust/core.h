/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * What the instrumentation macros of marker.h, tracepoint.h and
 * tracepoint_event.h expand to: event and tracepoint descriptors, the
 * linker sections that list them, the per-object registration constructor,
 * and the entry points of libust they call. Applications include the three
 * headers above (or ust.h), not this one.
 */
#ifndef UST_CORE_H
#define UST_CORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The headers build as C99 and later and as C++11 and later, warning-free
 * with -Wall -Wextra -pedantic. The GNU extensions they use are builtins
 * (__builtin_expect, __atomic_load_n), __attribute__ (section, visibility,
 * constructor, weak, format) and __asm__: gcc and clang have all of them,
 * and -pedantic accepts them as they are spelled here. Descriptors are
 * initialised positionally, every member given, because C++ before C++20
 * has no designated initializers and -Wextra's -Wmissing-field-initializers
 * reports any member left out.
 */
#ifdef __cplusplus
/* The symbols a provider header declares have C linkage, so that C and C++
 * files of one program share them. */
#define __UST_EXTERN_C	extern "C"
#define __UST_STATIC_ASSERT(cond, msg)	static_assert(cond, msg)
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define __UST_EXTERN_C	extern
#define __UST_STATIC_ASSERT(cond, msg)	_Static_assert(cond, msg)
#else
/* C99: gcc and clang have C11's _Static_assert; __extension__ keeps
 * -pedantic quiet about it. */
#define __UST_EXTERN_C	extern
#define __UST_STATIC_ASSERT(cond, msg)	__extension__ _Static_assert(cond, msg)
#endif

#define __UST_STR(x)	__UST_STR_(x)
#define __UST_STR_(x)	#x

#define ust_likely(x)	__builtin_expect(!!(x), 1)
#define ust_unlikely(x)	__builtin_expect(!!(x), 0)

/*
 * On every function these headers put in the program's objects: code built
 * with -finstrument-functions would otherwise profile UST's registration
 * and probes as the program's own functions (libust-func).
 */
#define __ust_noinstr	__attribute__((no_instrument_function))

/*
 * Argument-list wrappers of DECLARE_TRACE (TP_PROTO: the prototype, TP_ARGS:
 * the names) and TRACE_EVENT (TP_ARGS: type, name pairs): plain pass-through,
 * each consuming macro reads its list its own way.
 */
#define TP_PROTO(...)	__VA_ARGS__
#define TP_ARGS(...)	__VA_ARGS__

/* The one load of a disabled site: a plain load the compiler cannot hoist. */
#define ust_site_enabled(flag)	__atomic_load_n(&(flag), __ATOMIC_RELAXED)

/* Bits of a site's enabled flag, set by libust. */
#define UST_SITE_ENABLED	1
#define UST_SITE_FILTERED	2	/* a filter applies: typed probes call ust_event_reserve_filtered() */
/* With UST_SITE_FILTERED: a trigger watches the event; typed probes call
 * ust_event_trigger() after they commit it. */
#define UST_SITE_TRIGGER	4
/* libust's half of the word: it stores these 16 bits only; the other half
 * is the semaphore of the site's sys/sdt.h probes (ust/sdt.h). */
#define UST_SITE_UST_MASK	0xffff

/* UST_SDT: sites are sys/sdt.h probes too (ust/sdt.h); the default is
 * what libust was configured with. */
#include <ust/config.h>
#ifndef UST_SDT
#define UST_SDT	UST_HAVE_SDT
#endif

/*
 * Severity levels, LTTng's: a site declares one (trace_mark_level(),
 * TRACE_EVENT_LEVEL()), others have UST_LOGLEVEL_DEFAULT; enable rules
 * select "this level or more severe" (lower numbers) or one level.
 */
enum ust_loglevel {
	UST_LOGLEVEL_EMERG = 0,
	UST_LOGLEVEL_ALERT = 1,
	UST_LOGLEVEL_CRIT = 2,
	UST_LOGLEVEL_ERR = 3,
	UST_LOGLEVEL_WARNING = 4,
	UST_LOGLEVEL_NOTICE = 5,
	UST_LOGLEVEL_INFO = 6,
	UST_LOGLEVEL_DEBUG_SYSTEM = 7,
	UST_LOGLEVEL_DEBUG_PROGRAM = 8,
	UST_LOGLEVEL_DEBUG_PROCESS = 9,
	UST_LOGLEVEL_DEBUG_MODULE = 10,
	UST_LOGLEVEL_DEBUG_UNIT = 11,
	UST_LOGLEVEL_DEBUG_FUNCTION = 12,
	UST_LOGLEVEL_DEBUG_LINE = 13,
	UST_LOGLEVEL_DEBUG = 14,
};
#define UST_LOGLEVEL_DEFAULT	UST_LOGLEVEL_DEBUG_LINE

enum ust_field_kind {
	UST_FIELD_INTEGER = 1,	/* size 1, 2, 4 or 8 */
	UST_FIELD_FLOAT = 2,	/* size 4 or 8 */
	UST_FIELD_STRING = 3,	/* NUL-terminated UTF-8 */
	UST_FIELD_ARRAY = 4,	/* length integers of size bytes each */
	UST_FIELD_SEQUENCE = 5,	/* an unsigned len_size-byte count, then that many integers */
};

/* One field of an event payload, in order. Fields are byte-packed. */
struct ust_field_desc {
	const char *name;
	uint8_t kind;		/* enum ust_field_kind */
	uint8_t size;		/* bytes of the integer, float or element */
	uint8_t is_signed;	/* integers and elements */
	uint8_t base;		/* 10 or 16: integers and elements */
	uint8_t len_size;	/* sequence: bytes of its length field */
	uint8_t reserved[3];
	uint32_t length;	/* array: element count */
};

/*
 * One event site: a trace_mark() (format != NULL, fields parsed from it at
 * registration) or a TRACE_EVENT (fields given). Lives in the instrumented
 * object; listed in section __ust_events through a pointer.
 */
struct ust_event_desc {
	int32_t enabled;		/* read by every call site */
	uint32_t nr_fields;
	const char *channel;		/* marker channel or event provider */
	const char *name;
	const char *format;		/* markers only */
	const struct ust_field_desc *fields;	/* typed events only */
	void *priv;			/* libust's, set at registration */
	/* Descriptors of objects registered with ust_register_object2() only. */
	int32_t loglevel;		/* enum ust_loglevel */
	uint32_t reserved;
};

/* One argument as a filter reads it: integers widened, floats as doubles. */
union ust_filter_arg {
	int64_t s64;
	double dbl;
	const char *str;
};

/* Every member of a struct ust_event_desc, in order; libust's are zero. */
#define __UST_EVENT_DESC_INIT(channel, name, format, fields, nr_fields, level) \
	{ 0, (nr_fields), (channel), (name), (format), (fields), NULL, (level), 0 }

/* Every member of a struct ust_field_desc, in order. */
#define __UST_FIELD_DESC_INIT(name, kind, size, is_signed, base, len_size, length) \
	{ (name), (kind), (size), (is_signed), (base), (len_size), { 0, 0, 0 }, (length) }

/* A probe connected to a tracepoint: func has the tracepoint's prototype
 * with a leading void *data. The array is NULL-terminated, RCU-protected. */
struct ust_tracepoint_probe {
	void (*func)(void);
	void *data;
};

struct ust_tracepoint {
	int32_t enabled;		/* a probe is connected */
	const char *name;
	struct ust_tracepoint_probe *probes;
	void *priv;
};

/* Where a reserved event's payload goes; filled by ust_event_reserve(). */
struct ust_event_ctx {
	char *payload;			/* write payload_len bytes here */
	void *buf;			/* libust's */
	uint64_t offset;		/* libust's */
	uint32_t len;			/* libust's */
};

/* ---- libust entry points used by the macros (part of the ABI) ---- */

/*
 * The layout of struct ust_event_desc and the behaviour of the probes an
 * object was compiled with: 2 has loglevel and filtering typed probes.
 * Objects built before it call ust_register_object(), version 1.
 */
#define UST_DESC_VERSION	2

int ust_register_object2(struct ust_event_desc *const *ev_start,
			 struct ust_event_desc *const *ev_stop,
			 struct ust_tracepoint *const *tp_start,
			 struct ust_tracepoint *const *tp_stop, uint32_t desc_version);
int ust_register_object(struct ust_event_desc *const *ev_start,
			struct ust_event_desc *const *ev_stop,
			struct ust_tracepoint *const *tp_start,
			struct ust_tracepoint *const *tp_stop);
void ust_unregister_object(struct ust_event_desc *const *ev_start,
			   struct ust_event_desc *const *ev_stop,
			   struct ust_tracepoint *const *tp_start,
			   struct ust_tracepoint *const *tp_stop);

/* Reserves room for one event of desc with payload_len bytes of payload.
 * Returns 0 with ctx->payload set, or a negative errno when the event is not
 * recorded (not bound to a running trace, or dropped and counted). */
int ust_event_reserve(struct ust_event_ctx *ctx, const struct ust_event_desc *desc,
		      size_t payload_len);
void ust_event_commit(struct ust_event_ctx *ctx);

/* ust_event_reserve() with the instrumentation site's address, which the
 * ip context records (the caller's return address). */
int ust_event_reserve_ip(struct ust_event_ctx *ctx, const struct ust_event_desc *desc,
			 size_t payload_len, const void *ip);

/*
 * ust_event_reserve_ip() for an event whose site's enabled flag has
 * UST_SITE_FILTERED: the filters run first on args, one value per field
 * (arrays and sequences: anything), and -ECANCELED says they dropped the
 * event. Lock-free, allocates nothing, async-signal-safe.
 */
int ust_event_reserve_filtered(struct ust_event_ctx *ctx, const struct ust_event_desc *desc,
			       size_t payload_len, const union ust_filter_arg *args,
			       const void *ip);

/*
 * After committing an event of a site flagged UST_SITE_TRIGGER: runs the
 * triggers' filters on args (as ust_event_reserve_filtered() had them) and
 * tells ustd of those that pass. Never waits, allocates nothing,
 * async-signal-safe.
 */
void ust_event_trigger(const struct ust_event_desc *desc, const union ust_filter_arg *args,
		       const void *ip);

/* Records a marker event; the variadic arguments follow desc->format. */
void ust_marker_emit(const struct ust_event_desc *desc, ...);

int ust_tracepoint_probe_register(const char *name, void (*func)(void), void *data);
int ust_tracepoint_probe_unregister(const char *name, void (*func)(void), void *data);
void ust_rcu_read_lock(void);
void ust_rcu_read_unlock(void);

/* ---- per-object registration ---- */

#define UST_SECTION_EVENTS	"__ust_events"
#define UST_SECTION_TRACEPOINTS	"__ust_tracepoints"

/*
 * The sections are plain writable data ("aw"), whatever the compiler or
 * -fPIC/-fPIE/-fno-pie: a compiler gives a named section one set of flags
 * per translation unit and refuses an object whose flags differ, so every
 * entry must get the same. Entries at file scope (TRACE_EVENT's,
 * DEFINE_TRACE's) are non-const pointers for that reason: a const one
 * would be read-only data ("a") where no relocation is needed. A marker's
 * entry is placed by the assembler, not by a section attribute: in C++ a
 * static inside an inline function or a template instantiation is a
 * COMDAT object, which g++ puts in a COMDAT group of the section ("awG")
 * and then reports as a section type conflict with every other entry of
 * the translation unit; g++ 12 also drops the section attribute of such a
 * static in a function template altogether. The assembler's entry is
 * emitted once per copy of the site's code (an inlined or cloned function
 * lists its marker more than once): libust counts a descriptor's entries
 * and registers it once.
 */
#if __SIZEOF_POINTER__ == 8
#define __UST_ASM_PTR	".quad"
#else
#define __UST_ASM_PTR	".long"
#endif
/*
 * The operand is the descriptor's symbol. In code built with -fPIC, a static
 * of a C++ inline function or template with default visibility may be
 * preempted by another object's copy: clang names it with "s", g++ (before
 * 14) has no constraint for it and reports "asm operand 0 probably does
 * not match constraints" (manual 6.7: build such libraries with
 * -fvisibility=hidden).
 */
#ifdef __clang__
#define __UST_ASM_SYM	"s"
#else
#define __UST_ASM_SYM	"i"
#endif
#define __UST_SECTION_ENTRY(section, obj) \
	__asm__ __volatile__(".pushsection " section ", \"aw\"\n\t" \
			     ".balign " __UST_STR(__SIZEOF_POINTER__) "\n\t" \
			     __UST_ASM_PTR " %c0\n\t" \
			     ".popsection" : : __UST_ASM_SYM (&(obj)))

/*
 * The linker defines __start_/__stop_ for each section in each object; hidden
 * binds every reference to the object's own range, weak makes them NULL in an
 * object that has no site of that kind.
 */
extern struct ust_event_desc *const __start___ust_events[]
	__attribute__((weak, visibility("hidden")));
extern struct ust_event_desc *const __stop___ust_events[]
	__attribute__((weak, visibility("hidden")));
extern struct ust_tracepoint *const __start___ust_tracepoints[]
	__attribute__((weak, visibility("hidden")));
extern struct ust_tracepoint *const __stop___ust_tracepoints[]
	__attribute__((weak, visibility("hidden")));

#ifndef UST_INTERNAL_BUILD
/*
 * Every translation unit that includes this header registers its object's
 * ranges; libust counts the registrations of one range, so the object is
 * registered once and unregistered when its last destructor runs (dlclose).
 */
static void __ust_noinstr __attribute__((constructor, used)) __ust_object_register(void)
{
	ust_register_object2(__start___ust_events, __stop___ust_events,
			     __start___ust_tracepoints, __stop___ust_tracepoints,
			     UST_DESC_VERSION);
}

static void __ust_noinstr __attribute__((destructor, used)) __ust_object_unregister(void)
{
	ust_unregister_object(__start___ust_events, __stop___ust_events,
			      __start___ust_tracepoints, __stop___ust_tracepoints);
}
#endif /* UST_INTERNAL_BUILD */

#ifdef __cplusplus
}
#endif

#endif
