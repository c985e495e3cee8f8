/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Session files: XML validated against ust-session.xsd (compiled in), then
 * the values the schema cannot judge (powers of two within the tracer's
 * bounds) checked here. Every complaint is "FILE:LINE: reason". Uses
 * session.c for the running program's side, never the other way round.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libxml/parser.h>
#include <libxml/xmlschemas.h>
#include <libxml/xmlwriter.h>
#include "libustcomm/blocking.h"
#include "libustcomm/bufsize.h"
#include "libustcomm/shm_layout.h"
#include "libustcomm/trace_output.h"
#include "libustctl/internal.h"
#include "libustctl/session_file_extra.h"
#include "libustctl/session_file_track.h"
#include "libustctl/session_lttng.h"
#include "libustctl/session_xml.h"

/* 1024 rules with the longest pattern and filter, every character of the
 * filter escaped (&quot; is six bytes), fit with room to spare. */
#define USTCTL_SESSION_FILE_MAX	(16u << 20)
#include "libustctl/schema.h"

#if LIBXML_VERSION >= 21200
typedef const xmlError *xml_error_t;
#else
typedef xmlError *xml_error_t;
#endif

/* The first error libxml2 reports, which is the cause; the rest follow
 * from it. */
struct first_error {
	int set;
	int line;
	char message[512];
};

static void on_xml_error(void *data, xml_error_t err)
{
	struct first_error *fe = data;
	size_t n;

	if (fe->set || !err)
		return;
	fe->set = 1;
	fe->line = err->line;
	snprintf(fe->message, sizeof(fe->message), "%s",
		 err->message ? err->message : "malformed XML");
	n = strlen(fe->message);
	while (n && (fe->message[n - 1] == '\n' || fe->message[n - 1] == ' '))
		fe->message[--n] = '\0';
}

/* libxml2 wants to be initialised once before threads use it. */
static pthread_once_t xml_once = PTHREAD_ONCE_INIT;

static void xml_init(void)
{
	xmlInitParser();
}

/* "256k", "4M": sizes as users write them. */
static void format_size(char *buf, size_t len, uint32_t v)
{
	if (v && !(v % (1u << 20)))
		snprintf(buf, len, "%uM", (unsigned)(v >> 20));
	else if (v && !(v % 1024u))
		snprintf(buf, len, "%uk", (unsigned)(v >> 10));
	else
		snprintf(buf, len, "%u", (unsigned)v);
}

static int validate(const char *file, xmlDocPtr doc)
{
	struct first_error fe = { 0 };
	xmlSchemaParserCtxtPtr pctxt;
	xmlSchemaValidCtxtPtr vctxt = NULL;
	xmlSchemaPtr schema = NULL;
	int ret = -ENOMEM;

	pctxt = xmlSchemaNewMemParserCtxt(ustctl_session_xsd, (int)ustctl_session_xsd_len);
	if (!pctxt)
		goto end;
	xmlSchemaSetParserStructuredErrors(pctxt, on_xml_error, &fe);
	schema = xmlSchemaParse(pctxt);
	if (!schema) {
		ret = -EINVAL;
		ustctl_set_error("the built-in session schema does not load: %s", fe.message);
		goto end;
	}
	vctxt = xmlSchemaNewValidCtxt(schema);
	if (!vctxt)
		goto end;
	xmlSchemaSetValidStructuredErrors(vctxt, on_xml_error, &fe);
	ret = xmlSchemaValidateDoc(vctxt, doc) ? -EINVAL : 0;
	if (ret)
		ustctl_file_error(file, fe.line, "%s", fe.set ? fe.message : "not a valid session file");
end:
	if (ret == -ENOMEM)
		ustctl_set_error("out of memory");
	xmlSchemaFreeValidCtxt(vctxt);
	xmlSchemaFree(schema);
	xmlSchemaFreeParserCtxt(pctxt);
	return ret;
}

