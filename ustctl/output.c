/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The XML document is built in memory through an xmlTextWriter, so that the
 * root element can say whether everything succeeded, which is known only at
 * the end, and then printed at once: a reader gets either a whole document
 * or nothing.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxml/chvalid.h>
#include <libxml/tree.h>
#include <libxml/xmlsave.h>
#include <libxml/xmlstring.h>
#include <libxml/xmlwriter.h>
#include "libustcomm/log.h"
#include <ust/ustctl.h>
#include "ustctl/output.h"

static struct {
	bool mi;
	xmlDocPtr doc;
	xmlTextWriterPtr writer;
	const char *command;
	int failed;		/* a writer call failed: the document is incomplete */
} out;

#define OUT_XML(s) ((const xmlChar *)(s))

bool ustctl_out_mi(void)
{
	return out.mi;
}

/* A copy of s that is valid UTF-8 made of characters XML allows. */
static char *out_sanitize(const char *s)
{
	size_t len = strlen(s), i = 0, o = 0;
	char *buf = malloc(len + 1);
	int n, c;

	if (!buf)
		return NULL;
	while (i < len) {
		n = len - i < 4 ? (int)(len - i) : 4;
		c = xmlGetUTF8Char((const unsigned char *)s + i, &n);
		if (c < 0 || !xmlIsCharQ(c)) {
			buf[o++] = '?';
			i++;
			continue;
		}
		memcpy(buf + o, s + i, (size_t)n);
		o += (size_t)n;
		i += (size_t)n;
	}
	buf[o] = '\0';
	return buf;
}

/* The formatted, sanitized text, or NULL (the document is then marked failed). */
static char *out_vformat(const char *fmt, va_list ap)
{
	char *raw, *text;

	if (vasprintf(&raw, fmt, ap) < 0) {
		out.failed = 1;
		return NULL;
	}
	text = out_sanitize(raw);
	free(raw);
	if (!text)
		out.failed = 1;
	return text;
}

static void out_check(int rc)
{
	if (rc < 0)
		out.failed = 1;
}

int ustctl_out_begin(bool mi)
{
	out.mi = mi;
	if (!mi)
		return 0;
	out.writer = xmlNewTextWriterDoc(&out.doc, 0);
	if (!out.writer) {
		ustcomm_err("cannot start the XML output: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	out_check(xmlTextWriterStartDocument(out.writer, NULL, "UTF-8", NULL));
	ustctl_mi_open("ustctl");
	return 0;
}

void ustctl_out_command(const char *command)
{
	out.command = command;
}

void ustctl_out_cancel(void)
{
	if (!out.mi)
		return;
	xmlFreeTextWriter(out.writer);
	out.writer = NULL;
	xmlFreeDoc(out.doc);
	out.doc = NULL;
	out.mi = false;
}

static int out_end_text(int exit_status)
{
	if (fflush(stdout) == EOF || ferror(stdout)) {
		ustcomm_err("cannot write the output: %s", strerror(errno));
		return 1;
	}
	return exit_status;
}

/* What libustctl accepted with a warning, on stderr in either output mode. */
static void out_warnings(void)
{
	char *w = ustctl_take_warnings(), *line, *save = NULL;

	for (line = w ? strtok_r(w, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save))
		fprintf(stderr, "ustctl: warning: %s\n", line);
	free(w);
}

int ustctl_out_end(int exit_status)
{
	xmlNodePtr root;

	out_warnings();
	if (!out.mi)
		return out_end_text(exit_status);
	/* Ending the document closes every open element, the root too. */
	out_check(xmlTextWriterEndDocument(out.writer));
	xmlFreeTextWriter(out.writer);
	out.writer = NULL;
	root = out.doc ? xmlDocGetRootElement(out.doc) : NULL;
	if (!root) {
		out.failed = 1;
	} else {
		if (out.command && !xmlNewProp(root, OUT_XML("command"), OUT_XML(out.command)))
			out.failed = 1;
		if (!xmlNewProp(root, OUT_XML("success"),
				OUT_XML(exit_status == 0 ? "true" : "false")))
			out.failed = 1;
	}
	if (out.failed) {
		ustcomm_err("cannot build the XML output: %s", strerror(ENOMEM));
		exit_status = 1;
	} else if (xmlSaveFormatFileEnc("-", out.doc, "UTF-8", 1) < 0) {
		ustcomm_err("cannot write the XML output to stdout");
		exit_status = 1;
	}
	xmlFreeDoc(out.doc);
	out.doc = NULL;
	return out_end_text(exit_status);
}

void ustctl_mi_open(const char *element)
{
	if (out.mi)
		out_check(xmlTextWriterStartElement(out.writer, OUT_XML(element)));
}

void ustctl_mi_close(void)
{
	if (out.mi)
		out_check(xmlTextWriterEndElement(out.writer));
}

void ustctl_mi_attr(const char *name, const char *fmt, ...)
{
	va_list ap;
	char *text;

	if (!out.mi)
		return;
	va_start(ap, fmt);
	text = out_vformat(fmt, ap);
	va_end(ap);
	if (text)
		out_check(xmlTextWriterWriteAttribute(out.writer, OUT_XML(name), OUT_XML(text)));
	free(text);
}

static void out_vtext(const char *fmt, va_list ap)
{
	char *text = out_vformat(fmt, ap);

	if (text)
		out_check(xmlTextWriterWriteString(out.writer, OUT_XML(text)));
	free(text);
}

void ustctl_mi_text(const char *fmt, ...)
{
	va_list ap;

	if (!out.mi)
		return;
	va_start(ap, fmt);
	out_vtext(fmt, ap);
	va_end(ap);
}

void ustctl_mi_element(const char *element, const char *fmt, ...)
{
	va_list ap;

	if (!out.mi)
		return;
	ustctl_mi_open(element);
	va_start(ap, fmt);
	out_vtext(fmt, ap);
	va_end(ap);
	ustctl_mi_close();
}

void ustctl_mi_open_process(pid_t pid, const char *trace, bool success)
{
	ustctl_mi_open("process");
	ustctl_mi_attr("pid", "%d", (int)pid);
	if (trace)
		ustctl_mi_attr("trace", "%s", trace);
	ustctl_mi_attr("success", "%s", success ? "true" : "false");
}

void ustctl_mi_rule(const struct ustctl_rule *r)
{
	ustctl_mi_open("rule");
	ustctl_mi_attr("action", "%s", r->enable ? "enable" : "disable");
	if (r->loglevel_match)
		ustctl_mi_attr(r->loglevel_match == USTCTL_LOGLEVEL_RANGE ? "loglevel" :
			       "loglevel-only", "%s", ustctl_loglevel_name(r->loglevel));
	if (r->filter && *r->filter)
		ustctl_mi_attr("filter", "%s", r->filter);
	ustctl_mi_text("%s", r->pattern);
	ustctl_mi_close();
}

void ustctl_fail(pid_t pid, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (!msg) {
		ustcomm_err("%s", strerror(ENOMEM));
		out.failed = 1;
		return;
	}
	if (pid > 0)
		ustcomm_err("pid %d: %s", (int)pid, msg);
	else
		ustcomm_err("%s", msg);
	if (out.mi) {
		ustctl_mi_open("error");
		if (pid > 0)
			ustctl_mi_attr("pid", "%d", (int)pid);
		ustctl_mi_text("%s", msg);
		ustctl_mi_close();
	}
	free(msg);
}
