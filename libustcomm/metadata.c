/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Field names are written with one leading underscore: a CTF 1.8 reader
 * strips it, and it lets TSDL keywords (string, event, struct, ...) be used
 * as field names. A sequence's length is its own field, __NAME_length, that
 * readers show as _NAME_length (the LTTng-UST convention).
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <ust/version.h>
#include "libustcomm/ctf_layout.h"
#include "libustcomm/event_context.h"
#include "libustcomm/metadata.h"
#include "libustcomm/rundir.h"

/* Appends s as the inside of a TSDL string literal. */
static void put_escaped(struct ustcomm_strbuf *sb, const char *s)
{
	const unsigned char *p;

	if (!s)
		return;
	for (p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			ustcomm_strbuf_printf(sb, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			ustcomm_strbuf_printf(sb, "\\%03o", *p);
		else
			ustcomm_strbuf_append(sb, (const char *)p, 1);
	}
}

static void put_string_attr(struct ustcomm_strbuf *sb, const char *indent,
			    const char *key, const char *value)
{
	ustcomm_strbuf_printf(sb, "%s%s = \"", indent, key);
	put_escaped(sb, value);
	ustcomm_strbuf_append(sb, "\";\n", 3);
}

int ustcomm_metadata_valid_identifier(const char *name)
{
	const char *p;

	if (!name || !((*name >= 'A' && *name <= 'Z') || (*name >= 'a' && *name <= 'z') ||
		       *name == '_'))
		return 0;
	for (p = name + 1; *p; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		      (*p >= '0' && *p <= '9') || *p == '_'))
			return 0;
	return 1;
}

static int size_ok(uint8_t size)
{
	return size == 1 || size == 2 || size == 4 || size == 8;
}

static int integer_ok(uint8_t size, uint8_t base)
{
	return size_ok(size) && (base == 10 || base == 16);
}

static int field_ok(const struct ust_field_desc *f)
{
	if (!ustcomm_metadata_valid_identifier(f->name))
		return 0;
	switch (f->kind) {
	case UST_FIELD_INTEGER:
	case UST_FIELD_ARRAY:
		return integer_ok(f->size, f->base);
	case UST_FIELD_FLOAT:
		return f->size == 4 || f->size == 8;
	case UST_FIELD_STRING:
		return 1;
	case UST_FIELD_SEQUENCE:
		return integer_ok(f->size, f->base) && size_ok(f->len_size);
	default:
		return 0;
	}
}

static void put_integer(struct ustcomm_strbuf *sb, uint8_t size, int is_signed, uint8_t base)
{
	ustcomm_strbuf_printf(sb,
		"integer { size = %u; align = 8; signed = %s; encoding = none; base = %u; }",
		size * 8u, is_signed ? "true" : "false", base);
}

static void put_field(struct ustcomm_strbuf *sb, const struct ust_field_desc *f)
{
	const char *indent = "\t\t";

	switch (f->kind) {
	case UST_FIELD_INTEGER:
		ustcomm_strbuf_printf(sb, "%s", indent);
		put_integer(sb, f->size, f->is_signed, f->base);
		ustcomm_strbuf_printf(sb, " _%s;\n", f->name);
		break;
	case UST_FIELD_FLOAT:
		ustcomm_strbuf_printf(sb,
			"%sfloating_point { exp_dig = %u; mant_dig = %u; byte_order = le; align = 8; } _%s;\n",
			indent, f->size == 4 ? 8u : 11u, f->size == 4 ? 24u : 53u, f->name);
		break;
	case UST_FIELD_STRING:
		ustcomm_strbuf_printf(sb, "%sstring { encoding = UTF8; } _%s;\n", indent, f->name);
		break;
	case UST_FIELD_ARRAY:
		ustcomm_strbuf_printf(sb, "%s", indent);
		put_integer(sb, f->size, f->is_signed, f->base);
		ustcomm_strbuf_printf(sb, " _%s[%" PRIu32 "];\n", f->name, f->length);
		break;
	case UST_FIELD_SEQUENCE:
		ustcomm_strbuf_printf(sb, "%s", indent);
		put_integer(sb, f->len_size, 0, 10);
		ustcomm_strbuf_printf(sb, " __%s_length;\n%s", f->name, indent);
		put_integer(sb, f->size, f->is_signed, f->base);
		ustcomm_strbuf_printf(sb, " _%s[__%s_length];\n", f->name, f->name);
		break;
	}
}

