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
/*
 * For a daemon (ustd), which must not be made to write without end by
 * whoever can make it err: from now on the errors and notes of each kind
 * (each format string) are written at most 10 times each 10 s; the rest
 * are counted, and one line tells their number once the window ended
 * (before the next message, or at ustcomm_log_flush()).
 */
USTCOMM_API void ustcomm_log_limit_repeats(void);
/* Tells the counts of the windows that ended, or of all of them (all,
 * at exit). Cheap when nothing was held back: call it from a loop. */
USTCOMM_API void ustcomm_log_flush(int all);

#endif
