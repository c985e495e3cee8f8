/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What ustd -v says of a program's trace: what ustd is doing, as opposed
 * to what went wrong (libustcomm/log.h).
 */
#ifndef USTD_NOTE_H
#define USTD_NOTE_H

#include "ustd/conn/conn.h"

__attribute__((format(printf, 2, 3)))
void ustd_app_note(const struct ustd_app *app, const char *fmt, ...);

#endif
