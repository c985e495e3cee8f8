/* SPDX-License-Identifier: LGPL-2.1-only */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "libustctl/internal.h"

/* Per thread, so that concurrent callers each read the cause of their own
 * failure. */
static __thread char last_error[1024] = "no error";

/* Whether a request is under way (ustctl_request_begin()), and whether
 * the last error was set outside one: found in the caller's input. */
static __thread int in_request;
static __thread int last_is_input;

const char *ustctl_last_error(void)
{
	return last_error;
}

int ustctl_last_error_is_input(void)
{
	return last_is_input;
}

void ustctl_request_begin(void)
{
	in_request++;
}

void ustctl_request_end(void)
{
	in_request--;
}

static void set_error(int input, const char *fmt, va_list ap)
{
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	last_is_input = input;
}

void ustctl_set_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_error(!in_request, fmt, ap);
	va_end(ap);
}

void ustctl_set_input_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_error(1, fmt, ap);
	va_end(ap);
}

void ustctl_set_failure(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_error(0, fmt, ap);
	va_end(ap);
}

/* Lines of warnings since they were last taken; what does not fit is dropped. */
static __thread char warnings[4096];

/* A line already pending is not added again: ustctl checks a rule before
 * it sends it (ustctl_rule_check()), and the user should hear it once. */
void ustctl_add_warning(const char *fmt, ...)
{
	size_t len = strlen(warnings), n;
	char line[sizeof(warnings)];
	const char *p;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	n = strlen(line);
	for (p = warnings; (p = strstr(p, line)) != NULL; p += n) {
		if ((p == warnings || p[-1] == '\n') && (p[n] == '\0' || p[n] == '\n'))
			return;
	}
	if (len + 2 + n >= sizeof(warnings))
		return;
	if (len)
		warnings[len++] = '\n';
	memcpy(warnings + len, line, n + 1);
}

char *ustctl_take_warnings(void)
{
	char *w = warnings[0] ? strdup(warnings) : NULL;

	warnings[0] = '\0';
	return w;
}
