#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The instrumentation headers as a user's compiler sees them: a marker whose
# arguments do not match its format does not compile, correct uses compile
# without a warning under strict flags, and typed events reject field types
# they cannot record. Needs top_srcdir and top_builddir (set by make check).

if [ -z "$top_srcdir" ] || [ -z "$top_builddir" ]; then
	echo "Bail out! top_srcdir and top_builddir must be set (run through make check)"
	exit 1
fi

cc=${CC:-cc}
tmp=$(mktemp -d) || { echo "Bail out! mktemp -d failed"; exit 1; }
trap 'rm -rf "$tmp"' EXIT

count=0
failed=0

ok() {
	count=$((count + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $count - $2"
	else
		echo "not ok $count - $2"
		failed=1
	fi
}

# compile NAME FLAGS... < source: compiles, keeping the diagnostics in NAME.err.
compile() {
	local name=$1
	shift
	cat > "$tmp/$name.c"
	"$cc" -I"$top_srcdir/include" -I"$top_builddir/include" "$@" \
		-c "$tmp/$name.c" -o "$tmp/$name.o" 2> "$tmp/$name.err"
}

# expect_ok NAME DESCRIPTION FLAGS... < source
expect_ok() {
	local name=$1 what=$2
	shift 2
	compile "$name" "$@"
	local rc=$?
	ok $rc "$what"
	[ $rc -eq 0 ] || sed 's/^/# /' "$tmp/$name.err"
}

# expect_fail NAME DESCRIPTION PATTERN FLAGS... < source: must fail, saying PATTERN.
expect_fail() {
	local name=$1 what=$2 pattern=$3
	shift 3
	if compile "$name" "$@"; then
		ok 1 "$what (it compiled)"
	elif grep -q -e "$pattern" "$tmp/$name.err"; then
		ok 0 "$what"
	else
		ok 1 "$what (no '$pattern' in the diagnostics)"
		sed 's/^/# /' "$tmp/$name.err"
	fi
}

strict="-Wall -Wextra -Werror -pedantic"

expect_ok good_marker "a marker matching its format compiles" -Werror=format <<'EOF'
#include <ust/marker.h>
void f(int v);
void f(int v) { trace_mark(ust, x, "v %d", v); }
EOF

expect_fail bad_marker "trace_mark(ust, x, \"v %d\", \"string\") does not compile" \
	"format" -Werror=format <<'EOF'
#include <ust/marker.h>
void f(void);
void f(void) { trace_mark(ust, x, "v %d", "string"); }
EOF

expect_fail bad_string "a %s given an int does not compile" "format" -Werror=format <<'EOF'
#include <ust/marker.h>
void f(void);
void f(void) { trace_mark(ust, x, "s %s", 42); }
EOF

expect_fail too_few "a marker with fewer arguments than conversions does not compile" \
	"format" -Werror=format <<'EOF'
#include <ust/marker.h>
void f(void);
void f(void) { trace_mark(ust, x, "a %d b %d", 1); }
EOF

expect_fail bad_long "a %ld given an int does not compile" "format" -Werror=format <<'EOF'
#include <ust/marker.h>
void f(void);
void f(void) { trace_mark(ust, x, "v %ld", 1); }
EOF

all_markers='
#include <stddef.h>
#include <stdint.h>
#include <ust/marker.h>
void f(const char *dn, int count, void *p);
void f(const char *dn, int count, void *p)
{
	trace_mark(ust, search_event, "dn %s count %d", dn, count);
	trace_mark(ust, tick, "");
	trace_mark(ust, tick_classic, MARK_NOARGS);
	trace_mark(ust, all, "a %d b %i c %u d %x e %hhd f %hu g %ld h %llu i %zu j %jd k %c l %p m %f n %lf %%",
		   1, 2, 3u, 4u, (signed char)5, (unsigned short)6, 7L, 8ULL, (size_t)9,
		   (intmax_t)10, (char)75, p, 1.5, 2.5);
}
'
for std in gnu11 c11 gnu99; do
	expect_ok "markers_$std" "every conversion, and no arguments, compile with -std=$std $strict" \
		-std=$std $strict <<< "$all_markers"
done

api='
#include <stdint.h>
#include <string.h>
#include <ust/ust.h>
#define UST_CREATE_PROBES
#include <ust/tracepoint_event.h>

DECLARE_TRACE(hello_tptest, TP_PROTO(int anint), TP_ARGS(anint));
DECLARE_TRACE(two_args, TP_PROTO(int a, const char *s), TP_ARGS(a, s));
DECLARE_TRACE_NOARGS(hello_tick);
DEFINE_TRACE(hello_tptest);
DEFINE_TRACE(two_args);
DEFINE_TRACE(hello_tick);

TRACE_EVENT(myprovider, request_done,
	TP_ARGS(int, status, const char *, path, size_t, len),
	TP_FIELDS(
		ctf_integer(int, status, status)
		ctf_integer_hex(size_t, len, len)
		ctf_string(path, path)
		ctf_float(double, ratio, 0.5)
		ctf_array(char, tag, path, 4)
		ctf_sequence(uint8_t, bytes, path, size_t, len)))
TRACE_EVENT(myprovider, nothing, TP_ARGS(), TP_FIELDS())
TRACE_EVENT(myprovider, unused_arg, TP_ARGS(int, a, int, b), TP_FIELDS(ctf_integer(int, a, a)))

static void probe(void *data, int anint)
{
	trace_mark(ust, probe, "anint %d data %p", anint, data);
}

void f(const char *path);
void f(const char *path)
{
	register_trace_hello_tptest(probe, NULL);
	trace_hello_tptest(42);
	ust_trace(hello_tptest, 43);
	trace_two_args(1, "s");
	ust_trace(two_args, 2, path);
	trace_hello_tick();
	ust_trace(hello_tick);
	trace_myprovider_request_done(200, "/index", 6);
	ust_event(myprovider, request_done, 404, path, strlen(path));
	trace_myprovider_nothing();
	ust_event(myprovider, nothing);
	ust_event(myprovider, unused_arg, 1, 2);
	unregister_trace_hello_tptest(probe, NULL);
}
'
for std in gnu11 c11; do
	expect_ok "api_$std" "tracepoints and typed events compile with -std=$std $strict" \
		-std=$std $strict <<< "$api"
done

expect_fail signed_length "a sequence with a signed length type does not compile" \
	"length type must be unsigned" -std=gnu11 <<'EOF'
#include <stdint.h>
#define UST_CREATE_PROBES
#include <ust/tracepoint_event.h>
TRACE_EVENT(p, e, TP_ARGS(const char *, s, int, n),
	TP_FIELDS(ctf_sequence(uint8_t, bytes, s, int, n)))
EOF

expect_fail long_double "a long double field does not compile" "float or double" -std=gnu11 <<'EOF'
#define UST_CREATE_PROBES
#include <ust/tracepoint_event.h>
TRACE_EVENT(p, e, TP_ARGS(long double, x), TP_FIELDS(ctf_float(long double, x, x)))
EOF

expect_fail dup_field "two fields of one name do not compile" "__ust_f_x" -std=gnu11 <<'EOF'
#define UST_CREATE_PROBES
#include <ust/tracepoint_event.h>
TRACE_EVENT(p, e, TP_ARGS(int, x), TP_FIELDS(ctf_integer(int, x, x) ctf_integer(int, x, x)))
EOF

echo "1..$count"
exit $failed
