/* SPDX-License-Identifier: GPL-2.0-only */
/* A library function returning a known value, called through the PLT by
 * plt_calls (test_func_plt). */
long plt_target_value(long a, long b);

long plt_target_value(long a, long b)
{
	return 1000 * a + b + 7;
}
