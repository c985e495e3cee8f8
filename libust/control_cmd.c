/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The commands of the control protocol, executed on the trace (trace.h)
 * and the registry. Async-signal-safe like everything they call: replies
 * are built in an mmap-backed ustcomm_strbuf with ustcomm_format().
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <ust/version.h>
#include "libust/control.h"
#include "libust/control_cmd.h"
#include "libust/objects.h"
#include "libust/registry.h"
#include "libust/rules.h"
#include "libust/session_join.h"
#include "libust/sigsafe_alloc.h"
#include "libustcomm/blocking.h"
#include "libust/trace.h"
#include "libust/trigger.h"
#include "libustcomm/filter_bytecode.h"
#include "libustcomm/format.h"
#include "libustcomm/hex.h"
#include "libustcomm/loglevel.h"
#include "libustcomm/protocol.h"

struct reply {
	struct ustcomm_strbuf *out;
	size_t start;			/* where the header goes */
	uint32_t nr;
	const char *error;		/* overrides ust_trace_error() */
};

static void add(struct reply *r, const char *s)
{
	ustcomm_strbuf_append(r->out, s, strlen(s) + 1);
	r->nr++;
}

static void add_u32(struct reply *r, uint32_t v)
{
	char num[16];

	ustcomm_format(num, sizeof(num), "%u", v);
	add(r, num);
}

static const char *field_type(const struct ust_field_desc *f, char *buf, size_t len)
{
	const char *sign = f->is_signed ? "int" : "uint";

	switch (f->kind) {
	case UST_FIELD_INTEGER:
		ustcomm_format(buf, len, "%s%u%s", sign, f->size * 8u, f->base == 16 ? " hex" : "");
		break;
	case UST_FIELD_FLOAT:
		ustcomm_format(buf, len, "%s", f->size == 4 ? "float" : "double");
		break;
	case UST_FIELD_STRING:
		ustcomm_format(buf, len, "string");
		break;
	case UST_FIELD_ARRAY:
		ustcomm_format(buf, len, "%s%u[%u]", sign, f->size * 8u, f->length);
		break;
	case UST_FIELD_SEQUENCE:
		ustcomm_format(buf, len, "%s%u[]", sign, f->size * 8u);
		break;
	default:
		ustcomm_format(buf, len, "?");
		break;
	}
	return buf;
}

/* "type name, ..." */
static void add_fields(struct reply *r, const struct ust_event_state *ev)
{
	struct ustcomm_strbuf *sb = r->out;
	char type[32];
	uint32_t i;

	for (i = 0; i < ev->nr_fields; i++) {
		if (i)
			ustcomm_strbuf_append(sb, ", ", 2);
		field_type(&ev->fields[i], type, sizeof(type));
		ustcomm_strbuf_append(sb, type, strlen(type));
		ustcomm_strbuf_append(sb, " ", 1);
		ustcomm_strbuf_append(sb, ev->fields[i].name, strlen(ev->fields[i].name));
	}
	ustcomm_strbuf_append(sb, "", 1);
	r->nr++;
}

/* Enabled when some trace's rules enable it. */
static int enabled_anywhere(const struct ust_event_state *ev)
{
	uint32_t i;

	for (i = 0; i < UST_TRACES_MAX; i++) {
		if (ev->enabled[i])
			return 1;
	}
	return 0;
}

static int list_markers(struct reply *r)
{
	struct ustcomm_strbuf *sb = r->out;
	struct ust_event_state *ev;

	for (ev = ust_registry_first(); ev; ev = ev->next) {
		add(r, ev->full_name);
		add(r, enabled_anywhere(ev) ? "enabled" : "disabled");
		add(r, ev->format ? "format" : "fields");
		if (ev->format)
			add(r, ev->format);
		else
			add_fields(r, ev);
		/* The ids of an unloaded library's events stay in the trace. */
		if (ev->nr_sites)
			ust_objects_describe(ev, sb);
		else
			ustcomm_strbuf_append(sb, "(unloaded)", strlen("(unloaded)"));
		ustcomm_strbuf_append(sb, "", 1);
		r->nr++;
		add_u32(r, (uint32_t)ev->loglevel);
		add_fields(r, ev);
	}
	return sb->err;
}

#define FILTER_PROG_MAX	(UST_FILTER_CODE_MAX + UST_FILTER_DATA_MAX + 64)

