/* SPDX-License-Identifier: LGPL-2.1-only */
/* Triggers of sessions held by ustd (SESSION_TRIGGER): the call of ustctl.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "libustcomm/ctl_protocol.h"
#include "libustcomm/protocol.h"
#include "libustctl/internal.h"

int ustctl_session_add_trigger(const char *name, const char *pattern, const char *filter,
			       const char *dir, unsigned at_most, unsigned *id)
{
	struct ustctl_rule rule = { .enable = 1, .pattern = (char *)pattern,
				    .filter = (char *)filter };
	char level[USTCOMM_LEVEL_SPEC_MAX], at_most_text[16], *hex = NULL, *abs_dir = NULL;
	const char *args[6];
	uint32_t v = 0;
	int ret = ustctl_check_session_name(name);

	if (ret)
		return ret;
	abs_dir = calloc(1, USTCOMM_PATH_MAX);
	if (!abs_dir) {
		ustctl_set_error("out of memory");
		return -ENOMEM;
	}
	ret = ustctl_absolute_dir(0, "add-trigger", dir, abs_dir, USTCOMM_PATH_MAX);
	/* No program to check the filter's fields against: its syntax. */
	if (!ret)
		ret = ustctl_rule_prepare(0, &rule, NULL, 0, level, &hex);
	if (ret)
		goto end;
	snprintf(at_most_text, sizeof(at_most_text), "%u", at_most);
	args[0] = name;
	args[1] = pattern;
	args[2] = filter ? filter : "";
	args[3] = hex ? hex : "";
	args[4] = abs_dir;
	args[5] = at_most_text;
	ret = ustctl_call_ustd_u32(USTCOMM_CTL_SESSION_TRIGGER, args, 6, 0, &v);
	if (!ret)
		*id = v;
end:
	free(hex);
	free(abs_dir);
	return ret;
}
