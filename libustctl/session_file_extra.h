/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The parts of a session file that struct ustctl_session_extra holds (a
 * ustd session's name and mode, tracefile limits, rotation, triggers):
 * read from and written to the document session_file.c handles.
 */
#ifndef USTCTL_SESSION_FILE_EXTRA_H
#define USTCTL_SESSION_FILE_EXTRA_H

#include <libxml/tree.h>
#include <libxml/xmlwriter.h>
#include "libustctl/internal.h"

/* Reading a document the schema accepted: the root's name and overwrite
 * (read first: triggers need a flight recorder, which has no rotation),
 * a channel's tracefile limits, <rotation> and <trigger>. 0, -EINVAL
 * with the last error, or -ENOMEM. */
int ustctl_extra_read_root(const char *file, xmlNodePtr root, struct ustctl_session_extra *x);
int ustctl_extra_read_channel(const char *file, xmlNodePtr node, const char *channel,
			      struct ustctl_session_extra *x);
int ustctl_extra_read_rotation(const char *file, xmlNodePtr node, struct ustctl_session_extra *x);
int ustctl_extra_read_trigger(const char *file, xmlNodePtr node, struct ustctl_session_extra *x);

/* Whether x holds anything (the file is then version 2). */
int ustctl_extra_any(const struct ustctl_session_extra *x);
/* What the schema would refuse on reading is refused on writing. */
int ustctl_extra_check_write(const char *file, const struct ustctl_session_extra *x);
/* Writing: the root's attributes, a channel's limits, the elements after
 * the rules. libxml2's return: negative on failure. */
int ustctl_extra_write_root(xmlTextWriterPtr w, const struct ustctl_session_extra *x);
int ustctl_extra_write_channel(xmlTextWriterPtr w, const struct ustctl_session_extra *x,
			       const char *channel);
int ustctl_extra_write_tail(xmlTextWriterPtr w, const struct ustctl_session_extra *x);
/* ustd's own files of its sessions: the <resume> element written last,
 * and its state attribute read back (-EINVAL when unknown). */
int ustctl_resume_write_element(xmlTextWriterPtr w, const struct ustctl_session_resume *r);
int ustctl_resume_state_parse(const char *text);

/* Appends limits, a trigger (copies; 0 or -ENOMEM). */
int ustctl_extra_add_tracefile(struct ustctl_session_extra *x, const char *channel,
			       uint64_t size, uint32_t count);
int ustctl_extra_add_trigger(struct ustctl_session_extra *x, const char *pattern,
			     const char *filter, const char *dir, unsigned at_most);

#endif
