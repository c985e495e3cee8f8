/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Visibility and small helpers shared by every internal header.
 * libustcomm and libust are built with -fvisibility=hidden: only what is
 * marked USTCOMM_API (used across the libustcomm boundary by libust, ustd
 * and usttrace) or UST_API (the public ABI of libust) is exported.
 */
#ifndef USTCOMM_COMMON_H
#define USTCOMM_COMMON_H

#define USTCOMM_API __attribute__((visibility("default")))
#define UST_API __attribute__((visibility("default")))

/* The longest path, with its NUL, the protocol's messages and the trace's
 * output text (trace_output.h) carry: here, so both see it. */
#define USTCOMM_PATH_MAX 4096

#define UST_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define UST_ALIGN_UP(x, a) (((x) + (a) - 1) & ~((__typeof__(x))(a) - 1))

#endif
