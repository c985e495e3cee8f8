/* SPDX-License-Identifier: LGPL-2.1-only */
/* Async-signal-safe: memcpy, memchr and arithmetic only. */
#include <errno.h>
#include <string.h>
#include "libustcomm/ctl_protocol.h"

_Static_assert(sizeof(struct ustcomm_ctl_header) == 24, "wire header layout");

/* Fewest and most strings of each request; -1: no upper bound but the cap. */
static const struct {
	const char *name;
	int16_t min, max;
} commands[USTCOMM_CTL_CMD_MAX + 1] = {
	[USTCOMM_CTL_INFO] = { "info", 0, 0 },
	[USTCOMM_CTL_LIST_MARKERS] = { "list-markers", 0, 0 },
	[USTCOMM_CTL_ENABLE_MARKER] = { "enable-marker", 2, -1 },
	[USTCOMM_CTL_DISABLE_MARKER] = { "disable-marker", 2, -1 },
	[USTCOMM_CTL_CREATE_TRACE] = { "create-trace", 1, 2 },
	[USTCOMM_CTL_ALLOC_TRACE] = { "alloc-trace", 1, 1 },
	[USTCOMM_CTL_START_TRACE] = { "start-trace", 1, 1 },
	[USTCOMM_CTL_STOP_TRACE] = { "stop-trace", 1, 1 },
	[USTCOMM_CTL_DESTROY_TRACE] = { "destroy-trace", 1, 1 },
	[USTCOMM_CTL_FORCE_SWITCH] = { "force-switch", 1, 1 },
	[USTCOMM_CTL_SET_SUBBUF_SIZE] = { "set-subbuf-size", 3, 3 },
	[USTCOMM_CTL_SET_SUBBUF_NUM] = { "set-subbuf-num", 3, 3 },
	[USTCOMM_CTL_GET_SUBBUF_SIZE] = { "get-subbuf-size", 2, 2 },
	[USTCOMM_CTL_GET_SUBBUF_NUM] = { "get-subbuf-num", 2, 2 },
	[USTCOMM_CTL_SET_SOCK_PATH] = { "set-sock-path", 1, 1 },
	[USTCOMM_CTL_GET_SOCK_PATH] = { "get-sock-path", 0, 0 },
	[USTCOMM_CTL_GET_SESSION] = { "get-session", 1, 1 },
	[USTCOMM_CTL_SNAPSHOT] = { "snapshot", 2, 2 },
	[USTCOMM_CTL_RECONNECT] = { "reconnect", 1, 1 },
	[USTCOMM_CTL_ENABLE_RULE] = { "enable-rule", 5, 5 },
	[USTCOMM_CTL_ADD_CONTEXT] = { "add-context", 3, 3 },
	[USTCOMM_CTL_SET_OUTPUT] = { "set-output", 2, 2 },
	[USTCOMM_CTL_LOAD_SESSION] = { "load-session", 3, -1 },
	[USTCOMM_CTL_SET_BLOCKING_TIMEOUT] = { "set-blocking-timeout", 3, 3 },
	[USTCOMM_CTL_GET_BLOCKING_TIMEOUT] = { "get-blocking-timeout", 2, 2 },
	[USTCOMM_CTL_SET_TRACEFILE] = { "set-tracefile", 3, 3 },
	[USTCOMM_CTL_GET_TRACEFILE] = { "get-tracefile", 2, 2 },
	[USTCOMM_CTL_SESSION_CREATE] = { "create-session", 5, 6 },
	[USTCOMM_CTL_SESSION_RULES] = { "enable-marker -s", 1, -1 },
	[USTCOMM_CTL_SESSION_START] = { "start-session", 1, 1 },
	[USTCOMM_CTL_SESSION_STOP] = { "stop-session", 1, 1 },
	[USTCOMM_CTL_SESSION_DESTROY] = { "destroy-session", 1, 1 },
	[USTCOMM_CTL_SESSION_LIST] = { "list-sessions", 0, 0 },
	[USTCOMM_CTL_SESSION_CONTEXT] = { "add-context -s", 3, 3 },
	[USTCOMM_CTL_SET_OVERWRITE] = { "set-overwrite", 2, 3 },
	[USTCOMM_CTL_SESSION_STATE] = { "session-state", 1, -1 },
	[USTCOMM_CTL_SESSION_ROTATE] = { "rotate-session", 1, 1 },
	[USTCOMM_CTL_SESSION_ROTATION] = { "create-session --rotate-every", 5, 5 },
	[USTCOMM_CTL_SESSION_TRIGGER] = { "add-trigger -s", 6, 6 },
	[USTCOMM_CTL_SESSION_LIST_TRIGGERS] = { "list-triggers -s", 1, 1 },
	[USTCOMM_CTL_SESSION_REMOVE_TRIGGER] = { "remove-trigger -s", 2, 2 },
	[USTCOMM_CTL_SESSION_DESCRIBE] = { "save-session -s", 1, 1 },
	[USTCOMM_CTL_SESSION_CHANNEL] = { "load-session", 7, 7 },
	[USTCOMM_CTL_SESSION_STATUS] = { "list-sessions NAME", 1, 1 },
	[USTCOMM_CTL_SESSION_SNAPSHOT] = { "snapshot -s", 2, 2 },
	[USTCOMM_CTL_SESSION_CLEAR] = { "clear-session", 1, 1 },
	[USTCOMM_CTL_SESSION_TRACK] = { "track", 4, -1 },
	[USTCOMM_CTL_SESSION_TRACKERS] = { "trackers", 1, -1 },
	[USTCOMM_CTL_ADD_TRIGGER] = { "add-trigger", 6, 6 },
	[USTCOMM_CTL_LIST_TRIGGERS] = { "list-triggers", 1, 1 },
	[USTCOMM_CTL_REMOVE_TRIGGER] = { "remove-trigger", 2, 2 },
};

