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

void ustcomm_level_spec_format(char *buf, int match, int level)
{
	if (match == USTCOMM_LEVEL_ANY || level < 0 || level > USTCOMM_LOGLEVEL_MAX) {
		buf[0] = '\0';
		return;
	}
	buf[0] = match == USTCOMM_LEVEL_RANGE ? '<' : '=';
	buf[1] = '=';
	buf[2] = level >= 10 ? '1' : (char)('0' + level);
	buf[3] = level >= 10 ? (char)('0' + level - 10) : '\0';
	buf[4] = '\0';
}

int ustcomm_level_spec_parse(const char *s, int *match, int *level)
{
	int m, v;

	*match = USTCOMM_LEVEL_ANY;
	*level = 0;
	if (!*s)
		return 0;
	if ((s[0] != '<' && s[0] != '=') || s[1] != '=')
		return -EINVAL;
	m = s[0] == '<' ? USTCOMM_LEVEL_RANGE : USTCOMM_LEVEL_ONLY;
	/* Digits only: ustcomm_loglevel_parse() would also take names. */
	if (s[2] < '0' || s[2] > '9' || (s[3] && (s[3] < '0' || s[3] > '9')))
		return -EINVAL;
	v = ustcomm_loglevel_parse(s + 2);
	if (v < 0)
		return -EINVAL;
	*match = m;
	*level = v;
	return 0;
}

int ustcomm_level_matches(int match, int level, int event_level)
{
	switch (match) {
	case USTCOMM_LEVEL_RANGE:
		return event_level <= level;
	case USTCOMM_LEVEL_ONLY:
		return event_level == level;
	default:
		return 1;
	}
}
