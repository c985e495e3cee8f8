/* SPDX-License-Identifier: LGPL-2.1-only */
/* trace_mark(): serialised from the field list prepared at registration. */
#include <stdarg.h>

#include "libust/marker_format.h"
#include "libust/registry.h"
#include "libustcomm/common.h"

UST_API void ust_marker_emit(const struct ust_event_desc *desc, ...)
{
	struct ust_event_state *ev;
	struct ust_event_ctx ctx;
	va_list ap, ap_write;
	size_t len;

	/* Acquire: pairs with the release store of priv in registry.c. */
	ev = __atomic_load_n(&desc->priv, __ATOMIC_ACQUIRE);
	if (ust_unlikely(!ev))
		return;
	va_start(ap, desc);
	va_copy(ap_write, ap);
	len = ust_marker_payload_size(&ev->marker, ap);
	if (ust_event_reserve(&ctx, desc, len) == 0) {
		ust_marker_payload_write(&ev->marker, ctx.payload, ap_write);
		ust_event_commit(&ctx);
	}
	va_end(ap_write);
	va_end(ap);
}
