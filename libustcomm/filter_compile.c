/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * A recursive-descent compiler for filter expressions (filter_compile.h):
 * each rule emits its code as it parses and returns the type of the value
 * it leaves on the stack, so that type errors are reported at the
 * operator that causes them. Runs in controllers, in normal context.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libustcomm/filter_compile.h"

enum tok {
	T_END, T_INT, T_FLOAT, T_STRING, T_FIELD, T_CTX,
	T_EQ, T_NE, T_LT, T_LE, T_GT, T_GE, T_AND, T_OR, T_NOT, T_MINUS,
	T_LPAREN, T_RPAREN,
};

struct compiler {
	const char *text;
	const char *p;			/* after the current token */
	enum tok tok;
	size_t tok_pos;			/* 0-based start of the current token */
	int64_t ival;
	double dval;
	char *sval;			/* strings: as stored; fields, contexts: the name */
	size_t slen;
	int is_glob;
	const struct ust_filter_field *fields;
	uint32_t nr_fields;
	uint8_t code[UST_FILTER_CODE_MAX];
	uint32_t code_len;
	char data[UST_FILTER_DATA_MAX];
	uint32_t data_len;
	struct ust_filter_error *err;
};

static int fail_at(struct compiler *c, size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail_at(struct compiler *c, size_t pos, const char *fmt, ...)
{
	va_list ap;

	c->err->offset = (uint32_t)pos + 1;
	va_start(ap, fmt);
	vsnprintf(c->err->text, sizeof(c->err->text), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int is_ident_start(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
}

static int is_ident(char ch)
{
	return is_ident_start(ch) || (ch >= '0' && ch <= '9');
}

/* Appends one character to the current string token. */
static int str_put(struct compiler *c, char ch)
{
	char *n;

	if (c->slen + 2 > UST_FILTER_DATA_MAX)
		return fail_at(c, c->tok_pos, "the string is longer than %u bytes",
			       UST_FILTER_DATA_MAX);
	n = realloc(c->sval, c->slen + 2);
	if (!n)
		return -ENOMEM;
	c->sval = n;
	c->sval[c->slen++] = ch;
	c->sval[c->slen] = '\0';
	return 0;
}

/*
 * The literal is read twice over: the characters as matched by a glob
 * (stars and backslashes of the text escaped) and as compared for
 * equality. Which one is kept depends on whether an unescaped star comes.
 */
static int lex_string(struct compiler *c)
{
	char *plain = NULL;
	size_t plain_len = 0;
	const char *p = c->p + 1;
	int ret = 0;

	c->is_glob = 0;
	for (; *p != '"'; p++) {
		char ch = *p, lit;
		int escaped = 0;

		if (!ch) {
			ret = fail_at(c, c->tok_pos, "the string is not closed");
			goto end;
		}
		if (ch == '\\') {
			escaped = 1;
			switch (*++p) {
			case 'n': lit = '\n'; break;
			case 't': lit = '\t'; break;
			case '"': case '\\': case '*': lit = *p; break;
			default:
				ret = fail_at(c, (size_t)(p - c->text) - 1,
					      "unknown escape: use \\\" \\\\ \\* \\n or \\t");
				goto end;
			}
		} else {
			lit = ch;
		}
		if (!escaped && ch == '*') {
			c->is_glob = 1;
			ret = str_put(c, '*');
		} else if (lit == '*' || lit == '\\') {
			ret = str_put(c, '\\');
			if (ret >= 0)
				ret = str_put(c, lit);
		} else {
			ret = str_put(c, lit);
		}
		if (ret < 0)
			goto end;
		if (!c->is_glob) {
			char *n = realloc(plain, plain_len + 2);

			if (!n) {
				ret = -ENOMEM;
				goto end;
			}
			plain = n;
			plain[plain_len++] = lit;
			plain[plain_len] = '\0';
		}
	}
	if (!c->is_glob) {
		free(c->sval);
		c->sval = plain ? plain : strdup("");
		plain = NULL;
		c->slen = strlen(c->sval);
		if (!c->sval)
			ret = -ENOMEM;
	}
	c->p = p + 1;
	c->tok = T_STRING;
end:
	free(plain);
	return ret;
}

static int lex_number(struct compiler *c)
{
	const char *start = c->p;
	int hex = start[0] == '0' && (start[1] == 'x' || start[1] == 'X');
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(start, &end, 0);
	if (!hex && (*end == '.' || *end == 'e' || *end == 'E')) {
		c->dval = strtod(start, &end);
		c->tok = T_FLOAT;
	} else {
		if (errno == ERANGE || v > (unsigned long long)INT64_MAX)
			return fail_at(c, c->tok_pos, "the number does not fit in a signed 64-bit integer");
		c->ival = (int64_t)v;
		c->tok = T_INT;
	}
	if (is_ident(*end) || *end == '.')
		return fail_at(c, c->tok_pos, "invalid number");
	c->p = end;
	return 0;
}

static int lex_name(struct compiler *c, const char *start)
{
	const char *p = start;

	while (is_ident(*p))
		p++;
	free(c->sval);
	c->sval = strndup(start, (size_t)(p - start));
	if (!c->sval)
		return -ENOMEM;
	c->slen = (size_t)(p - start);
	c->p = p;
	return 0;
}

static const struct {
	const char *text;
	enum tok tok;
} operators[] = {
	{ "==", T_EQ }, { "!=", T_NE }, { "<=", T_LE }, { ">=", T_GE },
	{ "&&", T_AND }, { "||", T_OR }, { "<", T_LT }, { ">", T_GT },
	{ "!", T_NOT }, { "-", T_MINUS }, { "(", T_LPAREN }, { ")", T_RPAREN },
};

static int next(struct compiler *c)
{
	const char *p = c->p;
	size_t i;

	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	c->p = p;
	c->tok_pos = (size_t)(p - c->text);
	c->slen = 0;
	if (!*p) {
		c->tok = T_END;
		return 0;
	}
	if (*p == '"')
		return lex_string(c);
	if (*p >= '0' && *p <= '9')
		return lex_number(c);
	if (*p == '.' && p[1] >= '0' && p[1] <= '9')
		return lex_number(c);
	if (is_ident_start(*p)) {
		c->tok = T_FIELD;
		return lex_name(c, p);
	}
	if (*p == '$') {
		if (strncmp(p, "$ctx.", 5) || !is_ident_start(p[5]))
			return fail_at(c, c->tok_pos, "expected $ctx.NAME");
		c->tok = T_CTX;
		return lex_name(c, p + 5);
	}
	for (i = 0; i < sizeof(operators) / sizeof(operators[0]); i++) {
		size_t n = strlen(operators[i].text);

		if (!strncmp(p, operators[i].text, n)) {
			c->tok = operators[i].tok;
			c->p = p + n;
			return 0;
		}
	}
	if (*p == '=')
		return fail_at(c, c->tok_pos, "unexpected '=': comparison is '=='");
	if (*p == '&' || *p == '|')
		return fail_at(c, c->tok_pos, "unexpected '%c': logical operators are && and ||", *p);
	return fail_at(c, c->tok_pos, "unexpected character '%c'", *p);
}

static int emit(struct compiler *c, const void *bytes, uint32_t n)
{
	if (n > UST_FILTER_CODE_MAX - c->code_len)
		return fail_at(c, c->tok_pos, "the expression is too long (code over %u bytes)",
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
		return fail_at(c, c->tok_pos, "the expression's strings and names exceed %u bytes",
			       UST_FILTER_DATA_MAX);
	*off = (uint16_t)c->data_len;
	memcpy(c->data + c->data_len, s, len);
	c->data[c->data_len + len] = '\0';
	c->data_len += (uint32_t)len + 1;
	return 0;
}

static int expr_or(struct compiler *c, enum ust_filter_type *type);

static const char *type_name(enum ust_filter_type t)
{
	switch (t) {
	case UST_FTYPE_S64: return "an integer";
	case UST_FTYPE_DOUBLE: return "a float";
	case UST_FTYPE_STRING: return "a string";
	case UST_FTYPE_GLOB: return "a glob pattern";
	default: return "a value";
	}
}

static int primary_field(struct compiler *c, enum ust_filter_type *type)
{
	uint16_t off;
	uint32_t i;
	int ret;

	*type = UST_FTYPE_ANY;
	if (c->fields) {
		for (i = 0; i < c->nr_fields; i++) {
			if (!strcmp(c->fields[i].name, c->sval))
				break;
		}
		if (i == c->nr_fields)
			return fail_at(c, c->tok_pos, "unknown field '%s'", c->sval);
		*type = (enum ust_filter_type)c->fields[i].type;
		if (*type == UST_FTYPE_NONE)
			return fail_at(c, c->tok_pos,
				       "field '%s' is an array or a sequence: filters read integers, floats and strings",
				       c->sval);
	}
	ret = emit_data(c, c->sval, c->slen, &off);
	if (ret >= 0)
		ret = emit_u16(c, UST_FOP_LOAD_FIELD, off);
	return ret;
}

static int primary(struct compiler *c, enum ust_filter_type *type)
{
	uint8_t b[9];
	uint16_t off;
	size_t pos = c->tok_pos;
	int ret, ctx;

	switch (c->tok) {
	case T_INT:
		b[0] = UST_FOP_PUSH_S64;
		memcpy(b + 1, &c->ival, 8);
		*type = UST_FTYPE_S64;
		ret = emit(c, b, 9);
		break;
	case T_FLOAT:
		b[0] = UST_FOP_PUSH_DOUBLE;
		memcpy(b + 1, &c->dval, 8);
		*type = UST_FTYPE_DOUBLE;
		ret = emit(c, b, 9);
		break;
	case T_STRING:
		*type = c->is_glob ? UST_FTYPE_GLOB : UST_FTYPE_STRING;
		ret = emit_data(c, c->sval, c->slen, &off);
		if (ret >= 0)
			ret = emit_u16(c, c->is_glob ? UST_FOP_PUSH_GLOB : UST_FOP_PUSH_STRING, off);
		break;
	case T_FIELD:
		ret = primary_field(c, type);
		break;
	case T_CTX:
		ctx = ust_filter_ctx_lookup(c->sval);
		if (!ctx)
			return fail_at(c, pos, "unknown context '$ctx.%s': filters know vpid, vtid, pthread_id and procname",
				       c->sval);
		*type = ust_filter_ctx_type(ctx);
		ret = emit_data(c, c->sval, c->slen, &off);
		if (ret >= 0)
			ret = emit_u16(c, UST_FOP_LOAD_CTX, off);
		break;
	case T_LPAREN:
		ret = next(c);
		if (ret >= 0)
			ret = expr_or(c, type);
		if (ret < 0)
			return ret;
		if (c->tok != T_RPAREN)
			return fail_at(c, c->tok_pos, "expected ')' to close the '(' at column %zu",
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

static int is_number(enum ust_filter_type t)
{
	return t == UST_FTYPE_S64 || t == UST_FTYPE_DOUBLE || t == UST_FTYPE_ANY;
}

static int unary(struct compiler *c, enum ust_filter_type *type)
{
	enum tok op = c->tok;
	size_t pos = c->tok_pos;
	int ret;

	if (op != T_NOT && op != T_MINUS)
		return primary(c, type);
	ret = next(c);
	if (ret < 0)
		return ret;
	if (op == T_MINUS && (c->tok == T_INT || c->tok == T_FLOAT)) {
		/* A negative literal, folded. */
		if (c->tok == T_INT)
			c->ival = (int64_t)(0 - (uint64_t)c->ival);
		else
			c->dval = -c->dval;
		return primary(c, type);
	}
	ret = unary(c, type);
	if (ret < 0)
		return ret;
	if (!is_number(*type))
		return fail_at(c, pos, "'%s' needs a number, not %s", op == T_NOT ? "!" : "-",
			       type_name(*type));
	if (op == T_NOT)
		*type = UST_FTYPE_S64;
	return emit_op(c, op == T_NOT ? UST_FOP_NOT : UST_FOP_NEG);
}

static int check_compare(struct compiler *c, size_t pos, enum tok op, enum ust_filter_type a,
			 enum ust_filter_type b)
{
	int text_a = a == UST_FTYPE_STRING || a == UST_FTYPE_GLOB;
	int text_b = b == UST_FTYPE_STRING || b == UST_FTYPE_GLOB;

	if (a == UST_FTYPE_ANY || b == UST_FTYPE_ANY) {
		if ((text_a || text_b) && op != T_EQ && op != T_NE)
			return fail_at(c, pos, "strings compare with == and != only");
		return 0;
	}
	if (text_a != text_b)
		return fail_at(c, pos, "cannot compare %s with %s", type_name(a), type_name(b));
	if (text_a && op != T_EQ && op != T_NE)
		return fail_at(c, pos, "strings compare with == and != only");
	if (a == UST_FTYPE_GLOB && b == UST_FTYPE_GLOB)
		return fail_at(c, pos, "cannot compare two glob patterns");
	return 0;
}

static const uint8_t compare_ops[] = {
	[T_EQ] = UST_FOP_EQ, [T_NE] = UST_FOP_NE, [T_LT] = UST_FOP_LT,
	[T_LE] = UST_FOP_LE, [T_GT] = UST_FOP_GT, [T_GE] = UST_FOP_GE,
};

/* One level of left-associative comparisons: relation, or equality over it. */
static int comparison(struct compiler *c, enum ust_filter_type *type, int equality)
{
	enum ust_filter_type rhs;
	int ret = equality ? comparison(c, type, 0) : unary(c, type);

	while (ret >= 0) {
		enum tok op = c->tok;
		size_t pos = c->tok_pos;
		uint8_t b[2];

		if (equality ? op != T_EQ && op != T_NE :
		    op != T_LT && op != T_LE && op != T_GT && op != T_GE)
			break;
		ret = next(c);
		if (ret >= 0)
			ret = equality ? comparison(c, &rhs, 0) : unary(c, &rhs);
		if (ret >= 0)
			ret = check_compare(c, pos, op, *type, rhs);
		if (ret < 0)
			break;
		b[0] = compare_ops[op];
		b[1] = UST_FCMP_UNLINKED;
		ret = emit(c, b, 2);
		*type = UST_FTYPE_S64;
	}
	return ret;
}

/* && over equality, or || over &&: short-circuit jumps patched after the right side. */
static int logical(struct compiler *c, enum ust_filter_type *type, int is_or)
{
	enum ust_filter_type rhs;
	int ret = is_or ? logical(c, type, 0) : comparison(c, type, 1);

	while (ret >= 0 && c->tok == (is_or ? T_OR : T_AND)) {
		size_t pos = c->tok_pos;
		uint32_t jump_at;

		if (!is_number(*type))
			return fail_at(c, pos, "'%s' needs conditions on both sides, not %s",
				       is_or ? "||" : "&&", type_name(*type));
		jump_at = c->code_len;
		ret = emit_u16(c, is_or ? UST_FOP_OR : UST_FOP_AND, 0);
		if (ret >= 0)
			ret = next(c);
		if (ret >= 0)
			ret = is_or ? logical(c, &rhs, 0) : comparison(c, &rhs, 1);
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

static int expr_or(struct compiler *c, enum ust_filter_type *type)
{
	return logical(c, type, 1);
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
	enum ust_filter_type type;
	int ret;

	err->offset = 0;
	err->text[0] = '\0';
	if (!c)
		return -ENOMEM;
	c->text = c->p = text;
	c->fields = fields;
	c->nr_fields = nr_fields;
	c->err = err;
	if (strlen(text) > UST_FILTER_TEXT_MAX) {
		ret = fail_at(c, UST_FILTER_TEXT_MAX, "the expression is longer than %u characters",
			      UST_FILTER_TEXT_MAX);
		goto end;
	}
	ret = next(c);
	if (ret >= 0 && c->tok == T_END) {
		ret = fail_at(c, 0, "the filter is empty");
		goto end;
	}
	if (ret >= 0)
		ret = expr_or(c, &type);
	if (ret < 0)
		goto end;
	if (c->tok != T_END) {
		ret = fail_at(c, c->tok_pos, c->tok == T_RPAREN ? "unmatched ')'" :
			      "expected an operator or the end of the expression");
		goto end;
	}
	if (!is_number(type)) {
		ret = fail_at(c, 0, "the filter is %s, not a condition", type_name(type));
		goto end;
	}
	ret = emit_op(c, UST_FOP_RETURN);
	if (ret >= 0)
		ret = finish(c, prog, len);
end:
	if (ret == -ENOMEM)
		snprintf(err->text, sizeof(err->text), "out of memory");
	free(c->sval);
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
