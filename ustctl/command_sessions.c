/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Sessions held by ustd: create-session, start-session, stop-session,
 * destroy-session, list-sessions, and the -s NAME forms of enable-marker,
 * disable-marker and add-context. Names, patterns and options are checked
 * before anything is sent.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <ust/ustctl.h>
#include "libustcomm/bufsize.h"
#include "libustcomm/ctl_protocol.h"
#include "libustcomm/relay_url.h"
#include "libustcomm/format.h"
#include "libustcomm/loss.h"
#include "libustcomm/shm_layout.h"
#include "ustctl/command.h"
#include "ustctl/output.h"

/* -r URL: a URL as usttrace and create-trace take it, and none of what
 * a streamed session does not do. Said; nonzero when refused. */
static int session_relay_check(const struct ustctl_args *args, bool rotates)
{
	struct ustcomm_relay_url url;
	const char *why;

	if (ustcomm_relay_url_parse(args->relay, &url, &why) < 0)
		return ustctl_usage_error(args->cmd, "-r %s: %s (expected net://HOST[:CONTROL_PORT[:DATA_PORT]])",
					  args->relay, why);
	if (args->overwrite)
		return ustctl_usage_error(args->cmd, "-r and --overwrite: a flight-recorder session's snapshots are written locally; give -o DIR");
	if (rotates)
		return ustctl_usage_error(args->cmd, "-r and --rotate-*/--on-rotate: rotation of sessions streamed to lttng-relayd is not done (see the manual, 4.2)");
	return 0;
}

/* Where a streamed session's traces go: relayd names its directory after
 * the session's local one (dir), under this host's name. */
static void session_relay_say(const char *name, const char *relay, const char *dir)
{
	const char *base = strrchr(dir, '/'), *why;
	struct ustcomm_relay_url url;
	char host[USTCOMM_RELAY_HOST_MAX];
	bool v6;

	if (gethostname(host, sizeof(host)) < 0 || !host[0])
		snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = '\0';
	if (ustcomm_relay_url_parse(relay, &url, &why) < 0)
		return;
	v6 = strchr(url.host, ':') != NULL;
	printf("session %s created; its traces stream to lttng-relayd at %s as relay session %s, in %s/%s under relayd's output; live, if relayd serves viewers on its default port: net://%s%s%s:%u/host/%s/%s; if relayd goes away, the rest goes in %s\n",
	       name, relay, name, host, base ? base + 1 : dir, v6 ? "[" : "", url.host, v6 ? "]" : "",
	       USTCOMM_RELAY_LIVE_PORT, host, name, dir);
}

/* --tracefile-size BYTES [--tracefile-count N]: 0 with *size 0 when not
 * given, or the exit status after a usage error. */
static int tracefile_options(const struct ustctl_args *args, uint64_t *size, uint32_t *count)
{
	*size = 0;
	*count = 0;
	if (args->tracefile_count && !args->tracefile_size)
		return ustctl_usage_error(args->cmd, "--tracefile-count needs --tracefile-size: it counts the files each stream is cut into");
	if (args->tracefile_size &&
	    ustcomm_parse_size(args->tracefile_size, UST_TRACEFILE_SIZE_MIN, UST_TRACEFILE_SIZE_MAX,
			       size) < 0)
		return ustctl_usage_error(args->cmd, "--tracefile-size %s: bytes from %llu (k, M and G suffixes allowed)",
					  args->tracefile_size, UST_TRACEFILE_SIZE_MIN);
	if (args->tracefile_count && (ustcomm_parse_u32(args->tracefile_count, count) < 0 ||
				      *count > UST_TRACEFILE_COUNT_MAX))
		return ustctl_usage_error(args->cmd, "--tracefile-count %s: a number of files up to %u (0: keep all)",
					  args->tracefile_count, UST_TRACEFILE_COUNT_MAX);
	return 0;
}

