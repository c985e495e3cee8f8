/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * libust-plt: an audit library of glibc's dynamic linker (rtld-audit(7),
 * loaded through LD_AUDIT, as usttrace --plt does) that traces the
 * program's library calls through the PLT, without breakpoints: the
 * dynamic linker calls la_x86_64_gnu_pltenter before each call and, for a
 * frame size >= 0, la_x86_64_gnu_pltexit after it, with the registers of
 * the x86-64 calling convention. Each call becomes the function events of
 * libust-func, with the name it was bound by, its integer and pointer
 * arguments and its return value when usttrace asked (plt_spec.h).
 *
 * The audit library lives in a link namespace of its own, with its own C
 * library, and must not bring a second libust there: it writes nothing
 * itself, and hands the calls to the libust-func of the program's
 * namespace (plt_record.h), found once every object is loaded
 * (la_preinit, before main): calls before that, from the constructors of
 * libraries, are not traced.
 *
 * Thread-safe: ops is stored once, with release, before main; read with
 * acquire (it pairs with that store) by each callback, which otherwise
 * touches read-only data. A callback runs in the calling thread, even in a
 * signal handler, and calls only libust-func's async-signal-safe recorder.
 */
#include "config.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>

#include "libust-func/plt_record.h"
#include "libust-plt/plt_objects.h"
#include "libust-plt/plt_spec.h"

#define PLT_AUDIT	__attribute__((visibility("default")))

/*
 * The bytes of the caller's stack the dynamic linker copies for a call it
 * returns through (pltexit): the arguments passed on the stack, past the
 * six registers. 512 bytes: 64 arguments on the stack, more than any
 * ordinary call; a call passing more (a large structure by value) would
 * see the rest wrong.
 */
#define PLT_FRAME_SIZE	512

static const struct ust_plt_record_ops *ops;

static const struct ust_plt_record_ops *recorder(void)
{
	return __atomic_load_n(&ops, __ATOMIC_ACQUIRE);
}

unsigned int la_version(unsigned int version) PLT_AUDIT;
unsigned int la_version(unsigned int version)
{
	const char *now = getenv("LD_BIND_NOW");

	if (version < 1)
		return 0;
	ust_plt_spec_init();
	/*
	 * An object linked with -z now is still bound lazily while an audit
	 * library has PLT hooks (glibc's _dl_relocate_object ignores its
	 * DT_BIND_NOW then), but LD_BIND_NOW binds every call at load, past
	 * the PLT hooks.
	 */
	if (now && *now)
		fprintf(stderr, "ust-plt: LD_BIND_NOW is set: the dynamic linker binds every library call at load, so that none goes through the PLT: no library call is traced; unset LD_BIND_NOW to trace them\n");
	return LAV_CURRENT;
}

unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie) PLT_AUDIT;
unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	return ust_plt_objects_open(map, lmid, cookie);
}

/* Every object is loaded and relocated, the libraries' constructors have
 * run: libust-func can be found in the program's namespace. */
void la_preinit(uintptr_t *cookie) PLT_AUDIT;
void la_preinit(uintptr_t *cookie)
{
	const char *path = ust_plt_objects_recorder();
	const struct ust_plt_record_ops *found = NULL;
	void *handle;

	(void)cookie;
	if (!path) {
		fprintf(stderr, "ust-plt: libust-func is not loaded in the program: no library call is traced (usttrace --plt preloads it)\n");
		return;
	}
	handle = dlmopen(LM_ID_BASE, path, RTLD_LAZY | RTLD_NOLOAD);
	if (handle)
		found = dlsym(handle, UST_PLT_RECORD_SYMBOL);
	if (!found || found->version != UST_PLT_RECORD_VERSION) {
		fprintf(stderr, "ust-plt: %s has no %s of version %d (%s): no library call is traced; use the libust-func of the same UST\n",
			path, UST_PLT_RECORD_SYMBOL, UST_PLT_RECORD_VERSION,
			found ? "another version" : "not found");
		return;
	}
	/* Pairs with the acquire of recorder(). */
	__atomic_store_n(&ops, found, __ATOMIC_RELEASE);
}

uintptr_t la_symbind64(Elf64_Sym *sym, unsigned int ndx, uintptr_t *refcook,
		       uintptr_t *defcook, unsigned int *flags, const char *symname) PLT_AUDIT;
uintptr_t la_symbind64(Elf64_Sym *sym, unsigned int ndx, uintptr_t *refcook,
		       uintptr_t *defcook, unsigned int *flags, const char *symname)
{
	const struct ust_plt_record_ops *o = recorder();

	(void)ndx;
	if (!ust_plt_objects_watched(*refcook, *defcook) || ust_plt_spec_never(symname))
		*flags |= LA_SYMB_NOPLTENTER | LA_SYMB_NOPLTEXIT;
	else if (o)
		o->bind((void *)sym->st_value, symname);
	return sym->st_value;
}

Elf64_Addr la_x86_64_gnu_pltenter(Elf64_Sym *sym, unsigned int ndx, uintptr_t *refcook,
				  uintptr_t *defcook, La_x86_64_regs *regs, unsigned int *flags,
				  const char *symname, long int *framesizep) PLT_AUDIT;
Elf64_Addr la_x86_64_gnu_pltenter(Elf64_Sym *sym, unsigned int ndx, uintptr_t *refcook,
				  uintptr_t *defcook, La_x86_64_regs *regs, unsigned int *flags,
				  const char *symname, long int *framesizep)
{
	const struct ust_plt_record_ops *o = recorder();
	const struct ust_plt_spec *spec;
	uint64_t args[UST_PLT_ARGS_MAX];

	(void)ndx;
	(void)refcook;
	(void)defcook;
	(void)flags;
	/* Without a recorder, no exit is asked either: entries and exits pair. */
	if (!o)
		return sym->st_value;
	spec = ust_plt_spec_find(symname);
	if (spec && spec->nr_args) {
		args[0] = regs->lr_rdi;
		args[1] = regs->lr_rsi;
		args[2] = regs->lr_rdx;
		args[3] = regs->lr_rcx;
		args[4] = regs->lr_r8;
		args[5] = regs->lr_r9;
	}
	o->enter((void *)sym->st_value, regs->lr_rsp, args, spec ? spec->nr_args : 0);
	*framesizep = PLT_FRAME_SIZE;
	return sym->st_value;
}

unsigned int la_x86_64_gnu_pltexit(Elf64_Sym *sym, unsigned int ndx, uintptr_t *refcook,
				   uintptr_t *defcook, const La_x86_64_regs *inregs,
				   La_x86_64_retval *outregs, const char *symname) PLT_AUDIT;
unsigned int la_x86_64_gnu_pltexit(Elf64_Sym *sym, unsigned int ndx, uintptr_t *refcook,
				   uintptr_t *defcook, const La_x86_64_regs *inregs,
				   La_x86_64_retval *outregs, const char *symname)
{
	const struct ust_plt_record_ops *o = recorder();
	const struct ust_plt_spec *spec = ust_plt_spec_find(symname);

	(void)ndx;
	(void)refcook;
	(void)defcook;
	/* Only a call entered with the recorder set gets here (pltenter). */
	if (o)
		o->exit((void *)sym->st_value, inregs->lr_rsp, spec && spec->ret,
			outregs->lrv_rax);
	return 0;
}
