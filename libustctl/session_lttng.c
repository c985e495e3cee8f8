/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * LTTng's session files (lttng-tools 2.13, session.xsd; what "lttng save"
 * writes), read into a UST session. The mapping (manual 4.4, "Session
 * files of LTTng"):
 *
 * - the session's name, its output path (or relayd URLs, or a snapshot
 *   session's snapshot output), snapshot mode (a flight recorder), its
 *   rotation schedules;
 * - the user-space (UST) domain: its channels' sub-buffers, overwrite
 *   mode, blocking timeout and tracefile limits (for every UST channel,
 *   "*": an LTTng channel is a set of buffers, UST's channels are the
 *   events' providers), contexts UST has, and its enabled tracepoint
 *   events as enable rules in order (pattern, filter, log level), each
 *   exclusion as a disable rule right after its event, its vpid and vuid
 *   trackers as pid and uid trackers (session_lttng_track.c), its buffer
 *   type (PER_UID: per-user buffers, for a local session that is no
 *   flight recorder; PER_PID: per process).
 *
 * Everything else that changes what is traced is named in one warning
 * each and left out; only a file with nothing to trace in user space is
 * refused. Values lttng save always writes that do not change what is
 * traced (the read and monitor timers, the output type, empty domains)
 * are passed over in silence.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "libustcomm/bufsize.h"
#include "libustcomm/ctl_protocol.h"
#include "libustcomm/shm_layout.h"
#include "libustctl/session_file_extra.h"
#include "libustctl/session_lttng.h"
#include "libustctl/session_lttng_track.h"
#include "libustctl/session_xml.h"

/* What the conversion carries from one element to the next. */
struct lttng_read {
	const char *file;
	struct ustctl_session *s;
	struct ustctl_session_extra *x;
	struct ustctl_channel_conf *all;	/* "*", which every LTTng channel sets */
	xmlNodePtr first_channel;
	xmlNodePtr per_uid;			/* the UST domain's PER_UID buffer_type */
	size_t nr_events;			/* enabled, in the UST domain */
	int nomem;
};

int ustctl_lttng_is_session_file(xmlDocPtr doc)
{
	xmlNodePtr root = xmlDocGetRootElement(doc);

	return root && ustctl_xml_is_element(root, "sessions");
}

static size_t count_children(xmlNodePtr node, const char *name)
{
	xmlNodePtr c;
	size_t n = 0;

	for (c = node ? node->children : NULL; c; c = c->next)
		n += ustctl_xml_is_element(c, name);
	return n;
}

/* The text of node's child name, malloc'd, "" when absent; NULL: no memory. */
static char *text_of(struct lttng_read *r, xmlNodePtr node, const char *name)
{
	xmlNodePtr c = ustctl_xml_child(node, name);
	xmlChar *v = c ? xmlNodeGetContent(c) : NULL;
	char *copy = strdup(v ? (const char *)v : "");

	xmlFree(v);
	if (!copy)
		r->nomem = 1;
	return copy;
}

static int text_is(struct lttng_read *r, xmlNodePtr node, const char *name, const char *value)
{
	char *t = text_of(r, node, name);
	int is = t && !strcmp(t, value);

	free(t);
	return is;
}

/* A number child; def when absent or not a number. */
static long long number_of(struct lttng_read *r, xmlNodePtr node, const char *name, long long def)
{
	char *t = text_of(r, node, name), *end;
	long long v = def;

	if (t && *t) {
		v = strtoll(t, &end, 10);
		if (*end)
			v = def;
	}
	free(t);
	return v;
}

static size_t count_events(xmlNodePtr domain)
{
	xmlNodePtr ch;
	size_t n = 0;

	for (ch = ustctl_xml_child(ustctl_xml_child(domain, "channels"), "channel"); ch; ch = ch->next) {
		if (ustctl_xml_is_element(ch, "channel"))
			n += count_children(ustctl_xml_child(ch, "events"), "event");
	}
	return n;
}

/* LTTng's context types that UST records, by UST's name. */
static const char *const context_names[][2] = {
	{ "VPID", "vpid" },
	{ "VTID", "vtid" },
	{ "PROCNAME", "procname" },
	{ "PTHREAD_ID", "pthread_id" },
	{ "IP", "ip" },
};

static int has_context(const struct ustctl_channel_conf *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nr_contexts; i++) {
		if (!strcmp(c->contexts[i], name))
			return 1;
	}
	return 0;
}

/* perf_thread_cpu_cycles is UST's perf:thread:cpu-cycles. */
static void perf_name(const char *lttng, char *out, size_t size)
{
	const char *prefix = "perf_thread_";
	char *p;

	if (strncmp(lttng, prefix, strlen(prefix))) {
		snprintf(out, size, "%s", lttng);
		return;
	}
	snprintf(out, size, "perf:thread:%s", lttng + strlen(prefix));
	for (p = out + strlen("perf:thread:"); *p; p++) {
		if (*p == '_')
			*p = '-';
	}
}

static void convert_context(struct lttng_read *r, xmlNodePtr ctx)
{
	char *type = text_of(r, ctx, "type"), *perf = text_of(r, ustctl_xml_child(ctx, "perf"), "name");
	char name[64] = "";
	size_t i;

	if (!type || !perf)
		goto end;
	for (i = 0; i < sizeof(context_names) / sizeof(context_names[0]); i++) {
		if (!strcmp(type, context_names[i][0]))
			snprintf(name, sizeof(name), "%s", context_names[i][1]);
	}
	if (*perf)
		perf_name(perf, name, sizeof(name));
	if (!name[0] || ustctl_context_check(name)) {
		ustctl_xml_not_honoured(r->file, ctx, "context %s: UST records vpid, vtid, procname, pthread_id, ip and perf:thread: counters",
			     *perf ? perf : ustctl_xml_child(ctx, "app") ? "$app (application context)" : type);
		goto end;
	}
	if (!has_context(r->all, name) && ustctl_channel_conf_add_context(r->all, name) < 0)
		r->nomem = 1;
end:
	free(type);
	free(perf);
}

static int add_rule(struct lttng_read *r, int enable, const char *pattern)
{
	struct ustctl_rule *grown, *rule;

	grown = realloc(r->s->rules, (r->s->nr_rules + 1) * sizeof(*grown));
	if (!grown) {
		r->nomem = 1;
		return -ENOMEM;
	}
	r->s->rules = grown;
	rule = &grown[r->s->nr_rules];
	memset(rule, 0, sizeof(*rule));
	rule->enable = enable;
	rule->pattern = strdup(pattern);
	if (!rule->pattern) {
		r->nomem = 1;
		return -ENOMEM;
	}
	r->s->nr_rules++;
	return 0;
}

static void convert_event(struct lttng_read *r, xmlNodePtr ev)
{
	char *name = text_of(r, ev, "name"), *type = text_of(r, ev, "type");
	char *ltype = text_of(r, ev, "loglevel_type"), *filter = text_of(r, ev, "filter");
	long long level = number_of(r, ev, "loglevel", -1);
	struct ustctl_rule *rule;
	xmlNodePtr ex;

	if (!name || !type || !ltype || !filter || text_is(r, ev, "enabled", "false"))
		goto end;
	if (strcmp(type, "TRACEPOINT")) {
		ustctl_xml_not_honoured(r->file, ev, "event %s of type %s: UST enables tracepoints and markers", name,
			     type);
		goto end;
	}
	if (add_rule(r, 1, name))
		goto end;
	r->nr_events++;
	rule = &r->s->rules[r->s->nr_rules - 1];
	if (*filter && !(rule->filter = strdup(filter)))
		r->nomem = 1;
	if (!strcmp(ltype, "RANGE") || !strcmp(ltype, "SINGLE")) {
		if (level >= 0 && ustctl_loglevel_name((int)level)) {
			rule->loglevel_match = !strcmp(ltype, "RANGE") ? USTCTL_LOGLEVEL_RANGE :
									 USTCTL_LOGLEVEL_ONLY;
			rule->loglevel = (int)level;
		} else {
			ustctl_xml_not_honoured(r->file, ev, "event %s: log level %lld (UST's are 0 to 14): every level is enabled",
				     name, level);
		}
	}
	/* An exclusion takes the event out of this rule: a disable rule
	 * right after it (an earlier rule enabling it is undone too). */
	for (ex = ustctl_xml_child(ustctl_xml_child(ev, "exclusions"), "exclusion"); ex && !r->nomem; ex = ex->next) {
		xmlChar *v;

		if (!ustctl_xml_is_element(ex, "exclusion"))
			continue;
		v = xmlNodeGetContent(ex);
		if (!v || add_rule(r, 0, (const char *)v))
			r->nomem = 1;
		xmlFree(v);
	}
end:
	free(name);
	free(type);
	free(ltype);
	free(filter);
}

/* A sub-buffer geometry within UST's bounds, else the default (0). */
static uint32_t geometry(struct lttng_read *r, xmlNodePtr ch, const char *what, uint32_t min,
			 uint32_t max)
{
	long long v = number_of(r, ch, what, 0);

	if (!v)
		return 0;
	if (v < min || v > max || (v & (v - 1))) {
		ustctl_xml_not_honoured(r->file, ustctl_xml_child(ch, what), "%s %lld: UST takes powers of two from %u to %u; the default is used",
			     what, v, min, max);
		return 0;
	}
	return (uint32_t)v;
}

static int same_settings(struct lttng_read *r, xmlNodePtr a, xmlNodePtr b)
{
	static const char *const keys[] = { "overwrite_mode", "subbuffer_size", "subbuffer_count",
					    "blocking_timeout", "tracefile_size", "tracefile_count" };
	size_t i;
	int same = 1;

	for (i = 0; same && i < sizeof(keys) / sizeof(keys[0]); i++) {
		char *ta = text_of(r, a, keys[i]), *tb = text_of(r, b, keys[i]);

		same = ta && tb && !strcmp(ta, tb);
		free(ta);
		free(tb);
	}
	return same;
}

/* The first channel's buffers are every UST channel's ("*"). */
static void channel_settings(struct lttng_read *r, xmlNodePtr ch, const char *name)
{
	long long blocking = number_of(r, ch, "blocking_timeout", 0);
	long long tf_size = number_of(r, ch, "tracefile_size", 0);
	long long tf_count = number_of(r, ch, "tracefile_count", 0);

	if (r->first_channel) {
		if (!same_settings(r, r->first_channel, ch))
			ustctl_xml_not_honoured(r->file, ch, "channel %s's buffer settings: UST's channels are the events' providers, so every channel has the settings of the file's first channel",
				     name);
		return;
	}
	r->first_channel = ch;
	if (text_is(r, ch, "overwrite_mode", "OVERWRITE"))
		r->x->overwrite = 1;
	r->all->subbuf_size = geometry(r, ch, "subbuffer_size", UST_SUBBUF_SIZE_MIN,
				       UST_SUBBUF_SIZE_MAX);
	r->all->subbuf_num = geometry(r, ch, "subbuffer_count", UST_SUBBUF_NUM_MIN,
				      UST_SUBBUF_NUM_MAX);
	if (blocking) {
		r->all->has_blocking_timeout = 1;
		r->all->blocking_timeout = blocking < 0 || blocking > (long long)UINT32_MAX - 1 ?
					   USTCTL_BLOCKING_INF : (uint32_t)blocking;
	}
	if (tf_size && (tf_size < (long long)UST_TRACEFILE_SIZE_MIN ||
			tf_count < 0 || tf_count > UST_TRACEFILE_COUNT_MAX))
		ustctl_xml_not_honoured(r->file, ustctl_xml_child(ch, "tracefile_size"), "tracefile size %lld and count %lld: UST takes at least %llu bytes and at most %u files",
			     tf_size, tf_count, UST_TRACEFILE_SIZE_MIN, UST_TRACEFILE_COUNT_MAX);
	else if (tf_size && ustctl_extra_add_tracefile(r->x, "*", (uint64_t)tf_size,
						       (uint32_t)tf_count))
		r->nomem = 1;
}

static void convert_channel(struct lttng_read *r, xmlNodePtr ch)
{
	char *name = text_of(r, ch, "name");
	xmlNodePtr node;

	if (!name)
		return;
	if (text_is(r, ch, "enabled", "false")) {
		ustctl_xml_not_honoured(r->file, ch, "channel %s is disabled: its %zu events are left out", name,
			     count_children(ustctl_xml_child(ch, "events"), "event"));
		goto end;
	}
	channel_settings(r, ch, name);
	if (number_of(r, ch, "switch_timer_interval", 0))
		ustctl_xml_not_honoured(r->file, ustctl_xml_child(ch, "switch_timer_interval"), "channel %s's switch timer: ustd writes a sub-buffer when it is full, at a flush and at the end",
			     name);
	if (number_of(r, ch, "live_timer_interval", 0))
		ustctl_xml_not_honoured(r->file, ustctl_xml_child(ch, "live_timer_interval"), "channel %s's live timer: live reading is ustd's --live, for every trace",
			     name);
	if (r->first_channel != ch && r->x->overwrite != text_is(r, ch, "overwrite_mode", "OVERWRITE"))
		ustctl_xml_not_honoured(r->file, ustctl_xml_child(ch, "overwrite_mode"), "channel %s's overwrite mode: a UST session is a flight recorder or not, as the first channel says",
			     name);
	for (node = ustctl_xml_child(ustctl_xml_child(ch, "events"), "event"); node; node = node->next) {
		if (ustctl_xml_is_element(node, "event"))
			convert_event(r, node);
	}
	for (node = ustctl_xml_child(ustctl_xml_child(ch, "contexts"), "context"); node; node = node->next) {
		if (ustctl_xml_is_element(node, "context"))
			convert_context(r, node);
	}
end:
	free(name);
}

static void convert_ust_domain(struct lttng_read *r, xmlNodePtr domain)
{
	xmlNodePtr node;

	/* Judged once the mode and the output are known (convert_buffers). */
	if (text_is(r, domain, "buffer_type", "PER_UID"))
		r->per_uid = ustctl_xml_child(domain, "buffer_type");
	if (ustctl_lttng_convert_trackers(r->file, ustctl_xml_child(domain, "process_attr_trackers"), r->x))
		r->nomem = 1;
	for (node = ustctl_xml_child(ustctl_xml_child(domain, "channels"), "channel"); node; node = node->next) {
		if (ustctl_xml_is_element(node, "channel"))
			convert_channel(r, node);
	}
}

static void convert_domains(struct lttng_read *r, xmlNodePtr domains)
{
	xmlNodePtr d;
	char *type;
	size_t n;

	for (d = ustctl_xml_child(domains, "domain"); d; d = d->next) {
		if (!ustctl_xml_is_element(d, "domain"))
			continue;
		type = text_of(r, d, "type");
		if (!type)
			return;
		n = count_events(d);
		if (!strcmp(type, "UST"))
			convert_ust_domain(r, d);
		else if (n)
			ustctl_xml_not_honoured(r->file, d, "the %s domain's %zu event(s): UST traces the user-space (UST) domain only, with no %s",
				     type, n, !strcmp(type, "KERNEL") ? "kernel tracer" :
				     "Java or Python agent");
		free(type);
	}
}

/* LTTng's tcp://HOST:PORT[/PATH] (tcp4, tcp6; HOST may be [IPv6]) to
 * UST's net://HOST:C:D. */
static int uri_host_port(const char *uri, char *host, size_t size, long *port)
{
	const char *p = strstr(uri, "://"), *colon, *end, *after;

	if (!p || (strncmp(uri, "tcp://", 6) && strncmp(uri, "tcp4://", 7) &&
		   strncmp(uri, "tcp6://", 7)))
		return -EINVAL;
	p += 3;
	end = p + strcspn(p, "/");
	after = *p == '[' ? memchr(p, ']', (size_t)(end - p)) : p;
	if (!after)
		return -EINVAL;
	colon = memchr(after, ':', (size_t)(end - after));
	if (!colon || colon == p || (size_t)(colon - p) >= size)
		return -EINVAL;
	snprintf(host, size, "%.*s", (int)(colon - p), p);
	*port = strtol(colon + 1, NULL, 10);
	return *port > 0 ? 0 : -EINVAL;
}

static void convert_net_output(struct lttng_read *r, xmlNodePtr net)
{
	char *control = text_of(r, net, "control_uri"), *data = text_of(r, net, "data_uri");
	char host[256], host2[256], url[600];
	long cport, dport;

	if (!control || !data)
		goto end;
	if (uri_host_port(control, host, sizeof(host), &cport) ||
	    uri_host_port(data, host2, sizeof(host2), &dport) || strcmp(host, host2)) {
		ustctl_xml_not_honoured(r->file, net, "the network output %s, %s: UST streams to one lttng-relayd over TCP (net://HOST:CONTROL:DATA); the trace goes to ustd's directory",
			     control, data);
		goto end;
	}
	snprintf(url, sizeof(url), "net://%s:%ld:%ld", host, cport, dport);
	r->s->output = strdup(url);
	if (!r->s->output)
		r->nomem = 1;
end:
	free(control);
	free(data);
}

static void convert_output(struct lttng_read *r, xmlNodePtr output)
{
	xmlNodePtr snap = ustctl_xml_child(ustctl_xml_child(output, "snapshot_outputs"), "output");
	xmlNodePtr consumer = ustctl_xml_child(snap ? snap : output, "consumer_output");
	xmlNodePtr dest = ustctl_xml_child(consumer, "destination");
	char *path;

	if (!dest)
		return;
	if (ustctl_xml_child(dest, "net_output")) {
		convert_net_output(r, ustctl_xml_child(dest, "net_output"));
		return;
	}
	path = text_of(r, dest, "path");
	if (path && path[0] == '/')
		r->s->output = path;
	else
		free(path);
}

/* PER_UID is UST's buffers per user. */
static void convert_buffers(struct lttng_read *r)
{
	if (r->per_uid)
		r->x->buffers = USTCTL_BUFFERS_PER_UID;
}

static void convert_attributes(struct lttng_read *r, xmlNodePtr attrs)
{
	xmlNodePtr sched = ustctl_xml_child(attrs, "rotation_schedules");
	long long every = number_of(r, ustctl_xml_child(sched, "periodic"), "time_us", 0);
	long long size = number_of(r, ustctl_xml_child(sched, "size_threshold"), "bytes", 0);

	if (text_is(r, attrs, "snapshot_mode", "true"))
		r->x->overwrite = 1;
	if (number_of(r, attrs, "live_timer_interval", 0))
		ustctl_xml_not_honoured(r->file, ustctl_xml_child(attrs, "live_timer_interval"), "the live timer: live reading is ustd's --live (lttng-relayd), not a session's");
	if ((every || size) && r->x->overwrite) {
		ustctl_xml_not_honoured(r->file, sched, "the rotation schedule of a snapshot (flight-recorder) session: UST does not rotate a flight recorder");
		return;
	}
	if (every > 0)
		r->x->rotation.every_us = (uint64_t)every;
	if (size > 0)
		r->x->rotation.size = (uint64_t)size;
}

int ustctl_lttng_convert(const char *file, xmlDocPtr doc, struct ustctl_session *s,
			 struct ustctl_session_extra *x)
{
	struct lttng_read r = { .file = file, .s = s, .x = x };
	xmlNodePtr root = xmlDocGetRootElement(doc), session = ustctl_xml_child(root, "session");
	size_t n = count_children(root, "session");
	int ret = -EINVAL;

	if (n != 1) {
		ustctl_file_error(file, (int)xmlGetLineNo(root), "an LTTng session file with %zu sessions: UST loads one per file (lttng save NAME writes one)",
				  n);
		return -EINVAL;
	}
	s->channels = calloc(1, sizeof(*s->channels));
	if (!s->channels || !(s->channels[0].name = strdup("*")) ||
	    !(x->name = text_of(&r, session, "name")))
		goto nomem;
	s->nr_channels = 1;
	r.all = &s->channels[0];
	if (!*x->name) {
		ustctl_file_error(file, (int)xmlGetLineNo(session), "the LTTng session has no <name>");
		goto end;
	}
	convert_attributes(&r, ustctl_xml_child(session, "attributes"));
	convert_domains(&r, ustctl_xml_child(session, "domains"));
	convert_output(&r, ustctl_xml_child(session, "output"));
	convert_buffers(&r);
	if (r.nomem)
		goto nomem;
	if (text_is(&r, session, "started", "true"))
		ustctl_xml_not_honoured(r.file, ustctl_xml_child(session, "started"), "started: the session is loaded stopped; ustctl start-session %s starts it",
			     x->name);
	if (!r.nr_events) {
		ustctl_file_error(file, (int)xmlGetLineNo(session), "LTTng session %s enables no event in the user-space (UST) domain: nothing that UST traces",
				  x->name);
		goto end;
	}
	if (s->nr_rules > USTCOMM_CTL_RULES_MAX) {
		ustctl_set_error("%s: %zu rules; a program holds at most %u", file, s->nr_rules,
				 USTCOMM_CTL_RULES_MAX);
		goto end;
	}
	ret = 0;
	goto end;
nomem:
	ret = -ENOMEM;
	ustctl_set_error("out of memory");
end:
	return ret;
}
