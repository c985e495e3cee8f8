/* SPDX-License-Identifier: LGPL-2.1-only */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bt2plugin/sink.h"

bt_component_class_initialize_method_status
ust_sink_init(struct ust_sink *sink, bt_self_component_sink *self,
	      ust_sink_msg_fn on_msg, void *data)
{
	sink->self = bt_self_component_sink_as_self_component(self);
	sink->on_msg = on_msg;
	sink->data = data;
	sink->iter = NULL;
	if (bt_self_component_sink_add_input_port(self, "in", NULL, NULL) !=
	    BT_SELF_COMPONENT_ADD_PORT_STATUS_OK)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

bt_component_class_sink_graph_is_configured_method_status
ust_sink_graph_is_configured(struct ust_sink *sink, bt_self_component_sink *self)
{
	bt_self_component_port_input *port =
		bt_self_component_sink_borrow_input_port_by_index(self, 0);

	if (!bt_port_is_connected(bt_self_component_port_as_port(
			bt_self_component_port_input_as_self_component_port(port)))) {
		ust_sink_error(sink, "the input port is not connected");
		return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR;
	}
	if (bt_message_iterator_create_from_sink_component(self, port, &sink->iter) !=
	    BT_MESSAGE_ITERATOR_CREATE_FROM_SINK_COMPONENT_STATUS_OK)
		return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR;
	return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_OK;
}

bt_component_class_sink_consume_method_status ust_sink_consume(struct ust_sink *sink)
{
	bt_component_class_sink_consume_method_status status;
	bt_message_array_const msgs;
	uint64_t count, i;
	int ret = 0;

	switch (bt_message_iterator_next(sink->iter, &msgs, &count)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_MEMORY_ERROR;
	default:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
	for (i = 0; i < count; i++) {
		if (ret == 0)
			ret = sink->on_msg(sink->data, msgs[i]);
		bt_message_put_ref(msgs[i]);
	}
	status = BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK;
	if (ret < 0) {
		ust_sink_error(sink, "%s", strerror(-ret));
		status = ret == -ENOMEM ? BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_MEMORY_ERROR :
					  BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
	return status;
}

void ust_sink_fini(struct ust_sink *sink)
{
	bt_message_iterator_put_ref(sink->iter);
	sink->iter = NULL;
}

struct param_check {
	const char *const *allowed;
	const char *bad_key;
	const char *why;
};

static bt_value_map_foreach_entry_const_func_status
param_check_one(const char *key, const bt_value *value, void *data)
{
	struct param_check *pc = data;
	size_t i;

	for (i = 0; pc->allowed[i]; i++)
		if (!strcmp(key, pc->allowed[i]))
			break;
	if (!pc->allowed[i])
		pc->why = "unknown parameter";
	else if (!bt_value_is_string(value))
		pc->why = "must be a string";
	else
		return BT_VALUE_MAP_FOREACH_ENTRY_CONST_FUNC_STATUS_OK;
	pc->bad_key = key;
	return BT_VALUE_MAP_FOREACH_ENTRY_CONST_FUNC_STATUS_INTERRUPT;
}

int ust_sink_check_params(struct ust_sink *sink, const bt_value *params,
			  const char *const *allowed)
{
	struct param_check pc = { .allowed = allowed };

	if (!bt_value_is_map(params)) {
		ust_sink_error(sink, "parameters must be a map");
		return -EINVAL;
	}
	bt_value_map_foreach_entry_const(params, param_check_one, &pc);
	if (pc.bad_key) {
		ust_sink_error(sink, "parameter `%s`: %s", pc.bad_key, pc.why);
		return -EINVAL;
	}
	return 0;
}

const char *ust_sink_param(const bt_value *params, const char *key)
{
	const bt_value *v = bt_value_map_borrow_entry_value_const(params, key);

	return v ? bt_value_string_get(v) : NULL;
}

/* Large enough that a write() carries many events, small enough to stay
 * constant whatever the trace length. */
#define UST_OUT_BUFFER (1 << 20)

int ust_out_open(struct ust_out *out, const char *path)
{
	static unsigned serial;
	unsigned attempt;
	int fd = -1, ret;

	memset(out, 0, sizeof(*out));
	if (!strcmp(path, "-")) {
		out->f = stdout;
		return 0;
	}
	out->path = strdup(path);
	if (!out->path) {
		ret = -ENOMEM;
		goto end;
	}
	/* Our own name rather than mkstemp(): the file gets the mode the
	 * user's umask gives a new file, as the final one would. */
	for (attempt = 0; fd < 0 && attempt < 100; attempt++) {
		free(out->tmp);
		if (asprintf(&out->tmp, "%s.partial-%d-%u", path, (int)getpid(),
			     __atomic_fetch_add(&serial, 1, __ATOMIC_RELAXED)) < 0) {
			out->tmp = NULL;
			ret = -ENOMEM;
			goto end;
		}
		fd = open(out->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST) {
			ret = -errno;
			free(out->tmp);
			out->tmp = NULL;
			goto end;
		}
	}
	if (fd < 0) {
		ret = -EEXIST;
		goto end;
	}
	out->f = fdopen(fd, "w");
	if (!out->f) {
		ret = -errno;
		close(fd);
		goto end;
	}
	setvbuf(out->f, NULL, _IOFBF, UST_OUT_BUFFER);
	ret = 0;
end:
	if (ret < 0)
		ust_out_abort(out);
	return ret;
}

int ust_out_commit(struct ust_out *out)
{
	int ret = 0;

	if (out->f == stdout) {
		out->f = NULL;
		return fflush(stdout) ? -errno : 0;
	}
	if (!out->f)
		return -EBADF;
	if (ferror(out->f))
		ret = -EIO;
	if (fclose(out->f) && ret == 0)
		ret = -errno;
	out->f = NULL;
	if (ret == 0 && rename(out->tmp, out->path) < 0)
		ret = -errno;
	if (ret < 0) {
		ust_out_abort(out);
		return ret;
	}
	free(out->tmp);
	free(out->path);
	out->tmp = out->path = NULL;
	return 0;
}

void ust_out_abort(struct ust_out *out)
{
	if (out->f && out->f != stdout)
		fclose(out->f);
	out->f = NULL;
	if (out->tmp)
		unlink(out->tmp);
	free(out->tmp);
	free(out->path);
	out->tmp = out->path = NULL;
}