/* An optional power-of-two attribute; 0 when absent. */
static int attr_pow2(const char *file, xmlNodePtr node, const char *name, const char *channel,
		     uint32_t min, uint32_t max, uint32_t *out)
{
	xmlChar *v = xmlGetProp(node, BAD_CAST name);
	char lo[16], hi[16];
	int ret = 0;

	*out = 0;
	if (v && ustcomm_parse_pow2((const char *)v, min, max, out)) {
		format_size(lo, sizeof(lo), min);
		format_size(hi, sizeof(hi), max);
		ustctl_file_error(file, (int)xmlGetLineNo(node),
			   "%s \"%s\" of channel %s is not a power of two between %s and %s",
			   name, (const char *)v, channel, lo, hi);
		ret = -EINVAL;
	}
	xmlFree(v);
	return ret;
}

static int attr_blocking(const char *file, xmlNodePtr node, struct ustctl_channel_conf *c)
{
	xmlChar *v = xmlGetProp(node, BAD_CAST "blocking-timeout");
	int ret = 0;

	c->has_blocking_timeout = v != NULL;
	if (v && ustcomm_blocking_parse((const char *)v, &c->blocking_timeout)) {
		ustctl_file_error(file, (int)xmlGetLineNo(node),
			   "blocking-timeout \"%s\" of channel %s is beyond %u microseconds",
			   (const char *)v, c->name, UST_BLOCKING_MAX_US);
		ret = -EINVAL;
	}
	xmlFree(v);
	return ret;
}

/* An enable rule's level and filter, which the schema has typed. */
static int convert_rule(const char *file, xmlNodePtr node, struct ustctl_rule *r)
{
	char *level = ustctl_xml_attr_dup(node, "loglevel"), *only = ustctl_xml_attr_dup(node, "loglevel-only");
	int ret = 0;

	if (level && only) {
		ustctl_file_error(file, (int)xmlGetLineNo(node),
			   "rule %s has both loglevel and loglevel-only: give one", r->pattern);
		ret = -EINVAL;
		goto end;
	}
	if (level || only) {
		r->loglevel_match = level ? USTCTL_LOGLEVEL_RANGE : USTCTL_LOGLEVEL_ONLY;
		r->loglevel = ustctl_loglevel_parse(level ? level : only);
	}
	r->filter = ustctl_xml_attr_dup(node, "filter");
	if (r->filter && ustctl_filter_check(r->filter)) {
		ustctl_file_error(file, (int)xmlGetLineNo(node), "rule %s: %s", r->pattern,
			   ustctl_last_error());
		ret = -EINVAL;
	}
end:
	free(level);
	free(only);
	return ret;
}

/* A channel's <context name=.../> children, which the schema has checked. */
static int convert_contexts(xmlNodePtr channel, struct ustctl_channel_conf *c)
{
	xmlNodePtr node;
	char *name;
	int ret = 0;

	for (node = channel->children; !ret && node; node = node->next) {
		if (!ustctl_xml_is_element(node, "context"))
			continue;
		name = ustctl_xml_attr_dup(node, "name");
		ret = name ? ustctl_channel_conf_add_context(c, name) : -ENOMEM;
		free(name);
	}
	return ret;
}

/* The <output> element, whose shape the schema has checked. */
static int convert_output(const char *file, xmlNodePtr node, struct ustctl_session *s)
{
	xmlChar *text = xmlNodeGetContent(node);
	struct ustcomm_relay_url url;
	const char *why;
	int ret = 0;

	if (!text)
		return -ENOMEM;
	if (ustcomm_output_parse((const char *)text, &url, &why) < 0) {
		ustctl_file_error(file, (int)xmlGetLineNo(node), "output \"%s\": %s", (const char *)text,
			   why);
		ret = -EINVAL;
	} else {
		s->output = strdup((const char *)text);
		if (!s->output)
			ret = -ENOMEM;
	}
	xmlFree(text);
	return ret;
}

static int is_rule(xmlNodePtr node)
{
	return ustctl_xml_is_element(node, "enable") || ustctl_xml_is_element(node, "disable");
}

