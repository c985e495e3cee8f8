/* SPDX-License-Identifier: GPL-2.0-only */
/* usttrace refuses, before the program runs, buffers the memory available
 * cannot hold (libustcomm/mem_avail.h). */
#ifndef USTTRACE_MEMORY_H
#define USTTRACE_MEMORY_H

#include <stdint.h>
#include <ust/ustctl.h>

/*
 * The smallest trace the program can have: one channel of the largest
 * geometry it will use (size and num: the --subbuf-size and --subbuf-num
 * given, or 0 for libust's defaults; the session's channels), a buffer on
 * every possible CPU and thread_buffers more (for every channel, or for
 * thread_channel only when not NULL; 0 for a flight recorder, whose
 * channels have none). 0 when it fits, else -ENOMEM after saying so. The
 * program's other channels are checked by libust as it makes them.
 */
int usttrace_check_memory(uint32_t size, uint32_t num, const struct ustctl_session *session,
			  uint32_t thread_buffers, const char *thread_channel);

#endif
