/* SPDX-License-Identifier: LGPL-2.1-only */
#include <errno.h>
#include <string.h>
#include "libustcomm/event_context.h"

/* Every field is declared byte-aligned like the payload's (ctf_layout.h):
 * nothing pads a context. Identifiers get the leading underscore CTF
 * readers strip (metadata.c). */
static const struct {
	const char *name;
	const char *alias;		/* LTTng's spelling, or NULL */
	uint32_t size;
	const char *decl;
} ctx_info[USTCOMM_CTX_NR] = {
	[USTCOMM_CTX_VPID] = { "vpid", NULL, 4,
		"integer { size = 32; align = 8; signed = true; base = 10; } _vpid;" },
	[USTCOMM_CTX_VTID] = { "vtid", NULL, 4,
		"integer { size = 32; align = 8; signed = true; base = 10; } _vtid;" },
	[USTCOMM_CTX_PROCNAME] = { "procname", NULL, USTCOMM_CTX_PROCNAME_SIZE,
		"integer { size = 8; align = 8; signed = false; encoding = UTF8; base = 10; } _procname[16];" },
	[USTCOMM_CTX_PTHREAD_ID] = { "pthread_id", NULL, 8,
		"integer { size = 64; align = 8; signed = false; base = 16; } _pthread_id;" },
	[USTCOMM_CTX_IP] = { "ip", NULL, 8,
		"integer { size = 64; align = 8; signed = false; base = 16; } _ip;" },
	[USTCOMM_CTX_PERF_CYCLES] = { "perf:thread:cycles", "perf:thread:cpu-cycles", 8,
		"integer { size = 64; align = 8; signed = false; base = 10; } _perf_thread_cycles;" },
	[USTCOMM_CTX_PERF_INSTRUCTIONS] = { "perf:thread:instructions", NULL, 8,
		"integer { size = 64; align = 8; signed = false; base = 10; } _perf_thread_instructions;" },
	[USTCOMM_CTX_PERF_CACHE_MISSES] = { "perf:thread:cache-misses", "perf:thread:cache-miss", 8,
		"integer { size = 64; align = 8; signed = false; base = 10; } _perf_thread_cache_misses;" },
	[USTCOMM_CTX_PERF_PAGE_FAULTS] = { "perf:thread:page-faults", "perf:thread:page-fault", 8,
		"integer { size = 64; align = 8; signed = false; base = 10; } _perf_thread_page_faults;" },
};

int ustcomm_ctx_parse(const char *name)
{
	int i;

	for (i = 0; i < USTCOMM_CTX_NR; i++) {
		if (!strcmp(name, ctx_info[i].name) ||
		    (ctx_info[i].alias && !strcmp(name, ctx_info[i].alias)))
			return i;
	}
	return -EINVAL;
}

const char *ustcomm_ctx_name(int id)
{
	return id >= 0 && id < USTCOMM_CTX_NR ? ctx_info[id].name : NULL;
}

uint32_t ustcomm_ctx_size(int id)
{
	return id >= 0 && id < USTCOMM_CTX_NR ? ctx_info[id].size : 0;
}

uint32_t ustcomm_ctx_set_size(const struct ustcomm_ctx_set *set)
{
	uint32_t size = 0;
	unsigned i;

	for (i = 0; i < set->nr; i++)
		size += ustcomm_ctx_size(set->ids[i]);
	return size;
}

int ustcomm_ctx_set_has(const struct ustcomm_ctx_set *set, int id)
{
	unsigned i;

	for (i = 0; i < set->nr; i++)
		if (set->ids[i] == id)
			return 1;
	return 0;
}

void ustcomm_ctx_set_declare(struct ustcomm_strbuf *sb, const struct ustcomm_ctx_set *set)
{
	unsigned i;

	for (i = 0; i < set->nr; i++)
		if (set->ids[i] < USTCOMM_CTX_NR)
			ustcomm_strbuf_printf(sb, "\t\t%s\n", ctx_info[set->ids[i]].decl);
}
