/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * What the files of the trace (trace.h) share: its one state and the
 * helpers each part uses. The parts depend on each other in one direction:
 *
 *   trace_life.c (life cycle) -> trace_events.c (events in the trace)
 *     -> trace_ustd.c (the connection to ustd) -> trace_state.c
 *   trace_events.c -> trace_settings.c -> trace_state.c
 *   trace_snapshot.c -> trace_ustd.c, trace_state.c
 *   every command's entry -> trace_slots.c (which trace) -> rules.c,
 *     channel_conf.c, trace_state.c
 *   trace_life.c -> trace_orphan.c -> trace_ustd.c (describes the trace into
 *     the orphan file, which trace_ustd.c writes to while ust_t.divert is set)
 *
 * Same rules as trace.h: under ust_lock(), async-signal-safe.
 */
#ifndef UST_TRACE_INTERNAL_H
#define UST_TRACE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "libust/channel.h"
#include "libust/channel_conf.h"
#include "libust/registry.h"
#include "libust/trace.h"
#include "libustcomm/protocol.h"
#include "libustcomm/strbuf.h"

struct ust_trace_data {
	uint32_t slot;			/* its index in ust_traces */
	enum ust_trace_state state;
	char name[USTCOMM_CTL_TRACE_NAME_MAX];
	/* Where the trace goes (trace_output.h): set before its buffers are,
	 * kept across fork, forgotten when the trace is destroyed. */
	char output[USTCOMM_PATH_MAX];
	int sock;			/* to ustd; -1 when not connected */
	uint8_t uuid[16];
	struct ust_channel *channels[UST_TRACE_MAX_CHANNELS];
	unsigned nr_channels;
	struct ust_trace_config cfg;
	/* Room for a memory refusal, which names every size (trace_memory.c). */
	char error[512];
	/* A child of fork() whose trace, named name, starts at its first
	 * event (trace_fork.c); state is UST_TRACE_NONE meanwhile. */
	int fork_pending;
	/* While set, what would go to ustd goes to divert(divert_arg, ...)
	 * instead: the orphan file for the next ustd (trace_orphan.c), which
	 * sits above the connection (trace_ustd.c) it borrows. */
	int (*divert)(void *arg, uint16_t type, const void *payload, uint32_t len,
		      const int *fds, uint32_t nr_fds);
	void *divert_arg;
	/* The name of the trace per user the slot ended when its ustd died
	 * (ust_trace_end_lost_uid()): the session the next ustd resumes asks
	 * for it, and the process joins at once (session_join.c). */
	char lost_uid[USTCOMM_CTL_TRACE_NAME_MAX];
};

/*
 * The process's traces, one per slot, and the one the running command
 * addresses (ust_trace_select()): what the parts call ust_t. A slot is in
 * use while its state is not UST_TRACE_NONE or its fork_pending is set;
 * its enable rules (rules.h) and channel settings (channel_conf.h) stay
 * when its trace is destroyed, for the next trace made in it.
 */
extern struct ust_trace_data ust_traces[UST_TRACES_MAX];
extern struct ust_trace_data *ust_tcur;
#define ust_t			(*ust_tcur)
extern const char *const ust_trace_state_names[];

/* trace_state.c */
/* Puts the reason in ust_trace_error() and returns err. */
int ust_trace_fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int ust_trace_valid_name(const char *name);
int ust_trace_slot_in_use(const struct ust_trace_data *t);
/* The flight-recorder mode a slot given to a new trace starts with. */
int ust_trace_default_overwrite(void);
/* Closes every buffer's open packet, so ustd can take it. */
void ust_trace_flush_all(void);

/* trace_slots.c */
/* Makes slot the one ust_t, the rules and the channel settings address. */
void ust_trace_select(uint32_t slot);
/*
 * Selects the slot a command naming trace name addresses: NULL or "", the
 * one slot in use, else slot 0; else the slot of that name; else slot 0
 * when not in use. Otherwise, with claim (settings given before the
 * trace is made: they need a slot of their own), a slot not in use gets
 * the name and loses its settings; -ENOSPC when every slot is in use.
 * Without claim, slot 0 is selected and the caller's checks say no such
 * trace exists.
 */
