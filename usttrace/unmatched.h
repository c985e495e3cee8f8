/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A -m pattern that matched no event of the program leaves a trace of
 * metadata only, which looks like success: each is named on stderr.
 */
#ifndef USTTRACE_UNMATCHED_H
#define USTTRACE_UNMATCHED_H

#include <stddef.h>

/* patterns: the -m patterns joined by ','; dirs: the traces written.
 * Warns of each pattern no event declared in their metadata matches
 * (the metadata declares exactly the events that were enabled). */
void usttrace_warn_unmatched(const char *patterns, char **dirs, size_t nr_dirs);

#endif
