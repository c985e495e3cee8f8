/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The events of the statedump (statedump.h): where each object of the
 * process is loaded, so that a reader can name code addresses offline.
 * The fields are those of LTTng-UST's lttng_ust_statedump:bin_info, with
 * the build-id in the same event.
 */
#ifndef UST_STATEDUMP_TP_H
#define UST_STATEDUMP_TP_H

#include <ust/tracepoint_event.h>

TRACE_EVENT(ust_statedump, bin_info,
	TP_ARGS(uint64_t, baddr, uint64_t, memsz, const char *, path, uint8_t, is_pic,
		const uint8_t *, build_id, uint32_t, build_id_len),
	TP_FIELDS(
		ctf_integer_hex(uint64_t, baddr, baddr)
		ctf_integer(uint64_t, memsz, memsz)
		ctf_string(path, path)
		ctf_integer(uint8_t, is_pic, is_pic)
		ctf_sequence(uint8_t, build_id, build_id, uint32_t, build_id_len)))

#endif
