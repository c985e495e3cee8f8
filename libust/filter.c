/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The filter interpreter. It runs linked code only: the linker
 * (libustcomm/filter_link.c) proved every operand in bounds, every jump
 * forward, the stack within UST_FILTER_STACK_MAX and every type right, so
 * the loop checks nothing and cannot fault, loop or allocate. It is
 * async-signal-safe: it reads its arguments, the program and the
 * context caches (context.h), and calls nothing else but the glob matcher,
 * strcmp() and, for the contexts that need one, a system call
 * (filter_ctx.c).
 */
#include <stdarg.h>
#include <string.h>

#include "libust/context.h"
#include "libust/filter.h"
#include "libust/filter_ctx.h"
#include "libustcomm/common.h"
#include "libustcomm/filter_bytecode.h"

union slot {
	int64_t s;
	double d;
	const char *str;
};

static uint16_t u16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static union slot ctx_value(uint16_t ctx, const void *ip)
{
	union slot v;

	if (ctx == UST_FCTX_PROCNAME)
		v.str = ust_ctx_procname();
	else
		v.s = ust_filter_ctx_int(ctx, ip);
	return v;
}

/*
 * As LTTng-UST orders strings on x86: the first differing bytes as signed
 * chars, and a string that ends first is the smaller, whatever follows in
 * the other ("\xc3" > "").
 */
static int str_order(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	if (!*a || !*b)
		return !*a ? (*b ? -1 : 0) : 1;
	return (signed char)*a - (signed char)*b;
}

/*
 * A double as a truth value: LTTng-UST casts it to a 64-bit integer, so
 * what truncates to 0 is false. Out of range and NaN give x86's
 * 0x8000000000000000, which is true.
 */
static int double_true(double d)
{
	return !(d > -1.0 && d < 1.0);
}

static int compare(uint8_t op, uint8_t mode, union slot a, union slot b)
{
	int c;

	switch (mode) {
	case UST_FCMP_S64:
		c = (a.s > b.s) - (a.s < b.s);
		break;
	case UST_FCMP_DOUBLE:
		/* NaN is unordered: only != holds. */
		if (a.d != a.d || b.d != b.d)
			return op == UST_FOP_NE;
		c = (a.d > b.d) - (a.d < b.d);
		break;
	case UST_FCMP_S64_DOUBLE:
		return compare(op, UST_FCMP_DOUBLE, (union slot){ .d = (double)a.s }, b);
	case UST_FCMP_DOUBLE_S64:
		return compare(op, UST_FCMP_DOUBLE, a, (union slot){ .d = (double)b.s });
	case UST_FCMP_STRING:
		if (op == UST_FOP_EQ || op == UST_FOP_NE)
			c = strcmp(a.str, b.str) != 0;
		else
			c = str_order(a.str, b.str);
		break;
	case UST_FCMP_GLOB_RIGHT:
		if (op == UST_FOP_EQ || op == UST_FOP_NE)
			c = !ust_filter_glob_match(b.str, a.str);
		else
			c = ust_filter_str_order(a.str, b.str);
		break;
	default:
		if (op == UST_FOP_EQ || op == UST_FOP_NE)
			c = !ust_filter_glob_match(a.str, b.str);
		else
			c = -ust_filter_str_order(b.str, a.str);
		break;
	}
	switch (op) {
	case UST_FOP_EQ: return c == 0;
	case UST_FOP_NE: return c != 0;
	case UST_FOP_LT: return c < 0;
	case UST_FOP_LE: return c <= 0;
	case UST_FOP_GT: return c > 0;
	default: return c >= 0;
	}
}

/*
 * Threaded dispatch (GCC's labels as values): one indirect jump per
 * instruction, each predicted on its own, and no bounds check, since the
 * linker admits only the opcodes below.
 */
#define NEXT(len)	do { pc += (len); goto *dispatch[*pc]; } while (0)

