/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The wire protocol between an application (libust) and ustd on ustd's UNIX
 * stream socket. Every message is a fixed header followed by payload_len
 * bytes; descriptors travel as SCM_RIGHTS with the header's first byte.
 * Everything received is checked (magic, version, type, lengths, descriptor
 * count, NUL termination of strings) before anyone looks at it.
 */
#ifndef USTCOMM_PROTOCOL_H
#define USTCOMM_PROTOCOL_H

#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>
#include "libustcomm/common.h"
#include "libustcomm/shm_layout.h"

#define USTCOMM_MAGIC		0x55535450u	/* "USTP" */
/* 7: thread buffers (UST_SHM_FLAG_THREAD in STREAM), which version 6
 * refused as invalid. */
#define USTCOMM_VERSION		7u
#define USTCOMM_MAX_PAYLOAD	(1u << 20)
#define USTCOMM_MAX_FDS		2u

enum ustcomm_msg_type {
	/* app -> ustd, first message: struct ustcomm_hello */
	USTCOMM_MSG_HELLO = 1,
	/* app -> ustd: TSDL text to append to the metadata file, in one write */
	USTCOMM_MSG_METADATA = 2,
	/* app -> ustd: struct ustcomm_stream + fds {shm memfd, wakeup eventfd} */
	USTCOMM_MSG_STREAM = 3,
	/* app -> ustd: every buffer was flushed; the trace is complete */
	USTCOMM_MSG_GOODBYE = 4,
	/* app -> ustd, after the event's METADATA: struct ustcomm_event_layout
	 * and its fields, so that ustd can walk a packet the application left
	 * unfinished (crash rescue) without parsing TSDL */
	USTCOMM_MSG_EVENT_LAYOUT = 5,
	/* app -> ustd: struct ustcomm_snapshot; the application flushed its
	 * buffers and waits for USTCOMM_MSG_SNAPSHOT_DONE */
	USTCOMM_MSG_SNAPSHOT = 6,
	/* ustd -> app: struct ustcomm_snapshot_done */
	USTCOMM_MSG_SNAPSHOT_DONE = 7,
	/* app -> ustd, after HELLO: no payload, one fd, a SOCK_SEQPACKET
	 * socket on which the application sends USTCOMM_MSG_TRIGGER_FIRED */
	USTCOMM_MSG_TRIGGER_CHANNEL = 8,
	/* app -> ustd, one datagram on the trigger channel only: header,
	 * struct ustcomm_trigger_fired, then the directory, NUL-terminated
	 * (payload_len counts both) */
	USTCOMM_MSG_TRIGGER_FIRED = 9,
	/*
	 * Buffers per user (a session's --buffers-uid): the processes of one
	 * uid write into rings ustd made, so ustd gives out the channels'
	 * buffers and the events' ids, which must mean the same in every
	 * process of the set, and writes the set's metadata itself. The
	 * program asks and waits for the answer, under its lock; nothing
	 * else comes to it on the connection meanwhile.
	 */
	/* app -> ustd: struct ustcomm_uid_channel */
	USTCOMM_MSG_UID_CHANNEL = 10,
	/* ustd -> app: struct ustcomm_uid_reply (id: the stream id), then,
	 * when status is 0, nr_cpus USTCOMM_MSG_STREAM, each with its fds */
	USTCOMM_MSG_UID_CHANNEL_REPLY = 11,
	/* app -> ustd: struct ustcomm_uid_event, then the event's name,
	 * NUL-terminated, its fields' TSDL (ustcomm_metadata_fields()),
	 * NUL-terminated, and nr_fields struct ustcomm_field_layout */
	USTCOMM_MSG_UID_EVENT = 12,
	/* ustd -> app: struct ustcomm_uid_reply (id: the event id) */
	USTCOMM_MSG_UID_EVENT_REPLY = 13,
};

struct ustcomm_msg_header {
	uint32_t magic;
	uint16_t version;
	uint16_t type;
	uint32_t payload_len;
	uint32_t nr_fds;
};

/* The header of a message of this version. Async-signal-safe. */
static inline struct ustcomm_msg_header ustcomm_msg_header_make(uint16_t type, uint32_t payload_len,
								uint32_t nr_fds)
{
	struct ustcomm_msg_header hdr = {
		.magic = USTCOMM_MAGIC,
		.version = USTCOMM_VERSION,
		.type = type,
		.payload_len = payload_len,
		.nr_fds = nr_fds,
	};

	return hdr;
}

