/* SPDX-License-Identifier: GPL-2.0-only */
/* usttrace: the command line made into the program's environment (settings.c). */
#ifndef USTTRACE_SETTINGS_H
#define USTTRACE_SETTINGS_H

#include "usttrace/state.h"

char *usttrace_rule_patterns(const struct usttrace *ut, struct ustctl_rule *rule);
int usttrace_settings(struct usttrace *ut);

#endif