int ustctl_cmd_create_session(const struct ustctl_args *args)
{
	const char *name = args->argv[0];
	struct ustctl_rotation rot;
	uint32_t size = 0, num = 0, tf_count;
	uint64_t tf_size;
	char *dir = NULL;
	bool rotates;
	int status;

	if (ustctl_check_session_name_arg(args->cmd, name))
		return USTCTL_EXIT_USAGE;
	status = ustctl_rotation_options(args, &rot, &rotates);
	if (!status)
		status = tracefile_options(args, &tf_size, &tf_count);
	if (status)
		return status;
	if (args->relay && session_relay_check(args, rotates))
		return USTCTL_EXIT_USAGE;
	if (args->subbuf_size && ustcomm_parse_pow2(args->subbuf_size, UST_SUBBUF_SIZE_MIN,
						    UST_SUBBUF_SIZE_MAX, &size) < 0)
		return ustctl_usage_error(args->cmd, "--subbuf-size %s: a power of two from %u to %u bytes (k and M suffixes allowed)",
					  args->subbuf_size, UST_SUBBUF_SIZE_MIN, UST_SUBBUF_SIZE_MAX);
	if (args->subbuf_num && ustcomm_parse_pow2(args->subbuf_num, UST_SUBBUF_NUM_MIN,
						   UST_SUBBUF_NUM_MAX, &num) < 0)
		return ustctl_usage_error(args->cmd, "--subbuf-num %s: a power of two from %u to %u",
					  args->subbuf_num, UST_SUBBUF_NUM_MIN, UST_SUBBUF_NUM_MAX);
	if (ustctl_create_session_buffers(name, args->relay ? args->relay : args->dir,
					  args->overwrite, size, num, args->buffers, &dir) < 0)
		return ustctl_session_failed(args->cmd, name);
	/* All or nothing: a session without the schedule or limits asked for goes. */
	if ((rotates && ustctl_set_session_rotation(name, &rot) < 0) ||
	    (tf_size && ustctl_session_set_tracefile(name, "*", tf_size, tf_count) < 0)) {
		status = ustctl_session_failed(args->cmd, name);
		ustctl_destroy_session(name);
		free(dir);
		return status;
	}
	ustctl_session_mi_ok(name);
	ustctl_mi_element("directory", "%s", dir);
	if (args->relay)
		ustctl_mi_element("relay", "%s", args->relay);
	ustctl_session_buffers_out(args->buffers, NULL);
	ustctl_mi_close();
	if (args->relay && !ustctl_out_mi())
		session_relay_say(name, args->relay, dir);
	else if (!ustctl_out_mi())
		printf("session %s created%s%s; its traces go in %s\n", name,
		       args->overwrite ? " in flight-recorder mode" : "",
		       args->buffers == USTCTL_BUFFERS_PER_UID ?
		       " with per-user buffers (the processes of one user share them)" : "", dir);
	free(dir);
	return USTCTL_EXIT_OK;
}

/* start-session's programs left alone, one element per session they trace
 * (no attribute: a trace of no session). */
static void busy_mi(const struct ustctl_session_busy *busy, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		ustctl_mi_open("left-alone");
		if (busy[i].session[0])
			ustctl_mi_attr("session", "%s", busy[i].session);
		ustctl_mi_text("%u", busy[i].programs);
		ustctl_mi_close();
	}
}

/* "; 3 more match it but trace another session: s1 (2), a trace of
 * their own (1)", or "" when none was left alone. */
static const char *busy_words(const struct ustctl_session_busy *busy, size_t nr, char *out,
			      size_t size)
{
	size_t i, len;
	unsigned total = 0;

	for (i = 0; i < nr; i++)
		total += busy[i].programs;
	out[0] = '\0';
	if (!total)
		return out;
	snprintf(out, size, "; %u more match%s it but trace%s another session, left alone (each traces four sessions already, the most a process holds):",
		 total, total == 1 ? "es" : "", total == 1 ? "s" : "");
	for (i = 0; i < nr; i++) {
		len = strlen(out);
		snprintf(out + len, size - len, "%s %s%s (%u)", i ? "," : "",
			 busy[i].session[0] ? "session " : "a trace of no session",
			 busy[i].session, busy[i].programs);
	}
	return out;
}

