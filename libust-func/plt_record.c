/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Library calls into events (plt_record.h): the call itself through the
 * hooks' path (func_calls.h), so that it is timed, filtered and nested
 * like any traced function, and its name, arguments and return value as
 * the events of plt_tp.h.
 *
 * Async-signal-safe: the event write path is; the guard is one
 * initial-exec thread-local word that a signal handler's recording finds
 * set (its calls then go unrecorded) or clear, never half-set.
 */
#include "config.h"

#include "libust-func/func_calls.h"
#include "libust-func/plt_record.h"

#define UST_CREATE_PROBES
#include "libust-func/plt_tp.h"

static __thread int recording __attribute__((tls_model("initial-exec")));

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

static __attribute__((no_instrument_function)) void plt_enter(void *func, const uint64_t *args,
							      uint32_t nr_args)
{
	if (recording)
		return;
	recording = 1;
	ust_func_call_enter(func);
	if (nr_args)
		ust_event(ust_plt, args, ust_func_tid(), func, args, nr_args);
	recording = 0;
}

static __attribute__((no_instrument_function)) void plt_exit(void *func, int has_ret,
							     uint64_t ret)
{
	if (recording)
		return;
	recording = 1;
	if (has_ret)
		ust_event(ust_plt, ret, ust_func_tid(), func, ret);
	ust_func_call_exit();
	recording = 0;
}

const struct ust_plt_record_ops ust_plt_record_ops = {
	UST_PLT_RECORD_VERSION, plt_bind, plt_enter, plt_exit,
};
