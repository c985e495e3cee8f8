/* SPDX-License-Identifier: LGPL-2.1-only */
#include <stdarg.h>
#include <stdio.h>
#include "libustctl/internal.h"

/* Per thread, so that concurrent callers each read the cause of their own
 * failure. */
static __thread char last_error[1024] = "no error";

const char *ustctl_last_error(void)
{
	return last_error;
}

void ustctl_set_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
}
