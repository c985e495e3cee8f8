/* SPDX-License-Identifier: LGPL-2.1-only */
/* Rotation of sessions held by ustd: the calls of ustctl.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "libustcomm/ctl_protocol.h"
#include "libustctl/internal.h"

/* An --on-rotate command runs on its own; the rotation itself writes what
 * the programs' buffers hold, bounded like a drain. */
#define ROTATE_EXTRA_MS		20000

int ustctl_set_session_rotation(const char *name, const struct ustctl_rotation *r)
{
	char every[24], size[24], timeout[24];
	const char *args[5] = { name, every, size, r->on_rotate ? r->on_rotate : "", timeout };
	struct ustctl_reply reply;
	int ret = ustctl_check_session_name(name);

	if (ret)
		return ret;
	snprintf(every, sizeof(every), "%" PRIu64, r->every_us);
	snprintf(size, sizeof(size), "%" PRIu64, r->size);
	snprintf(timeout, sizeof(timeout), "%" PRIu64, r->on_rotate_timeout_us);
	ret = ustctl_call_ustd(USTCOMM_CTL_SESSION_ROTATION, args, 5, 0, &reply);
	ustctl_reply_release(&reply);
	return ret;
}

int ustctl_rotate_session(const char *name, char **chunk)
{
	const char *args[1] = { name };
	int ret = ustctl_check_session_name(name);

	*chunk = NULL;
	if (ret)
		return ret;
	return ustctl_call_ustd_path(USTCOMM_CTL_SESSION_ROTATE, args, 1, ROTATE_EXTRA_MS, chunk);
}
