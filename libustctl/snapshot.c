/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Snapshots of flight-recorder traces: the program flushes its buffers and
 * waits for ustd to copy them (ctl_protocol.h, USTCOMM_CTL_SNAPSHOT).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "libustcomm/protocol.h"
#include "libustctl/internal.h"

/* Appends the components of path to out (len bytes used): "." and empty
 * components dropped, ".." kept for the kernel to resolve, which is right
 * across symbolic links where removing it with its parent is not. */
static int snapshot_append(char *out, size_t size, size_t *len, const char *path)
{
	const char *p = path, *end;
	size_t n;

	while (*p) {
		end = strchrnul(p, '/');
		n = (size_t)(end - p);
		if (n && !(n == 1 && *p == '.')) {
			if (*len + 1 + n >= size)
				return -ENAMETOOLONG;
			out[(*len)++] = '/';
			memcpy(out + *len, p, n);
			*len += n;
			out[*len] = '\0';
		}
		p = *end ? end + 1 : end;
	}
	return 0;
}

/* dir as an absolute path in out: the program and ustd have working
 * directories of their own. NULL and "" stay "" (ustd's directory). */
static int snapshot_dir(pid_t pid, const char *dir, char *out, size_t size)
{
	char cwd[PATH_MAX];
	size_t len = 0;
	int ret = 0;

	out[0] = '\0';
	if (!dir || !*dir)
		goto end;
	if (dir[0] != '/') {
		if (!getcwd(cwd, sizeof(cwd))) {
			ret = -errno;
			ustctl_set_error("snapshot for process %d: cannot make the directory '%s' absolute: the current directory: %s",
					 (int)pid, dir, strerror(errno));
			goto end;
		}
		ret = snapshot_append(out, size, &len, cwd);
	}
	if (!ret)
		ret = snapshot_append(out, size, &len, dir);
	if (ret) {
		ustctl_set_error("snapshot for process %d: the directory '%.64s%s' made absolute is longer than %zu bytes",
				 (int)pid, dir, strlen(dir) > 64 ? "..." : "", size - 1);
		goto end;
	}
	if (!len)
		strcpy(out, "/");
end:
	return ret;
}

int ustctl_snapshot(pid_t pid, const char *trace, const char *dir, char **path)
{
	struct ustctl_reply reply = { 0 };
	const char *args[2];
	char *abs_dir;
	int ret;

	*path = NULL;
	abs_dir = malloc(USTCOMM_PATH_MAX);
	if (!abs_dir) {
		ustctl_set_error("out of memory");
		return -ENOMEM;
	}
	ret = ustctl_trace_arg(pid, trace, &args[0]);
	if (!ret)
		ret = snapshot_dir(pid, dir, abs_dir, USTCOMM_PATH_MAX);
	if (ret)
		goto end;
	args[1] = abs_dir;
	/* The program may wait this long for ustd before it answers: wait for
	 * its answer (ustd's error, or its timeout) rather than time out first. */
	ret = ustctl_call_expect(pid, USTCOMM_CTL_SNAPSHOT, args, 2, USTCOMM_CTL_SNAPSHOT_WAIT_MS, 1,
				 &reply);
	if (ret)
		goto end;
	if (!reply.msg.payload[0]) {
		ret = -EPROTO;
		ustctl_set_error("process %d answered snapshot without naming the snapshot's directory",
				 (int)pid);
		goto end;
	}
	*path = strdup(reply.msg.payload);
	if (!*path) {
		ret = -ENOMEM;
		ustctl_set_error("out of memory");
	}
end:
	ustctl_reply_release(&reply);
	free(abs_dir);
	return ret;
}