/*
 * A filter expression and its bytecode in hex, as enable-rule and
 * add-trigger carry them: both or neither. *prog (NULL without a filter)
 * is the caller's to free.
 */
static int decode_filter(struct reply *r, const char *filter, const char *hex, void **prog,
			 size_t *len)
{
	ssize_t n;

	*prog = NULL;
	*len = 0;
	if (*filter && !*hex) {
		r->error = "a filter without its bytecode";
		return -EINVAL;
	}
	if (!*filter) {
		if (!*hex)
			return 0;
		r->error = "bytecode without its filter expression";
		return -EINVAL;
	}
	*prog = ust_zalloc(FILTER_PROG_MAX);
	if (!*prog) {
		r->error = "out of memory";
		return -ENOMEM;
	}
	n = ustcomm_hex_decode(hex, *prog, FILTER_PROG_MAX);
	if (n <= 0) {
		r->error = "the filter's bytecode is not hexadecimal or too long";
		ust_free(*prog);
		*prog = NULL;
		return -EINVAL;
	}
	*len = (size_t)n;
	return 0;
}

/* (TRACE, PATTERN, LEVEL, FILTER, BYTECODE in hex) */
static int enable_rule(struct reply *r, const char *const *args)
{
	struct ust_rule_spec spec = { .pattern = args[1], .enable = 1, .filter = args[3] };
	void *prog;
	int ret;

	if (ustcomm_level_spec_parse(args[2], &spec.level_match, &spec.level) < 0) {
		r->error = "invalid log level selection: give \"\", \"<=N\" or \"==N\" with N from 0 to 14";
		return -EINVAL;
	}
	ret = decode_filter(r, args[3], args[4], &prog, &spec.prog_len);
	if (ret < 0)
		return ret;
	spec.prog = prog;
	ret = ust_trace_add_rule(args[0], &spec);
	if (ret >= 0) {
		add_u32(r, (uint32_t)ret);
		ret = 0;
	}
	ust_free(prog);
	return ret;
}

/* (TRACE, PATTERN, FILTER, BYTECODE in hex, DIR, AT_MOST) */
static int add_trigger(struct reply *r, const char *const *args)
{
	struct ust_trigger_spec spec = { .pattern = args[1], .filter = args[2], .dir = args[4] };
	void *prog;
	uint32_t id;
	int ret;

	if (ustcomm_parse_u32(args[5], &spec.at_most) < 0) {
		r->error = "the rate limit is not a decimal number";
		return -EINVAL;
	}
	ret = decode_filter(r, args[2], args[3], &prog, &spec.prog_len);
	if (ret < 0)
		return ret;
	spec.prog = prog;
	ret = ust_trace_add_trigger(args[0], &spec, &id);
	if (ret >= 0)
		add_u32(r, id);
	ust_free(prog);
	return ret;
}

static int set_subbuf(struct reply *r, const char *const *args, int is_num)
{
	uint32_t v;

	if (ustcomm_parse_u32(args[2], &v) < 0) {
		r->error = "the value is not a decimal number";
		return -EINVAL;
	}
	return ust_trace_set_subbuf(args[0], args[1], is_num, v);
}

static int snapshot(struct reply *r, const char *const *args)
{
	char *path = ust_zalloc(USTCOMM_PATH_MAX);
	int ret;

	if (!path) {
		r->error = "out of memory";
		return -ENOMEM;
	}
	ret = ust_trace_snapshot(args[0], args[1], path, USTCOMM_PATH_MAX);
	if (ret >= 0)
		add(r, path);
	ust_free(path);
	return ret;
}

static int get_tracefile(struct reply *r, const char *const *args)
{
	uint64_t size;
	uint32_t count;
	char text[40];
	int ret = ust_trace_get_tracefile(args[0], args[1], &size, &count);

	if (ret < 0)
		return ret;
	ustcomm_format(text, sizeof(text), "%llu/%u", (unsigned long long)size, count);
	add(r, text);
	return 0;
}

