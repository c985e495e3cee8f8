/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A program's buffers taken over from a ustd that was killed (adopt.h,
 * orphan.h): the file that ustd was writing for a stream, which its write
 * mark names, may end with packets the ring still holds, whose writes
 * were in flight. Before the stream is drained here, that file is cut
 * back to the packets the ring no longer has and indexed
 * (ustd/output/file_takeover.h), so that the two files hold each packet
 * once.
 */
#ifndef USTD_STREAM_TAKEOVER_H
#define USTD_STREAM_TAKEOVER_H

#include "ustd/conn/layouts.h"
#include "ustd/conn/stream.h"

/* layouts: the program's events (EVENT_LAYOUT came before its streams),
 * to check the packets the dead ustd did not index; label names the
 * program in messages. */
void ustd_stream_take_over(const struct ustd_stream *s, const struct ustd_layouts *layouts,
			   const char *label);

#endif
