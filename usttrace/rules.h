/* SPDX-License-Identifier: GPL-2.0-only */
/* Enable and disable rules as the program's UST_AUTOPROBE carries them. */
#ifndef USTTRACE_RULES_H
#define USTTRACE_RULES_H

#include <ust/ustctl.h>
#include "libustcomm/strbuf.h"

/*
 * Appends the rule to sb, ','-separated: "pattern", "-pattern", or, with
 * a level or a filter, "+LEVEL/FILTER/BYTECODE/pattern" with the filter
 * and its compiled bytecode in hexadecimal (libust's startup.c reads it).
 * Returns 0, or -EINVAL after saying what is wrong (what names the
 * rule's origin: "-m", or the session file).
 */
int usttrace_rule_append(struct ustcomm_strbuf *sb, const struct ustctl_rule *rule,
			 const char *what);

#endif
