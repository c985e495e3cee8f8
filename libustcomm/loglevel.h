/* SPDX-License-Identifier: LGPL-2.1-only */
/* The names of the log levels (enum ust_loglevel of <ust/core.h>). */
#ifndef USTCOMM_LOGLEVEL_H
#define USTCOMM_LOGLEVEL_H

#include "libustcomm/common.h"

#define USTCOMM_LOGLEVEL_MAX	14
/* What to tell a user who gave an unknown level. */
#define USTCOMM_LOGLEVEL_CHOICES \
	"EMERG, ALERT, CRIT, ERR, WARNING, NOTICE, INFO, DEBUG_SYSTEM, DEBUG_PROGRAM, " \
	"DEBUG_PROCESS, DEBUG_MODULE, DEBUG_UNIT, DEBUG_FUNCTION, DEBUG_LINE, DEBUG or 0 to 14"

/* How a rule selects events by level (the values of enum ustctl_loglevel_match). */
enum ustcomm_level_match {
	USTCOMM_LEVEL_ANY = 0,
	USTCOMM_LEVEL_RANGE,	/* the level or more severe: event level <= level */
	USTCOMM_LEVEL_ONLY,	/* exactly the level */
};
/* Room for a level selection as text, NUL included. */
#define USTCOMM_LEVEL_SPEC_MAX	8

/* "WARNING", "warning", "TRACE_WARNING" (LTTng's spelling) or "4" -> 4;
 * -EINVAL when it is none of them. */
USTCOMM_API int ustcomm_loglevel_parse(const char *name);
/* 4 -> "WARNING"; NULL out of range. */
USTCOMM_API const char *ustcomm_loglevel_name(int level);

/*
 * A level selection as the control protocol (enable-rule, get-session) and
 * UST_AUTOPROBE carry it: "" for any level, "<=N" or "==N". The parser
 * returns 0 or -EINVAL and is async-signal-safe.
 */
USTCOMM_API void ustcomm_level_spec_format(char *buf, int match, int level);
USTCOMM_API int ustcomm_level_spec_parse(const char *s, int *match, int *level);
/* Whether an event of event_level is selected. */
USTCOMM_API int ustcomm_level_matches(int match, int level, int event_level);

#endif
