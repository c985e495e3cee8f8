/* SPDX-License-Identifier: LGPL-2.1-only */
/* trace_mark(): serialised from the field list prepared at registration. */
#include <stdarg.h>

#include "libust/filter.h"
#include "libust/filter_reclaim.h"
#include "libust/marker_format.h"
#include "libust/registry.h"
#include "libust/trigger.h"
#include "libustcomm/common.h"

/*
 * A marker with a filter set (record filters, triggers or both): the
 * arguments are read for the programs, the event recorded when the filters
 * let it through, then the triggers see it once committed.
 */
static __attribute__((noinline)) void marker_emit_filtered(const struct ust_event_desc *desc,
							   const struct ust_event_state *ev,
							   va_list ap, const void *ip)
{
	size_t str_lens[UST_MARKER_MAX_FIELDS];
	union ust_filter_arg args[UST_MARKER_MAX_FIELDS];
	const struct ust_event_filters *filters;
	struct ust_filter_reader *r;
	struct ust_event_ctx ctx;
	int pass, committed = 0;
	size_t len;

	ust_filter_marker_args(&ev->marker, ap, args);
	/* Loaded again inside the reclamation section (filter_reclaim.h). */
	r = ust_filter_read_lock();
	/* Acquire: pairs with the release store in rules.c. */
	filters = __atomic_load_n(&ev->filters, __ATOMIC_ACQUIRE);
	pass = !filters || ust_filters_pass(filters, args, ip);
	if (pass) {
		len = ust_marker_payload_size(&ev->marker, ap, str_lens);
		if (ust_event_reserve_ip(&ctx, desc, len, ip) == 0) {
			ust_marker_payload_write(&ev->marker, ctx.payload, ap, str_lens);
			ust_event_commit(&ctx);
			committed = 1;
		}
	}
	/* Triggers see the event once it is committed. */
	if (committed && filters && filters->nr_triggers)
		ust_triggers_fire(filters, args, ip);
	ust_filter_read_unlock(r);
}

UST_API void ust_marker_emit(const struct ust_event_desc *desc, ...)
{
	size_t str_lens[UST_MARKER_MAX_FIELDS];
	struct ust_event_state *ev;
	struct ust_event_ctx ctx;
	va_list ap;
	size_t len;

	/* Acquire: pairs with the release store of priv in registry.c. */
	ev = __atomic_load_n(&desc->priv, __ATOMIC_ACQUIRE);
	if (ust_unlikely(!ev))
		return;
	/* Every pass reads the arguments through its own copy of ap. */
	va_start(ap, desc);
	/* Acquire: pairs with the release store in rules.c. */
	if (ust_unlikely(__atomic_load_n(&ev->filters, __ATOMIC_ACQUIRE) != NULL)) {
		marker_emit_filtered(desc, ev, ap, __builtin_return_address(0));
		goto end;
	}
	len = ust_marker_payload_size(&ev->marker, ap, str_lens);
	if (ust_event_reserve_ip(&ctx, desc, len, __builtin_return_address(0)) == 0) {
		ust_marker_payload_write(&ev->marker, ctx.payload, ap, str_lens);
		ust_event_commit(&ctx);
	}
end:
	va_end(ap);
}
