/* SPDX-License-Identifier: GPL-2.0-only */
/* usttrace --summary and --perfetto: babeltrace2 with our plugin's sinks. */
#ifndef USTTRACE_VIEW_H
#define USTTRACE_VIEW_H

#include <stddef.h>

/* Prints the summary of one trace directory on stderr. Returns 0 or -1
 * after babeltrace2 said what failed. */
int usttrace_view_summary(const char *trace_dir);
/* Writes the timeline of every trace in dirs into one JSON file. */
int usttrace_view_perfetto(char *const *dirs, size_t nr_dirs, const char *json_path);

#endif
