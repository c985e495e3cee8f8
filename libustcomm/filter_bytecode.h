/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Filter bytecode: what a controller compiles a filter expression into
 * (filter_compile.h) and sends to the application, which validates and
 * links it per event (filter_link.c) before libust runs it on the event's
 * arguments (libust/filter.c).
 *
 * A program is a header, code_len bytes of code, then data_len bytes of
 * NUL-terminated strings (field names, literals) that instructions refer
 * to by offset. The machine is a stack of at most UST_FILTER_STACK_MAX
 * 8-byte values. Every jump goes forward, so a program runs at most
 * code_len instructions: no loops, no recursion, bounded time.
 *
 * The code the controller sends is generic: fields and contexts are named,
 * comparisons carry no types. Linking against one event's field list
 * rewrites, in place and at the same length, each LOAD_FIELD into a typed
 * load of the field's index, each LOAD_CTX into the context's id, and
 * sets each comparison's mode from its operands' types, checking every
 * type on the way. Only linked code runs.
 */
#ifndef USTCOMM_FILTER_BYTECODE_H
#define USTCOMM_FILTER_BYTECODE_H

#include <stddef.h>
#include <stdint.h>
#include "libustcomm/common.h"

#define UST_FILTER_MAGIC	0x46545355u	/* "USTF" */
#define UST_FILTER_VERSION	1u
/*
 * An enable-rule request carries the text and the program in hexadecimal
 * within USTCOMM_CTL_MAX_REQUEST (64 KiB): 16 KiB + 2 * (12 + 4 KiB) + the
 * header leaves room. Jump targets are 16-bit.
 */
#define UST_FILTER_CODE_MAX	12288u
#define UST_FILTER_DATA_MAX	4096u
#define UST_FILTER_STACK_MAX	16u
/* Short-circuit jumps whose target is not reached yet, at any point. */
#define UST_FILTER_PENDING_MAX	32u
/* A filter expression's text, as users write it, in bytes. LTTng's is 64 KiB. */
#define UST_FILTER_TEXT_MAX	16384u

struct ust_filter_header {
	uint32_t magic;
	uint16_t version;
	uint16_t reserved;		/* 0 */
	uint32_t code_len;
	uint32_t data_len;
};

/*
 * Opcodes, then their operands (little-endian, unaligned). Programs as
 * sent use the generic ones; the linker alone writes the linked ones,
 * which are refused in a program as sent.
 */
enum ust_filter_op {
	UST_FOP_RETURN = 1,	/* pop a number: the event is recorded when it is not 0. Last. */
	UST_FOP_LOAD_FIELD,	/* u16 name offset: pushes the field */
	UST_FOP_LOAD_CTX,	/* u16 name offset: pushes $ctx.NAME */
	UST_FOP_PUSH_S64,	/* i64 */
	UST_FOP_PUSH_DOUBLE,	/* IEEE 754 double */
	UST_FOP_PUSH_STRING,	/* u16 offset: compared for equality */
	UST_FOP_PUSH_GLOB,	/* u16 offset: a pattern with '*' and '\' escapes */
	UST_FOP_EQ,		/* u8 mode (enum ust_filter_cmp_mode), for all six */
	UST_FOP_NE,
	UST_FOP_LT,
	UST_FOP_LE,
	UST_FOP_GT,
	UST_FOP_GE,
	UST_FOP_NOT,		/* number -> 0 or 1 */
	UST_FOP_NEG,		/* number -> its negation */
	UST_FOP_TO_BOOL,	/* number -> 0 or 1 */
	/*
	 * u16 target: pop a number; when it decides the result (0 for AND,
	 * not 0 for OR), push that result as 0 or 1 and jump forward to
	 * target, else go on with the right operand.
	 */
	UST_FOP_AND,
	UST_FOP_OR,
	UST_FOP_PLUS,		/* number -> itself */
	UST_FOP_BIT_NOT,	/* integer -> ~integer */
	/*
	 * Two integers -> one, on their 64 bits unsigned. A shift count
	 * outside 0..63 ends the program with "not recorded", as LTTng-UST's
	 * interpreter does.
	 */
	UST_FOP_BIT_AND,
	UST_FOP_BIT_OR,
	UST_FOP_BIT_XOR,
	UST_FOP_LSHIFT,
	UST_FOP_RSHIFT,
	UST_FOP_GENERIC_MAX = UST_FOP_RSHIFT,

	/* Linked: the same lengths, with types and indexes resolved. */
	UST_FOP_LOAD_S64 = 0x40,	/* u16 field index */
	UST_FOP_LOAD_DOUBLE,		/* u16 field index */
	UST_FOP_LOAD_STRING,		/* u16 field index */
	UST_FOP_LOAD_CTX_ID,		/* u16 enum ust_filter_ctx */
	/*
	 * The forms of RETURN NOT NEG TO_BOOL AND OR whose operand is a
	 * double. As truth values (all but NOT and NEG) doubles are truncated
	 * to integers first, as LTTng-UST casts them: 0.5 is false. A double
	 * reaches RETURN only through TO_BOOL; the linker refuses it alone.
	 */
	UST_FOP_RETURN_DOUBLE,
	UST_FOP_NOT_DOUBLE,
	UST_FOP_NEG_DOUBLE,
	UST_FOP_TO_BOOL_DOUBLE,
	UST_FOP_AND_DOUBLE,
	UST_FOP_OR_DOUBLE,
	/* Comparisons of two integers: EQ..GE with an unused mode byte. */
	UST_FOP_EQ_S64,
	UST_FOP_NE_S64,
	UST_FOP_LT_S64,
	UST_FOP_LE_S64,
	UST_FOP_GT_S64,
	UST_FOP_GE_S64,
	/*
	 * LOAD_FIELD of an integer, PUSH_S64 and a comparison, fused into
	 * one instruction of the same 14 bytes: 1 byte unused, u16 field
	 * index, i64 constant, 2 bytes unused. One opcode per comparison, in
	 * the order EQ..GE. Only where no jump lands inside the three.
	 */
	UST_FOP_FIELD_EQ_S64,
	UST_FOP_FIELD_NE_S64,
	UST_FOP_FIELD_LT_S64,
	UST_FOP_FIELD_LE_S64,
	UST_FOP_FIELD_GT_S64,
	UST_FOP_FIELD_GE_S64,
	UST_FOP_NOP,		/* PLUS, linked */
	/*
	 * LOAD_CTX of an $app context, linked: a UST program has none, and
	 * LTTng-UST fails when it reads one that no agent provides, so the
	 * filter ends with "not recorded" where it reaches this.
	 */
	UST_FOP_FAIL,
};