/* Turns a valid document into a session and its extra parts. */
static int convert(const char *file, xmlDocPtr doc, struct ustctl_session *s,
		   struct ustctl_session_extra *x)
{
	xmlNodePtr root = xmlDocGetRootElement(doc), node;
	size_t nr_channels = 0, nr_rules = 0;
	int ret = ustctl_extra_read_root(file, root, x);

	for (node = root->children; !ret && node; node = node->next) {
		if (ustctl_xml_is_element(node, "channel"))
			nr_channels++;
		else if (ustctl_xml_is_element(node, "output"))
			ret = convert_output(file, node, s);
		else if (ustctl_xml_is_element(node, "rotation"))
			ret = ustctl_extra_read_rotation(file, node, x);
		else if (ustctl_xml_is_element(node, "trigger"))
			ret = ustctl_extra_read_trigger(file, node, x);
		else if (ustctl_xml_is_element(node, "track"))
			ret = ustctl_extra_read_track(file, node, x);
		else if (is_rule(node))
			nr_rules++;
	}
	if (ret == -ENOMEM)
		goto nomem;
	if (ret)
		goto end;
	if (nr_rules > USTCOMM_CTL_RULES_MAX) {
		ret = -EINVAL;
		ustctl_set_error("%s: %zu rules; a program holds at most %u", file, nr_rules,
				 USTCOMM_CTL_RULES_MAX);
		goto end;
	}
	if (nr_channels)
		s->channels = calloc(nr_channels, sizeof(*s->channels));
	if (nr_rules)
		s->rules = calloc(nr_rules, sizeof(*s->rules));
	if ((nr_channels && !s->channels) || (nr_rules && !s->rules))
		goto nomem;
	for (node = root->children; node; node = node->next) {
		if (ustctl_xml_is_element(node, "channel")) {
			struct ustctl_channel_conf *c = &s->channels[s->nr_channels++];

			c->name = ustctl_xml_attr_dup(node, "name");
			if (!c->name)
				goto nomem;
			ret = attr_pow2(file, node, "subbuf-size", c->name, UST_SUBBUF_SIZE_MIN,
					UST_SUBBUF_SIZE_MAX, &c->subbuf_size);
			if (!ret)
				ret = attr_pow2(file, node, "subbuf-num", c->name, UST_SUBBUF_NUM_MIN,
						UST_SUBBUF_NUM_MAX, &c->subbuf_num);
			if (!ret)
				ret = attr_blocking(file, node, c);
			if (!ret)
				ret = ustctl_extra_read_channel(file, node, c->name, x);
			if (ret == -ENOMEM)
				goto nomem;
			if (ret)
				goto end;
			if (convert_contexts(node, c))
				goto nomem;
		} else if (is_rule(node)) {
			struct ustctl_rule *r = &s->rules[s->nr_rules++];

			r->enable = ustctl_xml_is_element(node, "enable");
			r->pattern = ustctl_xml_attr_dup(node, "pattern");
			if (!r->pattern)
				goto nomem;
			if (r->enable) {
				ret = convert_rule(file, node, r);
				if (ret)
					goto end;
			}
		}
	}
	goto end;
nomem:
	ret = -ENOMEM;
	ustctl_set_error("out of memory");
end:
	return ret;
}

int ustctl_session_read(const char *file, struct ustctl_session **session)
{
	return ustctl_session_file_read(file, session, NULL);
}

int ustctl_session_file_read(const char *file, struct ustctl_session **session,
			     struct ustctl_session_extra **extra)
{
	struct ustctl_session_extra *x = NULL;
	xmlStructuredErrorFunc saved_handler = xmlStructuredError;
	void *saved_context = xmlStructuredErrorContext;
	struct first_error fe = { 0 };
	struct ustctl_session *s = NULL;
	xmlDocPtr doc = NULL;
	struct stat st;
	int fd, ret, lttng;

