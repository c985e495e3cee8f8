/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The statedump (statedump.h): the objects of the process as
 * ust_statedump:bin_info events, so that function addresses (ust_func)
 * and instruction pointers can be named offline.
 *
 * Why no dlopen() wrapper: one that calls the real dlopen() from its own
 * frame changes which object is the caller, and so which RUNPATH and
 * namespace glibc searches; LD_AUDIT needs the environment set before
 * start. Instead, the table is refreshed by every registering object's
 * constructor (dlopen of an instrumented library) and by whoever meets an
 * address no entry holds (ust_statedump_find(), libust-func's path), which
 * covers every object whose code is traced.
 */
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "libust/statedump.h"
#include "libustcomm/common.h"

#define UST_CREATE_PROBES
#include "libust/statedump_tp.h"

#define BUILD_ID_MAX	64
#define CHUNK_OBJS	16
#define CHUNKS_MAX	256		/* 4096 objects */

struct sd_obj {
	struct ust_statedump_range r;	/* gone is read without the lock */
	uint32_t seen;			/* refresh generation that last saw it */
	uint8_t is_pic;
	uint32_t build_id_len;
	uint8_t build_id[BUILD_ID_MAX];
	char path[PATH_MAX];
};

/*
 * Invariant: entries [0, nr_objs) are complete and never move or change
 * but for seen (refresh only) and gone. Writers hold refresh_busy; the
 * release store of nr_objs pairs with the acquire loads in the readers.
 */
static struct sd_obj *chunks[CHUNKS_MAX];
static unsigned nr_objs;
static int refresh_busy;
static uint32_t generation;

static struct sd_obj *obj_at(unsigned i)
{
	return &chunks[i / CHUNK_OBJS][i % CHUNK_OBJS];
}

static void emit(const struct sd_obj *o)
{
	trace_ust_statedump_bin_info(o->r.baddr, o->r.memsz, o->path, o->is_pic, o->build_id,
				     o->build_id_len);
}

/* The GNU build-id from the object's notes, as mapped. */
static void read_build_id(const struct dl_phdr_info *info, struct sd_obj *o)
{
	int i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		const char *end = p + ph->p_memsz;

		if (ph->p_type != PT_NOTE)
			continue;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
			const char *name = p + sizeof(*n);
			const char *desc = name + ((n->n_namesz + 3) & ~3u);

			if (desc + n->n_descsz > end)
				break;
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    !memcmp(name, "GNU", 4) && n->n_descsz <= BUILD_ID_MAX) {
				memcpy(o->build_id, desc, n->n_descsz);
				o->build_id_len = n->n_descsz;
				return;
			}
			p = desc + ((n->n_descsz + 3) & ~3u);
		}
	}
}

/* Fills o from info; 0 when the object has no file to read (vDSO). */
static int describe(const struct dl_phdr_info *info, struct sd_obj *o)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	const ElfW(Ehdr) *eh = NULL;
	ssize_t n;
	int i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD)
			continue;
		if (lo == UINT64_MAX && ph->p_offset == 0)
			eh = (const ElfW(Ehdr) *)(info->dlpi_addr + ph->p_vaddr);
		if (ph->p_vaddr < lo)
			lo = ph->p_vaddr;
		if (ph->p_vaddr + ph->p_memsz > hi)
			hi = ph->p_vaddr + ph->p_memsz;
	}
	if (lo == UINT64_MAX)
		return 0;
	o->r.baddr = info->dlpi_addr + lo;
	o->r.memsz = hi - lo;
	o->is_pic = eh ? eh->e_type == ET_DYN : info->dlpi_addr != 0;
	if (info->dlpi_name && info->dlpi_name[0] == '/') {
		n = strlen(info->dlpi_name);
		if (n >= PATH_MAX)
			return 0;
		memcpy(o->path, info->dlpi_name, n + 1);
	} else if (!info->dlpi_name || !info->dlpi_name[0]) {
		/* The executable. */
		n = readlink("/proc/self/exe", o->path, sizeof(o->path) - 1);
		if (n <= 0)
			return 0;
		o->path[n] = '\0';
	} else {
		return 0;
	}
	o->build_id_len = 0;
	read_build_id(info, o);
	return 1;
}

static struct sd_obj *find_live(const struct sd_obj *o)
{
	unsigned i, n = __atomic_load_n(&nr_objs, __ATOMIC_ACQUIRE);

	for (i = 0; i < n; i++) {
		struct sd_obj *e = obj_at(i);

		if (!__atomic_load_n(&e->r.gone, __ATOMIC_RELAXED) && e->r.baddr == o->r.baddr &&
		    e->r.memsz == o->r.memsz && !strcmp(e->path, o->path))
			return e;
	}
	return NULL;
}

/* A fresh slot past nr_objs, its chunk mapped; NULL when out of memory. */
static struct sd_obj *slot_new(void)
{
	unsigned c = nr_objs / CHUNK_OBJS;

	if (c >= CHUNKS_MAX)
		return NULL;
	if (!chunks[c]) {
		/* mmap, not malloc: this may run in a signal handler. */
		void *p = mmap(NULL, CHUNK_OBJS * sizeof(struct sd_obj), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return NULL;
		chunks[c] = p;
	}
	return obj_at(nr_objs);
}

static int visit(struct dl_phdr_info *info, size_t size, void *data)
{
	struct sd_obj *o, *e;
	int *err = data;

	(void)size;
	o = slot_new();
	if (!o) {
		*err = -ENOMEM;
		return 1;
	}
	if (!describe(info, o))
		return 0;
	e = find_live(o);
	if (e) {
		e->seen = generation;
		return 0;
	}
	o->seen = generation;
	o->r.gone = 0;
	/* Pairs with the acquire loads of find_live(), emit_all() and find(). */
	__atomic_store_n(&nr_objs, nr_objs + 1, __ATOMIC_RELEASE);
	emit(o);
	return 0;
}

int ust_statedump_refresh(int wait)
{
	unsigned i, n;
	int err = 0;

	/* Pairs with the release store that ends the holder's refresh. */
	while (__atomic_exchange_n(&refresh_busy, 1, __ATOMIC_ACQUIRE)) {
		if (!wait)
			return -EBUSY;
		sched_yield();
	}
	generation++;
	dl_iterate_phdr(visit, &err);
	n = nr_objs;
	for (i = 0; !err && i < n; i++) {
		struct sd_obj *e = obj_at(i);

		if (e->seen != generation)
			__atomic_store_n(&e->r.gone, 1, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&refresh_busy, 0, __ATOMIC_RELEASE);
	return err;
}

void ust_statedump_emit_all(void)
{
	unsigned i, n = __atomic_load_n(&nr_objs, __ATOMIC_ACQUIRE);

	for (i = 0; i < n; i++) {
		const struct sd_obj *e = obj_at(i);

		if (!__atomic_load_n(&e->r.gone, __ATOMIC_RELAXED))
			emit(e);
	}
}

static const struct ust_statedump_range *find(uintptr_t a)
{
	unsigned i, n = __atomic_load_n(&nr_objs, __ATOMIC_ACQUIRE);

	for (i = 0; i < n; i++) {
		const struct sd_obj *e = obj_at(i);

		if (!__atomic_load_n(&e->r.gone, __ATOMIC_RELAXED) && a - e->r.baddr < e->r.memsz)
			return &e->r;
	}
	return NULL;
}

UST_API const struct ust_statedump_range *ust_statedump_find(const void *addr)
{
	const struct ust_statedump_range *r = find((uintptr_t)addr);

	if (r || ust_statedump_refresh(0) < 0)
		return r;
	return find((uintptr_t)addr);
}
