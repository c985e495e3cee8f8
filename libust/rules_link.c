/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The programs of rules and triggers linked against an event's fields
 * (rules_link.h): beneath both, so that neither calls the other for it.
 */
#include "libust/report_once.h"
#include "libust/rules_link.h"
#include "libust/sigsafe_alloc.h"
#include "libustcomm/log.h"

/* What a filter that cannot read an event runs: PUSH 0, RETURN. */
static const uint8_t reject_code[] = { UST_FOP_PUSH_S64, 0, 0, 0, 0, 0, 0, 0, 0, UST_FOP_RETURN };
static const struct ust_filter_prog reject_prog = {
	.code_len = sizeof(reject_code),
	.code = reject_code,
	.data = "",
};

const struct ust_filter_prog *ust_rules_link(const void *prog, uint32_t prog_len,
					    const char *filter, uint32_t serial,
					    const struct ust_event_state *ev,
					    const struct ust_filter_field *fields)
{
	const struct ust_filter_header *hdr = prog;
	struct ust_filter_prog *p;
	struct ust_filter_error ferr;
	uint8_t *bytes;

	p = ust_zalloc(sizeof(*p) + prog_len);
	if (!p) {
		ustcomm_err("out of memory linking filter '%s' for event %s: the rule records nothing of it",
			    filter, ev->full_name);
		goto reject;
	}
	bytes = (uint8_t *)(p + 1);
	if (ust_filter_link(prog, prog_len, fields, ev->nr_fields, bytes, &ferr) < 0) {
		if (ust_report_once(filter, ev))
			ustcomm_err("filter '%s' does not apply to event %s: %s; that rule records nothing of it",
				    filter, ev->full_name, ferr.text);
		ust_free(p);
		goto reject;
	}
	p->rule_serial = serial;
	p->code_len = hdr->code_len;
	p->code = bytes + sizeof(*hdr);
	p->data = (const char *)p->code + hdr->code_len;
	return p;
reject:
	return ust_rules_reject(serial);
}

const struct ust_filter_prog *ust_rules_reject(uint32_t serial)
{
	/* The reject program carries no serial: the set gets a copy with one. */
	struct ust_filter_prog *p = ust_zalloc(sizeof(*p));

	if (!p)
		return &reject_prog;
	*p = reject_prog;
	p->rule_serial = serial;
	return p;
}

void ust_rules_prog_free(const struct ust_filter_prog *p)
{
	if (p != &reject_prog)
		ust_free((void *)p);
}
