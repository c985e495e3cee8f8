/* SPDX-License-Identifier: LGPL-2.1-only */
/* trace_mark(): serialised from the field list prepared at registration. */
#include <stdarg.h>

#include "libust/marker_format.h"
#include "libust/registry.h"
#include "libustcomm/common.h"

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
	/* Both passes read the arguments through their own copy of ap. */
	va_start(ap, desc);
	len = ust_marker_payload_size(&ev->marker, ap, str_lens);
	if (ust_event_reserve(&ctx, desc, len) == 0) {
		ust_marker_payload_write(&ev->marker, ctx.payload, ap, str_lens);
		ust_event_commit(&ctx);
	}
	va_end(ap);
}
