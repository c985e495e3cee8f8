/* SPDX-License-Identifier: LGPL-2.1-only */
#include <errno.h>
#include <stddef.h>
#include <strings.h>

#include "libustcomm/loglevel.h"

static const char *const names[USTCOMM_LOGLEVEL_MAX + 1] = {
	"EMERG", "ALERT", "CRIT", "ERR", "WARNING", "NOTICE", "INFO",
	"DEBUG_SYSTEM", "DEBUG_PROGRAM", "DEBUG_PROCESS", "DEBUG_MODULE",
	"DEBUG_UNIT", "DEBUG_FUNCTION", "DEBUG_LINE", "DEBUG",
};

int ustcomm_loglevel_parse(const char *name)
{
	int i;

	if (!strncasecmp(name, "TRACE_", 6))
		name += 6;
	if (name[0] >= '0' && name[0] <= '9') {
		int v = name[0] - '0';

		if (name[1] >= '0' && name[1] <= '9' && !name[2])
			v = v * 10 + name[1] - '0';
		else if (name[1])
			return -EINVAL;
		return v <= USTCOMM_LOGLEVEL_MAX ? v : -EINVAL;
	}
	for (i = 0; i <= USTCOMM_LOGLEVEL_MAX; i++) {
		if (!strcasecmp(name, names[i]))
			return i;
	}
	return -EINVAL;
}

const char *ustcomm_loglevel_name(int level)
{
	return level >= 0 && level <= USTCOMM_LOGLEVEL_MAX ? names[level] : NULL;
}
