/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * What users set for channels by name before their buffers exist: the
 * sub-buffer geometry, the contexts recorded with each event and how long
 * a writer waits for a full ring (the blocking timeout, which may also
 * change while the buffers exist). The
 * settings of the channel named "*" apply to every channel (its contexts
 * come first, then the channel's own). Like the enable rules they belong
 * to a trace slot (trace.h) and outlive the traces made in it. Under
 * ust_lock(); async-signal-safe
 * (no allocation: fixed tables).
 */
#ifndef UST_CHANNEL_CONF_H
#define UST_CHANNEL_CONF_H

#include <stdint.h>
#include "libust/registry.h"
#include "libustcomm/event_context.h"
#include "libustcomm/strbuf.h"

#define UST_CHAN_CONF_ALL	"*"
/* A trace has at most this many channels. */
#define UST_TRACE_MAX_CHANNELS	64

/* The slot (below UST_TRACES_MAX) whose settings the functions below use. */
void ust_chan_conf_select(uint32_t slot);
/* Forgets the selected slot's settings (a slot given to another trace). */
void ust_chan_conf_clear(void);

/* 0, or -ENOSPC when settings exist for as many channels as can be. */
int ust_chan_conf_set_subbuf(const char *channel, int is_num, uint32_t value);
/* The geometry of channel: its settings, else the defaults given. */
void ust_chan_conf_geometry(const char *channel, uint32_t def_size, uint32_t def_num,
			    uint32_t *size, uint32_t *num);
/* The blocking timeout (libustcomm/blocking.h): 0, or -ENOSPC. */
int ust_chan_conf_set_blocking(const char *channel, uint32_t us);
/* The channel's own, else that of "*", else UST_BLOCKING_NEVER. */
uint32_t ust_chan_conf_blocking(const char *channel);
/* Bounded disk (libustcomm/bufsize.h): 0, or -ENOSPC. */
int ust_chan_conf_set_tracefile(const char *channel, uint64_t size, uint32_t count);
/* The channel's own, else that of "*", else 0 and 0 (one file). */
void ust_chan_conf_tracefile(const char *channel, uint64_t *size, uint32_t *count);
/* 0, -EEXIST when the channel records context id already (by itself or
 * through "*"), or -ENOSPC. */
int ust_chan_conf_add_context(const char *channel, int id);
/* The contexts channel records, in recording order. */
void ust_chan_conf_contexts(const char *channel, struct ustcomm_ctx_set *set);
/* Keeps a copy of every setting; restore puts it back (load-session's
 * all or nothing). */
void ust_chan_conf_save(void);
void ust_chan_conf_restore(void);
/* Appends the channels' part of the GET_SESSION reply (ctl_protocol.h):
 * a named channel with the geometry geometry() gives it (the trace's,
 * whose default depth depends on the channel's buffers). */
void ust_chan_conf_describe(struct ustcomm_strbuf *sb,
			    void (*geometry)(const char *channel, uint32_t *size, uint32_t *num),
			    uint32_t *nr);

#endif