/* The requests that carry a whole rule set. */
static int carries_rules(uint16_t cmd)
{
	return cmd == USTCOMM_CTL_LOAD_SESSION || cmd == USTCOMM_CTL_SESSION_RULES;
}

uint32_t ustcomm_ctl_max_request(uint16_t cmd)
{
	return carries_rules(cmd) ? USTCOMM_CTL_MAX_SESSION_REQUEST : USTCOMM_CTL_MAX_REQUEST;
}

uint32_t ustcomm_ctl_max_args(uint16_t cmd)
{
	return carries_rules(cmd) ? USTCOMM_CTL_SESSION_MAX_ARGS : USTCOMM_CTL_MAX_ARGS;
}

ssize_t ustcomm_ctl_decode(const void *buf, size_t len, uint32_t max_payload,
			   struct ustcomm_ctl_msg *msg)
{
	struct ustcomm_ctl_header hdr;
	const char *p, *end;
	uint32_t n;

	if (len < sizeof(hdr))
		return 0;
	memcpy(&hdr, buf, sizeof(hdr));
	if (hdr.magic != USTCOMM_CTL_MAGIC || hdr.version != USTCOMM_CTL_VERSION ||
	    hdr.reserved || hdr.nr_strings > hdr.payload_len)
		return -EPROTO;
	if (hdr.payload_len > max_payload)
		return -EMSGSIZE;
	if (len - sizeof(hdr) < hdr.payload_len)
		return 0;
	p = (const char *)buf + sizeof(hdr);
	end = p + hdr.payload_len;
	/* Exactly nr_strings terminated strings fill the payload. */
	for (n = 0; p < end; n++) {
		const char *nul = memchr(p, '\0', (size_t)(end - p));

		if (!nul)
			return -EPROTO;
		p = nul + 1;
	}
	if (n != hdr.nr_strings)
		return -EPROTO;
	msg->cmd = hdr.cmd;
	msg->status = hdr.status;
	msg->nr_strings = hdr.nr_strings;
	msg->payload = (const char *)buf + sizeof(hdr);
	msg->payload_len = hdr.payload_len;
	return (ssize_t)(sizeof(hdr) + hdr.payload_len);
}

int ustcomm_ctl_check_request(const struct ustcomm_ctl_msg *msg)
{
	/* The table has holes: numbers other versions gave their commands. */
	if (msg->cmd < 1 || msg->cmd > USTCOMM_CTL_CMD_MAX || !commands[msg->cmd].name ||
	    msg->status)
		return -EPROTO;
	if (msg->nr_strings < (uint32_t)commands[msg->cmd].min ||
	    msg->nr_strings > ustcomm_ctl_max_args(msg->cmd) ||
	    (commands[msg->cmd].max >= 0 && msg->nr_strings > (uint32_t)commands[msg->cmd].max))
		return -EINVAL;
	return 0;
}

const char *ustcomm_ctl_next(const struct ustcomm_ctl_msg *msg, const char **pos)
{
	const char *end = msg->payload + msg->payload_len;
	const char *p = *pos ? *pos + strlen(*pos) + 1 : msg->payload;

	if (p >= end)
		return NULL;
	*pos = p;
	return p;
}

void ustcomm_ctl_header_init(struct ustcomm_ctl_header *hdr, uint16_t cmd, int32_t status,
			     uint32_t nr_strings, uint32_t payload_len)
{
	memset(hdr, 0, sizeof(*hdr));
	hdr->magic = USTCOMM_CTL_MAGIC;
	hdr->version = USTCOMM_CTL_VERSION;
	hdr->cmd = cmd;
	hdr->status = status;
	hdr->nr_strings = nr_strings;
	hdr->payload_len = payload_len;
}

const char *ustcomm_ctl_cmd_name(uint16_t cmd)
{
	if (cmd < 1 || cmd > USTCOMM_CTL_CMD_MAX || !commands[cmd].name)
		return "unknown command";
	return commands[cmd].name;
}
