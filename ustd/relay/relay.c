/* SPDX-License-Identifier: GPL-2.0-only */
#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include "libustcomm/clock.h"
#include "libustcomm/log.h"
#include "libustcomm/relay_connect.h"
#include "ustd/output/packet_index.h"
#include "ustd/relay/relay.h"
#include "ustd/relay/relay_tx.h"

/* The commands of the relayd protocol this client sends. */
enum relay_cmd {
	RELAY_CMD_ADD_STREAM = 1,
	RELAY_CMD_CREATE_SESSION = 2,
	RELAY_CMD_VERSION = 5,
	RELAY_CMD_SEND_METADATA = 6,
	RELAY_CMD_CLOSE_STREAM = 7,
	RELAY_CMD_DATA_PENDING = 8,
	RELAY_CMD_SEND_INDEX = 13,
	RELAY_CMD_STREAMS_SENT = 16,
};

#define RELAY_MAJOR		2u
/* 2.10: the last version before trace chunks (2.11), with which relayd
 * gives each session a directory of its own and writes index 1.1. */
#define RELAY_MINOR		10u
/* The oldest with live sessions and packet indexes. */
#define RELAY_MINOR_MIN		4u
/* Index entries carry the stream instance and packet sequence number. */
#define RELAY_MINOR_INDEX_1_1	8u
/* relayd's status codes (LTTng's error codes). */
#define RELAY_OK		10u

struct relay_hdr {
	uint64_t circuit_id;
	uint64_t data_size;
	uint32_t cmd;
	uint32_t cmd_version;
} __attribute__((packed));

struct relay_version {
	uint32_t major;
	uint32_t minor;
} __attribute__((packed));

struct relay_create_session {
	char session_name[USTD_RELAY_SESSION_NAME_MAX];
	char hostname[USTD_RELAY_HOSTNAME_MAX];
	uint32_t live_timer;
	uint32_t snapshot;
} __attribute__((packed));

struct relay_status_session {
	uint64_t session_id;
	uint32_t ret_code;
} __attribute__((packed));

struct relay_add_stream {
	char channel_name[264];
	char pathname[4096];
	uint64_t tracefile_size;
	uint64_t tracefile_count;
} __attribute__((packed));

struct relay_status_stream {
	uint64_t handle;
	uint32_t ret_code;
} __attribute__((packed));

struct relay_metadata {
	uint64_t stream_id;
	uint32_t padding_size;
} __attribute__((packed));

struct relay_stream_seq {
	uint64_t stream_id;
	uint64_t last_net_seq_num;
} __attribute__((packed));

struct relay_index {
	uint64_t relay_stream_id;
	uint64_t net_seq_num;
	/* The packet's entry without its offset, which relayd knows. */
	uint64_t packet_size;
	uint64_t content_size;
	uint64_t timestamp_begin;
	uint64_t timestamp_end;
	uint64_t events_discarded;
	uint64_t stream_id;
	uint64_t stream_instance_id;	/* 2.8 on */
	uint64_t packet_seq_num;	/* 2.8 on */
} __attribute__((packed));

static __attribute__((format(printf, 3, 4)))
int relay_fail(struct ustd_relay *r, int err, const char *fmt, ...)
{
	va_list ap;

	if (!r->broken) {
		va_start(ap, fmt);
		vsnprintf(r->err, sizeof(r->err), fmt, ap);
		va_end(ap);
		r->broken = true;
	}
	return err;
}

/* A send on either connection failed with err: the connection breaks. */
static int relay_send_failed(struct ustd_relay *r, int err)
{
	return relay_fail(r, err, "sending to lttng-relayd failed: %s",
			  err == -EAGAIN ? "no progress within the timeout" :
			  err == -ENOMEM ? "no memory to queue a packet" : strerror(-err));
}

/* Sends every byte of iov, or breaks the connection. */
static int relay_sendv(struct ustd_relay *r, int fd, struct iovec *iov, int iovcnt)
{
	int ret = ustd_sendv_all(fd, iov, iovcnt);

	return ret < 0 ? relay_send_failed(r, ret) : 0;
}

/*
 * relayd's sockets have Nagle's algorithm on, and it answers each index
 * entry on its own: of several answers due, the first goes out at once and
 * the rest wait for our ACK of it, which our kernel delays by up to 40 ms
 * when we send nothing meanwhile. Before waiting for an answer that is not
 * there yet, that ACK is sent at once (TCP_QUICKACK); without it, streaming
 * at full speed stalled 40 ms every few packets and the writers discarded
 * most of their events (manual 9.1).
 */
