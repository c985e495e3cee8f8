/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Validation and linking of filter bytecode (filter_bytecode.h).
 *
 * One forward pass over the code with the types of the stack: since every
 * jump goes forward, the state at an instruction is known once the pass
 * reaches it, from the fall-through and from the jumps that target it,
 * which must agree. A jump's state waits in a small fixed table until the
 * pass reaches its target; a target the pass steps over lies inside an
 * instruction and is refused. Nothing is allocated: the application runs
 * this from its control server, which may be a signal handler.
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "libustcomm/filter_bytecode.h"
#include "libustcomm/format.h"

struct stack_state {
	uint32_t depth;
	uint8_t types[UST_FILTER_STACK_MAX];
};

struct pending {
	uint32_t target;
	struct stack_state st;
};

struct walk {
	const struct ust_filter_header *hdr;
	const uint8_t *code;
	const char *data;
	uint8_t *out;			/* linked code, or NULL to check only */
	const struct ust_filter_field *fields;
	uint32_t nr_fields;
	struct ust_filter_error *err;
	struct stack_state st;
	struct pending pending[UST_FILTER_PENDING_MAX];
	uint32_t nr_pending;
	/* Where an integer field load starts a fusable compare, or UINT32_MAX. */
	uint32_t fuse_at;
};

#define FUSED_LEN	14	/* LOAD_FIELD 3 + PUSH_S64 9 + comparison 2 */

static const char *const ctx_names[] = {
	[UST_FCTX_VPID] = "vpid",
	[UST_FCTX_VTID] = "vtid",
	[UST_FCTX_PTHREAD_ID] = "pthread_id",
	[UST_FCTX_PROCNAME] = "procname",
	[UST_FCTX_CPU_ID] = "cpu_id",
	[UST_FCTX_IP] = "ip",
	[UST_FCTX_VUID] = "vuid",
	[UST_FCTX_VEUID] = "veuid",
	[UST_FCTX_VSUID] = "vsuid",
	[UST_FCTX_VGID] = "vgid",
	[UST_FCTX_VEGID] = "vegid",
	[UST_FCTX_VSGID] = "vsgid",
	[UST_FCTX_CGROUP_NS] = "cgroup_ns",
	[UST_FCTX_IPC_NS] = "ipc_ns",
	[UST_FCTX_MNT_NS] = "mnt_ns",
	[UST_FCTX_NET_NS] = "net_ns",
	[UST_FCTX_PID_NS] = "pid_ns",
	[UST_FCTX_TIME_NS] = "time_ns",
	[UST_FCTX_USER_NS] = "user_ns",
	[UST_FCTX_UTS_NS] = "uts_ns",
};

int ust_filter_ctx_lookup(const char *name)
{
	int i;

	for (i = 1; i <= UST_FCTX_MAX; i++) {
		if (!strcmp(name, ctx_names[i]))
			return i;
	}
	return 0;
}

enum ust_filter_type ust_filter_ctx_type(int ctx)
{
	return ctx == UST_FCTX_PROCNAME ? UST_FTYPE_STRING : UST_FTYPE_S64;
}

const char *ust_filter_ctx_name(int ctx)
{
	return ctx >= 1 && ctx <= UST_FCTX_MAX ? ctx_names[ctx] : NULL;
}

int ust_filter_glob_match(const char *p, const char *s)
{
	const char *star_p = NULL, *star_s = NULL;

	/*
	 * Greedy with backtracking to the last star only: a later star can
	 * always absorb what an earlier one would have, so this is linear in
	 * practice and never recursive.
	 */
	for (;;) {
		if (*p == '*') {
			star_p = ++p;
			star_s = s;
			continue;
		}
		if (*p == '\\' && p[1])
			p++;
		if (*p && *p == *s) {
			p++;
			s++;
			continue;
		}
		if (!*p && !*s)
			return 1;
		if (!star_p || !*star_s)
			return 0;
		p = star_p;
		s = ++star_s;
	}
}

int ust_filter_str_order(const char *s, const char *p)
{
	for (;; s++, p++) {
		if (*p == '*')
			return 0;
		if (*p == '\\' && p[1])
			p++;
		if (!*p)
			return *s ? 1 : 0;
		if (!*s)
			return -1;
		if (*s != *p)
			return (signed char)*s - (signed char)*p;
	}
}

