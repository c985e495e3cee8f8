/* SPDX-License-Identifier: LGPL-2.1-only */
/* A session file's ustd session, tracefile limits, rotation and triggers
 * (session_file_extra.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "libustcomm/bufsize.h"
#include "libustcomm/ctl_protocol.h"
#include "libustcomm/duration.h"
#include "libustcomm/format.h"
#include "libustcomm/pattern.h"
#include "libustctl/session_file_extra.h"
#include "libustctl/session_file_track.h"
#include "libustctl/session_xml.h"

/* As ustd takes them (session_trigger.h, libust's trigger.h). */
#define TRIGGERS_MAX	8u
#define AT_MOST_MAX	600u

void ustctl_session_extra_free(struct ustctl_session_extra *x)
{
	size_t i;

	if (!x)
		return;
	for (i = 0; i < x->nr_tracefiles; i++)
		free(x->tracefiles[i].channel);
	for (i = 0; i < x->nr_triggers; i++) {
		free(x->triggers[i].pattern);
		free(x->triggers[i].filter);
		free(x->triggers[i].dir);
	}
	ustctl_extra_free_trackers(x);
	free(x->tracefiles);
	free(x->triggers);
	free((char *)x->rotation.on_rotate);
	free(x->name);
	free(x);
}

const struct ustctl_tracefile_conf *ustctl_session_extra_tracefile(
	const struct ustctl_session_extra *x, const char *channel)
{
	size_t i;

	for (i = 0; x && i < x->nr_tracefiles; i++) {
		if (!strcmp(x->tracefiles[i].channel, channel))
			return &x->tracefiles[i];
	}
	return NULL;
}