int ustcomm_metadata_trace(struct ustcomm_strbuf *sb, const struct ustcomm_trace_info *info)
{
	const struct ustcomm_clock_desc *clk = info->clock;
	char uuid[37], clock_uuid[37];

	if (!clk || !ustcomm_metadata_valid_identifier(clk->name) || !clk->freq)
		return -EINVAL;
	ustcomm_uuid_format(info->uuid, uuid);
	ustcomm_uuid_format(clk->uuid, clock_uuid);

	/* The signature must be the file's first bytes (CTF-NOTES 1.1). */
	ustcomm_strbuf_printf(sb,
		"/* CTF 1.8 */\n"
		"\n"
		"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
		"typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
		"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
		"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
		"typealias integer { size = 5; align = 1; signed = false; } := uint5_t;\n"
		"\n"
		"trace {\n"
		"\tmajor = 1;\n"
		"\tminor = 8;\n"
		"\tuuid = \"%s\";\n"
		"\tbyte_order = le;\n"
		"\tpacket.header := struct {\n"
		"\t\tuint32_t magic;\n"
		"\t\tuint8_t uuid[16];\n"
		"\t\tuint32_t stream_id;\n"
		"\t\tuint64_t stream_instance_id;\n"
		"\t};\n"
		"};\n"
		"\n"
		"env {\n", uuid);
	put_string_attr(sb, "\t", "hostname", info->hostname);
	ustcomm_strbuf_printf(sb,
		"\tdomain = \"ust\";\n"
		"\ttracer_name = \"ust\";\n"
		"\ttracer_major = %d;\n"
		"\ttracer_minor = %d;\n"
		"\tvpid = %" PRId32 ";\n",
		UST_VERSION_MAJOR, UST_VERSION_MINOR, info->vpid);
	if (info->ncpus)
		ustcomm_strbuf_printf(sb, "\tncpus = %" PRIu32 ";\n", info->ncpus);
	put_string_attr(sb, "\t", "procname", info->procname);
	put_string_attr(sb, "\t", "trace_name", info->trace_name);
	ustcomm_strbuf_printf(sb,
		"};\n"
		"\n"
		"clock {\n"
		"\tname = %s;\n"
		"\tuuid = \"%s\";\n", clk->name, clock_uuid);
	put_string_attr(sb, "\t", "description", clk->description);
	ustcomm_strbuf_printf(sb,
		"\tfreq = %" PRIu64 ";\n"
		"\tprecision = 1;\n"
		"\toffset_s = %" PRId64 ";\n"
		"\toffset = %" PRIu64 ";\n"
		"\tabsolute = true;\n"
		"};\n"
		"\n"
		"typealias integer { size = 27; align = 1; signed = false; map = clock.%s.value; } := uint27_clock_t;\n"
		"typealias integer { size = 64; align = 8; signed = false; map = clock.%s.value; } := uint64_clock_t;\n"
		"\n"
		"struct packet_context {\n"
		"\tuint64_clock_t timestamp_begin;\n"
		"\tuint64_clock_t timestamp_end;\n"
		"\tuint64_t content_size;\n"
		"\tuint64_t packet_size;\n"
		"\tuint64_t packet_seq_num;\n"
		"\tuint64_t events_discarded;\n"
		"\tuint32_t cpu_id;\n"
		"} align(8);\n"
		"\n"
		"struct event_header_compact {\n"
		"\tenum : uint5_t { compact = 0 ... %u, extended = %u } id;\n"
		"\tvariant <id> {\n"
		"\t\tstruct {\n"
		"\t\t\tuint27_clock_t timestamp;\n"
		"\t\t} compact;\n"
		"\t\tstruct {\n"
		"\t\t\tuint32_t id;\n"
		"\t\t\tuint64_clock_t timestamp;\n"
		"\t\t} extended;\n"
		"\t} v;\n"
		"} align(8);\n"
		"\n",
		clk->freq, clk->offset_s, clk->offset, clk->name, clk->name,
		UST_EVENT_COMPACT_MAX_ID, UST_EVENT_ID_EXTENDED);
	return sb->err;
}

