/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * A recursive-descent compiler for filter expressions (filter_compile.h):
 * each rule emits its code as it parses and returns the type of the value
 * it leaves on the stack, so that type errors are reported at the
 * operator that causes them. The tokens come from filter_lex.c. Runs in
 * controllers, in normal context.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libustcomm/filter_compile.h"
#include "libustcomm/filter_lex.h"

/* A string literal whose one unescaped '*' ends it: LTTng orders by it too. */
#define FTYPE_GLOB_END	(UST_FTYPE_ANY + 1)

struct compiler {
	struct ust_filter_lex lx;
	const struct ust_filter_field *fields;
	uint32_t nr_fields;
	uint8_t code[UST_FILTER_CODE_MAX];
	uint32_t code_len;
	char data[UST_FILTER_DATA_MAX];
	uint32_t data_len;
	struct ust_filter_error *err;
	/* The first name the events or the program lack: a warning. */
	struct ust_filter_error warning;
};

#define fail_at(c, pos, ...)	ust_filter_lex_fail(&(c)->lx, pos, __VA_ARGS__)

static int next(struct compiler *c)
{
	return ust_filter_lex_next(&c->lx);
}

static void warn_at(struct compiler *c, size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void warn_at(struct compiler *c, size_t pos, const char *fmt, ...)
{
	va_list ap;

	if (c->warning.offset)
		return;
	c->warning.offset = (uint32_t)pos + 1;
	va_start(ap, fmt);
	vsnprintf(c->warning.text, sizeof(c->warning.text), fmt, ap);
	va_end(ap);
}

static int emit(struct compiler *c, const void *bytes, uint32_t n)
{
	if (n > UST_FILTER_CODE_MAX - c->code_len)
		return fail_at(c, c->lx.tok_pos, "the expression is too long (code over %u bytes)",
			       UST_FILTER_CODE_MAX);
	memcpy(c->code + c->code_len, bytes, n);
	c->code_len += n;
	return 0;
}

static int emit_op(struct compiler *c, uint8_t op)
{
	return emit(c, &op, 1);
}

static int emit_u16(struct compiler *c, uint8_t op, uint16_t v)
{
	uint8_t b[3] = { op, (uint8_t)v, (uint8_t)(v >> 8) };

	return emit(c, b, 3);
}

static int emit_data(struct compiler *c, const char *s, size_t len, uint16_t *off)
{
	if (len + 1 > UST_FILTER_DATA_MAX - c->data_len)
		return fail_at(c, c->lx.tok_pos, "the expression's strings and names exceed %u bytes",
			       UST_FILTER_DATA_MAX);
	*off = (uint16_t)c->data_len;
	memcpy(c->data + c->data_len, s, len);
	c->data[c->data_len + len] = '\0';
	c->data_len += (uint32_t)len + 1;
	return 0;
}

static int emit_named(struct compiler *c, uint8_t op, const char *prefix, const char *name)
{
	char buf[UST_FILTER_DATA_MAX];
	uint16_t off;
	int n = snprintf(buf, sizeof(buf), "%s%s", prefix, name);
	int ret;

	if (n < 0 || (size_t)n >= sizeof(buf))
		return fail_at(c, c->lx.tok_pos, "the name is too long");
	ret = emit_data(c, buf, (size_t)n, &off);
	return ret < 0 ? ret : emit_u16(c, op, off);
}

static int expr_or(struct compiler *c, enum ust_filter_type *type);

static int is_text(enum ust_filter_type t)
{
	return t == UST_FTYPE_STRING || t == UST_FTYPE_GLOB || (int)t == FTYPE_GLOB_END;
}

static int is_number(enum ust_filter_type t)
{
	return t == UST_FTYPE_S64 || t == UST_FTYPE_DOUBLE || t == UST_FTYPE_ANY;
}

static const char *type_name(enum ust_filter_type t)
{
	switch ((int)t) {
	case UST_FTYPE_S64: return "an integer";
	case UST_FTYPE_DOUBLE: return "a float";
	case UST_FTYPE_STRING: return "a string";
	case UST_FTYPE_GLOB: case FTYPE_GLOB_END: return "a glob pattern";
	default: return "a value";
	}
}

/*
 * A field the event lacks is not an error: LTTng accepts the filter and
 * records nothing of that event by it. The caller hears of it.
 */
static int primary_field(struct compiler *c, enum ust_filter_type *type)
{
	size_t pos = c->lx.tok_pos;
	uint32_t i;

	*type = UST_FTYPE_ANY;
	if (c->fields) {
		for (i = 0; i < c->nr_fields; i++) {
			if (!strcmp(c->fields[i].name, c->lx.sval))
				break;
		}
		if (i == c->nr_fields) {
			warn_at(c, pos, "no field '%s': the filter is false for such events",
				c->lx.sval);
		} else {
			*type = (enum ust_filter_type)c->fields[i].type;
			if (*type == UST_FTYPE_NONE)
				return fail_at(c, pos,
					       "field '%s' is an array or a sequence: filters read integers, floats and strings",
					       c->lx.sval);
		}
	}
	return emit_named(c, UST_FOP_LOAD_FIELD, "", c->lx.sval);
}

static int primary_context(struct compiler *c, enum ust_filter_type *type)
{
	size_t pos = c->lx.tok_pos;
	int ctx;

	*type = UST_FTYPE_ANY;
	if (c->lx.tok == T_APP) {
		warn_at(c, pos, "no application context '$app.%s' in UST programs: the filter is false for every event",
			c->lx.sval);
		return emit_named(c, UST_FOP_LOAD_CTX, "$app.", c->lx.sval);
	}
	ctx = ust_filter_ctx_lookup(c->lx.sval);
	if (ctx)
		*type = ust_filter_ctx_type(ctx);
	else
		warn_at(c, pos, "no context '$ctx.%s' (see the manual, 5.1): the filter is false for every event",
			c->lx.sval);
	return emit_named(c, UST_FOP_LOAD_CTX, "", c->lx.sval);
}

static int primary(struct compiler *c, enum ust_filter_type *type)
{
	uint8_t b[9];
	uint16_t off;
	size_t pos = c->lx.tok_pos;
	int ret;

	switch (c->lx.tok) {
	case T_INT:
		b[0] = UST_FOP_PUSH_S64;
		memcpy(b + 1, &c->lx.ival, 8);
		*type = UST_FTYPE_S64;
		ret = emit(c, b, 9);
		break;
	case T_FLOAT:
		b[0] = UST_FOP_PUSH_DOUBLE;
		memcpy(b + 1, &c->lx.dval, 8);
		*type = UST_FTYPE_DOUBLE;
		ret = emit(c, b, 9);
		break;
	case T_STRING:
		*type = !c->lx.is_glob ? UST_FTYPE_STRING :
			c->lx.star_at_end_only ? (enum ust_filter_type)FTYPE_GLOB_END : UST_FTYPE_GLOB;
		ret = emit_data(c, c->lx.sval, c->lx.slen, &off);
		if (ret >= 0)
			ret = emit_u16(c, c->lx.is_glob ? UST_FOP_PUSH_GLOB : UST_FOP_PUSH_STRING, off);
		break;
	case T_FIELD:
		ret = primary_field(c, type);
		if (ret >= 0)
			ret = next(c);
		if (ret >= 0 && (c->lx.tok == T_DOT || c->lx.tok == T_LBRACKET ||
				 c->lx.tok == T_ARROW))
			return fail_at(c, c->lx.tok_pos,
				       "UST events have no nested fields and filters do not index arrays");
		return ret;
	case T_CTX:
	case T_APP:
		ret = primary_context(c, type);
		break;
	case T_LPAREN:
		ret = next(c);
		if (ret >= 0)
			ret = expr_or(c, type);
		if (ret < 0)
			return ret;
		if (c->lx.tok != T_RPAREN)
			return fail_at(c, c->lx.tok_pos, "expected ')' to close the '(' at column %zu",
				       pos + 1);
		break;
	case T_END:
		return fail_at(c, pos, "the expression ends where a value is expected");
	default:
		return fail_at(c, pos, "expected a value: a number, a string, a field, $ctx.NAME or '('");
	}
	if (ret < 0)
		return ret;
	return next(c);
}

static int unary(struct compiler *c, enum ust_filter_type *type)
{
	static const uint8_t ops[] = {
		[T_NOT] = UST_FOP_NOT, [T_MINUS] = UST_FOP_NEG, [T_PLUS] = UST_FOP_PLUS,
		[T_TILDE] = UST_FOP_BIT_NOT,
	};
	static const char *const names[] = {
		[T_NOT] = "!", [T_MINUS] = "-", [T_PLUS] = "+", [T_TILDE] = "~",
	};
	enum ust_filter_tok op = c->lx.tok;
	size_t pos = c->lx.tok_pos;
	int ret;

	if (op != T_NOT && op != T_MINUS && op != T_PLUS && op != T_TILDE)
		return primary(c, type);
	ret = next(c);
	if (ret < 0)
		return ret;
	if ((op == T_MINUS || op == T_PLUS) && (c->lx.tok == T_INT || c->lx.tok == T_FLOAT)) {
		/* A signed literal, folded. */
		if (op == T_MINUS && c->lx.tok == T_INT)
			c->lx.ival = 0 - c->lx.ival;
		else if (op == T_MINUS)
			c->lx.dval = -c->lx.dval;
		return primary(c, type);
	}
	ret = unary(c, type);
	if (ret < 0)
		return ret;
	if (!is_number(*type))
		return fail_at(c, pos, "'%s' needs a number, not %s", names[op], type_name(*type));
	if (op == T_TILDE && *type == UST_FTYPE_DOUBLE)
		return fail_at(c, pos, "'~' needs an integer, not a float");
	if (op == T_NOT || op == T_TILDE)
		*type = UST_FTYPE_S64;
	return emit_op(c, ops[op]);
}

static int check_compare(struct compiler *c, size_t pos, enum ust_filter_tok op,
			 enum ust_filter_type a, enum ust_filter_type b)
{
	int order = op != T_EQ && op != T_NE;

	if ((order && (a == UST_FTYPE_GLOB || b == UST_FTYPE_GLOB)))
		return fail_at(c, pos, "a glob pattern compares with == and != only ('*' may end it for the others)");
	if (a == UST_FTYPE_ANY || b == UST_FTYPE_ANY)
		return 0;
	if (is_text(a) != is_text(b))
		return fail_at(c, pos, "cannot compare %s with %s", type_name(a), type_name(b));
	if (is_text(a) && a != UST_FTYPE_STRING && b != UST_FTYPE_STRING)
		return fail_at(c, pos, "cannot compare two glob patterns");
	return 0;
}

enum level {
	LV_OR, LV_AND, LV_EQUALITY, LV_RELATION, LV_BIT_OR, LV_BIT_XOR, LV_BIT_AND, LV_SHIFT,
	LV_ADD, LV_MUL, LV_UNARY,
};

/* The binary operators of each level, as in LTTng's grammar. */
static const struct {
	enum ust_filter_tok tok;
	enum level level;
	uint8_t op;
} binary_ops[] = {
	{ T_EQ, LV_EQUALITY, UST_FOP_EQ }, { T_NE, LV_EQUALITY, UST_FOP_NE },
	{ T_LT, LV_RELATION, UST_FOP_LT }, { T_LE, LV_RELATION, UST_FOP_LE },
	{ T_GT, LV_RELATION, UST_FOP_GT }, { T_GE, LV_RELATION, UST_FOP_GE },
	{ T_BITOR, LV_BIT_OR, UST_FOP_BIT_OR }, { T_BITXOR, LV_BIT_XOR, UST_FOP_BIT_XOR },
	{ T_BITAND, LV_BIT_AND, UST_FOP_BIT_AND },
	{ T_LSHIFT, LV_SHIFT, UST_FOP_LSHIFT }, { T_RSHIFT, LV_SHIFT, UST_FOP_RSHIFT },
	{ T_PLUS, LV_ADD, 0 }, { T_MINUS, LV_ADD, 0 },
	{ T_STAR, LV_MUL, 0 }, { T_SLASH, LV_MUL, 0 }, { T_PERCENT, LV_MUL, 0 },
};

static int binary_op(enum level lv, enum ust_filter_tok tok)
{
	size_t i;

	for (i = 0; i < sizeof(binary_ops) / sizeof(binary_ops[0]); i++) {
		if (binary_ops[i].level == lv && binary_ops[i].tok == tok)
			return (int)i;
	}
	return -1;
}

static int level(struct compiler *c, enum level lv, enum ust_filter_type *type);

/* The left-associative operators of one level from == down to *. */
static int binary(struct compiler *c, enum level lv, enum ust_filter_type *type)
{
	enum ust_filter_type rhs;
	int ret = level(c, lv + 1, type), i;

	while (ret >= 0 && (i = binary_op(lv, c->lx.tok)) >= 0) {
		size_t pos = c->lx.tok_pos;
		uint8_t b[2] = { binary_ops[i].op, UST_FCMP_UNLINKED };

		if (lv == LV_ADD || lv == LV_MUL)
			return fail_at(c, pos, "arithmetic (+ - * / %%) is not supported, as in LTTng");
		ret = next(c);
		if (ret >= 0)
			ret = level(c, lv + 1, &rhs);
		if (ret < 0)
			break;
		if (lv == LV_EQUALITY || lv == LV_RELATION) {
			ret = check_compare(c, pos, binary_ops[i].tok, *type, rhs);
			if (ret >= 0)
				ret = emit(c, b, 2);
		} else {
			enum ust_filter_type bad = *type == UST_FTYPE_S64 || *type == UST_FTYPE_ANY ?
				rhs : *type;

			if (bad != UST_FTYPE_S64 && bad != UST_FTYPE_ANY)
				return fail_at(c, pos, "bitwise operators take integers, not %s",
					       type_name(bad));
			ret = emit_op(c, b[0]);
		}
		*type = UST_FTYPE_S64;
	}
	return ret;
}

/* && over equality, or || over &&: short-circuit jumps patched after the right side. */
static int logical(struct compiler *c, enum ust_filter_type *type, int is_or)
{
	enum ust_filter_type rhs;
	int ret = level(c, is_or ? LV_AND : LV_EQUALITY, type);

	while (ret >= 0 && c->lx.tok == (is_or ? T_OR : T_AND)) {
		size_t pos = c->lx.tok_pos;
		uint32_t jump_at;

		if (!is_number(*type))
			return fail_at(c, pos, "'%s' needs conditions on both sides, not %s",
				       is_or ? "||" : "&&", type_name(*type));
		jump_at = c->code_len;
		ret = emit_u16(c, is_or ? UST_FOP_OR : UST_FOP_AND, 0);
		if (ret >= 0)
			ret = next(c);
		if (ret >= 0)
			ret = level(c, is_or ? LV_AND : LV_EQUALITY, &rhs);
		if (ret < 0)
			return ret;
		if (!is_number(rhs))
			return fail_at(c, pos, "'%s' needs conditions on both sides, not %s",
				       is_or ? "||" : "&&", type_name(rhs));
		ret = emit_op(c, UST_FOP_TO_BOOL);
		if (ret < 0)
			return ret;
		c->code[jump_at + 1] = (uint8_t)c->code_len;
		c->code[jump_at + 2] = (uint8_t)(c->code_len >> 8);
		*type = UST_FTYPE_S64;
	}
	return ret;
}

static int level(struct compiler *c, enum level lv, enum ust_filter_type *type)
{
	switch (lv) {
	case LV_OR:
		return logical(c, type, 1);
	case LV_AND:
		return logical(c, type, 0);
	case LV_UNARY:
		return unary(c, type);
	default:
		return binary(c, lv, type);
	}
}

static int expr_or(struct compiler *c, enum ust_filter_type *type)
{
	return level(c, LV_OR, type);
}

static int finish(struct compiler *c, void **prog, size_t *len)
{
	struct ust_filter_header hdr = {
		.magic = UST_FILTER_MAGIC,
		.version = UST_FILTER_VERSION,
		.code_len = c->code_len,
		.data_len = c->data_len,
	};
	char *out;

	*len = sizeof(hdr) + c->code_len + c->data_len;
	out = malloc(*len);
	if (!out)
		return -ENOMEM;
	memcpy(out, &hdr, sizeof(hdr));
	memcpy(out + sizeof(hdr), c->code, c->code_len);
	memcpy(out + sizeof(hdr) + c->code_len, c->data, c->data_len);
	*prog = out;
	return 0;
}

int ust_filter_compile(const char *text, const struct ust_filter_field *fields,
		       uint32_t nr_fields, void **prog, size_t *len, struct ust_filter_error *err)
{
	struct compiler *c = calloc(1, sizeof(*c));
	enum ust_filter_type type = UST_FTYPE_NONE;
	int ret;

	err->offset = 0;
	err->text[0] = '\0';
	if (!c)
		return -ENOMEM;
	c->lx.text = c->lx.p = text;
	c->lx.err = err;
	c->fields = fields;
	c->nr_fields = nr_fields;
	c->err = err;
	ret = ust_filter_lex_check_text(&c->lx);
	if (ret >= 0)
		ret = next(c);
	if (ret >= 0 && c->lx.tok == T_END) {
		ret = fail_at(c, 0, "the filter is empty");
		goto end;
	}
	if (ret >= 0)
		ret = expr_or(c, &type);
	if (ret < 0)
		goto end;
	if (c->lx.tok != T_END) {
		ret = fail_at(c, c->lx.tok_pos, c->lx.tok == T_RPAREN ? "unmatched ')'" :
			      "expected an operator or the end of the expression");
		goto end;
	}
	if (type == UST_FTYPE_DOUBLE) {
		ret = fail_at(c, 0, "the filter is a float, not a condition: compare it (!= 0); LTTng records nothing with it");
		goto end;
	}
	if (!is_number(type)) {
		ret = fail_at(c, 0, "the filter is %s, not a condition", type_name(type));
		goto end;
	}
	ret = emit_op(c, UST_FOP_RETURN);
	if (ret >= 0)
		ret = finish(c, prog, len);
	if (ret >= 0 && c->warning.offset) {
		*err = c->warning;
		ret = 1;
	}
end:
	if (ret == -ENOMEM)
		snprintf(err->text, sizeof(err->text), "out of memory");
	free(c->lx.sval);
	free(c);
	return ret;
}

enum ust_filter_type ust_filter_type_from_name(const char *type)
{
	if (strchr(type, '['))
		return UST_FTYPE_NONE;
	if (!strncmp(type, "int", 3) || !strncmp(type, "uint", 4))
		return UST_FTYPE_S64;
	if (!strcmp(type, "float") || !strcmp(type, "double"))
		return UST_FTYPE_DOUBLE;
	if (!strcmp(type, "string"))
		return UST_FTYPE_STRING;
	return UST_FTYPE_NONE;
}
