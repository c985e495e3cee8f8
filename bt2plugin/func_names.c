/* SPDX-License-Identifier: LGPL-2.1-only */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt2plugin/demangle.h"
#include "bt2plugin/elf_symbols.h"
#include "bt2plugin/func_names.h"

struct fn_obj {
	uint64_t baddr, memsz;
	char *path;
	uint8_t build_id[64];
	size_t build_id_len;
	bool tried;			/* the file was read (or could not be) */
	bool have_syms;
	struct ust_elf_symbols syms;
	struct ust_ptrmap names;	/* addr + 1 -> char * */
};

struct ust_fn_proc {
	struct fn_obj **objs;		/* in load order; later ones win */
	size_t nr, cap;
	struct ust_ptrmap unknown;	/* addr + 1 -> char *, in no object */
};

enum ust_func_kind ust_func_kind_of(const bt_event_class *ec)
{
	static const struct {
		const char *name;
		enum ust_func_kind kind;
	} kinds[] = {
		{ "ust_func:entry", UST_FUNC_ENTRY },
		{ "ust_func:exit", UST_FUNC_EXIT },
		{ "ust_func:entry_cont", UST_FUNC_ENTRY },
		{ "ust_func:entry_at", UST_FUNC_ENTRY },
		{ "ust_func:exit_cont", UST_FUNC_EXIT },
		{ "ust_statedump:bin_info", UST_FUNC_BIN_INFO },
		{ "lttng_ust_cyg_profile:func_entry", UST_FUNC_ENTRY },
		{ "lttng_ust_cyg_profile:func_exit", UST_FUNC_EXIT },
		{ "lttng_ust_cyg_profile_fast:func_entry", UST_FUNC_ENTRY },
		{ "lttng_ust_cyg_profile_fast:func_exit", UST_FUNC_EXIT },
		{ "lttng_ust_statedump:bin_info", UST_FUNC_BIN_INFO },
		{ "lttng_ust_statedump:build_id", UST_FUNC_BUILD_ID },
		{ "ust_plt:bind", UST_FUNC_PLT_BIND },
		{ "ust_plt:args", UST_FUNC_PLT_ARGS },
		{ "ust_plt:ret", UST_FUNC_PLT_RET },
	};
	const char *name = bt_event_class_get_name(ec);
	size_t i;

	for (i = 0; name && i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (!strcmp(name, kinds[i].name))
			return kinds[i].kind;
	}
	return UST_FUNC_NONE;
}

static const bt_field *member(const bt_field *payload, const char *name)
{
	const bt_field *f;

	if (!payload || bt_field_get_class_type(payload) != BT_FIELD_CLASS_TYPE_STRUCTURE)
		return NULL;
	f = bt_field_structure_borrow_member_field_by_name_const(payload, name);
	return f;
}

