// SPDX-License-Identifier: GPL-2.0-only
// A library function that throws through its caller's PLT call on odd
// arguments (plt_throw, test_func_plt).
#include <stdexcept>

extern "C" long plt_throw_check(long i);

extern "C" long plt_throw_check(long i)
{
	if (i % 2)
		throw std::range_error("odd");
	return i;
}
