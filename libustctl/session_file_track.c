/* SPDX-License-Identifier: LGPL-2.1-only */
/* A session file's process trackers (session_file_track.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "libustcomm/tracker.h"
#include "libustctl/session_file_track.h"
#include "libustctl/session_xml.h"

/* The kinds in the order their requests go (tracker.h numbers them). */
#define NR_KINDS	3

void ustctl_extra_free_trackers(struct ustctl_session_extra *x)
{
	size_t i;

	for (i = 0; i < x->nr_trackers; i++) {
		free(x->trackers[i].kind);
		free(x->trackers[i].value);
	}
	free(x->trackers);
	x->trackers = NULL;
	x->nr_trackers = 0;
}

static int has(const struct ustctl_session_extra *x, const char *kind, const char *value)
{
	size_t i;

	for (i = 0; i < x->nr_trackers; i++) {
		if (!strcmp(x->trackers[i].kind, kind) && !strcmp(x->trackers[i].value, value))
			return 1;
	}
	return 0;
}

int ustctl_extra_add_tracker(struct ustctl_session_extra *x, const char *kind, const char *value)
{
	struct ustctl_session_tracker *grown, *t;

	if (has(x, kind, value))
		return 0;
	grown = realloc(x->trackers, (x->nr_trackers + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	x->trackers = grown;
	t = &grown[x->nr_trackers];
	t->kind = strdup(kind);
	t->value = strdup(value);
	if (!t->kind || !t->value) {
		free(t->kind);
		free(t->value);
		return -ENOMEM;
	}
	x->nr_trackers++;
	return 0;
}

/* Why value is not one of kind, as ustctl track says it. */
static const char *value_rule(int kind)
{
	return kind == 1 ? "a process name has no '/'" : "a decimal number (a pid is not 0)";
}

int ustctl_extra_read_track(const char *file, xmlNodePtr node, struct ustctl_session_extra *x)
{
	char *kind = ustctl_xml_attr_dup(node, "kind"), *value = NULL;
	char one[USTCOMM_TRACK_PROCNAME_MAX];
	int k, ret = -ENOMEM;

	if (!kind)
		goto end;
	k = ustcomm_track_kind(kind);
	/* No value: the kind tracks a set of values, none so far. */
	if (xmlHasProp(node, BAD_CAST "value")) {
		value = ustctl_xml_attr_dup(node, "value");
		if (!value)
			goto end;
		if (ustcomm_track_value(k, value, one, sizeof(one)) < 0) {
			ustctl_file_error(file, (int)xmlGetLineNo(node), "track %s \"%s\": %s", kind,
					  value, value_rule(k));
			ret = -EINVAL;
			goto end;
		}
	}
	ret = ustctl_extra_add_tracker(x, kind, "");
	if (!ret && value)
		ret = ustctl_extra_add_tracker(x, kind, one);
end:
	if (ret == -ENOMEM)
		ustctl_set_error("out of memory");
	free(kind);
	free(value);
	return ret;
}

int ustctl_extra_check_trackers(const char *file, const struct ustctl_session_extra *x)
{
	char one[USTCOMM_TRACK_PROCNAME_MAX];
	size_t i;
	int k;

	for (i = 0; i < x->nr_trackers; i++) {
		const struct ustctl_session_tracker *t = &x->trackers[i];

		k = t->kind ? ustcomm_track_kind(t->kind) : -1;
		if (k < 0 || !t->value ||
		    (*t->value && ustcomm_track_value(k, t->value, one, sizeof(one)) < 0)) {
			ustctl_set_error("cannot write %s: tracker %zu: a kind (pid, procname or uid) and a value of it",
					 file, i + 1);
			return -EINVAL;
		}
	}
	return 0;
}

/* The values of kind that are not "", into values (as many as there are
 * trackers); whether kind is present at all. */
static int values_of(const struct ustctl_session_extra *x, const char *kind, const char **values,
		     size_t *nr)
{
	int present = 0;
	size_t i;

	*nr = 0;
	for (i = 0; x && i < x->nr_trackers; i++) {
		if (strcmp(x->trackers[i].kind, kind))
			continue;
		present = 1;
		if (*x->trackers[i].value)
			values[(*nr)++] = x->trackers[i].value;
	}
	return present;
}

int ustctl_extra_write_trackers(xmlTextWriterPtr w, const struct ustctl_session_extra *x)
{
	const char **values;
	const char *kind;
	size_t i, nr;
	int k, rc = 0;

	if (!x || !x->nr_trackers)
		return 0;
	values = calloc(x->nr_trackers, sizeof(*values));
	if (!values)
		return -1;
	for (k = 0; rc >= 0 && k < NR_KINDS; k++) {
		kind = ustcomm_track_kind_name(k);
		if (!values_of(x, kind, values, &nr))
			continue;
		/* A kind that tracks none is one element without a value. */
		for (i = 0; rc >= 0 && i < (nr ? nr : 1); i++) {
			rc = xmlTextWriterStartElement(w, BAD_CAST "track");
			if (rc >= 0)
				rc = xmlTextWriterWriteAttribute(w, BAD_CAST "kind", BAD_CAST kind);
			if (rc >= 0 && nr)
				rc = xmlTextWriterWriteAttribute(w, BAD_CAST "value",
								 BAD_CAST values[i]);
			if (rc >= 0)
				rc = xmlTextWriterEndElement(w);
		}
	}
	free(values);
	return rc;
}

int ustctl_session_extra_track_each(const struct ustctl_session_extra *x,
				    int (*fn)(void *arg, int track, const char *kind,
					      const char *const *values, size_t nr),
				    void *arg)
{
	static const char *const every[1] = { "*" };
	const char **values;
	const char *kind;
	size_t nr;
	int k, ret = 0;

	if (!x || !x->nr_trackers)
		return 0;
	values = calloc(x->nr_trackers, sizeof(*values));
	if (!values)
		return -ENOMEM;
	for (k = 0; !ret && k < NR_KINDS; k++) {
		kind = ustcomm_track_kind_name(k);
		if (!values_of(x, kind, values, &nr))
			continue;
		ret = nr ? fn(arg, 1, kind, values, nr) : fn(arg, 0, kind, every, 1);
		ret = ret < 0 ? ret : 0;
	}
	free(values);
	return ret;
}