/* Which trace clock the application reads (clock.h), so that ustd can
 * take times of the same clock when it closes a live stream's packet. */
enum ustcomm_clock_kind {
	USTCOMM_CLOCK_MONOTONIC = 0,
	USTCOMM_CLOCK_TSC = 1,
};

struct ustcomm_hello {
	uint32_t pid;
	uint32_t clock;			/* enum ustcomm_clock_kind */
	uint8_t uuid[16];		/* trace uuid */
	char procname[32];		/* NUL-terminated */
	char trace_name[64];		/* NUL-terminated */
	/* Where the trace goes (trace_output.h), NUL-terminated: "" for
	 * ustd's own choice, an absolute directory or a relayd URL. */
	char output[USTCOMM_PATH_MAX];
};

struct ustcomm_stream {
	uint32_t stream_id;
	uint32_t cpu;
	uint32_t subbuf_size;
	uint32_t subbuf_count;
	char channel[UST_SHM_CHANNEL_NAME_MAX];	/* NUL-terminated */
	uint32_t flags;			/* UST_SHM_FLAG_* of shm_layout.h */
	/* Bytes of event context between each event's header and its
	 * payload (event_context.h): what a crash rescue steps over. */
	uint32_t ctx_size;
	/* Bounded disk (version 6, bufsize.h): files of at most
	 * tracefile_size bytes (0: one file), the newest tracefile_count
	 * kept (0: all). */
	uint32_t tracefile_count;
	uint64_t tracefile_size;
};

/* One payload field as laid out in the buffer (the kinds of ust/core.h). */
struct ustcomm_field_layout {
	uint8_t kind;			/* enum ust_field_kind */
	uint8_t size;			/* integer, float, element: 1, 2, 4 or 8 */
	uint8_t len_size;		/* sequence length field: 1, 2, 4 or 8 */
	uint8_t reserved;		/* 0 */
	uint32_t length;		/* array: element count */
};

/* Followed by nr_fields struct ustcomm_field_layout. */
struct ustcomm_event_layout {
	uint32_t stream_id;
	uint32_t event_id;		/* >= UST_EVENT_ID_FIRST */
	uint32_t nr_fields;
	uint32_t reserved;		/* 0 */
};


struct ustcomm_snapshot {
	/* Absolute directory to create the snapshot in, NUL-terminated;
	 * "" for ustd's output directory. */
	char dir[USTCOMM_PATH_MAX];
};

/* A trigger fired (libust/trigger.h): ustd takes a snapshot of the
 * processes its hook chooses into dir ("" for the trace's directory),
 * at most at_most times a minute (0: no limit). */
struct ustcomm_trigger_fired {
	uint32_t id;			/* the trigger's number in the process */
	uint32_t at_most;
	uint64_t fired;			/* events that fired it so far */
	uint64_t limited;		/* of those, not notified by libust */
};

#define USTCOMM_UID_CTX_MAX	32
#define USTCOMM_UID_CPUS_MAX	4096

struct ustcomm_uid_channel {
	char channel[UST_SHM_CHANNEL_NAME_MAX];	/* NUL-terminated */
	/* The geometry the program would give the channel: the first
	 * process of the set chooses, the others take the set's. */
	uint32_t subbuf_size;
	uint32_t subbuf_count;
	uint32_t nr_cpus;
	/* The event context of the channel (event_context.h): it must be the
	 * set's, as every event's layout depends on it. */
	uint32_t ctx_nr;
	uint8_t ctx_ids[USTCOMM_UID_CTX_MAX];
};

struct ustcomm_uid_event {
	uint32_t stream_id;
	int32_t loglevel;
	uint32_t nr_fields;
	uint32_t name_len;		/* with its NUL */
	/* The TSDL's with its NUL and as many more NULs as put the layouts
	 * at a multiple of 4 bytes: name_len + fields_len is one. */
	uint32_t fields_len;
	uint32_t reserved;		/* 0 */
};

struct ustcomm_uid_reply {
	int32_t status;			/* 0 or a negative errno */
	uint32_t id;
	uint32_t nr_cpus;		/* UID_CHANNEL_REPLY: streams that follow */
	uint32_t reserved;		/* 0 */
	uint8_t uuid[16];		/* UID_CHANNEL_REPLY: the set's trace */
	/* NUL-terminated: why it was refused, "" when status is 0 */
	char error[256];
};