static uint64_t member_u64(const bt_field *payload, const char *name)
{
	const bt_field *f = member(payload, name);

	if (!f)
		return 0;
	if (bt_field_class_type_is(bt_field_get_class_type(f),
				   BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
		return bt_field_integer_unsigned_get_value(f);
	if (bt_field_class_type_is(bt_field_get_class_type(f), BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
		return (uint64_t)bt_field_integer_signed_get_value(f);
	return 0;
}

/* The bytes of an array of integers, up to cap; returns how many. */
static size_t member_bytes(const bt_field *payload, const char *name, uint8_t *out, size_t cap)
{
	const bt_field *f = member(payload, name);
	uint64_t i, n;

	if (!f || !bt_field_class_type_is(bt_field_get_class_type(f), BT_FIELD_CLASS_TYPE_ARRAY))
		return 0;
	n = bt_field_array_get_length(f);
	if (n > cap)
		return 0;
	for (i = 0; i < n; i++) {
		const bt_field *e = bt_field_array_borrow_element_field_by_index_const(f, i);

		if (!bt_field_class_type_is(bt_field_get_class_type(e),
					    BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
			return 0;
		out[i] = (uint8_t)bt_field_integer_unsigned_get_value(e);
	}
	return n;
}

static struct ust_fn_proc *proc_of(struct ust_func_names *fn, int64_t pid, bool create)
{
	uintptr_t key = ((uintptr_t)1 << 63) | (uint32_t)pid;
	struct ust_fn_proc *p = ust_ptrmap_get(&fn->procs, key);

	if (p || !create)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p || ust_ptrmap_put(&fn->procs, key, p) < 0) {
		free(p);
		return NULL;
	}
	return p;
}

static void obj_free(struct fn_obj *o)
{
	ust_ptrmap_fini(&o->names, free);
	ust_elf_symbols_fini(&o->syms);
	free(o->path);
	free(o);
}

static struct fn_obj *obj_at(struct ust_fn_proc *p, uint64_t addr)
{
	size_t i;

	for (i = p->nr; i-- > 0;) {
		if (addr - p->objs[i]->baddr < p->objs[i]->memsz)
			return p->objs[i];
	}
	return NULL;
}

/* The name a library call was bound by (demangled), for its address:
 * kept when the address has none yet (a name handed out stays valid until
 * fini). */
static int bind_name(struct ust_fn_proc *p, const bt_field *payload)
{
	const bt_field *name = member(payload, "name");
	uint64_t addr = member_u64(payload, "addr");
	struct fn_obj *o = obj_at(p, addr);
	struct ust_ptrmap *names = o ? &o->names : &p->unknown;
	char *copy;

	if (!name || bt_field_get_class_type(name) != BT_FIELD_CLASS_TYPE_STRING ||
	    ust_ptrmap_get(names, (uintptr_t)addr + 1))
		return 0;
	copy = ust_demangle(bt_field_string_get_value(name));
	if (!copy)
		copy = strdup(bt_field_string_get_value(name));
	if (!copy || ust_ptrmap_put(names, (uintptr_t)addr + 1, copy) < 0) {
		free(copy);
		return -ENOMEM;
	}
	return 0;
}

int ust_func_names_add(struct ust_func_names *fn, int64_t pid, enum ust_func_kind kind,
		       const bt_field *payload)
{
	struct ust_fn_proc *p = proc_of(fn, pid, true);
	const bt_field *path = member(payload, "path");
	struct fn_obj *o, **objs;

	if (!p)
		return -ENOMEM;
	if (kind == UST_FUNC_PLT_BIND)
		return bind_name(p, payload);
	if (kind == UST_FUNC_BUILD_ID) {
		/* LTTng-UST's: the build-id of the bin_info at baddr. */
		o = obj_at(p, member_u64(payload, "baddr"));
		if (o && !o->tried)
			o->build_id_len = member_bytes(payload, "build_id", o->build_id,
						       sizeof(o->build_id));
		return 0;
	}
	if (!path || bt_field_get_class_type(path) != BT_FIELD_CLASS_TYPE_STRING)
		return 0;
	for (size_t i = 0; i < p->nr; i++) {
		/* Dumped again (trace start, then a refresh): known already. */
		if (p->objs[i]->baddr == member_u64(payload, "baddr") &&
		    p->objs[i]->memsz == member_u64(payload, "memsz") &&
		    !strcmp(p->objs[i]->path, bt_field_string_get_value(path)))
			return 0;
	}
	o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	o->baddr = member_u64(payload, "baddr");
	o->memsz = member_u64(payload, "memsz");
	o->path = strdup(bt_field_string_get_value(path));
	o->build_id_len = member_bytes(payload, "build_id", o->build_id, sizeof(o->build_id));
	if (!o->path) {
		obj_free(o);
		return -ENOMEM;
	}
	if (p->nr == p->cap) {
		objs = realloc(p->objs, (p->cap ? 2 * p->cap : 8) * sizeof(*objs));
		if (!objs) {
			obj_free(o);
			return -ENOMEM;
		}
		p->objs = objs;
		p->cap = p->cap ? 2 * p->cap : 8;
	}
	p->objs[p->nr++] = o;
	return 0;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The name of addr in o, made once. */
static char *name_in(struct fn_obj *o, uint64_t addr)
{
	const struct ust_elf_sym *sym = NULL;
	uint64_t vaddr, offset = 0;
	char *name = NULL, *demangled;

	if (!o->tried) {
		o->tried = true;
		o->have_syms = !ust_elf_symbols_load(&o->syms, o->path, o->build_id,
						     o->build_id_len);
	}
	vaddr = addr - o->baddr + (o->have_syms ? o->syms.first_load : 0);
	if (o->have_syms)
		sym = ust_elf_symbols_find(&o->syms, vaddr, &offset);
	if (!sym) {
		if (asprintf(&name, "%s+0x%" PRIx64, base_name(o->path), vaddr) < 0)
			return NULL;
		return name;
	}
	demangled = ust_demangle(sym->name);
	if (!offset)
		return demangled ? demangled : strdup(sym->name);
	if (asprintf(&name, "%s+0x%" PRIx64, demangled ? demangled : sym->name, offset) < 0)
		name = NULL;
	free(demangled);
	return name;
}

const char *ust_func_names_get(struct ust_func_names *fn, int64_t pid, uint64_t addr)
{
	struct ust_fn_proc *p = proc_of(fn, pid, true);
	struct ust_ptrmap *names;
	struct fn_obj *o;
	char *name;

	if (!p)
		return NULL;
	o = obj_at(p, addr);
	names = o ? &o->names : &p->unknown;
	name = ust_ptrmap_get(names, (uintptr_t)addr + 1);
	if (name)
		return name;
	if (o)
		name = name_in(o, addr);
	else if (asprintf(&name, "0x%" PRIx64, addr) < 0)
		name = NULL;
	if (name && ust_ptrmap_put(names, (uintptr_t)addr + 1, name) < 0) {
		free(name);
		name = NULL;
	}
	return name;
}

static void proc_free(void *data)
{
	struct ust_fn_proc *p = data;
	size_t i;

	for (i = 0; i < p->nr; i++)
		obj_free(p->objs[i]);
	free(p->objs);
	ust_ptrmap_fini(&p->unknown, free);
	free(p);
}

void ust_func_names_fini(struct ust_func_names *fn)
{
	ust_ptrmap_fini(&fn->procs, proc_free);
}
