/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One connected application: its socket and protocol state, its trace
 * directory and its streams. ustd only ever reads from an application;
 * nothing it does can make the application wait.
 */
#ifndef USTD_APP_H
#define USTD_APP_H

#include <stdint.h>
#include "ustd/conn/conn.h"

/* CLOCK_MONOTONIC in milliseconds. */
uint64_t ustd_app_now_ms(void);

/* Drops a connection that did not say HELLO in time (handshake.h). */
void ustd_app_drop_late(struct ustd_app *app);

/* Closes the connection of an application whose trace waits for space
 * (app->release), leaving its buffers to it. */
void ustd_app_release(struct ustd_app *app);
/* Ends a trace whose every packet is complete, as a GOODBYE does: the
 * sink of buffers per user (uid_set.h). */
void ustd_app_end_flushed(struct ustd_app *app);

/* Adds an accepted connection to the epoll set. Takes ownership of sock,
 * also on failure (NULL). */
struct ustd_app *ustd_app_new(const struct ustd_ctx *ctx, int sock, pid_t pid);

/* An orphan (orphan.h) of the program pid: an application with no socket
 * and no process, whose messages ustd_app_take() hands over. */
struct ustd_app *ustd_app_new_orphan(const struct ustd_ctx *ctx, pid_t pid);
/* One message of an orphan, as if read from its socket; a STREAM's fds[0]
 * is the orphan's file, with the buffer's image at image_at. 0, or a
 * negative errno when it breaks the protocol (said; the application is
 * ended). */
int ustd_app_take(struct ustd_app *app, struct ustcomm_msg *msg, uint64_t image_at);
/* The orphan's messages are all taken: what its buffers hold is written
 * out as a dead program's (rescue.h). */
void ustd_app_end_orphan(struct ustd_app *app);

/* The socket is readable or hung up, or the process died (pidfd): handles
 * every message it has, answers a snapshot request, and when the process
 * died without GOODBYE rescues what its buffers hold. */
void ustd_app_on_socket(struct ustd_app *app);

/* A stream's wakeup is readable: handles the application's pending
 * messages first, so that metadata precedes the events using it on disk,
 * then drains the stream. */
void ustd_app_on_stream(struct ustd_app_stream *as);

/* A trigger fired: closes the open packets of app's flight-recorder
 * streams and writes a snapshot under dir ("" for ustd's output), as a
 * SNAPSHOT request would. 0 or a negative errno (said). */
int ustd_app_snapshot_now(struct ustd_app *app, const char *dir);

/* The live timer ticked: closes the open packets of a relayed trace's
 * streams and sends them, and tells relayd which streams are idle. */
void ustd_app_on_live_tick(struct ustd_app *app);

/* ustd is exiting: takes everything the application sent and every
 * complete packet, then closes. */
void ustd_app_finish(struct ustd_app *app);

/* Frees a closed application; only between epoll batches, since events of
 * the current batch may still point at it. */
void ustd_app_free(struct ustd_app *app);

#endif