static int run(const struct ust_filter_prog *p, const union ust_filter_arg *args,
	       const void *ip)
{
	static const void *const dispatch[256] = {
		[UST_FOP_RETURN] = &&op_return,
		[UST_FOP_PUSH_S64] = &&op_push_s64,
		[UST_FOP_PUSH_DOUBLE] = &&op_push_double,
		[UST_FOP_PUSH_STRING] = &&op_push_string,
		[UST_FOP_PUSH_GLOB] = &&op_push_string,
		[UST_FOP_EQ] = &&op_compare,
		[UST_FOP_NE] = &&op_compare,
		[UST_FOP_LT] = &&op_compare,
		[UST_FOP_LE] = &&op_compare,
		[UST_FOP_GT] = &&op_compare,
		[UST_FOP_GE] = &&op_compare,
		[UST_FOP_NOT] = &&op_not,
		[UST_FOP_NEG] = &&op_neg,
		[UST_FOP_TO_BOOL] = &&op_to_bool,
		[UST_FOP_AND] = &&op_and,
		[UST_FOP_OR] = &&op_or,
		[UST_FOP_LOAD_S64] = &&op_load_s64,
		[UST_FOP_LOAD_DOUBLE] = &&op_load_double,
		[UST_FOP_LOAD_STRING] = &&op_load_string,
		[UST_FOP_LOAD_CTX_ID] = &&op_load_ctx,
		[UST_FOP_RETURN_DOUBLE] = &&op_return_double,
		[UST_FOP_NOT_DOUBLE] = &&op_not_double,
		[UST_FOP_NEG_DOUBLE] = &&op_neg_double,
		[UST_FOP_TO_BOOL_DOUBLE] = &&op_to_bool_double,
		[UST_FOP_AND_DOUBLE] = &&op_and_double,
		[UST_FOP_OR_DOUBLE] = &&op_or_double,
		[UST_FOP_EQ_S64] = &&op_eq_s64,
		[UST_FOP_NE_S64] = &&op_ne_s64,
		[UST_FOP_LT_S64] = &&op_lt_s64,
		[UST_FOP_LE_S64] = &&op_le_s64,
		[UST_FOP_GT_S64] = &&op_gt_s64,
		[UST_FOP_GE_S64] = &&op_ge_s64,
		[UST_FOP_FIELD_EQ_S64] = &&op_field_eq_s64,
		[UST_FOP_FIELD_NE_S64] = &&op_field_ne_s64,
		[UST_FOP_FIELD_LT_S64] = &&op_field_lt_s64,
		[UST_FOP_FIELD_LE_S64] = &&op_field_le_s64,
		[UST_FOP_FIELD_GT_S64] = &&op_field_gt_s64,
		[UST_FOP_FIELD_GE_S64] = &&op_field_ge_s64,
		[UST_FOP_NOP] = &&op_nop,
		[UST_FOP_FAIL] = &&op_fail,
		[UST_FOP_BIT_NOT] = &&op_bit_not,
		[UST_FOP_BIT_AND] = &&op_bit_and,
		[UST_FOP_BIT_OR] = &&op_bit_or,
		[UST_FOP_BIT_XOR] = &&op_bit_xor,
		[UST_FOP_LSHIFT] = &&op_lshift,
		[UST_FOP_RSHIFT] = &&op_rshift,
	};
	union slot st[UST_FILTER_STACK_MAX];
	const uint8_t *pc = p->code;
	union slot *top = st;		/* the next free slot */
	int64_t imm;

	goto *dispatch[*pc];
op_load_s64:
	(top++)->s = args[u16(pc + 1)].s64;
	NEXT(3);
op_load_double:
	(top++)->d = args[u16(pc + 1)].dbl;
	NEXT(3);
op_load_string:
	(top++)->str = args[u16(pc + 1)].str;
	NEXT(3);
op_load_ctx:
	*top++ = ctx_value(u16(pc + 1), ip);
	NEXT(3);
op_push_s64:
	memcpy(&(top++)->s, pc + 1, 8);
	NEXT(9);
op_push_double:
	memcpy(&(top++)->d, pc + 1, 8);
	NEXT(9);
op_push_string:
	(top++)->str = p->data + u16(pc + 1);
	NEXT(3);
op_compare:
	top--;
	top[-1].s = compare(pc[0], pc[1], top[-1], top[0]);
	NEXT(2);
op_eq_s64:
	top--;
	top[-1].s = top[-1].s == top[0].s;
	NEXT(2);
op_ne_s64:
	top--;
	top[-1].s = top[-1].s != top[0].s;
	NEXT(2);
op_lt_s64:
	top--;
	top[-1].s = top[-1].s < top[0].s;
	NEXT(2);
op_le_s64:
	top--;
	top[-1].s = top[-1].s <= top[0].s;
	NEXT(2);
op_gt_s64:
	top--;
	top[-1].s = top[-1].s > top[0].s;
	NEXT(2);
op_ge_s64:
	top--;
	top[-1].s = top[-1].s >= top[0].s;
	NEXT(2);
#define FIELD_CMP(name, op) \
	name: \
		memcpy(&imm, pc + 4, 8); \
		(top++)->s = args[u16(pc + 2)].s64 op imm; \
		NEXT(14);
	FIELD_CMP(op_field_eq_s64, ==)
	FIELD_CMP(op_field_ne_s64, !=)
	FIELD_CMP(op_field_lt_s64, <)
	FIELD_CMP(op_field_le_s64, <=)
	FIELD_CMP(op_field_gt_s64, >)
	FIELD_CMP(op_field_ge_s64, >=)
#undef FIELD_CMP
op_not:
	top[-1].s = !top[-1].s;
	NEXT(1);
op_nop:
	NEXT(1);
op_fail:
	return 0;
op_bit_not:
	top[-1].s = (int64_t)~(uint64_t)top[-1].s;
	NEXT(1);
op_bit_and:
	top--;
	top[-1].s = (int64_t)((uint64_t)top[-1].s & (uint64_t)top[0].s);
	NEXT(1);
op_bit_or:
	top--;
	top[-1].s = (int64_t)((uint64_t)top[-1].s | (uint64_t)top[0].s);
	NEXT(1);
op_bit_xor:
	top--;
	top[-1].s = (int64_t)((uint64_t)top[-1].s ^ (uint64_t)top[0].s);
	NEXT(1);
	/* A count outside 0..63: LTTng-UST's interpreter fails, and records nothing. */
op_lshift:
	top--;
	if ((uint64_t)top[0].s > 63)
		return 0;
	top[-1].s = (int64_t)((uint64_t)top[-1].s << top[0].s);
	NEXT(1);
op_rshift:
	top--;
	if ((uint64_t)top[0].s > 63)
		return 0;
	top[-1].s = (int64_t)((uint64_t)top[-1].s >> top[0].s);
	NEXT(1);
op_not_double:
	top[-1].s = top[-1].d == 0.0;
	NEXT(1);
op_to_bool:
	top[-1].s = top[-1].s != 0;
	NEXT(1);
op_to_bool_double:
	top[-1].s = double_true(top[-1].d);
	NEXT(1);
op_neg:
	top[-1].s = (int64_t)(0 - (uint64_t)top[-1].s);
	NEXT(1);
op_neg_double:
	top[-1].d = -top[-1].d;
	NEXT(1);
op_and:
	if (!top[-1].s) {
		top[-1].s = 0;
		pc = p->code + u16(pc + 1);
		goto *dispatch[*pc];
	}
	top--;
	NEXT(3);
op_or:
	if (top[-1].s) {
		top[-1].s = 1;
		pc = p->code + u16(pc + 1);
		goto *dispatch[*pc];
	}
	top--;
	NEXT(3);
op_and_double:
	if (!double_true(top[-1].d)) {
		top[-1].s = 0;
		pc = p->code + u16(pc + 1);
		goto *dispatch[*pc];
	}
	top--;
	NEXT(3);
op_or_double:
	if (double_true(top[-1].d)) {
		top[-1].s = 1;
		pc = p->code + u16(pc + 1);
		goto *dispatch[*pc];
	}
	top--;
	NEXT(3);
op_return_double:
	return double_true(top[-1].d);
op_return:
	return top[-1].s != 0;
}

