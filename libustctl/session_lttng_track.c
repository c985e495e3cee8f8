/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * LTTng's process attribute trackers (session_lttng_track.h). lttng save
 * writes a tracker only when it does not take every process: its
 * <process_attr_values> list the values taken, and an empty list takes
 * none. In the user-space domain LTTng tracks the virtual ids (vpid,
 * vuid, vgid); ustd sees processes in its own pid namespace, where they
 * are the same.
 */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxml/tree.h>
#include "libustcomm/tracker.h"
#include "libustctl/session_file_track.h"
#include "libustctl/session_lttng_track.h"
#include "libustctl/session_xml.h"

/* LTTng's tracker, its value elements, and UST's kind (NULL: none). */
static const char *const trackers[][3] = {
	{ "vpid_process_attr_tracker", "vpid", "pid" },
	{ "pid_process_attr_tracker", "pid", "pid" },
	{ "vuid_process_attr_tracker", "vuid", "uid" },
	{ "uid_process_attr_tracker", "uid", "uid" },
	{ "vgid_process_attr_tracker", "vgid", NULL },
	{ "gid_process_attr_tracker", "gid", NULL },
};
#define NR_TRACKERS	(sizeof(trackers) / sizeof(trackers[0]))

static size_t count_values(xmlNodePtr values)
{
	xmlNodePtr v;
	size_t n = 0;

	for (v = values ? values->children : NULL; v; v = v->next)
		n += v->type == XML_ELEMENT_NODE;
	return n;
}

/* One value, <id>N</id> or (uids) <name>USER</name>, as UST spells it
 * into out; "" when UST cannot take it, with the reason in why. */
static int value_of(xmlNodePtr v, int kind, char *out, size_t size, char *why, size_t why_size)
{
	xmlNodePtr id = ustctl_xml_child(v, "id"), name = ustctl_xml_child(v, "name");
	struct passwd pw, *found = NULL;
	char buf[4096], uid[16];
	xmlChar *text;

	out[0] = '\0';
	snprintf(why, why_size, "%s with neither id nor name", (const char *)v->name);
	if (!id && !name)
		return 0;
	text = xmlNodeGetContent(id ? id : name);
	if (!text)
		return -ENOMEM;
	if (id && ustcomm_track_value(kind, (const char *)text, out, size) < 0) {
		snprintf(why, why_size, "%s %s: UST tracks a pid from 1 and a uid from 0",
			 (const char *)v->name, (const char *)text);
		out[0] = '\0';
	} else if (!id) {
		/* LTTng resolves a user name when it loads the file; so does this. */
		getpwnam_r((const char *)text, &pw, buf, sizeof(buf), &found);
		snprintf(why, why_size, "%s %s: no such user here", (const char *)v->name,
			 (const char *)text);
		snprintf(uid, sizeof(uid), "%u", found ? (unsigned)found->pw_uid : 0u);
		if (found)
			ustcomm_track_value(kind, uid, out, size);
	}
	xmlFree(text);
	return 0;
}

/* The values of one tracker UST honours, into kind. */
static int convert_values(const char *file, xmlNodePtr tracker, const char *kind,
			  struct ustctl_session_extra *x)
{
	xmlNodePtr v, values = ustctl_xml_child(tracker, "process_attr_values");
	char out[USTCOMM_TRACK_PROCNAME_MAX], why[256];
	int k = ustcomm_track_kind(kind), ret;

	/* The kind tracks a set from here on, even an empty one. */
	ret = ustctl_extra_add_tracker(x, kind, "");
	for (v = values ? values->children : NULL; !ret && v; v = v->next) {
		if (v->type != XML_ELEMENT_NODE)
			continue;
		ret = value_of(v, k, out, sizeof(out), why, sizeof(why));
		if (!ret && out[0])
			ret = ustctl_extra_add_tracker(x, kind, out);
		else if (!ret)
			ustctl_xml_not_honoured(file, v, "the %s tracker's %s; the processes it names are not traced",
				     (const char *)v->name, why);
	}
	return ret;
}

int ustctl_lttng_convert_trackers(const char *file, xmlNodePtr list,
				  struct ustctl_session_extra *x)
{
	int done_pid = 0, done_uid = 0, *done, ret = 0;
	xmlNodePtr node;
	size_t i;

	for (node = list ? list->children : NULL; !ret && node; node = node->next) {
		if (node->type != XML_ELEMENT_NODE)
			continue;
		for (i = 0; i < NR_TRACKERS && !ustctl_xml_is_element(node, trackers[i][0]); i++)
			;
		if (i == NR_TRACKERS || !trackers[i][2]) {
			ustctl_xml_not_honoured(file, node, "the %s tracker (%zu value(s)): UST tracks processes by pid, procname and uid; the session takes processes of every %s",
				     i < NR_TRACKERS ? trackers[i][1] : (const char *)node->name,
				     count_values(ustctl_xml_child(node, "process_attr_values")),
				     i < NR_TRACKERS ? "group" : "kind");
			continue;
		}
		done = !strcmp(trackers[i][2], "pid") ? &done_pid : &done_uid;
		if (*done) {
			/* LTTng wants both to pass; UST has one list per kind. */
			ustctl_xml_not_honoured(file, node, "the %s tracker beside the one before of the same kind: UST keeps the first",
				     trackers[i][1]);
			continue;
		}
		*done = 1;
		ret = convert_values(file, node, trackers[i][2], x);
	}
	if (ret == -ENOMEM)
		ustctl_set_error("out of memory");
	return ret;
}
