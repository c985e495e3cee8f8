/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * What every reader of a session file's XML shares (session_xml.h):
 * beneath session_file.c and session_file_extra.c, and beneath LTTng's
 * reader and its trackers, so that neither calls the other for it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "libustctl/internal.h"
#include "libustctl/session_xml.h"

void ustctl_file_error(const char *file, int line, const char *fmt, ...)
{
	char reason[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	ustctl_set_error("%s:%d: %s", file, line, reason);
}

/* Copies an attribute that the schema guarantees into a malloc'd string. */
char *ustctl_xml_attr_dup(xmlNodePtr node, const char *name)
{
	xmlChar *v = xmlGetProp(node, BAD_CAST name);
	char *copy = v ? strdup((const char *)v) : NULL;

	xmlFree(v);
	return copy;
}

int ustctl_xml_is_element(xmlNodePtr node, const char *name)
{
	return node->type == XML_ELEMENT_NODE && !xmlStrcmp(node->name, BAD_CAST name);
}

xmlNodePtr ustctl_xml_child(xmlNodePtr node, const char *name)
{
	xmlNodePtr c;

	for (c = node ? node->children : NULL; c; c = c->next) {
		if (ustctl_xml_is_element(c, name))
			return c;
	}
	return NULL;
}

void ustctl_xml_not_honoured(const char *file, xmlNodePtr node, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	ustctl_add_warning("%s:%ld: not honoured: %s", file, xmlGetLineNo(node), what);
}
