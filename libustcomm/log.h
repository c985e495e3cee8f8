/* SPDX-License-Identifier: LGPL-2.1-only */
/* Error and debug messages on stderr, each prefixed with who says it. */
#ifndef USTCOMM_LOG_H
#define USTCOMM_LOG_H

#include "libustcomm/common.h"

/* "ustd", "usttrace", or "ust[PID]" in an application; copied. */
USTCOMM_API void ustcomm_log_set_prefix(const char *prefix);
/* Always printed: "PREFIX: error: MESSAGE\n" in a single write(). */
USTCOMM_API void ustcomm_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Always printed, for what is not an error (a paused trace resumes):
 * "PREFIX: MESSAGE\n". */
USTCOMM_API void ustcomm_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Always printed, for what worked but not as the user wanted (events
 * discarded, a pattern that matches nothing): "PREFIX: warning: MESSAGE\n". */
USTCOMM_API void ustcomm_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Printed only when UST_DEBUG is set in the environment. */
USTCOMM_API void ustcomm_dbg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
USTCOMM_API int ustcomm_debug_enabled(void);
/*
 * For libust, a guest in the program's process: from now on no message
 * waits for stderr's reader or raises SIGPIPE (write_nowait.h), errors
 * are limited to 10 lines each 10 s, and the lines dropped are counted
 * and told with the next line written. Debug lines, asked for with
 * UST_DEBUG, are not limited.
 */
USTCOMM_API void ustcomm_log_set_guest(void);

#endif
