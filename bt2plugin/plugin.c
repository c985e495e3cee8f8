/* SPDX-License-Identifier: LGPL-2.1-only */
/* The babeltrace2 plugin "ust": sink.ust.perfetto and sink.ust.summary. */
#include <babeltrace2/babeltrace.h>

#include "bt2plugin/perfetto_sink.h"
#include "bt2plugin/summary_sink.h"

/* babeltrace2 finds the plugin through the module's getters: they must stay
 * visible although the rest of the plugin is built hidden. */
#pragma GCC visibility push(default)
BT_PLUGIN_MODULE();
#pragma GCC visibility pop
BT_PLUGIN(ust);
BT_PLUGIN_DESCRIPTION("UST: the trace as a timeline for Perfetto UI, and a summary");
BT_PLUGIN_LICENSE("LGPL-2.1");

BT_PLUGIN_SINK_COMPONENT_CLASS(perfetto, ust_perfetto_consume);
BT_PLUGIN_SINK_COMPONENT_CLASS_DESCRIPTION(perfetto,
	"Write a timeline for Perfetto UI: Trace Event JSON or Perfetto's own format (params path, format)");
BT_PLUGIN_SINK_COMPONENT_CLASS_HELP(perfetto,
	"Writes every event of the traces it is given as Chrome Trace Event JSON,\n"
	"which Perfetto UI, chrome://tracing and UST's offline viewer\n"
	"(doc/viewer/) show as a timeline: a track per process and thread, spans\n"
	"from *_begin/*_end pairs, functions from ust_func, losses on a track of\n"
	"their own; or, with format=\"proto\", the same timeline (without the\n"
	"events' fields) in Perfetto's protobuf trace format, about 22 bytes per\n"
	"function call, for Perfetto UI and trace_processor. The file appears\n"
	"only once complete.\n"
	"\n"
	"Parameters:\n"
	"  path (string, required)  the file to write\n"
	"  format (string)          \"json\" or \"proto\"; default: \"proto\" when path\n"
	"                           ends in .pftrace or .perfetto-trace, else \"json\"\n"
	"\n"
	"Example: babeltrace2 TRACE_DIR -c sink.ust.perfetto -p 'path=\"trace.json\"'\n"
	"         babeltrace2 TRACE_DIR -c sink.ust.perfetto -p 'path=\"trace.pftrace\"'\n"
	"See the UST manual, 8.6.");
BT_PLUGIN_SINK_COMPONENT_CLASS_INITIALIZE_METHOD(perfetto, ust_perfetto_init);
BT_PLUGIN_SINK_COMPONENT_CLASS_GRAPH_IS_CONFIGURED_METHOD(perfetto,
	ust_perfetto_graph_is_configured);
BT_PLUGIN_SINK_COMPONENT_CLASS_FINALIZE_METHOD(perfetto, ust_perfetto_finalize);

BT_PLUGIN_SINK_COMPONENT_CLASS(summary, ust_summary_consume);
BT_PLUGIN_SINK_COMPONENT_CLASS_DESCRIPTION(summary,
	"Print counts per event, CPU and thread, loss, duration and size (params path, mi=\"xml\")");
BT_PLUGIN_SINK_COMPONENT_CLASS_HELP(summary,
	"Prints what the traces it is given hold: counts and rates per event,\n"
	"process, CPU and thread, the events lost, the duration, span duration\n"
	"statistics and the traced functions' profile (what ust-summary prints).\n"
	"\n"
	"Parameters:\n"
	"  path (string)       the file to write; default: standard output\n"
	"  mi (string)         \"xml\": XML valid against ust-summary.xsd instead\n"
	"  trace-dir (string)  the trace's directory, for its size on disk\n"
	"The traced functions' profile, as uftrace report and graph:\n"
	"  func-sort (string)     sort the function table by calls, total, self,\n"
	"                         avg, min, max (a call's own duration) or name;\n"
	"                         default: by total time, then by self time\n"
	"  func-rows (string)     rows per table, or \"all\"; default 50 (10 by self;\n"
	"                         XML: all)\n"
	"  func-graph (string)    also the call graph of the calls of this\n"
	"                         function, \"*\": of the whole program\n"
	"  func-filter (string)   count only the calls under these functions\n"
	"                         (names separated by ';'), as uftrace -F\n"
	"  func-notrace (string)  count none of the calls under these functions,\n"
	"                         nor theirs, as uftrace -N\n"
	"  func-depth (string)    count calls at most this deep (from the\n"
	"                         func-filter function, else from the thread's\n"
	"                         first), as uftrace -D\n"
	"  func-time (string)     count only calls that lasted at least this\n"
	"                         (ns, us, ms, s; default ns), as uftrace -t\n"
	"\n"
	"Example: babeltrace2 TRACE_DIR -c sink.ust.summary -p 'mi=\"xml\"'\n"
	"         babeltrace2 TRACE_DIR -c sink.ust.summary -p 'func-graph=\"main\",func-depth=\"3\"'\n"
	"See ust-summary(1) and the UST manual, 8.6.");
BT_PLUGIN_SINK_COMPONENT_CLASS_INITIALIZE_METHOD(summary, ust_summary_init);
BT_PLUGIN_SINK_COMPONENT_CLASS_GRAPH_IS_CONFIGURED_METHOD(summary,
	ust_summary_graph_is_configured);
BT_PLUGIN_SINK_COMPONENT_CLASS_FINALIZE_METHOD(summary, ust_summary_finalize);
