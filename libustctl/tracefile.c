/* SPDX-License-Identifier: LGPL-2.1-only */
/* Bounded disk: set-tracefile and get-tracefile (ctl_protocol.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "libustctl/internal.h"
#include "libustcomm/bufsize.h"
#include "libustcomm/format.h"

/* "SIZE[/COUNT]" into its values, checked as libust checks them. */
static int tracefile_split(const char *text, uint64_t *size, uint32_t *count)
{
	const char *slash = strchr(text, '/');
	char sz[32];
	size_t len = slash ? (size_t)(slash - text) : strlen(text);

	*count = 0;
	if (len >= sizeof(sz))
		return -EINVAL;
	memcpy(sz, text, len);
	sz[len] = '\0';
	if (ustcomm_parse_size(sz, 0, UST_TRACEFILE_SIZE_MAX, size) < 0 ||
	    (*size && *size < UST_TRACEFILE_SIZE_MIN))
		return -EINVAL;
	if (slash && (ustcomm_parse_u32(slash + 1, count) < 0 ||
		      *count > UST_TRACEFILE_COUNT_MAX || (*count && !*size)))
		return -EINVAL;
	return 0;
}

int ustctl_tracefile_parse(const char *text, uint64_t *size, uint32_t *count)
{
	if (text && tracefile_split(text, size, count) == 0)
		return 0;
	ustctl_set_error("invalid tracefile limits '%s': SIZE[/COUNT], SIZE 0 (one file) or bytes from %llu (suffix k, M or G allowed), COUNT the files kept, up to %u (0: all; needs a SIZE)",
			 text ? text : "", UST_TRACEFILE_SIZE_MIN, UST_TRACEFILE_COUNT_MAX);
	return -EINVAL;
}

int ustctl_set_tracefile(pid_t pid, const char *trace, const char *channel, uint64_t size,
			 uint32_t count)
{
	char text[48];

	snprintf(text, sizeof(text), "%" PRIu64 "/%" PRIu32, size, count);
	if (ustctl_tracefile_parse(text, &size, &count) < 0)
		return -EINVAL;
	return ustctl_channel_set(pid, USTCOMM_CTL_SET_TRACEFILE, trace, channel, text);
}

int ustctl_get_tracefile(pid_t pid, const char *trace, const char *channel, uint64_t *size,
			 uint32_t *count)
{
	const uint16_t cmd = USTCOMM_CTL_GET_TRACEFILE;
	char text[48];
	int ret = ustctl_channel_get(pid, cmd, trace, channel, text, sizeof(text));

	if (!ret && (!strchr(text, '/') || tracefile_split(text, size, count) < 0)) {
		ustctl_set_error("process %d answered %s with '%s', not SIZE/COUNT", (int)pid,
				 ustcomm_ctl_cmd_name(cmd), text);
		ret = -EPROTO;
	}
	return ret;
}