	*session = NULL;
	if (extra)
		*extra = NULL;
	pthread_once(&xml_once, xml_init);
	/* libxml2 says "failed to load external entity"; say why instead. */
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		ustctl_set_error("cannot read the session file %s: %s", file, strerror(errno));
		goto end;
	}
	/* Parsed whole into memory: bounded before libxml2 sees it. */
	if (fstat(fd, &st) == 0 && st.st_size > USTCTL_SESSION_FILE_MAX) {
		close(fd);
		ret = -EFBIG;
		ustctl_set_error("%s: %lld bytes; a session file is at most %u (%u rules at their longest)",
				 file, (long long)st.st_size, USTCTL_SESSION_FILE_MAX,
				 USTCOMM_CTL_RULES_MAX);
		goto end;
	}
	close(fd);
	/* The handler is libxml2's per-thread global: set for this parse only. */
	xmlSetStructuredErrorFunc(&fe, on_xml_error);
	doc = xmlReadFile(file, NULL, XML_PARSE_NONET | XML_PARSE_BIG_LINES);
	xmlSetStructuredErrorFunc(saved_context, saved_handler);
	if (!doc) {
		ret = -EINVAL;
		ustctl_file_error(file, fe.line, "%s", fe.set ? fe.message : "not an XML file");
		goto end;
	}
	lttng = ustctl_lttng_is_session_file(doc);
	ret = lttng ? 0 : validate(file, doc);
	if (ret)
		goto end;
	s = calloc(1, sizeof(*s));
	x = calloc(1, sizeof(*x));
	if (!s || !x) {
		ret = -ENOMEM;
		ustctl_set_error("out of memory");
		goto end;
	}
	ret = lttng ? ustctl_lttng_convert(file, doc, s, x) : convert(file, doc, s, x);
end:
	xmlFreeDoc(doc);
	if (ret) {
		ustctl_session_free(s);
		s = NULL;
	}
	if (ret || !extra) {
		ustctl_session_extra_free(x);
		x = NULL;
	}
	*session = s;
	if (extra)
		*extra = x;
	return ret;
}

/* A channel with tracefile limits and no other setting gets an element. */
static int write_limits_only(xmlTextWriterPtr w, const struct ustctl_session *s,
			     const struct ustctl_session_extra *x)
{
	size_t i, j;
	int rc = 0;

	for (i = 0; rc >= 0 && x && i < x->nr_tracefiles; i++) {
		const char *name = x->tracefiles[i].channel;

		for (j = 0; j < s->nr_channels && strcmp(s->channels[j].name, name); j++)
			;
		if (j < s->nr_channels)
			continue;
		rc = xmlTextWriterStartElement(w, BAD_CAST "channel");
		if (rc >= 0)
			rc = xmlTextWriterWriteAttribute(w, BAD_CAST "name", BAD_CAST name);
		if (rc >= 0)
			rc = ustctl_extra_write_channel(w, x, name);
		if (rc >= 0)
			rc = xmlTextWriterEndElement(w);
	}
	return rc;
}

