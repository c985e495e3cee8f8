/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The compile matrix's program, in C: what mx_main.h does.
 * tests/compile/test_matrix.py lists the events it must record.
 */
#include <stdio.h>
#include "mx_main.h"

int main(void)
{
	mx_main_common();
	puts("done");
	return 0;
}
