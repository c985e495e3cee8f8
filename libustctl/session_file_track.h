/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * A session file's process trackers (<track kind="pid" value="42"/>):
 * read, checked, written, and turned into the requests that make them
 * again, for load-session and for a restarted ustd alike.
 */
#ifndef USTCTL_SESSION_FILE_TRACK_H
#define USTCTL_SESSION_FILE_TRACK_H

#include <libxml/tree.h>
#include <libxml/xmlwriter.h>
#include "libustctl/internal.h"

/* Appends kind and value (copies; value "" marks a kind that tracks a
 * set of values); a pair already there is not added twice. 0 or -ENOMEM. */
int ustctl_extra_add_tracker(struct ustctl_session_extra *x, const char *kind, const char *value);
/* A <track> of a document the schema accepted, checked as ustctl track
 * checks it: 0, -EINVAL with the last error, or -ENOMEM. */
int ustctl_extra_read_track(const char *file, xmlNodePtr node, struct ustctl_session_extra *x);
/* What the reader would refuse is refused on writing. */
int ustctl_extra_check_trackers(const char *file, const struct ustctl_session_extra *x);
/* The <track> elements; libxml2's return: negative on failure. */
int ustctl_extra_write_trackers(xmlTextWriterPtr w, const struct ustctl_session_extra *x);
void ustctl_extra_free_trackers(struct ustctl_session_extra *x);

#endif
