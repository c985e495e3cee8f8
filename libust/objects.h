/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The instrumented objects (executable, libraries) that registered their
 * event sites with ust_register_object() (ust/core.h).
 */
#ifndef UST_OBJECTS_H
#define UST_OBJECTS_H

#include "libust/registry.h"
#include "libustcomm/strbuf.h"

/* Under ust_lock: appends the files of the objects holding the event's
 * sites, ", "-separated. Async-signal-safe. */
int ust_objects_describe(const struct ust_event_state *ev, struct ustcomm_strbuf *sb);

/* fn runs under ust_lock after each object registered, in the object's
 * constructor: a normal context, where the layer above may start a thread
 * (startup.c). Set once, at load time. */
void ust_objects_on_registered(void (*fn)(void));

#endif
