/* SPDX-License-Identifier: GPL-2.0-only */
#include <stdarg.h>
#include <stdio.h>
#include "ustd/conn/note.h"

void ustd_app_note(const struct ustd_app *app, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	if (!app->ctx->verbose)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "ustd: %s\n", buf);
}