static int write_document(xmlTextWriterPtr w, const struct ustctl_session *s,
			  const struct ustctl_session_extra *x,
			  const struct ustctl_session_resume *r)
{
	char value[16];
	size_t i, j;
	int rc;

	rc = xmlTextWriterSetIndent(w, 1);
	if (rc >= 0)
		rc = xmlTextWriterSetIndentString(w, BAD_CAST "  ");
	if (rc >= 0)
		rc = xmlTextWriterStartDocument(w, NULL, "UTF-8", NULL);
	if (rc >= 0)
		rc = xmlTextWriterStartElement(w, BAD_CAST "ust-session");
	if (rc >= 0)
		rc = xmlTextWriterWriteAttribute(w, BAD_CAST "version",
						 BAD_CAST (ustctl_extra_any(x) ? "2" : "1"));
	if (rc >= 0)
		rc = ustctl_extra_write_root(w, x);
	if (rc >= 0 && s->output && *s->output)
		rc = xmlTextWriterWriteElement(w, BAD_CAST "output", BAD_CAST s->output);
	for (i = 0; rc >= 0 && i < s->nr_channels; i++) {
		const struct ustctl_channel_conf *c = &s->channels[i];

		rc = xmlTextWriterStartElement(w, BAD_CAST "channel");
		if (rc >= 0)
			rc = xmlTextWriterWriteAttribute(w, BAD_CAST "name", BAD_CAST c->name);
		if (rc >= 0 && c->subbuf_size) {
			format_size(value, sizeof(value), c->subbuf_size);
			rc = xmlTextWriterWriteAttribute(w, BAD_CAST "subbuf-size", BAD_CAST value);
		}
		if (rc >= 0 && c->subbuf_num) {
			snprintf(value, sizeof(value), "%u", (unsigned)c->subbuf_num);
			rc = xmlTextWriterWriteAttribute(w, BAD_CAST "subbuf-num", BAD_CAST value);
		}
		if (rc >= 0 && c->has_blocking_timeout) {
			ustcomm_blocking_format(value, sizeof(value), c->blocking_timeout);
			rc = xmlTextWriterWriteAttribute(w, BAD_CAST "blocking-timeout",
							 BAD_CAST value);
		}
		if (rc >= 0)
			rc = ustctl_extra_write_channel(w, x, c->name);
		for (j = 0; rc >= 0 && j < c->nr_contexts; j++) {
			rc = xmlTextWriterStartElement(w, BAD_CAST "context");
			if (rc >= 0)
				rc = xmlTextWriterWriteAttribute(w, BAD_CAST "name",
								 BAD_CAST c->contexts[j]);
			if (rc >= 0)
				rc = xmlTextWriterEndElement(w);
		}
		if (rc >= 0)
			rc = xmlTextWriterEndElement(w);
	}
	if (rc >= 0)
		rc = write_limits_only(w, s, x);
	for (i = 0; rc >= 0 && i < s->nr_rules; i++) {
		const struct ustctl_rule *r = &s->rules[i];

		rc = xmlTextWriterStartElement(w, BAD_CAST (r->enable ? "enable" : "disable"));
		if (rc >= 0)
			rc = xmlTextWriterWriteAttribute(w, BAD_CAST "pattern", BAD_CAST r->pattern);
		if (rc >= 0 && r->enable && r->loglevel_match)
			rc = xmlTextWriterWriteAttribute(w, BAD_CAST (r->loglevel_match ==
								     USTCTL_LOGLEVEL_RANGE ?
								     "loglevel" : "loglevel-only"),
							 BAD_CAST ustctl_loglevel_name(r->loglevel));
		if (rc >= 0 && r->enable && r->filter && *r->filter)
			rc = xmlTextWriterWriteAttribute(w, BAD_CAST "filter", BAD_CAST r->filter);
		if (rc >= 0)
			rc = xmlTextWriterEndElement(w);
	}
	if (rc >= 0)
		rc = ustctl_extra_write_tail(w, x);
	if (rc >= 0)
		rc = ustctl_extra_write_trackers(w, x);
	if (rc >= 0 && r)
		rc = ustctl_resume_write_element(w, r);
	if (rc >= 0)
		rc = xmlTextWriterEndDocument(w);
	return rc < 0 ? -ENOMEM : 0;
}

/* What the schema would refuse on reading is refused on writing. */
static int check_session(const char *file, const struct ustctl_session *s)
{
	size_t i, j;

	struct ustcomm_relay_url url;
	const char *why;

	if (s->output && *s->output && ustcomm_output_parse(s->output, &url, &why) < 0) {
		ustctl_set_error("cannot write %s: invalid output '%s': %s", file, s->output, why);
		return -EINVAL;
	}
	for (i = 0; i < s->nr_channels; i++) {
		const struct ustctl_channel_conf *c = &s->channels[i];

		if (!c->name || !*c->name) {
			ustctl_set_error("cannot write %s: channel %zu has no name", file, i + 1);
			return -EINVAL;
		}
		for (j = 0; j < c->nr_contexts; j++) {
			if (ustctl_context_check(c->contexts[j])) {
				ustctl_set_error("cannot write %s: channel %s has an unknown context '%s'",
						 file, c->name, c->contexts[j] ? c->contexts[j] : "");
				return -EINVAL;
			}
		}
	}
	for (i = 0; i < s->nr_rules; i++) {
		const struct ustctl_rule *r = &s->rules[i];

		if (!r->pattern || !*r->pattern) {
			ustctl_set_error("cannot write %s: rule %zu has no pattern", file, i + 1);
			return -EINVAL;
		}
		if (r->loglevel_match && !ustctl_loglevel_name(r->loglevel)) {
			ustctl_set_error("cannot write %s: rule %zu has log level %d, not 0 to 14",
					 file, i + 1, r->loglevel);
			return -EINVAL;
		}
	}
	return 0;
}

