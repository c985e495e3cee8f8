/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The trace of this process: started at load time when the environment asks
 * for it (UST_TRACE), connected to one ustd, holding the channels.
 */
#ifndef UST_SESSION_H
#define UST_SESSION_H

#include "libust/registry.h"

/* Under ust_lock: called for every event that appears (object loaded) so
 * that pattern enables apply to it at once. */
void ust_session_event_added(struct ust_event_state *ev);

#endif
