/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A rotation's chunk is filled under a hidden name and given its final
 * one (<begin>-<end>-<n>) once whole, then --on-rotate runs on it. Whole
 * means every stream file in it is: a file written straight from the ring
 * may still have writes at the device when the rotation closes it
 * (stream_closing.h), which ustd does not wait for in its loop. So the
 * chunk is published when the last of its files is finished, and after
 * the chunks of its session before it, so that chunks appear in the order
 * of their numbers; the controller that asked for the rotation is
 * answered then.
 */
#ifndef USTD_CHUNK_PUBLISH_H
#define USTD_CHUNK_PUBLISH_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "ustd/conn/stream_closing.h"

/* What closing a chunk of a session needs: the session's, or a copy that
 * outlives it (session_final.h, and the chunks published later here). */
struct ustd_chunk_end {
	const char *name;
	const char *dir;
	time_t begin;			/* of the chunk */
	unsigned n;			/* its number */
	const char *on_rotate;		/* NULL: none */
	uint64_t on_rotate_timeout_us;
};

/* Who is told when a chunk was published, and its path (the hidden one
 * when it could not be named, which ustd said). */
struct ustd_rotate_reply {
	void (*done)(struct ustd_rotate_reply *r, const char *path);
};

struct ustd_chunk_publish;

/*
 * Gives the chunk filled under a hidden name its final one for e, ending
 * at now, and runs e's --on-rotate on it (epfd: ustd's loop). chunk: the
 * hidden name in, the path out (the hidden one when it cannot be named,
 * said). 0 or a negative errno.
 */
int ustd_chunk_publish_now(const struct ustd_chunk_end *e, time_t now, int epfd, char *chunk,
			   size_t size);

/*
 * A chunk of session owner (compared only) to publish once its files are
 * whole: they are counted on ustd_chunk_publish_wait() while the rotation
 * closes them. NULL when memory is short (the rotation then closes its
 * files waiting for the device, and publishes at once).
 */
struct ustd_chunk_publish *ustd_chunk_publish_begin(const void *owner,
						    const struct ustd_chunk_end *e, time_t now,
						    const char *hidden, int epfd);
struct ustd_close_wait *ustd_chunk_publish_wait(struct ustd_chunk_publish *p);

/*
 * The rotation set every file aside: 0 when the chunk was published now
 * (its path in out, p freed), 1 when it will be (r told then, unless
 * forgotten). p is not the caller's any more.
 */
int ustd_chunk_publish_release(struct ustd_chunk_publish *p, struct ustd_rotate_reply *r,
			       char *out, size_t size);

/* The chunk turned out empty and was removed: p is freed, once the files
 * it counts (none, normally) are finished. NULL is fine. */
void ustd_chunk_publish_cancel(struct ustd_chunk_publish *p);

/* The controller left: its chunk is published, nobody told. */
void ustd_chunk_publish_forget_reply(const struct ustd_rotate_reply *r);
/* The session is gone: its chunks still to publish are, on their own. */
void ustd_chunk_publish_forget_owner(const void *owner);

#endif