/* The stream's name in a comment, when it cannot end the comment early. */
static int comment_safe(const char *s)
{
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f || (p[0] == '*' && p[1] == '/'))
			return 0;
	return 1;
}

int ustcomm_metadata_stream(struct ustcomm_strbuf *sb, uint32_t stream_id, const char *channel,
			    const struct ustcomm_ctx_set *ctx)
{
	if (channel && comment_safe(channel))
		ustcomm_strbuf_printf(sb, "/* channel %s */\n", channel);
	ustcomm_strbuf_printf(sb,
		"stream {\n"
		"\tid = %" PRIu32 ";\n"
		"\tevent.header := struct event_header_compact;\n"
		"\tpacket.context := struct packet_context;\n", stream_id);
	if (ctx && ctx->nr) {
		ustcomm_strbuf_append(sb, "\tevent.context := struct {\n", 27);
		ustcomm_ctx_set_declare(sb, ctx);
		ustcomm_strbuf_append(sb, "\t};\n", 4);
	}
	ustcomm_strbuf_append(sb, "};\n\n", 4);
	return sb->err;
}

static int fields_ok(const struct ust_field_desc *fields, uint32_t nr_fields)
{
	uint32_t i;

	if (nr_fields && !fields)
		return 0;
	for (i = 0; i < nr_fields; i++)
		if (!field_ok(&fields[i]))
			return 0;
	return 1;
}

static void event_open(struct ustcomm_strbuf *sb, uint32_t stream_id, uint32_t event_id,
		       const char *full_name, int loglevel)
{
	ustcomm_strbuf_append(sb, "event {\n", 8);
	put_string_attr(sb, "\t", "name", full_name);
	ustcomm_strbuf_printf(sb,
		"\tid = %" PRIu32 ";\n"
		"\tstream_id = %" PRIu32 ";\n"
		"\tloglevel = %d;\n"
		"\tfields := struct {\n", event_id, stream_id, loglevel);
}

static void event_close(struct ustcomm_strbuf *sb)
{
	ustcomm_strbuf_append(sb, "\t};\n};\n\n", 8);
}

int ustcomm_metadata_event(struct ustcomm_strbuf *sb, uint32_t stream_id,
			   uint32_t event_id, const char *full_name, int loglevel,
			   const struct ust_field_desc *fields, uint32_t nr_fields)
{
	if (!full_name || !fields_ok(fields, nr_fields))
		return -EINVAL;
	event_open(sb, stream_id, event_id, full_name, loglevel);
	ustcomm_metadata_fields(sb, fields, nr_fields);
	event_close(sb);
	return sb->err;
}

int ustcomm_metadata_fields(struct ustcomm_strbuf *sb, const struct ust_field_desc *fields,
			    uint32_t nr_fields)
{
	uint32_t i;

	if (!fields_ok(fields, nr_fields))
		return -EINVAL;
	for (i = 0; i < nr_fields; i++)
		put_field(sb, &fields[i]);
	return sb->err;
}

int ustcomm_metadata_event_block(struct ustcomm_strbuf *sb, uint32_t stream_id,
				 uint32_t event_id, const char *full_name, int loglevel,
				 const char *fields_tsdl)
{
	event_open(sb, stream_id, event_id, full_name, loglevel);
	ustcomm_strbuf_append(sb, fields_tsdl, strlen(fields_tsdl));
	event_close(sb);
	return sb->err;
}