/* start-session, stop-session, destroy-session. */
int ustctl_cmd_session_op(const struct ustctl_args *args)
{
	const char *name = args->argv[0], *verb = args->cmd->name;
	struct ustctl_session_busy *busy = NULL;
	uint64_t discarded = 0;
	char *dir = NULL, what[USTCOMM_SESSION_NAME_MAX + 4200], left[1024];
	size_t nr_busy = 0;
	int n;

	if (ustctl_check_session_name_arg(args->cmd, name))
		return USTCTL_EXIT_USAGE;
	if (!strcmp(verb, "start-session"))
		n = ustctl_start_session_busy(name, &busy, &nr_busy);
	else
		n = ustctl_end_session(name, verb[0] == 'd', &discarded, &dir);
	if (n < 0)
		return ustctl_session_failed(args->cmd, name);
	ustctl_session_mi_ok(name);
	if (verb[0] != 'd')
		ustctl_mi_element("processes", "%d", n);
	busy_mi(busy, nr_busy);
	if (dir)
		ustctl_mi_element("events-discarded", "%" PRIu64, discarded);
	ustctl_mi_close();
	/* On stderr, whatever the output's form: a loss is never silent. */
	if (dir) {
		snprintf(what, sizeof(what), "by the traces of session %s, counted in the packets of %s",
			 name, dir);
		ustcomm_loss_warn(discarded, what);
	}
	free(dir);
	if (ustctl_out_mi())
		goto end;
	if (verb[0] == 'd')
		printf("session %s destroyed; its traces are complete on disk\n", name);
	else
		printf("session %s %s (%d running program%s %s it now%s)\n", name,
		       verb[2] == 'a' ? "started" : "stopped", n, n == 1 ? "" : "s",
		       verb[2] == 'a' ? "trace" : "stopped tracing for",
		       busy_words(busy, nr_busy, left, sizeof(left)));
end:
	ustctl_free_session_busy(busy, nr_busy);
	return USTCTL_EXIT_OK;
}

/* A listed session's buffers, rotation schedule and triggers, indented
 * under its line; a session destroyed meanwhile has none. */
static void session_details(const char *name)
{
	struct ustctl_session_trigger *t = NULL;
	struct ustctl_session_extra *x = NULL;
	struct ustctl_session *s = NULL;
	size_t nr = 0;

	if (ustctl_describe_session(name, &s, &x) == 0) {
		/* A streamed session's output is its relayd's URL. */
		if (s->output && strstr(s->output, "://")) {
			ustctl_mi_element("relay", "%s", s->output);
			if (!ustctl_out_mi())
				printf("\tstreamed to lttng-relayd at %s\n", s->output);
		}
		ustctl_session_buffers_out(x->buffers, "\t");
		ustctl_rotation_out(&x->rotation, "\t");
		ustctl_session_free(s);
		ustctl_session_extra_free(x);
	}
	if (ustctl_session_list_triggers(name, &t, &nr) == 0) {
		ustctl_session_triggers_out(t, nr, "\ttrigger ");
		ustctl_free_session_triggers(t, nr);
	}
}

