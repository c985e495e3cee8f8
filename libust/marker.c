/* SPDX-License-Identifier: LGPL-2.1-only */
/* trace_mark(): serialised from the field list prepared at registration. */
#include <stdarg.h>

#include "libust/event_internal.h"
#include "libust/filter.h"
#include "libust/marker_format.h"
#include "libust/registry.h"
#include "libustcomm/common.h"

/*
 * A marker with a filter set in some trace (record filters, triggers or
 * both): the arguments are read for the programs, the event recorded in
 * each trace whose filters let it through, then the triggers see it once
 * committed.
 */
static __attribute__((noinline)) void marker_emit_filtered(const struct ust_event_desc *desc,
							   const struct ust_event_state *ev,
							   va_list ap, const void *ip)
{
	size_t str_lens[UST_MARKER_MAX_FIELDS];
	union ust_filter_arg args[UST_MARKER_MAX_FIELDS];
	struct ust_event_ctx ctx;
	size_t len;

	ust_filter_marker_args(&ev->marker, ap, args);
	len = ust_marker_payload_size(&ev->marker, ap, str_lens);
	if (ust_event_reserve_args(&ctx, ev, len, args, ip) < 0)
		return;
	ust_marker_payload_write(&ev->marker, ctx.payload, ap, str_lens);
	ust_event_commit(&ctx);
	/* Triggers see the event once it is committed. */
	if (ust_site_enabled(desc->enabled) & UST_SITE_TRIGGER)
		ust_event_trigger(desc, args, ip);
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
	/* The site's flag says whether some trace filters the event (registry.c). */
	if (ust_unlikely(ust_site_enabled(desc->enabled) & UST_SITE_FILTERED)) {
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