/* How a linked comparison reads its two operands. */
enum ust_filter_cmp_mode {
	UST_FCMP_UNLINKED = 0,	/* as sent: the linker chooses */
	UST_FCMP_S64,		/* both integers */
	UST_FCMP_DOUBLE,	/* both doubles */
	UST_FCMP_S64_DOUBLE,	/* integer, double */
	UST_FCMP_DOUBLE_S64,	/* double, integer */
	UST_FCMP_STRING,	/* both strings: bytes as signed chars, as LTTng-UST on x86 */
	/*
	 * String, glob pattern (and the reverse). == and != match the whole
	 * pattern; the orderings compare up to its first unescaped '*' and
	 * call what follows equal, as LTTng-UST compares "abc*".
	 */
	UST_FCMP_GLOB_RIGHT,
	UST_FCMP_GLOB_LEFT,
};

/*
 * Contexts a filter can read: $ctx.NAME, LTTng-UST's statically known
 * ones and UST's ip. All integers but procname. The name of any other
 * context ($app.NAME included, stored with its "$app." prefix) passes
 * the check, and linking it fails: that filter records nothing.
 */
enum ust_filter_ctx {
	UST_FCTX_VPID = 1,
	UST_FCTX_VTID,
	UST_FCTX_PTHREAD_ID,
	UST_FCTX_PROCNAME,
	UST_FCTX_CPU_ID,
	UST_FCTX_IP,
	UST_FCTX_VUID,
	UST_FCTX_VEUID,
	UST_FCTX_VSUID,
	UST_FCTX_VGID,
	UST_FCTX_VEGID,
	UST_FCTX_VSGID,
	/* Namespaces: the inode of /proc/thread-self/ns/NAME, 0 without. */
	UST_FCTX_CGROUP_NS,
	UST_FCTX_IPC_NS,
	UST_FCTX_MNT_NS,
	UST_FCTX_NET_NS,
	UST_FCTX_PID_NS,
	UST_FCTX_TIME_NS,
	UST_FCTX_USER_NS,
	UST_FCTX_UTS_NS,
	UST_FCTX_MAX = UST_FCTX_UTS_NS,
};
#define UST_FCTX_NS_FIRST	UST_FCTX_CGROUP_NS

/* The type of a value on the stack, and of a field to the linker. */
enum ust_filter_type {
	UST_FTYPE_NONE = 0,	/* a field no filter can read (arrays, sequences) */
	UST_FTYPE_S64,
	UST_FTYPE_DOUBLE,
	UST_FTYPE_STRING,
	UST_FTYPE_GLOB,
	UST_FTYPE_ANY,		/* unlinked check: a field of unknown type */
};

/* One field of the event a program is linked against, in payload order. */
struct ust_filter_field {
	const char *name;
	uint8_t type;		/* enum ust_filter_type */
};

/* What is wrong, and where in the code or the expression (0 when none). */
struct ust_filter_error {
	uint32_t offset;
	char text[160];
};

/*
 * Checks a program as received: the header, every opcode and operand,
 * that every offset points inside the data at a terminated string, that
 * every jump goes forward onto an instruction, that the stack never
 * underflows or exceeds UST_FILTER_STACK_MAX, that the types of what each
 * instruction pops are right (fields and unknown contexts counting as any
 * type) and that the code ends with RETURN at depth 1.
 * Returns 0 or -EINVAL with err filled. Allocates nothing;
 * async-signal-safe.
 */
USTCOMM_API int ust_filter_check(const void *prog, size_t len, struct ust_filter_error *err);

/*
 * ust_filter_check(), then links a copy of the program into out (room for
 * len bytes) against an event's fields: -ENOENT when it names a field the
 * event does not have or a context there is not, -EINVAL when the types do
 * not fit (a double as the whole program's value included).
 * Async-signal-safe.
 */
USTCOMM_API int ust_filter_link(const void *prog, size_t len, const struct ust_filter_field *fields,
				uint32_t nr_fields, void *out, struct ust_filter_error *err);

/* The context's id for a $ctx name, 0 when there is none; its type; its name. */
USTCOMM_API int ust_filter_ctx_lookup(const char *name);
USTCOMM_API enum ust_filter_type ust_filter_ctx_type(int ctx);
USTCOMM_API const char *ust_filter_ctx_name(int ctx);

/* Star-glob match ('*' any run, '\' escapes the next character). */
USTCOMM_API int ust_filter_glob_match(const char *pattern, const char *s);

/*
 * <0, 0, >0 as s orders before, like or after pattern (a glob, '\'
 * escapes) compared up to its first unescaped '*', bytes as signed chars:
 * how LTTng-UST orders a string and a literal. With a pattern without
 * '*' or '\', that is strcmp() on signed chars.
 */
USTCOMM_API int ust_filter_str_order(const char *s, const char *pattern);

#endif
