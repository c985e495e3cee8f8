/* SPDX-License-Identifier: GPL-2.0-only */
/* snapshot: what the buffers of flight-recorder traces hold, to disk. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <ust/ustctl.h>
#include "ustctl/command.h"
#include "ustctl/output.h"

/* Every process gets the request, even after a failure: the exit status
 * says whether all of them succeeded. libustctl makes a relative DIR
 * absolute against our working directory. */
int ustctl_cmd_snapshot(const struct ustctl_args *args)
{
	int status = USTCTL_EXIT_OK, i, ret;
	char *path;
	pid_t *pids;

	if (args->session)
		return ustctl_cmd_session_snapshot(args);
	ret = ustctl_parse_pids(args, 0, &pids);
	if (ret < 0)
		return ret == -EINVAL ? USTCTL_EXIT_USAGE : USTCTL_EXIT_FAILED;
	for (i = 0; i < args->argc; i++) {
		ret = ustctl_snapshot(pids[i], args->trace, args->dir, &path);
		ustctl_mi_open_process(pids[i], args->trace, ret >= 0);
		if (ret < 0) {
			ustctl_fail(pids[i], "snapshot %s: %s", args->trace, ustctl_last_error());
			status = ustctl_worse(status, ustctl_call_status(args->cmd));
		} else {
			ustctl_mi_element("snapshot", "%s", path);
			if (!ustctl_out_mi())
				printf("pid %d: trace %s: snapshot in %s\n", (int)pids[i], args->trace,
				       path);
			free(path);
		}
		ustctl_mi_close();
	}
	free(pids);
	return status;
}
