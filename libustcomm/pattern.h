/* SPDX-License-Identifier: LGPL-2.1-only */
/* Event name patterns, as enable rules use them: the application matches
 * its events, controllers check what a rule will match. */
#ifndef USTCOMM_PATTERN_H
#define USTCOMM_PATTERN_H

#include "libustcomm/common.h"

/*
 * True when full_name ("channel:name") matches the glob ('*' any run, '?'
 * one character); the classic "channel/name" spelling is accepted.
 * Async-signal-safe: our own matcher rather than fnmatch(), whose locale
 * handling is not.
 */
USTCOMM_API int ustcomm_pattern_match(const char *pattern, const char *full_name);

#endif