int ustctl_extra_add_tracefile(struct ustctl_session_extra *x, const char *channel,
			       uint64_t size, uint32_t count)
{
	struct ustctl_tracefile_conf *grown;

	grown = realloc(x->tracefiles, (x->nr_tracefiles + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	x->tracefiles = grown;
	grown = &x->tracefiles[x->nr_tracefiles];
	grown->channel = strdup(channel);
	grown->size = size;
	grown->count = count;
	if (!grown->channel)
		return -ENOMEM;
	x->nr_tracefiles++;
	return 0;
}

static char *dup_or_null(const char *s)
{
	return s && *s ? strdup(s) : NULL;
}

int ustctl_extra_add_trigger(struct ustctl_session_extra *x, const char *pattern,
			     const char *filter, const char *dir, unsigned at_most)
{
	struct ustctl_trigger_conf *grown, *t;

	grown = realloc(x->triggers, (x->nr_triggers + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	x->triggers = grown;
	t = &x->triggers[x->nr_triggers];
	t->pattern = strdup(pattern);
	t->filter = dup_or_null(filter);
	t->dir = dup_or_null(dir);
	t->at_most = at_most;
	if (!t->pattern || (filter && *filter && !t->filter) || (dir && *dir && !t->dir)) {
		free(t->pattern);
		free(t->filter);
		free(t->dir);
		return -ENOMEM;
	}
	x->nr_triggers++;
	return 0;
}

/* An optional attribute: 0 with *out NULL when absent, or -ENOMEM. */
static int opt_attr(xmlNodePtr node, const char *name, char **out)
{
	*out = NULL;
	if (!xmlHasProp(node, BAD_CAST name))
		return 0;
	*out = ustctl_xml_attr_dup(node, name);
	return *out ? 0 : -ENOMEM;
}

static int line_of(xmlNodePtr node)
{
	return (int)xmlGetLineNo(node);
}

int ustctl_extra_read_root(const char *file, xmlNodePtr root, struct ustctl_session_extra *x)
{
	char *overwrite = NULL, *buffers = NULL;
	int ret = opt_attr(root, "name", &x->name);

	if (!ret)
		ret = opt_attr(root, "overwrite", &overwrite);
	if (!ret)
		ret = opt_attr(root, "buffers", &buffers);
	if (ret)
		goto end;
	x->overwrite = overwrite && (!strcmp(overwrite, "true") || !strcmp(overwrite, "1"));
	/* The schema allows per-pid and per-uid only. */
	x->buffers = buffers && !strcmp(buffers, "per-uid") ? USTCTL_BUFFERS_PER_UID :
		     USTCTL_BUFFERS_PER_PID;
	if (x->name && !ustcomm_session_name_valid(x->name)) {
		ustctl_file_error(file, line_of(root),
				  "session name \"%s\": 1 to %u letters, digits, '_', '.' or '-', not starting with '.' or '-', and not 'auto'",
				  x->name, USTCOMM_SESSION_NAME_MAX - 1);
		ret = -EINVAL;
	}
end:
	free(overwrite);
	free(buffers);
	return ret;
}

int ustctl_extra_read_channel(const char *file, xmlNodePtr node, const char *channel,
			      struct ustctl_session_extra *x)
{
	char *size_text = NULL, *count_text = NULL;
	uint64_t size = 0;
	uint32_t count = 0;
	int ret = opt_attr(node, "tracefile-size", &size_text);

	if (!ret)
		ret = opt_attr(node, "tracefile-count", &count_text);
	if (ret || (!size_text && !count_text))
		goto end;
	ret = -EINVAL;
	if (!size_text) {
		ustctl_file_error(file, line_of(node),
				  "tracefile-count of channel %s needs a tracefile-size: it counts the files each stream is cut into",
				  channel);
		goto end;
	}
	if (ustcomm_parse_size(size_text, UST_TRACEFILE_SIZE_MIN, UST_TRACEFILE_SIZE_MAX,
			       &size) < 0) {
		ustctl_file_error(file, line_of(node),
				  "tracefile-size \"%s\" of channel %s: bytes from %llu (k, M and G suffixes allowed)",
				  size_text, channel, UST_TRACEFILE_SIZE_MIN);
		goto end;
	}
	if (count_text && (ustcomm_parse_u32(count_text, &count) < 0 ||
			   count > UST_TRACEFILE_COUNT_MAX)) {
		ustctl_file_error(file, line_of(node),
				  "tracefile-count \"%s\" of channel %s: a number of files up to %u (0: keep all)",
				  count_text, channel, UST_TRACEFILE_COUNT_MAX);
		goto end;
	}
	ret = ustctl_extra_add_tracefile(x, channel, size, count);
end:
	free(size_text);
	free(count_text);
	return ret;
}

/* A duration attribute within bounds; untouched when absent. */
static int read_duration(const char *file, xmlNodePtr node, const char *name, uint64_t min,
			 uint64_t max, const char *bounds, uint64_t *us)
{
	char *text;
	int ret = opt_attr(node, name, &text);

	if (!ret && text && ustcomm_parse_duration(text, min, max, us) < 0) {
		ustctl_file_error(file, line_of(node), "%s \"%s\": a duration from %s", name, text,
				  bounds);
		ret = -EINVAL;
	}
	free(text);
	return ret;
}

int ustctl_extra_read_rotation(const char *file, xmlNodePtr node, struct ustctl_session_extra *x)
{
	struct ustctl_rotation *r = &x->rotation;
	char *size = NULL, *cmd = NULL;
	int ret;

	ret = read_duration(file, node, "every", USTCOMM_ROTATE_EVERY_MIN_US,
			    USTCOMM_ROTATE_EVERY_MAX_US, "100ms to 31 days", &r->every_us);
	if (!ret)
		ret = read_duration(file, node, "on-rotate-timeout", USTCOMM_ON_ROTATE_TIMEOUT_MIN_US,
				    USTCOMM_ON_ROTATE_TIMEOUT_MAX_US, "100ms to 24h",
				    &r->on_rotate_timeout_us);
	if (!ret)
		ret = opt_attr(node, "size", &size);
	if (!ret)
		ret = opt_attr(node, "on-rotate", &cmd);
	if (ret)
		goto end;
	r->on_rotate = cmd;
	cmd = NULL;
	if (size && ustcomm_parse_size(size, USTCOMM_ROTATE_SIZE_MIN, UST_TRACEFILE_SIZE_MAX,
				       &r->size) < 0) {
		ustctl_file_error(file, line_of(node),
				  "rotation size \"%s\": bytes from %llu (k, M and G suffixes allowed)",
				  size, USTCOMM_ROTATE_SIZE_MIN);
		ret = -EINVAL;
	} else if (x->overwrite && (r->every_us || r->size)) {
		ustctl_file_error(file, line_of(node),
				  "a flight-recorder session (overwrite=\"true\") is written by snapshots, not rotated");
		ret = -EINVAL;
	}
end:
	free(size);
	free(cmd);
	return ret;
}

int ustctl_extra_read_trigger(const char *file, xmlNodePtr node, struct ustctl_session_extra *x)
{
	char *on = NULL, *filter = NULL, *dir = NULL, *at_most = NULL;
	uint32_t n = 0;
	int ret = opt_attr(node, "on", &on);

	if (!ret)
		ret = opt_attr(node, "filter", &filter);
	if (!ret)
		ret = opt_attr(node, "dir", &dir);
	if (!ret)
		ret = opt_attr(node, "at-most", &at_most);
	if (ret)
		goto end;
	ret = -EINVAL;
	if (!x->overwrite) {
		ustctl_file_error(file, line_of(node),
				  "trigger on %s: a trigger takes snapshots, which need a flight-recorder session (overwrite=\"true\")",
				  on);
	} else if (!ustcomm_pattern_valid(on)) {
		ustctl_file_error(file, line_of(node), "trigger on \"%s\": %s", on,
				  USTCOMM_PATTERN_RULE);
	} else if (filter && ustctl_filter_check(filter)) {
		ustctl_file_error(file, line_of(node), "trigger on %s: %s", on, ustctl_last_error());
	} else {
		if (at_most)
			ustcomm_parse_u32(at_most, &n);
		ret = ustctl_extra_add_trigger(x, on, filter, dir, n);
	}
end:
	free(on);
	free(filter);
	free(dir);
	free(at_most);
	return ret;
}

int ustctl_extra_any(const struct ustctl_session_extra *x)
{
	return x && (x->name || x->overwrite || x->nr_tracefiles || x->rotation.every_us ||
		     x->rotation.size || x->rotation.on_rotate || x->nr_triggers ||
		     x->nr_trackers || x->buffers);
}

int ustctl_extra_check_write(const char *file, const struct ustctl_session_extra *x)
{
	const struct ustctl_rotation *r = &x->rotation;
	size_t i;

	if (x->name && !ustcomm_session_name_valid(x->name)) {
		ustctl_set_error("cannot write %s: invalid session name '%s'", file, x->name);
		return -EINVAL;
	}
	if (x->buffers != USTCTL_BUFFERS_PER_PID && x->buffers != USTCTL_BUFFERS_PER_UID) {
		ustctl_set_error("cannot write %s: unknown buffer type %d", file, x->buffers);
		return -EINVAL;
	}
	for (i = 0; i < x->nr_tracefiles; i++) {
		const struct ustctl_tracefile_conf *t = &x->tracefiles[i];

		if (!t->channel || !*t->channel || t->size < UST_TRACEFILE_SIZE_MIN ||
		    t->size > UST_TRACEFILE_SIZE_MAX || t->count > UST_TRACEFILE_COUNT_MAX) {
			ustctl_set_error("cannot write %s: tracefile limits %zu: a channel, a size from %llu bytes, a count up to %u",
					 file, i + 1, UST_TRACEFILE_SIZE_MIN, UST_TRACEFILE_COUNT_MAX);
			return -EINVAL;
		}
	}
	if ((r->every_us && (r->every_us < USTCOMM_ROTATE_EVERY_MIN_US ||
			     r->every_us > USTCOMM_ROTATE_EVERY_MAX_US)) ||
	    (r->size && (r->size < USTCOMM_ROTATE_SIZE_MIN || r->size > UST_TRACEFILE_SIZE_MAX)) ||
	    (r->on_rotate && (!*r->on_rotate || strlen(r->on_rotate) >= USTCOMM_ON_ROTATE_MAX)) ||
	    (r->on_rotate_timeout_us && (r->on_rotate_timeout_us < USTCOMM_ON_ROTATE_TIMEOUT_MIN_US ||
					 r->on_rotate_timeout_us > USTCOMM_ON_ROTATE_TIMEOUT_MAX_US)) ||
	    (x->overwrite && (r->every_us || r->size))) {
		ustctl_set_error("cannot write %s: the rotation schedule is out of bounds, or on a flight recorder",
				 file);
		return -EINVAL;
	}
	if (x->nr_triggers > TRIGGERS_MAX || (x->nr_triggers && !x->overwrite)) {
		ustctl_set_error("cannot write %s: at most %u triggers, on a flight recorder only", file,
				 TRIGGERS_MAX);
		return -EINVAL;
	}
	for (i = 0; i < x->nr_triggers; i++) {
		const struct ustctl_trigger_conf *t = &x->triggers[i];

		if (!t->pattern || !ustcomm_pattern_valid(t->pattern) || t->at_most > AT_MOST_MAX ||
		    (t->dir && *t->dir && t->dir[0] != '/')) {
			ustctl_set_error("cannot write %s: trigger %zu: a pattern, an absolute directory, at most %u snapshots a minute",
					 file, i + 1, AT_MOST_MAX);
			return -EINVAL;
		}
	}
	return 0;
}

static int write_attr(xmlTextWriterPtr w, const char *name, const char *value)
{
	return xmlTextWriterWriteAttribute(w, BAD_CAST name, BAD_CAST value);
}

int ustctl_extra_write_root(xmlTextWriterPtr w, const struct ustctl_session_extra *x)
{
	int rc = 0;

	if (x && x->name)
		rc = write_attr(w, "name", x->name);
	if (rc >= 0 && x && (x->name || x->overwrite))
		rc = write_attr(w, "overwrite", x->overwrite ? "true" : "false");
	/* Per process is left unsaid: the schema's comment says why. */
	if (rc >= 0 && x && x->buffers == USTCTL_BUFFERS_PER_UID)
		rc = write_attr(w, "buffers", "per-uid");
	return rc;
}

int ustctl_extra_write_channel(xmlTextWriterPtr w, const struct ustctl_session_extra *x,
			       const char *channel)
{
	const struct ustctl_tracefile_conf *t = ustctl_session_extra_tracefile(x, channel);
	char value[32];
	int rc;

	if (!t)
		return 0;
	ustcomm_format_size(value, sizeof(value), t->size);
	rc = write_attr(w, "tracefile-size", value);
	if (rc >= 0 && t->count) {
		snprintf(value, sizeof(value), "%" PRIu32, t->count);
		rc = write_attr(w, "tracefile-count", value);
	}
	return rc;
}

int ustctl_extra_write_tail(xmlTextWriterPtr w, const struct ustctl_session_extra *x)
{
	const struct ustctl_rotation *r = x ? &x->rotation : NULL;
	char value[32];
	size_t i;
	int rc = 0;

	if (r && (r->every_us || r->size || r->on_rotate)) {
		rc = xmlTextWriterStartElement(w, BAD_CAST "rotation");
		if (rc >= 0 && r->every_us) {
			ustcomm_format_duration(value, sizeof(value), r->every_us);
			rc = write_attr(w, "every", value);
		}
		if (rc >= 0 && r->size) {
			ustcomm_format_size(value, sizeof(value), r->size);
			rc = write_attr(w, "size", value);
		}
		if (rc >= 0 && r->on_rotate)
			rc = write_attr(w, "on-rotate", r->on_rotate);
		if (rc >= 0 && r->on_rotate && r->on_rotate_timeout_us) {
			ustcomm_format_duration(value, sizeof(value), r->on_rotate_timeout_us);
			rc = write_attr(w, "on-rotate-timeout", value);
		}
		if (rc >= 0)
			rc = xmlTextWriterEndElement(w);
	}
	for (i = 0; rc >= 0 && x && i < x->nr_triggers; i++) {
		const struct ustctl_trigger_conf *t = &x->triggers[i];

		rc = xmlTextWriterStartElement(w, BAD_CAST "trigger");
		if (rc >= 0)
			rc = write_attr(w, "on", t->pattern);
		if (rc >= 0 && t->filter && *t->filter)
			rc = write_attr(w, "filter", t->filter);
		if (rc >= 0 && t->dir && *t->dir)
			rc = write_attr(w, "dir", t->dir);
		if (rc >= 0 && t->at_most) {
			snprintf(value, sizeof(value), "%u", t->at_most);
			rc = write_attr(w, "at-most", value);
		}
		if (rc >= 0)
			rc = xmlTextWriterEndElement(w);
	}
	return rc;
}

static const char *const resume_states[] = { "created", "active", "stopped" };

int ustctl_resume_write_element(xmlTextWriterPtr w, const struct ustctl_session_resume *r)
{
	char value[24];
	int rc = xmlTextWriterStartElement(w, BAD_CAST "resume");

	if (rc >= 0)
		rc = write_attr(w, "state", resume_states[r->state]);
	if (rc >= 0)
		rc = write_attr(w, "directory", r->dir);
	if (rc >= 0 && r->chunks) {
		snprintf(value, sizeof(value), "%u", r->chunks);
		rc = write_attr(w, "chunks", value);
	}
	if (rc >= 0 && r->chunk_begin > 0) {
		snprintf(value, sizeof(value), "%lld", r->chunk_begin);
		rc = write_attr(w, "chunk-begin", value);
	}
	if (rc >= 0)
		rc = xmlTextWriterEndElement(w);
	return rc;
}

int ustctl_resume_state_parse(const char *text)
{
	int i;

	for (i = 0; i < (int)(sizeof(resume_states) / sizeof(resume_states[0])); i++) {
		if (!strcmp(text, resume_states[i]))
			return i;
	}
	return -EINVAL;
}
