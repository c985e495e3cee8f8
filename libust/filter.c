/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The filter interpreter. It runs linked code only: the linker
 * (libustcomm/filter_link.c) proved every operand in bounds, every jump
 * forward, the stack within UST_FILTER_STACK_MAX and every type right, so
 * the loop checks nothing and cannot fault, loop or allocate. It is
 * async-signal-safe: it reads its arguments, the program and the
 * context caches (context.h), and calls nothing else but the glob matcher
 * and strcmp().
 */
#include <stdarg.h>
#include <string.h>
#include <pthread.h>

#include "libust/context.h"
#include "libust/filter.h"
#include "libust/registry.h"
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

static union slot ctx_value(uint16_t ctx)
{
	union slot v;

	switch (ctx) {
	case UST_FCTX_VPID:
		v.s = ust_ctx_vpid();
		break;
	case UST_FCTX_VTID:
		v.s = ust_ctx_vtid();
		break;
	case UST_FCTX_PTHREAD_ID:
		v.s = (int64_t)pthread_self();
		break;
	default:
		v.str = ust_ctx_procname();
		break;
	}
	return v;
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
		c = strcmp(a.str, b.str) != 0;
		break;
	case UST_FCMP_GLOB_RIGHT:
		c = !ust_filter_glob_match(b.str, a.str);
		break;
	default:
		c = !ust_filter_glob_match(a.str, b.str);
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

static int run(const struct ust_filter_prog *p, const union ust_filter_arg *args)
{
	union slot st[UST_FILTER_STACK_MAX];
	const uint8_t *pc = p->code;
	unsigned sp = 0;

	for (;;) {
		switch (*pc) {
		case UST_FOP_LOAD_S64:
			st[sp++].s = args[u16(pc + 1)].s64;
			pc += 3;
			break;
		case UST_FOP_LOAD_DOUBLE:
			st[sp++].d = args[u16(pc + 1)].dbl;
			pc += 3;
			break;
		case UST_FOP_LOAD_STRING:
			st[sp++].str = args[u16(pc + 1)].str;
			pc += 3;
			break;
		case UST_FOP_LOAD_CTX_ID:
			st[sp++] = ctx_value(u16(pc + 1));
			pc += 3;
			break;
		case UST_FOP_PUSH_S64:
			memcpy(&st[sp++].s, pc + 1, 8);
			pc += 9;
			break;
		case UST_FOP_PUSH_DOUBLE:
			memcpy(&st[sp++].d, pc + 1, 8);
			pc += 9;
			break;
		case UST_FOP_PUSH_STRING:
		case UST_FOP_PUSH_GLOB:
			st[sp++].str = p->data + u16(pc + 1);
			pc += 3;
			break;
		case UST_FOP_EQ:
		case UST_FOP_NE:
		case UST_FOP_LT:
		case UST_FOP_LE:
		case UST_FOP_GT:
		case UST_FOP_GE:
			sp--;
			st[sp - 1].s = compare(pc[0], pc[1], st[sp - 1], st[sp]);
			pc += 2;
			break;
		case UST_FOP_NOT:
			st[sp - 1].s = !st[sp - 1].s;
			pc++;
			break;
		case UST_FOP_NOT_DOUBLE:
			st[sp - 1].s = st[sp - 1].d == 0.0;
			pc++;
			break;
		case UST_FOP_TO_BOOL:
			st[sp - 1].s = st[sp - 1].s != 0;
			pc++;
			break;
		case UST_FOP_TO_BOOL_DOUBLE:
			st[sp - 1].s = st[sp - 1].d != 0.0;
			pc++;
			break;
		case UST_FOP_NEG:
			st[sp - 1].s = (int64_t)(0 - (uint64_t)st[sp - 1].s);
			pc++;
			break;
		case UST_FOP_NEG_DOUBLE:
			st[sp - 1].d = -st[sp - 1].d;
			pc++;
			break;
		case UST_FOP_AND:
		case UST_FOP_OR:
		case UST_FOP_AND_DOUBLE:
		case UST_FOP_OR_DOUBLE: {
			int is_double = *pc == UST_FOP_AND_DOUBLE || *pc == UST_FOP_OR_DOUBLE;
			int is_or = *pc == UST_FOP_OR || *pc == UST_FOP_OR_DOUBLE;
			int v = is_double ? st[sp - 1].d != 0.0 : st[sp - 1].s != 0;

			if (v == is_or) {
				st[sp - 1].s = v;
				pc = p->code + u16(pc + 1);
			} else {
				sp--;
				pc += 3;
			}
			break;
		}
		case UST_FOP_RETURN_DOUBLE:
			return st[sp - 1].d != 0.0;
		default:	/* UST_FOP_RETURN: the linker allows nothing else */
			return st[sp - 1].s != 0;
		}
	}
}

int ust_filters_pass(const struct ust_event_filters *f, const union ust_filter_arg *args)
{
	uint32_t i;

	for (i = 0; i < f->nr; i++) {
		if (run(f->progs[i], args))
			return 1;
	}
	return 0;
}

UST_API int ust_event_filter(const struct ust_event_desc *desc, const union ust_filter_arg *args)
{
	const struct ust_event_state *ev;
	const struct ust_event_filters *f;

	/* Acquire: pairs with the release stores of priv (registry.c) and of
	 * filters (trace.c): a set seen is a set fully built. */
	ev = __atomic_load_n(&desc->priv, __ATOMIC_ACQUIRE);
	if (ust_unlikely(!ev))
		return 0;
	f = __atomic_load_n(&ev->filters, __ATOMIC_ACQUIRE);
	return !f || ust_filters_pass(f, args);
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