static int fail(struct walk *w, uint32_t pc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct walk *w, uint32_t pc, const char *fmt, ...)
{
	va_list ap;

	w->err->offset = pc;
	va_start(ap, fmt);
	ustcomm_vformat(w->err->text, sizeof(w->err->text), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static uint16_t get_u16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static void put_u16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

/* The string at a data offset, or NULL when it is not one. */
static const char *data_string(const struct walk *w, uint16_t off)
{
	if (off >= w->hdr->data_len)
		return NULL;
	if (!memchr(w->data + off, '\0', w->hdr->data_len - off))
		return NULL;
	return w->data + off;
}

static int is_compare(uint8_t op)
{
	return op >= UST_FOP_EQ && op <= UST_FOP_GE;
}

static uint32_t op_size(uint8_t op)
{
	if (is_compare(op))
		return 2;
	switch (op) {
	case UST_FOP_PUSH_S64:
	case UST_FOP_PUSH_DOUBLE:
		return 9;
	case UST_FOP_LOAD_FIELD:
	case UST_FOP_LOAD_CTX:
	case UST_FOP_PUSH_STRING:
	case UST_FOP_PUSH_GLOB:
	case UST_FOP_AND:
	case UST_FOP_OR:
		return 3;
	default:
		return 1;
	}
}

static int push(struct walk *w, uint32_t pc, enum ust_filter_type type)
{
	if (w->st.depth == UST_FILTER_STACK_MAX)
		return fail(w, pc, "the expression needs more than %u stack slots",
			    UST_FILTER_STACK_MAX);
	w->st.types[w->st.depth++] = (uint8_t)type;
	return 0;
}

static int pop(struct walk *w, uint32_t pc, enum ust_filter_type *type)
{
	if (!w->st.depth)
		return fail(w, pc, "stack underflow");
	*type = w->st.types[--w->st.depth];
	return 0;
}

static int is_number(enum ust_filter_type t)
{
	return t == UST_FTYPE_S64 || t == UST_FTYPE_DOUBLE || t == UST_FTYPE_ANY;
}

static int is_text(enum ust_filter_type t)
{
	return t == UST_FTYPE_STRING || t == UST_FTYPE_GLOB || t == UST_FTYPE_ANY;
}

/* Pops a number; a double operand turns the instruction into its double form. */
static int pop_number(struct walk *w, uint32_t pc, enum ust_filter_type *type)
{
	/* Every generic opcode that pops a number has its double form here. */
	static const uint8_t double_form[UST_FOP_GENERIC_MAX + 1] = {
		[UST_FOP_RETURN] = UST_FOP_RETURN_DOUBLE,
		[UST_FOP_NOT] = UST_FOP_NOT_DOUBLE,
		[UST_FOP_NEG] = UST_FOP_NEG_DOUBLE,
		[UST_FOP_TO_BOOL] = UST_FOP_TO_BOOL_DOUBLE,
		[UST_FOP_AND] = UST_FOP_AND_DOUBLE,
		[UST_FOP_OR] = UST_FOP_OR_DOUBLE,
		[UST_FOP_PLUS] = UST_FOP_NOP,
	};
	int ret = pop(w, pc, type);

	if (ret < 0)
		return ret;
	if (!is_number(*type))
		return fail(w, pc, "a string is not a condition or a number");
	if (w->out && *type == UST_FTYPE_DOUBLE) {
		if (w->code[pc] == UST_FOP_RETURN)
			return fail(w, pc, "a float is not a condition: compare it (!= 0)");
		w->out[pc] = double_form[w->code[pc]];
	}
	return 0;
}

static int same_state(const struct stack_state *a, const struct stack_state *b)
{
	return a->depth == b->depth && !memcmp(a->types, b->types, a->depth);
}

/* The jumps that land here agree with the fall-through; none lands inside. */
static int merge_pending(struct walk *w, uint32_t pc)
{
	uint32_t i = 0;

	while (i < w->nr_pending) {
		struct pending *p = &w->pending[i];

		if (p->target > pc) {
			i++;
			continue;
		}
		if (p->target < pc)
			return fail(w, p->target, "a jump lands inside an instruction");
		if (!same_state(&p->st, &w->st))
			return fail(w, pc, "the ways into this instruction leave different stacks");
		*p = w->pending[--w->nr_pending];
	}
	return 0;
}

/*
 * An integer field compared with a constant, the commonest filter: fused
 * if the next two instructions are that constant and an unlinked
 * comparison, and no pending jump lands between. The fused form is
 * written once the comparison is validated (fuse()); until then the three
 * are checked one by one like any others.
 */
static void consider_fusion(struct walk *w, uint32_t pc)
{
	uint32_t i;

	w->fuse_at = UINT32_MAX;
	if (w->hdr->code_len - pc < FUSED_LEN || w->code[pc + 3] != UST_FOP_PUSH_S64 ||
	    !is_compare(w->code[pc + 12]))
		return;
	for (i = 0; i < w->nr_pending; i++) {
		if (w->pending[i].target > pc && w->pending[i].target < pc + FUSED_LEN)
			return;
	}
	w->fuse_at = pc;
}

/* The comparison at pc was linked as integers: fuse it with its operands. */
static void fuse(struct walk *w, uint32_t pc)
{
	uint32_t at = w->fuse_at;
	uint8_t field[2], imm[8];

	w->fuse_at = UINT32_MAX;
	if (at == UINT32_MAX || at + 12 != pc || w->out[pc] < UST_FOP_EQ_S64 ||
	    w->out[pc] > UST_FOP_GE_S64)
		return;
	memcpy(field, w->out + at + 1, 2);
	memcpy(imm, w->out + at + 4, 8);
	w->out[at] = (uint8_t)(UST_FOP_FIELD_EQ_S64 + (w->code[pc] - UST_FOP_EQ));
	w->out[at + 1] = 0;
	memcpy(w->out + at + 2, field, 2);
	memcpy(w->out + at + 4, imm, 8);
	w->out[at + 12] = 0;
	w->out[at + 13] = 0;
}

static int link_field(struct walk *w, uint32_t pc, const uint8_t *insn)
{
	const char *name = data_string(w, get_u16(insn + 1));
	uint32_t i;

	if (!name)
		return fail(w, pc, "a field name points outside the data");
	if (!w->out)
		return push(w, pc, UST_FTYPE_ANY);
	for (i = 0; i < w->nr_fields; i++) {
		if (!strcmp(w->fields[i].name, name))
			break;
	}
	if (i == w->nr_fields) {
		fail(w, pc, "the event has no field '%s'", name);
		return -ENOENT;
	}
	switch (w->fields[i].type) {
	case UST_FTYPE_S64:
		w->out[pc] = UST_FOP_LOAD_S64;
		break;
	case UST_FTYPE_DOUBLE:
		w->out[pc] = UST_FOP_LOAD_DOUBLE;
		break;
	case UST_FTYPE_STRING:
		w->out[pc] = UST_FOP_LOAD_STRING;
		break;
	default:
		return fail(w, pc, "field '%s' is an array or a sequence: filters read integers, floats and strings",
			    name);
	}
	put_u16(w->out + pc + 1, (uint16_t)i);
	if (w->fields[i].type == UST_FTYPE_S64)
		consider_fusion(w, pc);
	return push(w, pc, (enum ust_filter_type)w->fields[i].type);
}

static int link_ctx(struct walk *w, uint32_t pc, const uint8_t *insn)
{
	const char *name = data_string(w, get_u16(insn + 1));
	int ctx;

	if (!name)
		return fail(w, pc, "a context name points outside the data");
	ctx = ust_filter_ctx_lookup(name);
	if (!ctx && !w->out)
		return push(w, pc, UST_FTYPE_ANY);
	if (!ctx && !strncmp(name, "$app.", 5)) {
		/* What follows never runs: ANY satisfies every operator. */
		w->out[pc] = UST_FOP_FAIL;
		return push(w, pc, UST_FTYPE_ANY);
	}
	if (!ctx) {
		fail(w, pc, "there is no context '$ctx.%s'", name);
		return -ENOENT;
	}
	if (w->out) {
		w->out[pc] = UST_FOP_LOAD_CTX_ID;
		put_u16(w->out + pc + 1, (uint16_t)ctx);
	}
	return push(w, pc, ust_filter_ctx_type(ctx));
}

static int link_compare(struct walk *w, uint32_t pc, const uint8_t *insn)
{
	enum ust_filter_type a = UST_FTYPE_NONE, b = UST_FTYPE_NONE;
	enum ust_filter_cmp_mode mode;
	int ret;

	if (insn[1] != UST_FCMP_UNLINKED)
		return fail(w, pc, "a comparison arrived linked");
	ret = pop(w, pc, &b);
	if (ret >= 0)
		ret = pop(w, pc, &a);
	if (ret < 0)
		return ret;
	if (is_number(a) && is_number(b)) {
		if (a == UST_FTYPE_DOUBLE)
			mode = b == UST_FTYPE_DOUBLE ? UST_FCMP_DOUBLE : UST_FCMP_DOUBLE_S64;
		else
			mode = b == UST_FTYPE_DOUBLE ? UST_FCMP_S64_DOUBLE : UST_FCMP_S64;
	} else if (is_text(a) && is_text(b)) {
		if (a == UST_FTYPE_GLOB && b == UST_FTYPE_GLOB)
			return fail(w, pc, "two glob patterns cannot be compared");
		mode = a == UST_FTYPE_GLOB ? UST_FCMP_GLOB_LEFT :
			b == UST_FTYPE_GLOB ? UST_FCMP_GLOB_RIGHT : UST_FCMP_STRING;
	} else {
		return fail(w, pc, "a string cannot be compared with a number");
	}
	if (w->out) {
		w->out[pc + 1] = (uint8_t)mode;
		if (mode == UST_FCMP_S64) {
			w->out[pc] = (uint8_t)(UST_FOP_EQ_S64 + (insn[0] - UST_FOP_EQ));
			fuse(w, pc);
		}
	}
	return push(w, pc, UST_FTYPE_S64);
}

static int jump(struct walk *w, uint32_t pc, const uint8_t *insn, uint32_t size)
{
	uint32_t target = get_u16(insn + 1);
	struct pending *p;
	enum ust_filter_type t;
	int ret = pop_number(w, pc, &t);

	if (ret < 0)
		return ret;
	if (target <= pc + size - 1 || target >= w->hdr->code_len)
		return fail(w, pc, "a jump must go forward, inside the code");
	if (w->nr_pending == UST_FILTER_PENDING_MAX)
		return fail(w, pc, "more than %u unfinished && and || at once",
			    UST_FILTER_PENDING_MAX);
	p = &w->pending[w->nr_pending++];
	p->target = target;
	p->st = w->st;
	if (p->st.depth == UST_FILTER_STACK_MAX)
		return fail(w, pc, "the expression needs more than %u stack slots",
			    UST_FILTER_STACK_MAX);
	p->st.types[p->st.depth++] = UST_FTYPE_S64;
	return 0;
}

/* Pops an integer: bitwise operators take no double and no string. */
static int pop_integer(struct walk *w, uint32_t pc)
{
	enum ust_filter_type t = UST_FTYPE_NONE;
	int ret = pop(w, pc, &t);

	if (ret >= 0 && t != UST_FTYPE_S64 && t != UST_FTYPE_ANY)
		return fail(w, pc, "bitwise operators take integers, not %s",
			    t == UST_FTYPE_DOUBLE ? "a float" : "a string");
	return ret;
}

static int step(struct walk *w, uint32_t pc, uint32_t size)
{
	const uint8_t *insn = w->code + pc;
	enum ust_filter_type t;
	int ret;

	if (is_compare(insn[0]))
		return link_compare(w, pc, insn);
	switch (insn[0]) {
	case UST_FOP_LOAD_FIELD:
		return link_field(w, pc, insn);
	case UST_FOP_LOAD_CTX:
		return link_ctx(w, pc, insn);
	case UST_FOP_PUSH_S64:
		return push(w, pc, UST_FTYPE_S64);
	case UST_FOP_PUSH_DOUBLE:
		return push(w, pc, UST_FTYPE_DOUBLE);
	case UST_FOP_PUSH_STRING:
	case UST_FOP_PUSH_GLOB:
		if (!data_string(w, get_u16(insn + 1)))
			return fail(w, pc, "a string literal points outside the data");
		return push(w, pc, insn[0] == UST_FOP_PUSH_GLOB ? UST_FTYPE_GLOB : UST_FTYPE_STRING);
	case UST_FOP_NOT:
		ret = pop_number(w, pc, &t);
		return ret < 0 ? ret : push(w, pc, UST_FTYPE_S64);
	case UST_FOP_TO_BOOL:
		ret = pop_number(w, pc, &t);
		/*
		 * Right before RETURN, which tests for 0 the same way, the
		 * conversion is a RETURN itself: one dispatch less on the
		 * way that falls through; jumps still land on the RETURN.
		 */
		if (ret >= 0 && w->out && w->code[pc + 1] == UST_FOP_RETURN &&
		    pc + 2 == w->hdr->code_len)
			w->out[pc] = t == UST_FTYPE_DOUBLE ? UST_FOP_RETURN_DOUBLE : UST_FOP_RETURN;
		return ret < 0 ? ret : push(w, pc, UST_FTYPE_S64);
	case UST_FOP_NEG:
		ret = pop_number(w, pc, &t);
		return ret < 0 ? ret : push(w, pc, t);
	case UST_FOP_PLUS:
		ret = pop_number(w, pc, &t);
		if (ret >= 0 && w->out)
			w->out[pc] = UST_FOP_NOP;
		return ret < 0 ? ret : push(w, pc, t);
	case UST_FOP_BIT_NOT:
		ret = pop_integer(w, pc);
		return ret < 0 ? ret : push(w, pc, UST_FTYPE_S64);
	case UST_FOP_BIT_AND:
	case UST_FOP_BIT_OR:
	case UST_FOP_BIT_XOR:
	case UST_FOP_LSHIFT:
	case UST_FOP_RSHIFT:
		ret = pop_integer(w, pc);
		if (ret >= 0)
			ret = pop_integer(w, pc);
		return ret < 0 ? ret : push(w, pc, UST_FTYPE_S64);
	case UST_FOP_AND:
	case UST_FOP_OR:
		return jump(w, pc, insn, size);
	case UST_FOP_RETURN:
		ret = pop_number(w, pc, &t);
		if (ret < 0)
			return ret;
		if (w->st.depth || pc + size != w->hdr->code_len)
			return fail(w, pc, "RETURN must be the last instruction, with one value on the stack");
		return 0;
	default:
		/* Linked instructions included: only the linker writes those. */
		return fail(w, pc, "invalid opcode %u", insn[0]);
	}
}

static int walk_code(struct walk *w)
{
	uint32_t pc = 0, size = 0;
	int ret;

	while (pc < w->hdr->code_len) {
		ret = merge_pending(w, pc);
		if (ret < 0)
			return ret;
		size = op_size(w->code[pc]);
		if (size > w->hdr->code_len - pc)
			return fail(w, pc, "the last instruction is cut short");
		ret = step(w, pc, size);
		if (ret < 0)
			return ret;
		if (w->code[pc] == UST_FOP_RETURN)
			return 0;
		pc += size;
	}
	return fail(w, pc, "the code does not end with RETURN");
}

static int check_header(struct walk *w, const void *prog, size_t len)
{
	if (len < sizeof(*w->hdr))
		return fail(w, 0, "the program is shorter than its header");
	w->hdr = prog;
	if (w->hdr->magic != UST_FILTER_MAGIC || w->hdr->version != UST_FILTER_VERSION ||
	    w->hdr->reserved)
		return fail(w, 0, "not a filter program of version %u", UST_FILTER_VERSION);
	if (!w->hdr->code_len || w->hdr->code_len > UST_FILTER_CODE_MAX ||
	    w->hdr->data_len > UST_FILTER_DATA_MAX ||
	    len != sizeof(*w->hdr) + w->hdr->code_len + w->hdr->data_len)
		return fail(w, 0, "the program's lengths do not add up");
	w->code = (const uint8_t *)(w->hdr + 1);
	w->data = (const char *)w->code + w->hdr->code_len;
	return 0;
}

int ust_filter_check(const void *prog, size_t len, struct ust_filter_error *err)
{
	struct walk w = { .err = err };
	int ret;

	err->offset = 0;
	err->text[0] = '\0';
	ret = check_header(&w, prog, len);
	if (ret >= 0)
		ret = walk_code(&w);
	return ret;
}

int ust_filter_link(const void *prog, size_t len, const struct ust_filter_field *fields,
		    uint32_t nr_fields, void *out, struct ust_filter_error *err)
{
	struct walk w = { .err = err, .fields = fields, .nr_fields = nr_fields,
			  .fuse_at = UINT32_MAX };
	int ret;

	err->offset = 0;
	err->text[0] = '\0';
	ret = check_header(&w, prog, len);
	if (ret < 0)
		return ret;
	memcpy(out, prog, len);
	w.out = (uint8_t *)out + sizeof(*w.hdr);
	return walk_code(&w);
}