/* cmd is one of the commands: ustcomm_ctl_check_request() said so. */
static int execute(struct reply *r, uint16_t cmd, const char *const *args, uint32_t nr)
{
	char text[UST_BLOCKING_TEXT_MAX];
	uint32_t v, i;
	int ret = 0;

	switch (cmd) {
	case USTCOMM_CTL_INFO: {
		char control[128];

		add_u32(r, (uint32_t)getpid());
		add(r, ust_trace_procname());
		add(r, UST_VERSION);
		add(r, ust_trace_name());
		add(r, ust_trace_state_name());
		ust_control_describe(control, sizeof(control));
		add(r, control);
		break;
	}
	case USTCOMM_CTL_LIST_MARKERS:
		ret = list_markers(r);
		break;
	case USTCOMM_CTL_ENABLE_MARKER:
	case USTCOMM_CTL_DISABLE_MARKER:
		ret = ust_trace_add_marker_rules(args[0], args + 1, nr - 1,
						 cmd == USTCOMM_CTL_ENABLE_MARKER);
		if (ret < 0)
			break;
		/* The total, then each pattern's: so that the controller can
		 * name a pattern that matches nothing. A controller of before
		 * reads the total only. */
		add_u32(r, (uint32_t)ret);
		for (i = 1; i < nr; i++)
			add_u32(r, ust_trace_marker_matches(args[i],
							    cmd == USTCOMM_CTL_ENABLE_MARKER));
		ret = 0;
		break;
	case USTCOMM_CTL_CREATE_TRACE:
		ret = ust_trace_create(args[0], nr > 1 ? args[1] : NULL);
		break;
	case USTCOMM_CTL_ALLOC_TRACE:
		ret = ust_trace_alloc(args[0]);
		break;
	case USTCOMM_CTL_START_TRACE:
		ret = ust_trace_start(args[0]);
		break;
	case USTCOMM_CTL_STOP_TRACE:
		ret = ust_trace_stop(args[0]);
		break;
	case USTCOMM_CTL_DESTROY_TRACE:
		ret = ust_trace_destroy(args[0]);
		break;
	case USTCOMM_CTL_FORCE_SWITCH:
		ret = ust_trace_force_switch(args[0]);
		break;
	case USTCOMM_CTL_SET_SUBBUF_SIZE:
	case USTCOMM_CTL_SET_SUBBUF_NUM:
		ret = set_subbuf(r, args, cmd == USTCOMM_CTL_SET_SUBBUF_NUM);
		break;
	case USTCOMM_CTL_GET_SUBBUF_SIZE:
	case USTCOMM_CTL_GET_SUBBUF_NUM:
		ret = ust_trace_get_subbuf(args[0], args[1], cmd == USTCOMM_CTL_GET_SUBBUF_NUM, &v);
		if (ret >= 0)
			add_u32(r, v);
		break;
	case USTCOMM_CTL_SET_SOCK_PATH:
		ret = ust_trace_set_daemon_path(args[0]);
		break;
	case USTCOMM_CTL_GET_SOCK_PATH:
		add(r, ust_trace_daemon_path());
		break;
	case USTCOMM_CTL_GET_SESSION:
		ret = ust_trace_describe_session(args[0], r->out, &r->nr);
		break;
	case USTCOMM_CTL_SNAPSHOT:
		ret = snapshot(r, args);
		break;
	case USTCOMM_CTL_RECONNECT:
		ret = ust_trace_reconnect(args[0]);
		break;
	case USTCOMM_CTL_ENABLE_RULE:
		ret = enable_rule(r, args);
		break;
	case USTCOMM_CTL_ADD_CONTEXT:
		ret = ust_trace_add_context(args[0], args[1], args[2]);
		break;
	case USTCOMM_CTL_SET_OUTPUT:
		ret = ust_trace_set_output(args[0], args[1]);
		break;
	case USTCOMM_CTL_SET_BLOCKING_TIMEOUT:
		ret = ust_trace_set_blocking(args[0], args[1], args[2]);
		break;
	case USTCOMM_CTL_SET_OVERWRITE:
		ret = ust_trace_set_overwrite(args[0], !strcmp(args[1], "1"));
		if (ret >= 0)
			ret = ust_trace_set_per_uid(args[0], nr > 2 && !strcmp(args[2], "uid"));
		break;
	case USTCOMM_CTL_SESSION_STATE:
		add(r, ust_session_join_state(args[0], args + 1, nr - 1));
		/* Then "1" or "0" per rule, so that ustd can name a pattern no
		 * program matches; a ustd of before reads the state only. */
		for (i = 1; i + 1 < nr; i += 2)
			add_u32(r, (uint32_t)ust_session_rule_matches(args[i], args[i + 1]));
		break;
	case USTCOMM_CTL_SESSION_CREATE:
	case USTCOMM_CTL_SESSION_RULES:
	case USTCOMM_CTL_SESSION_START:
	case USTCOMM_CTL_SESSION_STOP:
	case USTCOMM_CTL_SESSION_DESTROY:
	case USTCOMM_CTL_SESSION_LIST:
	case USTCOMM_CTL_SESSION_CONTEXT:
	case USTCOMM_CTL_SESSION_ROTATE:
	case USTCOMM_CTL_SESSION_ROTATION:
	case USTCOMM_CTL_SESSION_TRIGGER:
	case USTCOMM_CTL_SESSION_LIST_TRIGGERS:
	case USTCOMM_CTL_SESSION_REMOVE_TRIGGER:
	case USTCOMM_CTL_SESSION_DESCRIBE:
	case USTCOMM_CTL_SESSION_CHANNEL:
		r->error = "a session command: ustd serves it, not a program";
		ret = -EINVAL;
		break;
	case USTCOMM_CTL_ADD_TRIGGER:
		ret = add_trigger(r, args);
		break;
	case USTCOMM_CTL_LIST_TRIGGERS:
		ret = ust_triggers_describe(r->out, &r->nr);
		break;
	case USTCOMM_CTL_REMOVE_TRIGGER:
		if (ustcomm_parse_u32(args[1], &v) < 0) {
			r->error = "the trigger id is not a decimal number";
			ret = -EINVAL;
		} else {
			ret = ust_trace_remove_trigger(args[0], v);
		}
		break;
	case USTCOMM_CTL_GET_BLOCKING_TIMEOUT:
		ret = ust_trace_get_blocking(args[0], args[1], text, sizeof(text));
		if (ret >= 0)
			add(r, text);
		break;
	case USTCOMM_CTL_SET_TRACEFILE:
		ret = ust_trace_set_tracefile(args[0], args[1], args[2]);
		break;
	case USTCOMM_CTL_GET_TRACEFILE:
		ret = get_tracefile(r, args);
		break;
	}
	return ret;
}

