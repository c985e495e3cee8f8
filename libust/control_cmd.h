/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The commands of the control protocol (libustcomm/ctl_protocol.h), above
 * the socket that carries them (control.h), which calls them through the
 * handler startup.c gives it.
 */
#ifndef UST_CONTROL_CMD_H
#define UST_CONTROL_CMD_H

#include "libustcomm/ctl_protocol.h"
#include "libustcomm/strbuf.h"

/* Under ust_lock: executes a decoded request, appends the whole reply.
 * Async-signal-safe. An ust_control_handler (control.h). */
void ust_control_handle(const struct ustcomm_ctl_msg *req, struct ustcomm_strbuf *out);

#endif
