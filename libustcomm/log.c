/* SPDX-License-Identifier: LGPL-2.1-only */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "libustcomm/format.h"
#include "libustcomm/log.h"
#include "libustcomm/log_repeat.h"
#include "libustcomm/write_nowait.h"

#define LOG_PREFIX_MAX	64
#define LOG_LINE_MAX	1024	/* below PIPE_BUF: a pipe takes a line whole or not at all */
#define LOG_BURST	10
#define LOG_WINDOW_S	10

static char log_prefix[LOG_PREFIX_MAX] = "ust";

/* -1 until UST_DEBUG was looked at; the environment is read only once. */
static int log_debug = -1;

/*
 * A guest (libust, in the program's process) must never wait on stderr
 * nor die of it: its lines go through ustcomm_write_nowait(), and its
 * errors are limited to LOG_BURST lines per LOG_WINDOW_S window. The
 * lines it could not write or was not allowed to are counted and the
 * count told with the next line written. Lock-free, as lines come from
 * any thread and from the control signal's handler: at the turn of a
 * window, threads racing may get one line more or less than the budget.
 */
static int log_guest;
/* A daemon's repeated messages are limited per kind (log_repeat.h). */
static int log_repeats_limited;
static uint64_t window_start_s;
static unsigned long window_lines;
static unsigned long log_dropped;

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

void ustcomm_log_limit_repeats(void)
{
	__atomic_store_n(&log_repeats_limited, 1, __ATOMIC_RELAXED);
}

static void host_write(const char *line, size_t len)
{
	while (write(STDERR_FILENO, line, len) < 0 && errno == EINTR)
		;
}

void ustcomm_log_flush(int all)
{
	int saved_errno = errno;

	if (__atomic_load_n(&log_repeats_limited, __ATOMIC_RELAXED))
		ustcomm_log_repeat_flush(log_prefix, all, host_write);
	errno = saved_errno;
}

void ustcomm_log_set_guest(void)
{
	__atomic_store_n(&log_guest, 1, __ATOMIC_RELAXED);
}

/* Whether an error line fits this window's budget. */
static int log_admit(void)
{
	struct timespec now;
	uint64_t start;

	clock_gettime(CLOCK_MONOTONIC, &now);
	start = __atomic_load_n(&window_start_s, __ATOMIC_RELAXED);
	if (!start || (uint64_t)now.tv_sec - start >= LOG_WINDOW_S) {
		if (__atomic_compare_exchange_n(&window_start_s, &start, (uint64_t)now.tv_sec + !now.tv_sec,
						0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			__atomic_store_n(&window_lines, 0, __ATOMIC_RELAXED);
	}
	return __atomic_fetch_add(&window_lines, 1, __ATOMIC_RELAXED) < LOG_BURST;
}

static void guest_write(const char *line, size_t len)
{
	if (ustcomm_write_nowait(STDERR_FILENO, line, len) != (ssize_t)len)
		__atomic_fetch_add(&log_dropped, 1, __ATOMIC_RELAXED);
}

/* Tells how many lines were dropped since the last line written. */
static void guest_write_dropped(void)
{
	unsigned long dropped = __atomic_exchange_n(&log_dropped, 0, __ATOMIC_RELAXED);
	char note[256];
	int n;

	if (!dropped)
		return;
	n = ustcomm_format(note, sizeof(note),
			   "%s: warning: %lu earlier messages were dropped: at most %d errors are written each %d s, and none while stderr is full or closed\n",
			   log_prefix, dropped, LOG_BURST, LOG_WINDOW_S);
	if (n <= 0 || ustcomm_write_nowait(STDERR_FILENO, note, (size_t)n) != n)
		__atomic_fetch_add(&log_dropped, dropped, __ATOMIC_RELAXED);
}

/*
 * Formats the whole line on the stack and hands it to the kernel in one
 * write(), so lines of concurrent threads and processes never interleave and
 * nothing waits in a stdio buffer when the process dies. errno is preserved
 * for the caller. Async-signal-safe once ustcomm_debug_enabled() has read
 * the environment (libust does so at load time): ustcomm_vformat(),
 * clock_gettime(), atomics and ustcomm_write_nowait() or write() only.
 */
static void log_write(const char *kind, int limited, const char *fmt, va_list ap)
{
	char line[LOG_LINE_MAX];
	int saved_errno = errno;
	int guest = __atomic_load_n(&log_guest, __ATOMIC_RELAXED);
	size_t len, text;
	int n;

	if (guest && limited && !log_admit()) {
		__atomic_fetch_add(&log_dropped, 1, __ATOMIC_RELAXED);
		goto end;
	}

	n = ustcomm_format(line, sizeof(line), "%s: %s", log_prefix, kind);
	if (n < 0)
		goto end;
	len = (size_t)n;
	text = len;
	if (len < sizeof(line) - 1) {
		n = ustcomm_vformat(line + len, sizeof(line) - len, fmt, ap);
		/* An unknown conversion still leaves the text before it. */
		len += n < 0 ? strlen(line + len) : (size_t)n;
	}
	if (len > sizeof(line) - 2)
		len = sizeof(line) - 2;
	line[len++] = '\n';
	if (guest) {
		guest_write_dropped();
		guest_write(line, len);
		goto end;
	}
	line[len] = '\0';
	if (limited && __atomic_load_n(&log_repeats_limited, __ATOMIC_RELAXED) &&
	    !ustcomm_log_repeat_admit(log_prefix, fmt, line + text, host_write))
		goto end;
	host_write(line, len);
end:
	errno = saved_errno;
}

void ustcomm_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_write("error: ", 1, fmt, ap);
	va_end(ap);
}

void ustcomm_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_write("", 1, fmt, ap);
	va_end(ap);
}

void ustcomm_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_write("warning: ", 1, fmt, ap);
	va_end(ap);
}

void ustcomm_dbg(const char *fmt, ...)
{
	va_list ap;

	if (!ustcomm_debug_enabled())
		return;
	va_start(ap, fmt);
	log_write("debug: ", 0, fmt, ap);
	va_end(ap);
}
