/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The orphans a program leaves in <rundir>/orphans when it ends while its
 * ustd is gone (libustcomm/orphan.h): a starting ustd writes each as the
 * trace of a program that reconnected and died at once (app.h), into a
 * new directory procname-PID-time where the program's HELLO says (its
 * output, else ustd's), then deletes it.
 */
#ifndef USTD_ORPHAN_H
#define USTD_ORPHAN_H

#include "ustd/conn/app.h"

/* Takes every orphan there is now; the applications made for them are
 * closed already and go on *apps, to be freed with the others. */
void ustd_orphans_take(const struct ustd_ctx *ctx, struct ustd_app **apps);

#endif
