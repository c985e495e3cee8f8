/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libustcomm/filter_compile.h"
#include "libustcomm/hex.h"
#include "libustcomm/log.h"
#include "libustcomm/loglevel.h"
#include "usttrace/rules.h"

static int append_hex(struct ustcomm_strbuf *sb, const void *data, size_t len)
{
	char *hex = malloc(2 * len + 1);

	if (!hex)
		return -ENOMEM;
	ustcomm_hex_encode(data, len, hex);
	ustcomm_strbuf_append(sb, hex, 2 * len);
	free(hex);
	return 0;
}

int usttrace_rule_append(struct ustcomm_strbuf *sb, const struct ustctl_rule *r,
			 const char *what)
{
	const char *filter = r->filter && *r->filter ? r->filter : NULL;
	char level[USTCOMM_LEVEL_SPEC_MAX];
	struct ust_filter_error err;
	void *prog = NULL;
	size_t len = 0;
	int ret = 0;

	if (strchr(r->pattern, ',') || r->pattern[0] == '-' || r->pattern[0] == '+') {
		ustcomm_err("%s: the pattern '%s' cannot be given to a program at start-up (no ',' and no leading '-' or '+'); apply it with ustctl instead",
			    what, r->pattern);
		return -EINVAL;
	}
	if (sb->len)
		ustcomm_strbuf_append(sb, ",", 1);
	if (!r->enable) {
		ustcomm_strbuf_printf(sb, "-%s", r->pattern);
		return sb->err;
	}
	if (!filter && !r->loglevel_match) {
		ustcomm_strbuf_printf(sb, "%s", r->pattern);
		return sb->err;
	}
	/* usttrace's options and session files were checked when read
	 * (ustctl_filter_check()): what fails here is memory. */
	if (filter) {
		ret = ust_filter_compile(filter, NULL, 0, &prog, &len, &err);
		if (ret < 0) {
			ustcomm_err("%s: filter '%s': %s", what, filter, err.text);
			return ret;
		}
		if (ret > 0)
			fprintf(stderr, "usttrace: warning: %s: filter '%s', column %u: %s\n", what,
				filter, err.offset, err.text);
		ret = 0;
	}
	ustcomm_level_spec_format(level, r->loglevel_match, r->loglevel);
	ustcomm_strbuf_printf(sb, "+%s/", level);
	if (filter)
		ret = append_hex(sb, filter, strlen(filter));
	ustcomm_strbuf_append(sb, "/", 1);
	if (!ret && filter)
		ret = append_hex(sb, prog, len);
	ustcomm_strbuf_printf(sb, "/%s", r->pattern);
	free(prog);
	if (!ret)
		ret = sb->err;
	if (ret == -ENOMEM)
		ustcomm_err("out of memory");
	return ret;
}
