/* SPDX-License-Identifier: LGPL-2.1-only */
/* Building control messages, and the session names they carry. Not for
 * signal context (malloc): controllers and ustd. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "libustcomm/ctl_protocol.h"

int ustcomm_ctl_encode(uint16_t cmd, int32_t status, int reply, const char *const *args,
		       size_t nr, char **out, size_t *out_len)
{
	struct ustcomm_ctl_header hdr;
	size_t payload = 0, off, i;
	/* Replies are bounded by what a controller reads, requests by the
	 * command. */
	size_t max = reply ? USTCOMM_CTL_MAX_REPLY : ustcomm_ctl_max_request(cmd);
	char *buf;

	for (i = 0; i < nr; i++)
		payload += strlen(args[i]) + 1;
	if (payload > max || (!reply && nr > ustcomm_ctl_max_args(cmd)))
		return -E2BIG;
	buf = malloc(sizeof(hdr) + payload);
	if (!buf)
		return -ENOMEM;
	ustcomm_ctl_header_init(&hdr, cmd, status, (uint32_t)nr, (uint32_t)payload);
	memcpy(buf, &hdr, sizeof(hdr));
	off = sizeof(hdr);
	for (i = 0; i < nr; i++) {
		size_t l = strlen(args[i]) + 1;

		memcpy(buf + off, args[i], l);
		off += l;
	}
	*out = buf;
	*out_len = off;
	return 0;
}

int ustcomm_session_name_valid(const char *name)
{
	size_t i, len = strlen(name);

	if (!len || len >= USTCOMM_SESSION_NAME_MAX || name[0] == '.' || name[0] == '-' ||
	    !strcmp(name, "auto"))
		return 0;
	for (i = 0; i < len; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == '-'))
			return 0;
	}
	return 1;
}
