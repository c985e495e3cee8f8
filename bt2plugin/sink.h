/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * What both of our babeltrace2 sinks share: one input port, one upstream
 * message iterator, parameter checks, and an output file that only appears
 * under its name once everything was written to it.
 */
#ifndef UST_BT2_SINK_H
#define UST_BT2_SINK_H

#include <stdbool.h>
#include <stdio.h>
#include <babeltrace2/babeltrace.h>

/* Per-message callback: returns 0, or a negative errno that stops the graph. */
typedef int (*ust_sink_msg_fn)(void *data, const bt_message *msg);

struct ust_sink {
	bt_self_component *self;
	bt_message_iterator *iter;
	ust_sink_msg_fn on_msg;
	void *data;
};

/* Records self, adds the "in" port. */
bt_component_class_initialize_method_status
ust_sink_init(struct ust_sink *sink, bt_self_component_sink *self,
	      ust_sink_msg_fn on_msg, void *data);

bt_component_class_sink_graph_is_configured_method_status
ust_sink_graph_is_configured(struct ust_sink *sink, bt_self_component_sink *self);

/*
 * Pulls one batch of messages and hands each to on_msg. Returns OK, END
 * when upstream is done, AGAIN, or ERROR (with a cause appended).
 */
bt_component_class_sink_consume_method_status ust_sink_consume(struct ust_sink *sink);

void ust_sink_fini(struct ust_sink *sink);

/*
 * Checks params: a map whose keys are all in allowed (NULL-terminated), whose
 * values are strings. Appends an error cause naming the bad key otherwise.
 */
int ust_sink_check_params(struct ust_sink *sink, const bt_value *params,
			  const char *const *allowed);
/* The string parameter key, or NULL when absent. */
const char *ust_sink_param(const bt_value *params, const char *key);

/* Appends an error cause for this component: printf-like. */
#define ust_sink_error(sink, ...) \
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT((sink)->self, __VA_ARGS__)

/*
 * Output that becomes visible at path only when complete: written to a
 * temporary file beside it and renamed by ust_out_commit(). "-" is stdout.
 */
struct ust_out {
	FILE *f;
	char *path;
	char *tmp;
};

int ust_out_open(struct ust_out *out, const char *path);
/* Flushes and renames; returns 0 or -errno (the temporary is removed). */
int ust_out_commit(struct ust_out *out);
/* Removes the temporary file, if any: nothing partial is left. */
void ust_out_abort(struct ust_out *out);

#endif
