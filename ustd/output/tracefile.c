/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include "ustd/output/tracefile.h"

int ustd_tracefile_name(const struct ustd_tracefile *tf, const char *stream, char *out,
			size_t len)
{
	uint64_t k = tf->count ? tf->files % tf->count : tf->files;
	int n;

	if (!tf->size)
		n = snprintf(out, len, "%s", stream);
	else
		n = snprintf(out, len, "%s_%" PRIu64, stream, k);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

bool ustd_tracefile_full(const struct ustd_tracefile *tf, uint64_t file_len, uint64_t len)
{
	return tf->size && file_len && file_len + len > tf->size;
}

int ustd_tracefile_advance(struct ustd_tracefile *tf, const struct ustd_trace_dir *td,
			   const char *stream)
{
	char name[512];
	int ret;

	tf->files++;
	if (!tf->count || tf->files < tf->count)
		return 0;
	ret = ustd_tracefile_name(tf, stream, name, sizeof(name));
	return ret < 0 ? ret : ustd_trace_dir_remove_stream(td, name);
}
