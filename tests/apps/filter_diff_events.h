/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The events of the differential filter test (tests/e2e/test_filter_lttng.py),
 * shared by its UST program (filter_diff.c) and its LTTng-UST one
 * (filter_diff_lttng.c): FILTER_DIFF_NR events fltdiff:e0, e1, ... with the
 * same fields, so that each can carry one filter; and the values of event
 * number n, the same in both programs.
 */
#ifndef FILTER_DIFF_EVENTS_H
#define FILTER_DIFF_EVENTS_H

#include <math.h>
#include <stdint.h>

#define FILTER_DIFF_NR		160
#define FILTER_DIFF_COUNT	400

/* X(i) for i in 0 .. FILTER_DIFF_NR - 1. */
#define FILTER_DIFF_TENS(X, t) \
	X(t##0) X(t##1) X(t##2) X(t##3) X(t##4) X(t##5) X(t##6) X(t##7) X(t##8) X(t##9)
#define FILTER_DIFF_EVENTS(X) \
	X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) \
	FILTER_DIFF_TENS(X, 1) FILTER_DIFF_TENS(X, 2) FILTER_DIFF_TENS(X, 3) \
	FILTER_DIFF_TENS(X, 4) FILTER_DIFF_TENS(X, 5) FILTER_DIFF_TENS(X, 6) \
	FILTER_DIFF_TENS(X, 7) FILTER_DIFF_TENS(X, 8) FILTER_DIFF_TENS(X, 9) \
	FILTER_DIFF_TENS(X, 10) FILTER_DIFF_TENS(X, 11) FILTER_DIFF_TENS(X, 12) \
	FILTER_DIFF_TENS(X, 13) FILTER_DIFF_TENS(X, 14) FILTER_DIFF_TENS(X, 15)

#define FILTER_DIFF_ARGS \
	int, n, int64_t, a, int, b, uint8_t, c, uint64_t, u, int, x, double, d, float, f, \
	const char *, s

/* Every type a filter reads: signed, unsigned (8 and 64 bits), hex, double, float, string. */
#define FILTER_DIFF_FIELDS \
	ctf_integer(int, n, n) \
	ctf_integer(int64_t, a, a) \
	ctf_integer(int, b, b) \
	ctf_integer(uint8_t, c, c) \
	ctf_integer(uint64_t, u, u) \
	ctf_integer_hex(int, x, x) \
	ctf_float(double, d, d) \
	ctf_float(float, f, f) \
	ctf_string(s, s)

struct filter_diff_values {
	int n;
	int64_t a;
	int b;
	uint8_t c;
	uint64_t u;
	int x;
	double d;
	float f;
	const char *s;
};

static inline void filter_diff_values(int n, struct filter_diff_values *v)
{
	static const char *const strings[] = {
		"alpha", "beta", "gamma", "", "a*b", "ab", "abc", "Zeta",
		"\xc3\xa9t\xc3\xa9", "a\\b", "/api/v1/x", "/static/img.png", "b", "aa",
	};

	v->n = n;
	v->a = n - 200;
	v->b = n % 7;
	v->c = (uint8_t)(n * 13);
	v->u = n % 3 == 0 ? UINT64_MAX - (uint64_t)n : (uint64_t)n * 1000003u;
	v->x = n * 37;
	v->d = (n - 200) / 8.0;
	if (n == 13)
		v->d = NAN;
	else if (n == 17)
		v->d = INFINITY;
	else if (n == 19)
		v->d = -INFINITY;
	else if (n == 23)
		v->d = -0.0;
	v->f = (float)(n % 10) / 4;
	v->s = strings[n % (sizeof(strings) / sizeof(strings[0]))];
}

#endif