int ustctl_session_write(const char *file, const struct ustctl_session *session)
{
	return ustctl_session_file_write(file, session, NULL);
}

int ustctl_session_file_write(const char *file, const struct ustctl_session *session,
			      const struct ustctl_session_extra *extra)
{
	return ustctl_session_file_write_resume(file, session, extra, NULL);
}

int ustctl_session_file_write_resume(const char *file, const struct ustctl_session *session,
				     const struct ustctl_session_extra *extra,
				     const struct ustctl_session_resume *resume)
{
	xmlTextWriterPtr w = NULL;
	xmlBufferPtr buf = NULL;
	FILE *f = NULL;
	int fd, ret;

	pthread_once(&xml_once, xml_init);
	ret = check_session(file, session);
	if (!ret && extra)
		ret = ustctl_extra_check_write(file, extra);
	if (!ret && extra)
		ret = ustctl_extra_check_trackers(file, extra);
	if (ret)
		goto end;
	ret = -ENOMEM;
	buf = xmlBufferCreate();
	if (!buf)
		goto nomem;
	w = xmlNewTextWriterMemory(buf, 0);
	if (!w)
		goto nomem;
	ret = write_document(w, session, extra, resume);
	/* Freeing the writer flushes what it holds into buf. */
	xmlFreeTextWriter(w);
	w = NULL;
	if (ret)
		goto nomem;
	/* The user's own, as ustd's traces: the file tells what is traced
	 * and where. An existing file keeps its mode. */
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f && fd >= 0)
		close(fd);
	if (!f || fwrite(xmlBufferContent(buf), 1, (size_t)xmlBufferLength(buf), f) !=
		  (size_t)xmlBufferLength(buf)) {
		ret = errno ? -errno : -EIO;
		ustctl_set_failure("cannot write the session file %s: %s", file, strerror(errno));
		goto end;
	}
	ret = fclose(f) ? (errno ? -errno : -EIO) : 0;
	f = NULL;
	if (ret)
		ustctl_set_failure("cannot write the session file %s: %s", file, strerror(-ret));
	goto end;
nomem:
	ustctl_set_error("out of memory");
end:
	if (f)
		fclose(f);
	xmlFreeTextWriter(w);
	xmlBufferFree(buf);
	return ret;
}

/* The convenience calls: a running program's session to and from a file. */
int ustctl_save_session(pid_t pid, const char *trace, const char *file)
{
	struct ustctl_session_extra *x = NULL;
	struct ustctl_session *s;
	int ret;

	ret = ustctl_get_session(pid, trace, &s);
	if (!ret)
		ret = ustctl_get_session_extra(pid, trace, s, &x);
	if (!ret)
		ret = ustctl_session_file_write(file, s, x);
	ustctl_session_free(s);
	ustctl_session_extra_free(x);
	return ret;
}

int ustctl_load_session(pid_t pid, const char *trace, const char *file)
{
	struct ustctl_session_extra *x;
	struct ustctl_session *s;
	int ret;

	ret = ustctl_session_file_read(file, &s, &x);
	if (!ret)
		ret = ustctl_apply_session_extra(pid, trace, s, x);
	ustctl_session_free(s);
	ustctl_session_extra_free(x);
	return ret;
}
