/* SPDX-License-Identifier: GPL-2.0-only */
/* The second translation unit that calls mx_shared(); also built as C++. */
#include "mx_shared.h"

void mx_other(void)
{
	mx_shared(2);
}
