/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * log.c's limit on repeated messages of a daemon (ustcomm_log_limit_repeats()):
 * a message is of the kind its format string makes it, and each kind may
 * write LOG_REPEAT_BURST lines in a window of LOG_REPEAT_WINDOW_S seconds;
 * the rest are counted and told in one summary line once the window ended.
 * Not for libust: it locks a mutex, which a signal handler must not.
 */
#ifndef USTCOMM_LOG_REPEAT_H
#define USTCOMM_LOG_REPEAT_H

#include <stdbool.h>
#include <stddef.h>

#define LOG_REPEAT_BURST	10
#define LOG_REPEAT_WINDOW_S	10

/* Writes one whole line. */
typedef void (*ustcomm_log_put_fn)(const char *line, size_t len);

/*
 * Whether line, of the kind fmt, may be written now; the summaries of the
 * windows that ended are written with put first, so that they precede it.
 * prefix names who speaks in the summaries.
 */
bool ustcomm_log_repeat_admit(const char *prefix, const char *fmt, const char *line,
			      ustcomm_log_put_fn put);

/* Writes the summaries of the windows that ended, or of every window
 * (all: at exit). Costs an atomic load when nothing was suppressed. */
void ustcomm_log_repeat_flush(const char *prefix, bool all, ustcomm_log_put_fn put);

#endif
