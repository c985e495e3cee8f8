/* SPDX-License-Identifier: LGPL-2.1-only */
/* sink.ust.perfetto: the trace as Trace Event JSON (Perfetto UI, chrome://tracing). */
#ifndef UST_BT2_PERFETTO_SINK_H
#define UST_BT2_PERFETTO_SINK_H

#include <babeltrace2/babeltrace.h>

bt_component_class_initialize_method_status
ust_perfetto_init(bt_self_component_sink *self, bt_self_component_sink_configuration *config,
		  const bt_value *params, void *init_data);
bt_component_class_sink_graph_is_configured_method_status
ust_perfetto_graph_is_configured(bt_self_component_sink *self);
bt_component_class_sink_consume_method_status ust_perfetto_consume(bt_self_component_sink *self);
void ust_perfetto_finalize(bt_self_component_sink *self);

#endif
