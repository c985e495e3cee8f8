/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The tokens of the filter language (filter_compile.h), as LTTng's lexer
 * (lttng-tools, filter-lexer.l) cuts them: C comments, integer suffixes,
 * hexadecimal floats, character constants (which are strings), and the
 * operators of C that the parser refuses with a reason. Internal to
 * filter_compile.c.
 */
#ifndef USTCOMM_FILTER_LEX_H
#define USTCOMM_FILTER_LEX_H

#include <stddef.h>
#include <stdint.h>
#include "libustcomm/filter_bytecode.h"

enum ust_filter_tok {
	T_END, T_INT, T_FLOAT, T_STRING, T_FIELD, T_CTX, T_APP,
	T_EQ, T_NE, T_LT, T_LE, T_GT, T_GE, T_AND, T_OR, T_NOT,
	T_MINUS, T_PLUS, T_TILDE, T_BITAND, T_BITOR, T_BITXOR, T_LSHIFT, T_RSHIFT,
	T_STAR, T_SLASH, T_PERCENT, T_LPAREN, T_RPAREN,
	/* What LTTng's grammar has for nested fields and arrays. */
	T_DOT, T_LBRACKET, T_RBRACKET, T_ARROW,
};

struct ust_filter_lex {
	const char *text;
	const char *p;			/* after the current token */
	enum ust_filter_tok tok;
	size_t tok_pos;			/* 0-based start of the current token */
	uint64_t ival;
	double dval;
	char *sval;			/* strings: as stored; names: the name */
	size_t slen;
	int is_glob;			/* a string with an unescaped '*' */
	int star_at_end_only;		/* ... and that star is its last character */
	struct ust_filter_error *err;
};

/* Reports at the 0-based byte pos; returns -EINVAL. */
int ust_filter_lex_fail(struct ust_filter_lex *l, size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The whole text: its length, and that it is UTF-8 without control characters. */
int ust_filter_lex_check_text(struct ust_filter_lex *l);

/* The next token into l; 0, -EINVAL (err filled) or -ENOMEM. */
int ust_filter_lex_next(struct ust_filter_lex *l);

#endif
