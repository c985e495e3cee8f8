/* SPDX-License-Identifier: GPL-2.0-only */
/* Every command of ustctl, as ustctl.c finds them by name. */
#ifndef USTCTL_COMMAND_TABLE_H
#define USTCTL_COMMAND_TABLE_H

#include <stddef.h>
#include "ustctl/command.h"

extern const struct ustctl_cmd ustctl_commands[];
extern const size_t ustctl_nr_commands;
const struct ustctl_cmd *ustctl_find_command(const char *name);

#endif
