/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Directories that readers must see whole or not at all: a snapshot, a
 * session trigger's firing. They are written under a hidden name and
 * renamed into place once complete, so that babeltrace2, or a script
 * waiting for the name to appear, never reads one half written. A hidden
 * directory left behind is one ustd died writing.
 */
#ifndef USTD_DIR_PUBLISH_H
#define USTD_DIR_PUBLISH_H

#include <stddef.h>

/* Creates <parent>/.<stem>-partial-XXXXXX (parent created as needed);
 * its path goes to out. Returns 0 or a negative errno. */
int ustd_dir_partial(const char *parent, const char *stem, char *out, size_t size);

/* Renames partial to path, which must not exist (-EEXIST, or -ENOTEMPTY
 * for a directory with files in it). Returns 0 or a negative errno. */
int ustd_dir_publish_as(const char *partial, const char *path);

/*
 * Renames partial to <parent>/<stem>-<*n>, never over a directory that
 * exists: *n grows past the names taken. The new path goes to out.
 * Returns 0 or a negative errno (partial is then left where it was).
 */
int ustd_dir_publish(const char *partial, const char *parent, const char *stem, unsigned *n,
		     char *out, size_t size);

#endif
