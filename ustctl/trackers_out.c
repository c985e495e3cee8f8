/* SPDX-License-Identifier: GPL-2.0-only */
/* A session's process trackers as ustctl prints them (trackers_out.h). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "ustctl/output.h"
#include "ustctl/trackers_out.h"

static const char *const tracker_kinds[] = { "pid", "procname", "uid" };
#define NR_KINDS (sizeof(tracker_kinds) / sizeof(tracker_kinds[0]))

/* Whether the trackers restrict kind, and how many values they give it. */
static bool tracker_kind(const struct ustctl_session_tracker *t, size_t nr, const char *kind,
			 size_t *values)
{
	bool restricted = false;
	size_t i;

	*values = 0;
	for (i = 0; i < nr; i++) {
		if (strcmp(t[i].kind, kind))
			continue;
		restricted = true;
		*values += t[i].value[0] != '\0';
	}
	return restricted;
}

size_t ustctl_session_trackers_count(const struct ustctl_session_tracker *t, size_t nr)
{
	size_t k, n = 0, values;

	for (k = 0; k < NR_KINDS; k++)
		n += tracker_kind(t, nr, tracker_kinds[k], &values);
	return n;
}

/* Per kind: "all" without entries, else the values ("" says the kind
 * is restricted, and alone: none). */
void ustctl_session_trackers_out(const struct ustctl_session_tracker *t, size_t nr,
				 const char *indent)
{
	bool text = indent && !ustctl_out_mi(), restricted;
	size_t k, i, n;

	if (text)
		printf("%stracking:", indent);
	for (k = 0; k < NR_KINDS; k++) {
		restricted = tracker_kind(t, nr, tracker_kinds[k], &n);
		ustctl_mi_open("tracker");
		ustctl_mi_attr("kind", "%s", tracker_kinds[k]);
		ustctl_mi_attr("policy", "%s", !restricted ? "all" : n ? "set" : "none");
		if (text)
			printf(" %s%s", !restricted ? "every " : n ? "" : "no ", tracker_kinds[k]);
		for (i = n = 0; i < nr; i++) {
			if (strcmp(t[i].kind, tracker_kinds[k]) || !t[i].value[0])
				continue;
			ustctl_mi_element("value", "%s", t[i].value);
			if (text)
				printf("%s%s", n++ ? "," : " ", t[i].value);
		}
		ustctl_mi_close();
		if (text)
			printf("%s", k + 1 < NR_KINDS ? ";" : "\n");
	}
}