static int relay_recv(struct ustd_relay *r, void *buf, size_t len)
{
	static const int one = 1;
	char *p = buf;
	ssize_t n;

	while (len) {
		n = recv(r->ctrl_fd, p, len, MSG_DONTWAIT);
		if (n < 0 && errno == EAGAIN) {
			if (setsockopt(r->ctrl_fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof(one)) < 0)
				ustcomm_dbg("relay: TCP_QUICKACK: %s", strerror(errno));
			n = recv(r->ctrl_fd, p, len, 0);
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			return relay_fail(r, -ECONNRESET, "lttng-relayd closed the connection");
		if (n < 0)
			return relay_fail(r, -errno, "no answer from lttng-relayd: %s",
					  errno == EAGAIN ? "none within the timeout" : strerror(errno));
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* One owed answer, complete in r->partial: to its command. */
static int relay_owed_answer(struct ustd_relay *r)
{
	struct ustd_relay_query *q = r->owed[r->owed_head];
	uint32_t code;

	memcpy(&code, r->partial, sizeof(code));
	code = be32toh(code);
	r->partial_len = 0;
	r->owed_head = (r->owed_head + 1) % USTD_RELAY_UNANSWERED_MAX;
	r->unanswered--;
	/* Whatever it says, nobody asks any more: the stream may be closed
	 * and unknown to relayd by now, which must not break the connection
	 * that other processes share. */
	if (q == &r->forgotten)
		return 0;
	if (!q) {
		if (code != RELAY_OK)
			return relay_fail(r, -EPROTO, "lttng-relayd refused a packet index or a live beacon (status %u; its own log says why)",
					  code);
		return 0;
	}
	q->busy = false;
	/* 0 or 1; anything else is relayd not knowing the stream. */
	if (code > 1)
		return relay_fail(r, -EPROTO, "lttng-relayd no longer knows a stream it was sent");
	if (code == 0) {
		/* Pairs with the store-release in relay_tx_thread(). */
		uint64_t upto = __atomic_load_n(q->sent, __ATOMIC_ACQUIRE);

		if (upto > q->seq + 1)
			upto = q->seq + 1;
		if (*q->confirmed < upto)
			*q->confirmed = upto;
	}
	return 0;
}

/*
 * Reads the answers owed: all of them, waiting for each (wait), or those
 * that have come. A refusal breaks the connection like any other.
 */
static int relay_read_owed(struct ustd_relay *r, bool wait)
{
	static const int one = 1;
	ssize_t n;
	int ret = 0;

	while (r->unanswered && ret == 0) {
		if (wait) {
			ret = relay_recv(r, r->partial + r->partial_len,
					 sizeof(r->partial) - r->partial_len);
			if (ret == 0)
				ret = relay_owed_answer(r);
			continue;
		}
		n = recv(r->ctrl_fd, r->partial + r->partial_len,
			 sizeof(r->partial) - r->partial_len, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			/* relayd may hold the next answer until it has our ACK of
			 * the last one (relay_recv()). */
			if (setsockopt(r->ctrl_fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof(one)) < 0)
				ustcomm_dbg("relay: TCP_QUICKACK: %s", strerror(errno));
			break;
		}
		if (n == 0)
			return relay_fail(r, -ECONNRESET, "lttng-relayd closed the connection");
		if (n < 0)
			return relay_fail(r, -errno, "no answer from lttng-relayd: %s", strerror(errno));
		r->partial_len += (uint32_t)n;
		if (r->partial_len == sizeof(r->partial))
			ret = relay_owed_answer(r);
	}
	return ret;
}

/* Counts one more answer owed, to q (NULL: a SEND_INDEX's); when as many
 * are owed as are kept track of, reads them first. */
static int relay_owe(struct ustd_relay *r, struct ustd_relay_query *q)
{
	int ret = 0;

	if (r->unanswered == USTD_RELAY_UNANSWERED_MAX)
		ret = relay_read_owed(r, true);
	if (ret < 0)
		return ret;
	r->owed[(r->owed_head + r->unanswered) % USTD_RELAY_UNANSWERED_MAX] = q;
	r->owed_since[(r->owed_head + r->unanswered) % USTD_RELAY_UNANSWERED_MAX] = ust_clock_read_kind(0);
	r->unanswered++;
	return 0;
}

static int relay_status(struct ustd_relay *r, const char *what, uint32_t *code);

/* One command on the control connection, with an optional extra piece
 * sent after the payload (metadata text). A command that is answered
 * first takes the answers still due, so that its own is the next read. */
static int relay_command(struct ustd_relay *r, enum relay_cmd cmd, const void *payload,
			 size_t len, const void *extra, size_t extra_len)
{
	struct relay_hdr hdr = {
		.data_size = htobe64(len + extra_len),
		.cmd = htobe32(cmd),
	};
	struct iovec iov[3] = {
		{ &hdr, sizeof(hdr) },
		{ (void *)payload, len },
		{ (void *)extra, extra_len },
	};

	int ret;

	if (r->broken)
		return -ENOTCONN;
	if (cmd != RELAY_CMD_SEND_INDEX && cmd != RELAY_CMD_SEND_METADATA &&
	    cmd != RELAY_CMD_DATA_PENDING) {
		ret = relay_read_owed(r, true);
		if (ret < 0)
			return ret;
	}
	return relay_sendv(r, r->ctrl_fd, iov, 3);
}

/* A command and its fixed-size answer. */
static int relay_call(struct ustd_relay *r, enum relay_cmd cmd, const void *payload,
		      size_t len, void *reply, size_t reply_len)
{
	int ret = relay_command(r, cmd, payload, len, NULL, 0);

	return ret < 0 ? ret : relay_recv(r, reply, reply_len);
}

/* Commands answered by a bare status code. */
static int relay_status(struct ustd_relay *r, const char *what, uint32_t *code)
{
	uint32_t status;
	int ret = relay_recv(r, &status, sizeof(status));

	if (ret < 0)
		return ret;
	*code = be32toh(status);
	if (!what || *code == RELAY_OK)
		return 0;
	return relay_fail(r, -EPROTO, "lttng-relayd refused %s (status %u; its own log says why)",
			  what, *code);
}

/* A connection on one of url's ports; the failure's words in r->err. */
static int relay_connect_port(struct ustd_relay *r, const struct ustcomm_relay_url *url,
			      uint16_t port, const char *text, const char *which)
{
	int fd;

	fd = ustcomm_relay_connect_port(url, text, port, which, USTD_RELAY_TIMEOUT_MS, r->err,
					sizeof(r->err));
	if (fd < 0)
		r->broken = true;
	return fd;
}

int ustd_relay_connect(struct ustd_relay *r, const struct ustcomm_relay_url *url,
		       const char *text)
{
	struct relay_version v = { htobe32(RELAY_MAJOR), htobe32(RELAY_MINOR) };
	int ret;

	memset(r, 0, sizeof(*r));
	r->ctrl_fd = r->data_fd = -1;
	ret = relay_connect_port(r, url, url->ctrl_port, text, "control");
	if (ret < 0)
		goto end;
	r->ctrl_fd = ret;
	ret = relay_connect_port(r, url, url->data_port, text, "data");
	if (ret < 0)
		goto end;
	r->data_fd = ret;
	ret = relay_call(r, RELAY_CMD_VERSION, &v, sizeof(v), &v, sizeof(v));
	if (ret < 0) {
		r->broken = false;
		ret = relay_fail(r, ret, "cannot reach lttng-relayd at %s: the version handshake failed (is it an lttng-relayd?)",
				 text);
		goto end;
	}
	r->minor = be32toh(v.minor) < RELAY_MINOR ? be32toh(v.minor) : RELAY_MINOR;
	if (be32toh(v.major) != RELAY_MAJOR || r->minor < RELAY_MINOR_MIN) {
		ret = relay_fail(r, -EPROTONOSUPPORT,
				 "lttng-relayd at %s speaks protocol %u.%u; ustd needs 2.%u or later",
				 text, be32toh(v.major), be32toh(v.minor), RELAY_MINOR_MIN);
		goto end;
	}
	ret = ustd_relay_tx_start(&r->tx, r->data_fd);
	if (ret < 0)
		ret = relay_fail(r, ret, "cannot start sending to lttng-relayd at %s: %s", text,
				 strerror(-ret));
end:
	if (ret < 0)
		ustd_relay_close(r);
	return ret;
}

int ustd_relay_create_session(struct ustd_relay *r, const char *name, const char *hostname,
			      uint32_t live_timer_us)
{
	struct relay_create_session msg = { .live_timer = htobe32(live_timer_us) };
	struct relay_status_session reply;
	int ret;

	if (strlen(name) >= sizeof(msg.session_name) || strlen(hostname) >= sizeof(msg.hostname))
		return relay_fail(r, -ENAMETOOLONG, "the session name %s or host name %s is too long for lttng-relayd",
				  name, hostname);
	memcpy(msg.session_name, name, strlen(name));
	memcpy(msg.hostname, hostname, strlen(hostname));
	ret = relay_call(r, RELAY_CMD_CREATE_SESSION, &msg, sizeof(msg), &reply, sizeof(reply));
	if (ret < 0)
		return ret;
	if (be32toh(reply.ret_code) != RELAY_OK)
		return relay_fail(r, -EPROTO, "lttng-relayd refused to create session %s (status %u; its own log says why)",
				  name, be32toh(reply.ret_code));
	r->session_id = be64toh(reply.session_id);
	return 0;
}

int ustd_relay_add_stream(struct ustd_relay *r, const char *name, const char *path,
			  uint64_t tracefile_size, uint32_t tracefile_count, uint64_t *handle)
{
	struct relay_add_stream msg = { 0 };
	struct relay_status_stream reply;
	int ret;

	if (strlen(name) >= sizeof(msg.channel_name) || strlen(path) >= USTD_RELAY_PATH_MAX)
		return relay_fail(r, -ENAMETOOLONG, "stream %s/%s has too long a name for lttng-relayd",
				  path, name);
	memcpy(msg.channel_name, name, strlen(name));
	memcpy(msg.pathname, path, strlen(path));
	msg.tracefile_size = htobe64(tracefile_size);
	msg.tracefile_count = htobe64(tracefile_count);
	ret = relay_call(r, RELAY_CMD_ADD_STREAM, &msg, sizeof(msg), &reply, sizeof(reply));
	if (ret < 0)
		return ret;
	if (be32toh(reply.ret_code) != RELAY_OK)
		return relay_fail(r, -EPROTO, "lttng-relayd refused stream %s/%s (status %u; its own log says why)",
				  path, name, be32toh(reply.ret_code));
	*handle = be64toh(reply.handle);
	return 0;
}

int ustd_relay_streams_sent(struct ustd_relay *r)
{
	uint32_t code;
	int ret = relay_command(r, RELAY_CMD_STREAMS_SENT, NULL, 0, NULL, 0);

	return ret < 0 ? ret : relay_status(r, "the new streams", &code);
}

int ustd_relay_send_metadata(struct ustd_relay *r, uint64_t handle, const char *text,
			     size_t len)
{
	struct relay_metadata msg = { .stream_id = htobe64(handle) };

	/* Not answered: the metadata stream's file grows, or the connection
	 * breaks. */
	return relay_command(r, RELAY_CMD_SEND_METADATA, &msg, sizeof(msg), text, len);
}

/* Before 2.8 an entry ends before the stream instance. */
static int relay_send_index(struct ustd_relay *r, const struct relay_index *idx)
{
	size_t len = r->minor >= RELAY_MINOR_INDEX_1_1 ? sizeof(*idx) :
		offsetof(struct relay_index, stream_instance_id);
	int ret = relay_owe(r, NULL);

	return ret < 0 ? ret : relay_command(r, RELAY_CMD_SEND_INDEX, idx, len, NULL, 0);
}

int ustd_relay_send_packet(struct ustd_relay *r, uint64_t handle, uint64_t seq,
			   const char *pkt, size_t len, uint64_t *done)
{
	struct ust_index_entry e;
	struct relay_index idx;
	int ret;

	if (r->broken)
		return -ENOTCONN;
	/*
	 * The data first, then its index entry, as lttng-consumerd does: the
	 * entry may still reach relayd first (it keeps whichever half of a
	 * packet comes first until the other does, reading its two
	 * connections apart), but when the control connection ends relayd
	 * waits for the data of every entry it holds, and drops entries whose
	 * data never comes only in this order (data without an entry it takes
	 * for a consumer that died between the two). Entry first, a packet
	 * whose data could not follow kept relayd's stream open for good.
	 */
	ret = ustd_relay_tx_queue(r->tx, handle, seq, pkt, len, done);
	if (ret < 0)
		return relay_send_failed(r, ret);
	ustd_index_entry(&e, pkt, 0);
	idx = (struct relay_index) {
		.relay_stream_id = htobe64(handle),
		.net_seq_num = htobe64(seq),
		.packet_size = e.packet_size,
		.content_size = e.content_size,
		.timestamp_begin = e.timestamp_begin,
		.timestamp_end = e.timestamp_end,
		.events_discarded = e.events_discarded,
		.stream_id = e.stream_id,
		.stream_instance_id = e.stream_instance_id,
		.packet_seq_num = e.packet_seq_num,
	};
	return relay_send_index(r, &idx);
}

int ustd_relay_send_beacon(struct ustd_relay *r, uint64_t handle, uint32_t stream_id,
			   uint64_t ts)
{
	/* packet_size 0 is what makes an index a beacon. */
	struct relay_index idx = {
		.relay_stream_id = htobe64(handle),
		.net_seq_num = htobe64(UINT64_MAX),
		.timestamp_end = htobe64(ts),
		.stream_id = htobe64(stream_id),
	};

	return relay_send_index(r, &idx);
}

int ustd_relay_data_pending(struct ustd_relay *r, uint64_t handle, uint64_t seq)
{
	struct relay_stream_seq msg = { htobe64(handle), htobe64(seq) };
	uint32_t code = 0;
	int ret = r->broken ? -ENOTCONN : relay_read_owed(r, true);

	if (ret == 0)
		ret = relay_command(r, RELAY_CMD_DATA_PENDING, &msg, sizeof(msg), NULL, 0);
	if (ret == 0)
		ret = relay_status(r, NULL, &code);
	if (ret < 0)
		return ret;
	/* 0 or 1; anything else is relayd not knowing the stream. */
	if (code > 1)
		return relay_fail(r, -EPROTO, "lttng-relayd no longer knows stream %llu",
				  (unsigned long long)handle);
	return (int)code;
}

int ustd_relay_ask_pending(struct ustd_relay *r, uint64_t handle, uint64_t seq,
			   struct ustd_relay_query *q)
{
	struct relay_stream_seq msg = { htobe64(handle), htobe64(seq) };
	int ret;

	if (r->broken)
		return -ENOTCONN;
	if (q->busy)
		return 0;
	ret = relay_owe(r, q);
	if (ret < 0)
		return ret;
	q->busy = true;
	q->seq = seq;
	return relay_command(r, RELAY_CMD_DATA_PENDING, &msg, sizeof(msg), NULL, 0);
}

int ustd_relay_poll(struct ustd_relay *r)
{
	int ret = r->broken ? -ENOTCONN : relay_read_owed(r, false);

	/* A relayd that stopped answering is as gone as one that stopped
	 * reading: nothing else would tell, the drain no longer waiting. */
	if (ret == 0 && r->unanswered &&
	    ust_clock_read_kind(0) - r->owed_since[r->owed_head] > USTD_RELAY_TIMEOUT_MS * 1000000ull)
		ret = relay_fail(r, -ETIMEDOUT, "no answer from lttng-relayd: none within the timeout");
	return ret;
}

int ustd_relay_sync(struct ustd_relay *r)
{
	int ret;

	if (r->broken)
		return -ENOTCONN;
	ret = ustd_relay_tx_flush(r->tx);
	return ret < 0 ? relay_send_failed(r, ret) : 0;
}

int ustd_relay_close_stream(struct ustd_relay *r, uint64_t handle, uint64_t last_seq)
{
	struct relay_stream_seq msg = { htobe64(handle), htobe64(last_seq) };
	uint32_t code;
	int ret = ustd_relay_sync(r);

	if (ret == 0)
		ret = relay_command(r, RELAY_CMD_CLOSE_STREAM, &msg, sizeof(msg), NULL, 0);
	return ret < 0 ? ret : relay_status(r, "to close a stream", &code);
}

void ustd_relay_forget(struct ustd_relay *r, const struct ustd_relay_query *q)
{
	uint32_t i, at;

	for (i = 0; i < r->unanswered; i++) {
		at = (r->owed_head + i) % USTD_RELAY_UNANSWERED_MAX;
		if (r->owed[at] == q)
			r->owed[at] = &r->forgotten;
	}
}

void ustd_relay_close(struct ustd_relay *r)
{
	/* The questions on their way get no answer now. */
	for (; r->unanswered; r->unanswered--) {
		if (r->owed[r->owed_head] && r->owed[r->owed_head] != &r->forgotten)
			r->owed[r->owed_head]->busy = false;
		r->owed_head = (r->owed_head + 1) % USTD_RELAY_UNANSWERED_MAX;
	}
	if (r->tx) {
		if (!r->broken)
			ustd_relay_sync(r);
		ustd_relay_tx_stop(r->tx);
		r->tx = NULL;
	}
	if (r->ctrl_fd >= 0)
		close(r->ctrl_fd);
	if (r->data_fd >= 0)
		close(r->data_fd);
	r->ctrl_fd = r->data_fd = -1;
	r->broken = true;
}
