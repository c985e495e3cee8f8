/* SPDX-License-Identifier: GPL-2.0-only */
/* Commands that describe: list-pids, list-markers, info. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ust/ustctl.h>
#include "ustctl/command.h"
#include "ustctl/output.h"

int ustctl_cmd_list_pids(const struct ustctl_args *args)
{
	pid_t *pids = NULL;
	size_t nr = 0, i;

	if (ustctl_list_pids(&pids, &nr) < 0) {
		ustctl_fail(0, "cannot list the processes: %s", ustctl_last_error());
		return USTCTL_EXIT_FAILED;
	}
	ustctl_mi_open("pids");
	for (i = 0; i < nr; i++) {
		ustctl_mi_element("pid", "%d", (int)pids[i]);
		if (!ustctl_out_mi())
			printf("%d\n", (int)pids[i]);
	}
	ustctl_mi_close();
	free(pids);
	return USTCTL_EXIT_OK;
}

/* The format quoted, or the fields in parentheses: they differ at a glance. */
static void list_describe(const struct ustctl_marker *m, char *buf, size_t len)
{
	snprintf(buf, len, m->is_format ? "\"%s\"" : "(%s)", m->format);
}

static void list_markers_text(const struct ustctl_marker *markers, size_t nr)
{
	int name_w = (int)strlen("NAME"), format_w = (int)strlen("FORMAT/FIELDS"), n;
	char desc[4096];
	size_t i;

	for (i = 0; i < nr; i++) {
		n = (int)strlen(markers[i].name);
		if (n > name_w)
			name_w = n;
		list_describe(&markers[i], desc, sizeof(desc));
		n = (int)strlen(desc);
		if (n > format_w)
			format_w = n;
	}
	printf("%-*s  %-8s  %-14s  %-*s  %s\n", name_w, "NAME", "STATE", "LEVEL", format_w,
	       "FORMAT/FIELDS", "OBJECTS");
	for (i = 0; i < nr; i++) {
		list_describe(&markers[i], desc, sizeof(desc));
		printf("%-*s  %-8s  %-14s  %-*s  %s\n", name_w, markers[i].name,
		       markers[i].enabled ? "enabled" : "disabled",
		       ustctl_loglevel_name(markers[i].loglevel), format_w, desc,
		       markers[i].objects);
	}
}

/* libustctl gives the objects ", "-separated: one element each. */
static void list_objects_mi(const char *objects)
{
	const char *p = objects, *sep;

	ustctl_mi_open("objects");
	while (*p) {
		sep = strstr(p, ", ");
		if (!sep) {
			ustctl_mi_element("object", "%s", p);
			break;
		}
		ustctl_mi_element("object", "%.*s", (int)(sep - p), p);
		p = sep + 2;
	}
	ustctl_mi_close();
}

static void list_markers_mi(const struct ustctl_marker *markers, size_t nr)
{
	size_t i;

	ustctl_mi_open("markers");
	for (i = 0; i < nr; i++) {
		ustctl_mi_open("marker");
		ustctl_mi_element("name", "%s", markers[i].name);
		ustctl_mi_element("state", "%s", markers[i].enabled ? "enabled" : "disabled");
		ustctl_mi_open("format");
		ustctl_mi_attr("kind", "%s", markers[i].is_format ? "format" : "fields");
		ustctl_mi_text("%s", markers[i].format);
		ustctl_mi_close();
		list_objects_mi(markers[i].objects);
		ustctl_mi_open("loglevel");
		ustctl_mi_attr("value", "%d", markers[i].loglevel);
		ustctl_mi_text("%s", ustctl_loglevel_name(markers[i].loglevel));
		ustctl_mi_close();
		ustctl_mi_close();
	}
	ustctl_mi_close();
}

int ustctl_cmd_list_markers(const struct ustctl_args *args)
{
	struct ustctl_marker *markers = NULL;
	size_t nr = 0;
	pid_t pid;

	if (ustctl_parse_pid(args->cmd, args->argv[0], &pid) < 0)
		return USTCTL_EXIT_USAGE;
	if (ustctl_list_markers(pid, &markers, &nr) < 0) {
		ustctl_mi_open_process(pid, NULL, false);
		ustctl_fail_last(pid, args->cmd->name);
		ustctl_mi_close();
		return ustctl_call_status(args->cmd);
	}
	ustctl_mi_open_process(pid, NULL, true);
	if (ustctl_out_mi())
		list_markers_mi(markers, nr);
	else
		list_markers_text(markers, nr);
	ustctl_mi_close();
	ustctl_free_markers(markers, nr);
	return USTCTL_EXIT_OK;
}

int ustctl_cmd_info(const struct ustctl_args *args)
{
	struct ustctl_info info;
	char control[256];
	pid_t pid;

	if (ustctl_parse_pid(args->cmd, args->argv[0], &pid) < 0)
		return USTCTL_EXIT_USAGE;
	if (ustctl_get_info_control(pid, &info, control, sizeof(control)) < 0) {
		ustctl_mi_open_process(pid, NULL, false);
		ustctl_fail_last(pid, args->cmd->name);
		ustctl_mi_close();
		return ustctl_call_status(args->cmd);
	}
	ustctl_mi_open_process(pid, NULL, true);
	ustctl_mi_open("info");
	ustctl_mi_element("procname", "%s", info.procname);
	ustctl_mi_element("version", "%s", info.version);
	if (info.trace[0])
		ustctl_mi_element("trace", "%s", info.trace);
	ustctl_mi_element("state", "%s", info.state);
	if (control[0])
		ustctl_mi_element("control", "%s", control);
	ustctl_mi_close();
	ustctl_mi_close();
	if (!ustctl_out_mi())
		printf("pid:      %d\nprocname: %s\nlibust:   %s\ntrace:    %s\nstate:    %s\ncontrol:  %s\n",
		       (int)info.pid, info.procname, info.version,
		       info.trace[0] ? info.trace : "(none)", info.state,
		       control[0] ? control : "(not said by this libust)");
	return USTCTL_EXIT_OK;
}
