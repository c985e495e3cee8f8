/* SPDX-License-Identifier: LGPL-2.1-only */
/* The filter language's tokens (filter_lex.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libustcomm/filter_lex.h"

int ust_filter_lex_fail(struct ust_filter_lex *l, size_t pos, const char *fmt, ...)
{
	va_list ap;

	l->err->offset = (uint32_t)pos + 1;
	va_start(ap, fmt);
	vsnprintf(l->err->text, sizeof(l->err->text), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Length of the UTF-8 sequence at s, or 0 when it is not a valid one. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		/* No overlong forms (E0 80..9F), no surrogates (ED A0..BF). */
		if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] > 0x9f))
			return 0;
		return (s[1] & 0xc0) == 0x80 && (s[2] & 0xc0) == 0x80 ? 3 : 0;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		/* No overlong forms (F0 80..8F), nothing above U+10FFFF. */
		if ((c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] > 0x8f))
			return 0;
		return (s[1] & 0xc0) == 0x80 && (s[2] & 0xc0) == 0x80 &&
		       (s[3] & 0xc0) == 0x80 ? 4 : 0;
	}
	return 0;
}

/*
 * Rules keep their filter's text, and session files and --mi output are
 * XML: text that XML cannot hold would be saved and then refused.
 */
int ust_filter_lex_check_text(struct ust_filter_lex *l)
{
	const unsigned char *s = (const unsigned char *)l->text;
	size_t i = 0, n;

	while (s[i]) {
		if (i >= UST_FILTER_TEXT_MAX)
			return ust_filter_lex_fail(l, UST_FILTER_TEXT_MAX,
						   "the expression is longer than %u bytes",
						   UST_FILTER_TEXT_MAX);
		if (s[i] < 0x20 && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
			return ust_filter_lex_fail(l, i, "control character 0x%02x at byte offset %zu: write \\n or \\t, or leave it out",
						   s[i], i);
		n = utf8_len(s + i);
		if (!n)
			return ust_filter_lex_fail(l, i, "invalid UTF-8 at byte offset %zu (byte 0x%02x): a filter is UTF-8 text",
						   i, s[i]);
		i += n;
	}
	return 0;
}

static int is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

static int is_hex(char ch)
{
	return is_digit(ch) || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
}

/* LTTng's identifiers: letters, digits, '_' and ':' (provider:name). */
static int is_ident_start(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' || ch == ':';
}

static int is_ident(char ch)
{
	return is_ident_start(ch) || is_digit(ch);
}

/* Appends one character to the current string token. */
static int str_put(struct ust_filter_lex *l, char ch)
{
	char *n;

	if (l->slen + 2 > UST_FILTER_DATA_MAX)
		return ust_filter_lex_fail(l, l->tok_pos, "the string is longer than %u bytes",
					   UST_FILTER_DATA_MAX);
	n = realloc(l->sval, l->slen + 2);
	if (!n)
		return -ENOMEM;
	l->sval = n;
	l->sval[l->slen++] = ch;
	l->sval[l->slen] = '\0';
	return 0;
}

/*
 * The escape after a backslash: LTTng's \* and UST's \n \t \" \' \\
 * (LTTng refuses every other backslash). Returns the character or -EINVAL.
 */
static int escape(struct ust_filter_lex *l, const char *p)
{
	switch (*p) {
	case 'n': return '\n';
	case 't': return '\t';
	case '"': case '\'': case '\\': case '*': return *p;
	case '\0':
		return ust_filter_lex_fail(l, l->tok_pos, "the string is not closed");
	default:
		return ust_filter_lex_fail(l, (size_t)(p - l->text) - 1,
					   "unsupported escape: use \\\" \\' \\\\ \\* \\n or \\t");
	}
}

/*
 * A string in double quotes or a character constant in single quotes,
 * which LTTng takes as a string too. The literal is read twice over: as
 * a glob matches it (stars and backslashes of the text escaped) and as
 * compared for equality. Which one is kept depends on whether an
 * unescaped star comes. A raw newline inside is dropped, as in LTTng.
 */
static int lex_string(struct ust_filter_lex *l, const char *open)
{
	char quote = *open, *plain = NULL;
	size_t plain_len = 0;
	const char *p = open + 1;
	int ret = 0, last_star = 0, stars = 0;

	l->is_glob = 0;
	for (; *p != quote; p++) {
		char ch = *p, lit;
		int escaped = 0, e;

		if (!ch) {
			ret = ust_filter_lex_fail(l, l->tok_pos, "the string is not closed");
			goto end;
		}
		if (ch == '\n')
			continue;
		if (ch == '\\') {
			escaped = 1;
			e = escape(l, ++p);
			if (e < 0) {
				ret = e;
				goto end;
			}
			lit = (char)e;
		} else {
			lit = ch;
		}
		last_star = !escaped && ch == '*';
		if (last_star) {
			l->is_glob = 1;
			stars++;
			ret = str_put(l, '*');
		} else if (lit == '*' || lit == '\\') {
			ret = str_put(l, '\\');
			if (ret >= 0)
				ret = str_put(l, lit);
		} else {
			ret = str_put(l, lit);
		}
		if (ret < 0)
			goto end;
		if (!l->is_glob) {
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
	l->star_at_end_only = stars == 1 && last_star;
	if (!l->is_glob) {
		free(l->sval);
		l->sval = plain ? plain : strdup("");
		plain = NULL;
		if (!l->sval) {
			ret = -ENOMEM;
			goto end;
		}
		l->slen = strlen(l->sval);
	}
	l->p = p + 1;
	l->tok = T_STRING;
end:
	free(plain);
	return ret;
}

/* C's integer suffixes as LTTng takes them: u, l, ll, ul, lu, ull, llu, any case but lL. */
static const char *skip_int_suffix(const char *p)
{
	const char *q = p;
	int u = 0;

	if (*q == 'u' || *q == 'U') {
		u = 1;
		q++;
	}
	if ((q[0] == 'l' && q[1] == 'l') || (q[0] == 'L' && q[1] == 'L'))
		q += 2;
	else if (*q == 'l' || *q == 'L')
		q++;
	if (!u && q != p && (*q == 'u' || *q == 'U'))
		q++;
	return q;
}

/* A float: decimal with '.' or an exponent, or hexadecimal with '.' or 'p'. */
static int lex_float(struct ust_filter_lex *l, const char *start)
{
	char *end;

	l->dval = strtod(start, &end);
	if (end == start)
		return ust_filter_lex_fail(l, l->tok_pos, "invalid number");
	if (*end == 'f' || *end == 'F' || *end == 'l' || *end == 'L')
		end++;
	if (is_ident(*end) || *end == '.')
		return ust_filter_lex_fail(l, l->tok_pos, "invalid number");
	l->tok = T_FLOAT;
	l->p = end;
	return 0;
}

/*
 * Integers up to 2^64 - 1; those above 2^63 - 1 become negative as
 * LTTng's bytecode holds them, in a signed 64-bit value.
 */
static int lex_number(struct ust_filter_lex *l)
{
	const char *start = l->p, *p = start;
	unsigned base = 10, digit;
	uint64_t v = 0;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		const char *h = p + 2;

		while (is_hex(*h))
			h++;
		if (*h == '.' || *h == 'p' || *h == 'P')
			return lex_float(l, start);
		if (h == p + 2)
			return ust_filter_lex_fail(l, l->tok_pos, "invalid number");
		base = 16;
		p += 2;
	} else {
		const char *d = p;

		while (is_digit(*d))
			d++;
		if (*d == '.' || ((*d == 'e' || *d == 'E') &&
				  (is_digit(d[1]) || ((d[1] == '+' || d[1] == '-') && is_digit(d[2])))))
			return lex_float(l, start);
		if (p[0] == '0')
			base = 8;
	}
	for (;; p++) {
		if (is_digit(*p))
			digit = (unsigned)(*p - '0');
		else if (base == 16 && is_hex(*p))
			digit = (unsigned)((*p | 0x20) - 'a' + 10);
		else
			break;
		if (digit >= base)
			return ust_filter_lex_fail(l, l->tok_pos, "invalid number");
		if (v > (UINT64_MAX - digit) / base)
			return ust_filter_lex_fail(l, l->tok_pos,
						   "the number does not fit in 64 bits (at most 18446744073709551615)");
		v = v * base + digit;
	}
	p = skip_int_suffix(p);
	if (is_ident(*p) || *p == '.')
		return ust_filter_lex_fail(l, l->tok_pos, "invalid number");
	l->ival = v;
	l->tok = T_INT;
	l->p = p;
	return 0;
}

static int lex_name(struct ust_filter_lex *l, const char *start)
{
	const char *p = start;

	while (is_ident(*p))
		p++;
	free(l->sval);
	l->sval = strndup(start, (size_t)(p - start));
	if (!l->sval)
		return -ENOMEM;
	l->slen = (size_t)(p - start);
	l->p = p;
	return 0;
}

static const char *skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

/* $ctx.NAME and $app.NAME: LTTng allows spaces around the dot. */
static int lex_global(struct ust_filter_lex *l, const char *p)
{
	const char *root = p + 1, *q = root;
	size_t len;

	while (is_ident(*q))
		q++;
	len = (size_t)(q - root);
	if (len == 3 && !strncmp(root, "ctx", 3))
		l->tok = T_CTX;
	else if (len == 3 && !strncmp(root, "app", 3))
		l->tok = T_APP;
	else
		return ust_filter_lex_fail(l, l->tok_pos,
					   "expected $ctx.NAME (a context) or $app.NAME (an application context)");
	q = skip_space(q);
	if (*q != '.')
		return ust_filter_lex_fail(l, l->tok_pos, "expected '.' and a name after $%.3s", root);
	q = skip_space(q + 1);
	if (!is_ident_start(*q))
		return ust_filter_lex_fail(l, (size_t)(q - l->text), "expected a name after $%.3s.", root);
	return lex_name(l, q);
}

/* Comments are white space; one left open runs to the end, as in LTTng. */
static const char *skip_blank(const char *p)
{
	for (;;) {
		p = skip_space(p);
		if (p[0] == '/' && p[1] == '*') {
			const char *e = strstr(p + 2, "*/");

			p = e ? e + 2 : p + strlen(p);
		} else if (p[0] == '/' && p[1] == '/') {
			p += strcspn(p, "\n");
		} else {
			return p;
		}
	}
}

static const struct {
	const char *text;
	enum ust_filter_tok tok;
} operators[] = {
	{ "<<", T_LSHIFT }, { ">>", T_RSHIFT }, { "==", T_EQ }, { "!=", T_NE },
	{ "<=", T_LE }, { ">=", T_GE }, { "&&", T_AND }, { "||", T_OR }, { "->", T_ARROW },
	{ "<", T_LT }, { ">", T_GT }, { "!", T_NOT }, { "-", T_MINUS }, { "+", T_PLUS },
	{ "~", T_TILDE }, { "&", T_BITAND }, { "|", T_BITOR }, { "^", T_BITXOR },
	{ "*", T_STAR }, { "/", T_SLASH }, { "%", T_PERCENT }, { "(", T_LPAREN },
	{ ")", T_RPAREN }, { ".", T_DOT }, { "[", T_LBRACKET }, { "]", T_RBRACKET },
};

int ust_filter_lex_next(struct ust_filter_lex *l)
{
	const char *p = skip_blank(l->p);
	size_t i;

	l->p = p;
	l->tok_pos = (size_t)(p - l->text);
	l->slen = 0;
	if (!*p) {
		l->tok = T_END;
		return 0;
	}
	if (*p == '"' || *p == '\'')
		return lex_string(l, p);
	if (*p == 'L' && (p[1] == '"' || p[1] == '\''))
		return lex_string(l, p + 1);
	if (is_digit(*p) || (*p == '.' && is_digit(p[1])))
		return lex_number(l);
	if (is_ident_start(*p)) {
		l->tok = T_FIELD;
		return lex_name(l, p);
	}
	if (*p == '$')
		return lex_global(l, p);
	for (i = 0; i < sizeof(operators) / sizeof(operators[0]); i++) {
		size_t n = strlen(operators[i].text);

		if (!strncmp(p, operators[i].text, n)) {
			l->tok = operators[i].tok;
			l->p = p + n;
			return 0;
		}
	}
	if (*p == '=')
		return ust_filter_lex_fail(l, l->tok_pos, "unexpected '=': comparison is '=='");
	return ust_filter_lex_fail(l, l->tok_pos, "unexpected character '%c'", *p);
}