int ust_filters_pass(const struct ust_event_filters *f, const union ust_filter_arg *args,
		     const void *ip)
{
	uint32_t i;

	if (f->record_all)
		return 1;
	if (ust_likely(f->nr == 1))
		return run(f->progs[0], args, ip);
	for (i = 0; i < f->nr; i++) {
		if (run(f->progs[i], args, ip))
			return 1;
	}
	return 0;
}

int ust_filter_prog_pass(const struct ust_filter_prog *p, const union ust_filter_arg *args,
			 const void *ip)
{
	return run(p, args, ip);
}

void ust_filter_marker_args(const struct ust_marker_format *f, va_list ap,
			    union ust_filter_arg *args)
{
	va_list aq;
	uint32_t i;

	va_copy(aq, ap);
	for (i = 0; i < f->nr_fields; i++) {
		switch (f->args[i]) {
		case UST_MARKER_ARG_INT:
			args[i].s64 = va_arg(aq, int);
			break;
		case UST_MARKER_ARG_UINT:
			args[i].s64 = va_arg(aq, unsigned int);
			break;
		case UST_MARKER_ARG_LONG:
		case UST_MARKER_ARG_SSIZE:
			args[i].s64 = va_arg(aq, long);
			break;
		case UST_MARKER_ARG_ULONG:
		case UST_MARKER_ARG_SIZE:
			args[i].s64 = (int64_t)va_arg(aq, unsigned long);
			break;
		case UST_MARKER_ARG_LLONG:
		case UST_MARKER_ARG_INTMAX:
			args[i].s64 = va_arg(aq, long long);
			break;
		case UST_MARKER_ARG_ULLONG:
		case UST_MARKER_ARG_UINTMAX:
			args[i].s64 = (int64_t)va_arg(aq, unsigned long long);
			break;
		case UST_MARKER_ARG_POINTER:
			args[i].s64 = (int64_t)(uintptr_t)va_arg(aq, void *);
			break;
		case UST_MARKER_ARG_DOUBLE:
			args[i].dbl = va_arg(aq, double);
			break;
		default: {
			const char *s = va_arg(aq, const char *);

			args[i].str = s ? s : "(null)";
			continue;
		}
		}
		/* The value as recorded: "%hhd" keeps one byte of its int. */
		if (f->fields[i].kind == UST_FIELD_INTEGER && f->fields[i].size < 8) {
			unsigned bits = 64 - 8u * f->fields[i].size;

			args[i].s64 = f->fields[i].is_signed ?
				(int64_t)((uint64_t)args[i].s64 << bits) >> bits :
				(int64_t)(((uint64_t)args[i].s64 << bits) >> bits);
		}
	}
	va_end(aq);
}