struct ustcomm_snapshot_done {
	int32_t status;			/* 0 or a negative errno */
	uint32_t reserved;		/* 0 */
	/* NUL-terminated: the snapshot's directory, or the reason it failed */
	char text[USTCOMM_PATH_MAX];
};

/* Connects a stream socket (close-on-exec) to path. Returns the descriptor,
 * -ENAMETOOLONG when path does not fit a socket address, or -errno (e.g.
 * -ECONNREFUSED for a socket nobody listens on any more). */
USTCOMM_API int ustcomm_connect(const char *path);
/* The same, giving up with -ETIMEDOUT after timeout_ms (> 0) when the
 * listener does not take the connection; the socket keeps SO_SNDTIMEO set
 * to what was left of it, a bound on blocking sends too. */
USTCOMM_API int ustcomm_connect_within(const char *path, int timeout_ms);

/* Blocking send of one whole message (retries partial writes and EINTR).
 * Returns 0 or a negative errno. */
USTCOMM_API int ustcomm_send_msg(int sock, uint16_t type, const void *payload,
				 uint32_t payload_len, const int *fds, uint32_t nr_fds);

/* One received, validated message. Owns payload and fds. */
struct ustcomm_msg {
	uint16_t type;
	uint32_t payload_len;
	char *payload;			/* NUL-terminated for convenience */
	uint32_t nr_fds;
	int fds[USTCOMM_MAX_FDS];
};
USTCOMM_API void ustcomm_msg_release(struct ustcomm_msg *msg);	/* frees, closes fds */

/*
 * Incremental, non-blocking reception for an event loop: read() pulls what
 * the socket has (bytes and descriptors) into the receiver, next() pops one
 * complete message.
 */
struct ustcomm_receiver {
	char *buf;
	size_t len, cap;
	int fds[16];
	unsigned nr_fds;
};
USTCOMM_API void ustcomm_receiver_init(struct ustcomm_receiver *rx);
USTCOMM_API void ustcomm_receiver_fini(struct ustcomm_receiver *rx);
/* Returns bytes read (> 0), 0 at end of file, -EAGAIN when nothing is there,
 * or another negative errno. */
USTCOMM_API ssize_t ustcomm_receiver_read(struct ustcomm_receiver *rx, int sock);
/* Returns 1 with *msg filled, 0 when no complete message is buffered,
 * -EPROTO (or -EMSGSIZE) when the peer sent something malformed: the caller
 * then drops the connection. */
USTCOMM_API int ustcomm_receiver_next(struct ustcomm_receiver *rx, struct ustcomm_msg *msg);

/* Checks a header: magic, version, a known type, its descriptor count and
 * the payload's bound. 0, -EPROTO or -EMSGSIZE. */
USTCOMM_API int ustcomm_check_header(const struct ustcomm_msg_header *hdr);
/* Validates a payload as the struct of its type (sizes, NUL-terminated strings). */
USTCOMM_API int ustcomm_check_hello(const struct ustcomm_msg *msg, const struct ustcomm_hello **out);
USTCOMM_API int ustcomm_check_stream(const struct ustcomm_msg *msg, const struct ustcomm_stream **out);
/* Also checks every field's kind and sizes. */
USTCOMM_API int ustcomm_check_event_layout(const struct ustcomm_msg *msg,
					   const struct ustcomm_event_layout **out);
USTCOMM_API int ustcomm_check_snapshot(const struct ustcomm_msg *msg,
				       const struct ustcomm_snapshot **out);
USTCOMM_API int ustcomm_check_snapshot_done(const struct ustcomm_msg *msg,
					    const struct ustcomm_snapshot_done **out);
USTCOMM_API int ustcomm_check_uid_channel(const struct ustcomm_msg *msg,
					  const struct ustcomm_uid_channel **out);
/* Also checks the lengths, the strings' ends and every field layout:
 * *name, *fields and *layouts point into msg. */
USTCOMM_API int ustcomm_check_uid_event(const struct ustcomm_msg *msg,
					const struct ustcomm_uid_event **out, const char **name,
					const char **fields,
					const struct ustcomm_field_layout **layouts);
/* One datagram of the trigger channel, len bytes: 0 with *fired and *dir
 * pointing into buf, or -EPROTO. */
USTCOMM_API int ustcomm_check_trigger_fired(const void *buf, size_t len,
					    struct ustcomm_trigger_fired *fired,
					    const char **dir);

#endif
