/* SPDX-License-Identifier: LGPL-2.1-only */
/* Contexts recorded with events: names checked here, added in the program. */
#include <errno.h>
#include "libustcomm/event_context.h"
#include "libustcomm/perf_event.h"
#include "libustctl/internal.h"

int ustctl_context_check(const char *context)
{
	if (context && ustcomm_ctx_parse(context) >= 0)
		return 0;
	ustctl_set_error("unknown context '%s': expected %s", context ? context : "",
			 USTCOMM_CTX_CHOICES);
	return -EINVAL;
}

const char *ustctl_context_name(size_t i)
{
	return i < USTCOMM_CTX_NR ? ustcomm_ctx_name((int)i) : NULL;
}

int ustctl_context_available(const char *context)
{
	char why[256];
	int id, ret;

	ret = ustctl_context_check(context);
	if (ret)
		return ret;
	id = ustcomm_ctx_parse(context);
	if (id < USTCOMM_CTX_PERF_FIRST)
		return 0;
	ret = ustcomm_perf_check(id, why, sizeof(why));
	if (ret)
		ustctl_set_error("%s", why);
	return ret;
}

int ustctl_add_context(pid_t pid, const char *trace, const char *channel, const char *context)
{
	struct ustctl_reply reply;
	const char *args[3];
	int ret;

	if (!channel || !*channel) {
		ustctl_set_error("add-context for process %d: no channel given", (int)pid);
		return -EINVAL;
	}
	ret = ustctl_context_check(context);
	if (!ret)
		ret = ustctl_trace_arg(pid, trace, &args[0]);
	if (ret)
		return ret;
	args[1] = channel;
	args[2] = context;
	ret = ustctl_call_expect(pid, USTCOMM_CTL_ADD_CONTEXT, args, 3, 0, 0, &reply);
	ustctl_reply_release(&reply);
	return ret;
}