int ustctl_cmd_list_sessions(const struct ustctl_args *args)
{
	struct ustctl_session_info *s;
	size_t nr, i;

	if (args->argc)
		return ustctl_cmd_session_show(args);
	if (ustctl_list_sessions(&s, &nr) < 0) {
		ustctl_fail(0, "%s: %s", args->cmd->name, ustctl_last_error());
		return ustctl_call_status(args->cmd);
	}
	for (i = 0; i < nr; i++) {
		ustctl_mi_open("ustd-session");
		ustctl_mi_attr("name", "%s", s[i].name);
		ustctl_mi_attr("state", "%s", s[i].state);
		ustctl_mi_attr("overwrite", "%s", s[i].overwrite ? "true" : "false");
		ustctl_mi_attr("processes", "%u", s[i].nr_processes);
		ustctl_mi_attr("rules", "%u", s[i].nr_rules);
		ustctl_mi_element("directory", "%s", s[i].dir);
		if (!ustctl_out_mi())
			printf("%s\t%s\t%u process%s\t%u rule%s\t%s%s\n", s[i].name, s[i].state,
			       s[i].nr_processes, s[i].nr_processes == 1 ? "" : "es", s[i].nr_rules,
			       s[i].nr_rules == 1 ? "" : "s", s[i].dir,
			       s[i].overwrite ? "\t(flight recorder)" : "");
		session_details(s[i].name);
		ustctl_mi_close();
	}
	ustctl_free_session_infos(s, nr);
	return USTCTL_EXIT_OK;
}

/* enable-marker -s NAME / disable-marker -s NAME: one rule per pattern. */
int ustctl_cmd_session_markers(const struct ustctl_args *args, bool enable)
{
	struct ustctl_rule *rules;
	int i, n, status = USTCTL_EXIT_OK;

	if (ustctl_check_session_name_arg(args->cmd, args->session))
		return USTCTL_EXIT_USAGE;
	for (i = 0; i < args->argc; i++)
		if (ustctl_check_pattern(args->cmd, args->argv[i]))
			return USTCTL_EXIT_USAGE;
	rules = calloc(args->argc > 0 ? (size_t)args->argc : 1, sizeof(*rules));
	if (!rules) {
		ustctl_fail(0, "%s", strerror(ENOMEM));
		return USTCTL_EXIT_FAILED;
	}
	for (i = 0; i < args->argc; i++) {
		rules[i] = args->rule;
		rules[i].enable = enable;
		rules[i].pattern = (char *)args->argv[i];
	}
	n = ustctl_session_add_rules(args->session, rules, (size_t)args->argc);
	if (n < 0) {
		status = ustctl_session_failed(args->cmd, args->session);
		goto end;
	}
	ustctl_session_mi_ok(args->session);
	for (i = 0; i < args->argc; i++)
		ustctl_mi_rule(&rules[i]);
	ustctl_mi_close();
	if (!ustctl_out_mi()) {
		printf("session %s: %s", args->session, enable ? "enabled" : "disabled");
		for (i = 0; i < args->argc; i++)
			printf(" %s", args->argv[i]);
		if (enable && args->rule.filter)
			printf(" with filter '%s'", args->rule.filter);
		printf(" (%d rule%s in the session)\n", n, n == 1 ? "" : "s");
	}
end:
	free(rules);
	return status;
}

/* add-context -s NAME CHANNEL CONTEXT... */
int ustctl_cmd_session_context(const struct ustctl_args *args)
{
	const char *channel = args->argv[0];
	int i;

	if (ustctl_check_session_name_arg(args->cmd, args->session) ||
	    ustctl_check_channel(args->cmd, channel))
		return USTCTL_EXIT_USAGE;
	for (i = 1; i < args->argc; i++)
		if (ustctl_context_check(args->argv[i]) < 0)
			return ustctl_usage_error(args->cmd, "%s", ustctl_last_error());
	for (i = 1; i < args->argc; i++)
		if (ustctl_session_add_context(args->session, channel, args->argv[i]) < 0)
			return ustctl_session_failed(args->cmd, args->session);
	ustctl_session_mi_ok(args->session);
	ustctl_mi_close();
	if (!ustctl_out_mi())
		printf("session %s: channel %s records %d more context%s\n", args->session, channel,
		       args->argc - 1, args->argc == 2 ? "" : "s");
	return USTCTL_EXIT_OK;
}
