/* SPDX-License-Identifier: LGPL-2.1-only */
#ifndef UST_RB_CHAIN_H
#define UST_RB_CHAIN_H

#include <stdint.h>

/*
 * A writer's chain in one buffer: where its last chained reservation
 * ended, in the buffer of that serial, and a word of the caller's (key)
 * that a reader can know from the events of the chain. When the next
 * reservation in the same buffer starts exactly there, nothing was
 * reserved in between: the previous event of the stream is the writer's
 * own, and the writer may leave out what that event told a reader (its
 * thread: libust-func's continuation events). Per thread, in initial-exec
 * TLS; a signal handler of the thread that writes between our read of the
 * chain and our exchange moves the offset, so our exchange fails and the
 * chain is read again; one that writes after our exchange starts where we
 * ended, not where the chain says, so it writes the long form.
 */
struct ust_rb_chain {
	uint64_t serial;
	uint64_t end;
	uint64_t key;
};

#define UST_RB_KEY_ANY	UINT64_MAX	/* a short form that needs no key */

#endif
