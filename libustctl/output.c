/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Where a trace goes (trace_output.h), as callers give it: a directory,
 * relative to the caller's working directory or absolute, or an
 * lttng-relayd URL, which must answer before a trace is pointed at it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "libustcomm/protocol.h"
#include "libustcomm/relay_connect.h"
#include "libustcomm/trace_output.h"
#include "libustctl/internal.h"

/* How long a relayd may take to accept the check's connections. */
#define RELAY_CHECK_TIMEOUT_MS	5000

/* Appends the components of path to out (len bytes used): "." and empty
 * components dropped, ".." kept for the kernel to resolve, which is right
 * across symbolic links where removing it with its parent is not. */
static int absolute_append(char *out, size_t size, size_t *len, const char *path)
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

int ustctl_absolute_dir(pid_t pid, const char *what, const char *dir, char *out, size_t size)
{
	char cwd[PATH_MAX], who[32];
	size_t len = 0;
	int ret = 0;

	out[0] = '\0';
	/* pid 0: a request to ustd (a session's directory). */
	if (pid)
		snprintf(who, sizeof(who), "process %d", (int)pid);
	else
		snprintf(who, sizeof(who), "ustd");
	if (!dir || !*dir)
		goto end;
	if (dir[0] != '/') {
		if (!getcwd(cwd, sizeof(cwd))) {
			ret = -errno;
			ustctl_set_error("%s for %s: cannot make the directory '%s' absolute: the current directory: %s",
					 what, who, dir, strerror(errno));
			goto end;
		}
		ret = absolute_append(out, size, &len, cwd);
	}
	if (!ret)
		ret = absolute_append(out, size, &len, dir);
	if (ret) {
		ustctl_set_error("%s for %s: the directory '%.64s%s' made absolute is longer than %zu bytes",
				 what, who, dir, strlen(dir) > 64 ? "..." : "", size - 1);
		goto end;
	}
	if (!len)
		strcpy(out, "/");
end:
	return ret;
}

/* Both of the relayd's ports accept a connection. */
static int relay_check(pid_t pid, const struct ustcomm_relay_url *url, const char *text)
{
	char why[512];
	int fd;

	fd = ustcomm_relay_connect_port(url, text, url->ctrl_port, "control",
					RELAY_CHECK_TIMEOUT_MS, why, sizeof(why));
	if (fd >= 0) {
		close(fd);
		fd = ustcomm_relay_connect_port(url, text, url->data_port, "data",
						RELAY_CHECK_TIMEOUT_MS, why, sizeof(why));
	}
	if (fd < 0) {
		ustctl_set_failure("process %d: %s", (int)pid, why);
		return fd;
	}
	close(fd);
	return 0;
}

int ustctl_output_arg(pid_t pid, const char *output, char *out, size_t size)
{
	struct ustcomm_relay_url url;
	const char *why;
	int kind, ret;

	if (output && *output && !strstr(output, "://"))
		ret = ustctl_absolute_dir(pid, "output", output, out, size);
	else
		ret = snprintf(out, size, "%s", output ? output : "") < (int)size ? 0 : -ENAMETOOLONG;
	if (ret == -ENAMETOOLONG)
		ustctl_set_error("process %d: the output '%.64s...' is longer than %zu bytes",
				 (int)pid, output, size - 1);
	if (ret)
		return ret;
	kind = ustcomm_output_parse(out, &url, &why);
	if (kind < 0) {
		ustctl_set_error("process %d: invalid output '%s': %s", (int)pid, out, why);
		return kind;
	}
	return kind == USTCOMM_OUTPUT_RELAY ? relay_check(pid, &url, out) : 0;
}

static int output_command(pid_t pid, uint16_t cmd, const char *trace, const char *output)
{
	struct ustctl_reply reply = { 0 };
	const char *args[2];
	char *abs = malloc(USTCOMM_PATH_MAX);
	int ret = -ENOMEM;

	if (!abs) {
		ustctl_set_error("out of memory");
		goto end;
	}
	ret = ustctl_trace_arg(pid, trace, &args[0]);
	if (!ret)
		ret = ustctl_output_arg(pid, output, abs, USTCOMM_PATH_MAX);
	if (ret)
		goto end;
	args[1] = abs;
	ret = ustctl_call_expect(pid, cmd, args, 2, 0, 0, &reply);
end:
	ustctl_reply_release(&reply);
	free(abs);
	return ret;
}

int ustctl_create_trace_output(pid_t pid, const char *trace, const char *output)
{
	return output_command(pid, USTCOMM_CTL_CREATE_TRACE, trace, output);
}

int ustctl_set_output(pid_t pid, const char *trace, const char *output)
{
	return output_command(pid, USTCOMM_CTL_SET_OUTPUT, trace, output);
}