void ust_control_handle(const struct ustcomm_ctl_msg *req, struct ustcomm_strbuf *out)
{
	const char *args[USTCOMM_CTL_MAX_ARGS];
	struct ustcomm_ctl_header hdr = { 0 };
	struct reply r = { .out = out, .start = out->len };
	const char *pos = NULL, *s;
	uint32_t nr = 0;
	int ret;

	ustcomm_strbuf_append(out, (const char *)&hdr, sizeof(hdr));
	ret = ustcomm_ctl_check_request(req);
	if (ret < 0) {
		r.error = ret == -EPROTO ? "unknown command or malformed request" :
			"wrong number of arguments for this command";
		goto reply;
	}
	/* A fork() child's trace waits for its first event; a request that
	 * works on the trace makes it now (trace_fork.c). Questions do not. */
	if (req->cmd != USTCOMM_CTL_INFO && req->cmd != USTCOMM_CTL_LIST_MARKERS &&
	    req->cmd != USTCOMM_CTL_SESSION_STATE)
		ust_trace_fork_resume_locked();
	if (req->cmd == USTCOMM_CTL_LOAD_SESSION) {
		/* More strings than args holds: it walks the message itself. */
		ret = ust_trace_load_session(req);
		if (ret >= 0) {
			add_u32(&r, (uint32_t)ret);
			ret = 0;
		}
		goto reply;
	}
	while ((s = ustcomm_ctl_next(req, &pos)) != NULL)
		args[nr++] = s;
	ret = execute(&r, req->cmd, args, nr);
reply:
	if (ret < 0) {
		/* The partial results make way for the reason. */
		out->len = r.start + sizeof(hdr);
		r.nr = 0;
		add(&r, r.error ? r.error : ust_trace_error());
	}
	ustcomm_ctl_header_init(&hdr, req->cmd, ret < 0 ? ret : 0, r.nr,
				(uint32_t)(out->len - r.start - sizeof(hdr)));
	if (!out->err)
		memcpy(out->buf + r.start, &hdr, sizeof(hdr));
}
