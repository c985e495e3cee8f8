/* SPDX-License-Identifier: LGPL-2.1-only */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "libustcomm/format.h"
#include "libustcomm/log.h"

#define LOG_PREFIX_MAX	64
#define LOG_LINE_MAX	1024

static char log_prefix[LOG_PREFIX_MAX] = "ust";

/* -1 until UST_DEBUG was looked at; the environment is read only once. */
static int log_debug = -1;

void ustcomm_log_set_prefix(const char *prefix)
{
	ustcomm_format(log_prefix, sizeof(log_prefix), "%s", prefix);
}

int ustcomm_debug_enabled(void)
{
	int enabled = __atomic_load_n(&log_debug, __ATOMIC_RELAXED);

	if (enabled < 0) {
		const char *v = getenv("UST_DEBUG");

		enabled = v && *v;
		__atomic_store_n(&log_debug, enabled, __ATOMIC_RELAXED);
	}
	return enabled;
}

/*
 * Formats the whole line on the stack and hands it to the kernel in one
 * write(), so lines of concurrent threads and processes never interleave and
 * nothing waits in a stdio buffer when the process dies. errno is preserved
 * for the caller. Async-signal-safe once ustcomm_debug_enabled() has read
 * the environment (libust does so at load time): ustcomm_vformat() and
 * write() only.
 */
static void log_write(const char *kind, const char *fmt, va_list ap)
{
	char line[LOG_LINE_MAX];
	int saved_errno = errno;
	size_t len;
	int n;

	n = ustcomm_format(line, sizeof(line), "%s: %s", log_prefix, kind);
	if (n < 0)
		goto end;
	len = (size_t)n;
	if (len < sizeof(line) - 1) {
		n = ustcomm_vformat(line + len, sizeof(line) - len, fmt, ap);
		/* An unknown conversion still leaves the text before it. */
		len += n < 0 ? strlen(line + len) : (size_t)n;
	}
	if (len > sizeof(line) - 2)
		len = sizeof(line) - 2;
	line[len++] = '\n';
	while (write(STDERR_FILENO, line, len) < 0 && errno == EINTR)
		;
end:
	errno = saved_errno;
}

void ustcomm_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_write("error: ", fmt, ap);
	va_end(ap);
}

void ustcomm_dbg(const char *fmt, ...)
{
	va_list ap;

	if (!ustcomm_debug_enabled())
		return;
	va_start(ap, fmt);
	log_write("debug: ", fmt, ap);
	va_end(ap);
}
