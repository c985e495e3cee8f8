/* SPDX-License-Identifier: LGPL-2.1-only */
/* The names of the log levels (enum ust_loglevel of <ust/core.h>). */
#ifndef USTCOMM_LOGLEVEL_H
#define USTCOMM_LOGLEVEL_H

#include "libustcomm/common.h"

#define USTCOMM_LOGLEVEL_MAX	14

/* "WARNING", "warning", "TRACE_WARNING" (LTTng's spelling) or "4" -> 4;
 * -EINVAL when it is none of them. */
USTCOMM_API int ustcomm_loglevel_parse(const char *name);
/* 4 -> "WARNING"; NULL out of range. */
USTCOMM_API const char *ustcomm_loglevel_name(int level);

#endif
