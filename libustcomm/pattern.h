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

#define USTCOMM_PATTERN_MAX	255
#define USTCOMM_PATTERN_RULE	"give a name or a glob of printable characters without spaces or commas, at most 255"
/* What a rule's pattern may be (USTCOMM_PATTERN_RULE says it in words). */
USTCOMM_API int ustcomm_pattern_valid(const char *pattern);

/*
 * True when outer matches every name inner matches (a sufficient test:
 * "ust:*" covers "ust:t*" and "ust:tick", "*" covers everything).
 * Async-signal-safe.
 */
USTCOMM_API int ustcomm_pattern_covers(const char *outer, const char *inner);

/* The channel of libust-func's events, named after their provider: the
 * one usttrace gives thread buffers when it traces functions. */
#define USTCOMM_FUNC_CHANNEL	"ust_func"
/* Their provider: a pattern naming it asks for function tracing (libust's
 * rules add the statedump to it, usttrace makes such a run lossless). */
#define USTCOMM_FUNC_PROVIDER	USTCOMM_FUNC_CHANNEL ":"

#endif
