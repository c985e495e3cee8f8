/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Library calls into events (plt_record.h): the call itself through the
 * hooks' path (func_calls.h), so that it is timed, filtered and nested
 * like any traced function, and its name, arguments and return value as
 * the events of plt_tp.h.
 *
 * A call left without returning (an exception thrown through it, a
 * longjmp() past it) never reaches the dynamic linker's exit hook. Each
 * thread keeps the stack pointers of its open library calls, innermost
 * last: the stack grows down, so a call made, or a call returning, at or
 * above an open call's stack pointer proves that call's frame gone, and
 * its exit is written then. A thread that switches stacks (sigaltstack,
 * makecontext) can make an open call look left: it is then ended early,
 * and its own return writes nothing, so entries and exits still pair.
 *
 * Async-signal-safe: the event write path is; the guard is one
 * initial-exec thread-local word that a signal handler's recording finds
 * set (its calls then go unrecorded) or clear, never half-set, so only one
 * recording at a time touches the thread's open calls.
 */
#include "config.h"

#include "libust-func/func_calls.h"
#include "libust-func/plt_record.h"

#define UST_CREATE_PROBES
#include "libust-func/plt_tp.h"

/* Open calls whose stack pointer is kept; deeper ones are ended by their
 * own return only. Few: with an audit library, glibc sizes the static TLS
 * block before it loads the program's libraries, whose initial-exec TLS
 * must then fit in its surplus (usttrace/plt.c). */
#define PLT_OPEN_MAX	32

struct plt_open {
	uintptr_t sp[PLT_OPEN_MAX];
	uint32_t depth;		/* of sp[] */
	uint32_t deeper;	/* open past PLT_OPEN_MAX */
};

static __thread int recording __attribute__((tls_model("initial-exec")));
static __thread struct plt_open open_calls __attribute__((tls_model("initial-exec")));

/* Ends the open calls whose stack pointer is below sp (or at it, with
 * at_too): their frames are gone. */
static __attribute__((no_instrument_function)) void end_left(uintptr_t sp, int at_too)
{
	struct plt_open *o = &open_calls;

	while (!o->deeper && o->depth &&
	       (o->sp[o->depth - 1] < sp || (at_too && o->sp[o->depth - 1] == sp))) {
		o->depth--;
		ust_func_call_exit();
	}
}

static __attribute__((no_instrument_function)) void plt_bind(void *func, const char *name)
{
	if (recording)
		return;
	recording = 1;
	if (ust_unlikely(ust_site_enabled(__ust_event_ust_plt___bind.enabled))) {
		ust_func_note_object(func);
		__ust_probe_ust_plt___bind(func, name);
	}
	recording = 0;
}

static __attribute__((no_instrument_function)) void plt_enter(void *func, uintptr_t sp,
							      const uint64_t *args,
							      uint32_t nr_args)
{
	struct plt_open *o = &open_calls;

	if (recording)
		return;
	recording = 1;
	end_left(sp, 1);
	if (o->deeper || o->depth == PLT_OPEN_MAX)
		o->deeper++;
	else
		o->sp[o->depth++] = sp;
	ust_func_call_enter(func);
	if (nr_args)
		ust_event(ust_plt, args, ust_func_tid(), func, args, nr_args);
	recording = 0;
}

static __attribute__((no_instrument_function)) void plt_exit(void *func, uintptr_t sp,
							     int has_ret, uint64_t ret)
{
	struct plt_open *o = &open_calls;

	if (recording)
		return;
	recording = 1;
	if (o->deeper) {
		o->deeper--;
	} else {
		end_left(sp, 0);
		/* Ended already, as left (a stack switch): nothing more. */
		if (!o->depth || o->sp[o->depth - 1] != sp)
			goto end;
		o->depth--;
	}
	if (has_ret)
		ust_event(ust_plt, ret, ust_func_tid(), func, ret);
	ust_func_call_exit();
end:
	recording = 0;
}

const struct ust_plt_record_ops ust_plt_record_ops = {
	UST_PLT_RECORD_VERSION, plt_bind, plt_enter, plt_exit,
};