int ust_trace_select_name(const char *name, int claim);
/* ust_trace_select_name() without claim for a question about a trace's
 * settings: a name given must be that of the trace selected, if it has one. */
int ust_trace_select_query(const char *name);
/* Selects the trace a command names ("" or NULL: "auto"), which must exist. */
int ust_trace_check(const char **name);
/* ust_trace_check(), and the trace must have its buffers. */
int ust_trace_check_allocated(const char **name);

/* trace_ustd.c: the connection to ustd (protocol.h). A failed send drops
 * the connection: ust_t.sock is -1 afterwards. */
int ust_trace_ustd_connect(void);
void ust_trace_connection_lost(int err);
int ust_trace_connection_alive(void);
int ust_trace_stopped_by_ustd(void);
/* Whether the trace's ustd is still there. Async-signal-safe. */
int ust_trace_consumer_alive(void);
/* The same question for the writers that wait for room in the selected
 * trace's buffers (ring_buffer.h's consumer_alive), which run without the
 * lock and so cannot look at ust_t: a function of the slot's own. */
int (*ust_trace_consumer_alive_fn(void))(void);
int ust_trace_send_msg(uint16_t type, const void *payload, uint32_t len, const int *fds,
		       uint32_t nr_fds);
/* HELLO and the trace's metadata block. */
int ust_trace_send_hello(void);
/* The channel's stream block: before any event block or buffer of it. */
int ust_trace_send_stream_block(const struct ust_channel *chan);
/* Each CPU's buffer of the channel (memfd and eventfd). */
int ust_trace_send_buffers(const struct ust_channel *chan);
/* The event's block in the metadata, then its layout. */
int ust_trace_send_event(const struct ust_event_state *ev, uint32_t stream_id, uint32_t id);
/* Everything a ustd needs to take the trace over: HELLO and the trace
 * block, the stream blocks, the enabled events, then the buffers. */
int ust_trace_describe(void);
/* The layout of a field as ustd walks it (protocol.h). */
void ust_trace_field_layout(const struct ust_field_desc *d, struct ustcomm_field_layout *f);
/* After GOODBYE: 0 once ustd closed the connection (all written). */
int ust_trace_wait_drained(int sock);
int ust_trace_recv_exact(int sock, char *buf, size_t len, int timeout_ms);

/* trace_uid.c: buffers per user. The channel's rings and an event's id,
 * from ustd (protocol.h); a refusal's reason in ust_trace_error(). */
int ust_trace_uid_channel(struct ust_channel **out, const char *name, uint32_t size,
			  uint32_t num, const struct ustcomm_ctx_set *ctx);
int ust_trace_uid_event(const struct ust_event_state *ev, uint32_t stream_id, uint32_t *id);

/* trace_orphan.c: the trace ended with its ustd gone: kept in an orphan
 * file for the next ustd (libustcomm/orphan.h), or its loss counted and
 * said. Call before the events are unbound. */
void ust_trace_orphan_save(void);

/* trace_events.c */
/* Binds, activates or silences every event as the rules and state of the
 * selected trace say. */
int ust_trace_apply_all(void);
/* Every event enabled in a slot waiting for a fork() child's first event
 * writes through b (trace_fork.c). */
void ust_trace_bind_all_to(const struct ust_event_binding *b);
/* Every event without a binding in the selected trace. */
void ust_trace_unbind_all(void);
/* The rules changed: every event as the rules of every trace now say,
 * and the filter sets they replaced freed when no writer can hold them. */
void ust_trace_apply_rules(void);

/* trace_settings.c */
/* The trace a command names ("" or NULL: the process's) must be the
 * process's when it has one. */
int ust_trace_check_name(const char *name);
void ust_trace_channel_geometry(const char *channel, uint32_t *size, uint32_t *num);
/* How many thread buffers channel gets (UST_THREAD_BUFFERS). */
uint32_t ust_trace_thread_buffers(const char *channel);

/* trace_memory.c: 0 when the buffers about to be created fit in the
 * memory available (libustcomm/mem_avail.h), else -ENOMEM and the reason. */
/* The buffers of channel name, which has none yet. */
int ust_trace_check_memory_channel(const char *name);
/* Those of every enabled event's channel without buffers, together. */
int ust_trace_check_memory_enabled(void);

#endif
