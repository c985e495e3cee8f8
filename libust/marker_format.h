/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The printf-style format of a trace_mark(), parsed once when the marker is
 * registered into typed fields and into the va_arg type of each argument, so
 * that recording an event never looks at the format again.
 */
#ifndef UST_MARKER_FORMAT_H
#define UST_MARKER_FORMAT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <ust/core.h>

#define UST_MARKER_MAX_FIELDS	32

/* The type each argument is fetched with, after default argument promotions. */
enum ust_marker_arg {
	UST_MARKER_ARG_INT = 1,		/* %d %i, and hh/h: int */
	UST_MARKER_ARG_UINT,		/* %u %x %c, and hh/h: unsigned int */
	UST_MARKER_ARG_LONG,
	UST_MARKER_ARG_ULONG,
	UST_MARKER_ARG_LLONG,
	UST_MARKER_ARG_ULLONG,
	UST_MARKER_ARG_SSIZE,		/* %zd %zi */
	UST_MARKER_ARG_SIZE,		/* %zu %zx */
	UST_MARKER_ARG_INTMAX,
	UST_MARKER_ARG_UINTMAX,
	UST_MARKER_ARG_POINTER,		/* %p */
	UST_MARKER_ARG_DOUBLE,		/* %f %lf */
	UST_MARKER_ARG_STRING,		/* %s: NULL is recorded as "(null)" */
};

struct ust_marker_format {
	uint32_t nr_fields;
	struct ust_field_desc *fields;	/* one allocation holding fields, args and names */
	uint8_t *args;			/* enum ust_marker_arg per field */
	uint32_t nr_strings;		/* 0: the payload size is fixed_size */
	size_t fixed_size;		/* bytes of every field but the strings */
};

/*
 * Returns 0, -EINVAL for an unsupported or invalid conversion (with *err set
 * to a static message saying what is wrong), or -ENOMEM. On error *out is
 * left empty, so ust_marker_format_fini() is safe either way.
 */
int ust_marker_format_parse(const char *format, struct ust_marker_format *out,
			    const char **err);
void ust_marker_format_fini(struct ust_marker_format *f);

/*
 * Payload bytes for these arguments: strings count with their NUL, a NULL
 * char * as "(null)". Stores the length of each string argument, in order,
 * in str_lens (room for nr_strings). ap is read through a copy, so the same
 * ap can then be handed to ust_marker_payload_write().
 */
size_t ust_marker_payload_size(const struct ust_marker_format *f, va_list ap,
			       size_t *str_lens);
/*
 * Writes exactly the bytes ust_marker_payload_size() counted at dst,
 * byte-packed, in native (little-endian) byte order. Strings are copied at
 * the lengths measured then, so one that another thread changes in between
 * cannot run past the reserved space.
 */
void ust_marker_payload_write(const struct ust_marker_format *f, char *dst, va_list ap,
			      const size_t *str_lens);

#endif
