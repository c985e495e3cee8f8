/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Small helpers of the session file readers (session_file.c,
 * session_file_extra.c, and LTTng's: session_lttng.c,
 * session_lttng_track.c) over a document libxml2 parsed.
 */
#ifndef USTCTL_SESSION_XML_H
#define USTCTL_SESSION_XML_H

#include <libxml/tree.h>

/* "FILE:LINE: reason" as the last error; a copy of an attribute (NULL
 * when absent or out of memory); an element named name. */
void ustctl_file_error(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
char *ustctl_xml_attr_dup(xmlNodePtr node, const char *name);
int ustctl_xml_is_element(xmlNodePtr node, const char *name);
/* The first child element of node named name, or NULL (node NULL too). */
xmlNodePtr ustctl_xml_child(xmlNodePtr node, const char *name);
/* An element of an LTTng file UST cannot honour: "FILE:LINE: not
 * honoured: what" as a warning. */
void ustctl_xml_not_honoured(const char *file, xmlNodePtr node, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
