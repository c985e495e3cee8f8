/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "libustcomm/log.h"
#include "libustcomm/strbuf.h"
#include "usttrace/view.h"

/* The build tree's plugin for the tests, else the installed one. */
static const char *view_plugin_path(void)
{
	const char *env = getenv("UST_BT2_PLUGIN_PATH");

	return env && *env ? env : BT2PLUGINDIR;
}

static const char *view_babeltrace2(void)
{
	const char *env = getenv("BABELTRACE2");

	return env && *env ? env : "babeltrace2";
}

/* key="value" in babeltrace2's parameter syntax. */
static void view_param(struct ustcomm_strbuf *sb, const char *key, const char *value)
{
	ustcomm_strbuf_printf(sb, "%s%s=\"", sb->len ? "," : "", key);
	for (; *value; value++) {
		if (*value == '"' || *value == '\\')
			ustcomm_strbuf_append(sb, "\\", 1);
		ustcomm_strbuf_append(sb, value, 1);
	}
	ustcomm_strbuf_append(sb, "\"", 1);
}

/* Runs babeltrace2 ARGS..., its standard output on our stderr when
 * to_stderr; waits for it. */
static int view_run(char **args, int to_stderr)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ustcomm_err("cannot run babeltrace2: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		if (to_stderr)
			dup2(STDERR_FILENO, STDOUT_FILENO);
		execvp(args[0], args);
		ustcomm_err("cannot run %s: %s; install babeltrace2 or set BABELTRACE2", args[0],
			    strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (!(WIFEXITED(status) && WEXITSTATUS(status) == 127))
		ustcomm_err("babeltrace2 failed (status %d): see its messages above", status);
	return -1;
}

static int view_sink(char *const *dirs, size_t nr_dirs, const char *sink,
		     struct ustcomm_strbuf *params, int to_stderr)
{
	struct ustcomm_strbuf plugin = USTCOMM_STRBUF_INIT;
	char **args = calloc(nr_dirs + 8, sizeof(*args));
	size_t n = 0, i;
	int ret = -1;

	ustcomm_strbuf_printf(&plugin, "--plugin-path=%s", view_plugin_path());
	if (!args || plugin.err || params->err) {
		ustcomm_err("%s", strerror(ENOMEM));
		goto end;
	}
	args[n++] = (char *)view_babeltrace2();
	args[n++] = plugin.buf;
	for (i = 0; i < nr_dirs; i++)
		args[n++] = dirs[i];
	args[n++] = "-c";
	args[n++] = (char *)sink;
	args[n++] = "-p";
	args[n++] = params->buf;
	ret = view_run(args, to_stderr);
end:
	free(args);
	ustcomm_strbuf_free(&plugin);
	return ret;
}

int usttrace_view_summary(const char *trace_dir)
{
	struct ustcomm_strbuf params = USTCOMM_STRBUF_INIT;
	char *dirs[] = { (char *)trace_dir };
	int ret;

	view_param(&params, "trace-dir", trace_dir);
	fprintf(stderr, "usttrace: summary of %s\n", trace_dir);
	ret = view_sink(dirs, 1, "sink.ust.summary", &params, 1);
	ustcomm_strbuf_free(&params);
	return ret;
}

int usttrace_view_perfetto(char *const *dirs, size_t nr_dirs, const char *json_path)
{
	struct ustcomm_strbuf params = USTCOMM_STRBUF_INIT;
	int ret;

	view_param(&params, "path", json_path);
	ret = view_sink(dirs, nr_dirs, "sink.ust.perfetto", &params, 0);
	if (ret == 0)
		fprintf(stderr, "usttrace: timeline written to %s (open it in https://ui.perfetto.dev or the viewer in UST's doc/viewer)\n",
			json_path);
	ustcomm_strbuf_free(&params);
	return ret;
}
