/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Reading function symbols from ELF files (elf_symbols.h). Every offset
 * and size read from the file is checked against the mapping before use:
 * the files are whatever the trace names.
 */
#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bt2plugin/elf_symbols.h"

#if __BYTE_ORDER == __LITTLE_ENDIAN
#define NATIVE_DATA	ELFDATA2LSB
#else
#define NATIVE_DATA	ELFDATA2MSB
#endif

static int in_map(const struct ust_elf_symbols *s, uint64_t off, uint64_t len)
{
	return off <= s->map_size && len <= s->map_size - off;
}

static int map_file(struct ust_elf_symbols *s, const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		goto end;
	}
	if (!S_ISREG(st.st_mode) || (size_t)st.st_size < sizeof(Elf64_Ehdr)) {
		ret = -ENOEXEC;
		goto end;
	}
	s->map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (s->map == MAP_FAILED) {
		s->map = NULL;
		ret = -errno;
		goto end;
	}
	s->map_size = st.st_size;
end:
	close(fd);
	return ret;
}

static const Elf64_Shdr *section(const struct ust_elf_symbols *s, unsigned i)
{
	const Elf64_Ehdr *eh = s->map;

	return (const Elf64_Shdr *)((const char *)s->map + eh->e_shoff) + i;
}

/* The GNU build-id notes of the file, compared with want. */
static int build_id_matches(const struct ust_elf_symbols *s, const uint8_t *want, size_t len)
{
	const Elf64_Ehdr *eh = s->map;
	unsigned i;

	for (i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *sh = section(s, i);
		const char *p, *end;

		if (sh->sh_type != SHT_NOTE || !in_map(s, sh->sh_offset, sh->sh_size))
			continue;
		p = (const char *)s->map + sh->sh_offset;
		end = p + sh->sh_size;
		while ((size_t)(end - p) >= sizeof(Elf64_Nhdr)) {
			const Elf64_Nhdr *n = (const Elf64_Nhdr *)p;
			const char *name = p + sizeof(*n);
			uint64_t namesz = (n->n_namesz + 3ull) & ~3ull;
			uint64_t descsz = (n->n_descsz + 3ull) & ~3ull;

			if (namesz > (uint64_t)(end - name) || n->n_descsz > (uint64_t)(end - name) - namesz)
				break;
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && !memcmp(name, "GNU", 4))
				return n->n_descsz == len && !memcmp(name + namesz, want, len);
			if (descsz > (uint64_t)(end - name) - namesz)
				break;
			p = name + namesz + descsz;
		}
	}
	return 0;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct ust_elf_sym *x = a, *y = b;

	return x->value < y->value ? -1 : x->value > y->value;
}

/* The functions of the symbol table of type type; -ENOENT without one. */
static int read_symtab(struct ust_elf_symbols *s, uint32_t type)
{
	const Elf64_Ehdr *eh = s->map;
	const Elf64_Shdr *sh = NULL, *str;
	const Elf64_Sym *sym;
	uint64_t i, n;
	unsigned k;

	for (k = 0; k < eh->e_shnum && !sh; k++) {
		if (section(s, k)->sh_type == type)
			sh = section(s, k);
	}
	if (!sh || sh->sh_link >= eh->e_shnum || sh->sh_entsize != sizeof(Elf64_Sym) ||
	    !in_map(s, sh->sh_offset, sh->sh_size))
		return -ENOENT;
	str = section(s, sh->sh_link);
	if (!in_map(s, str->sh_offset, str->sh_size) || !str->sh_size ||
	    ((const char *)s->map)[str->sh_offset + str->sh_size - 1] != '\0')
		return -ENOENT;
	sym = (const Elf64_Sym *)((const char *)s->map + sh->sh_offset);
	n = sh->sh_size / sizeof(*sym);
	s->syms = calloc(n ? n : 1, sizeof(*s->syms));
	if (!s->syms)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		unsigned t = ELF64_ST_TYPE(sym[i].st_info);

		if ((t != STT_FUNC && t != STT_GNU_IFUNC) || sym[i].st_shndx == SHN_UNDEF ||
		    !sym[i].st_value || sym[i].st_name >= str->sh_size)
			continue;
		s->syms[s->nr].value = sym[i].st_value;
		s->syms[s->nr].size = sym[i].st_size;
		s->syms[s->nr].name = (const char *)s->map + str->sh_offset + sym[i].st_name;
		s->nr++;
	}
	qsort(s->syms, s->nr, sizeof(*s->syms), sym_cmp);
	return 0;
}

/* Maps path and checks its headers; 0 or a negative errno. */
static int open_elf(struct ust_elf_symbols *s, const char *path)
{
	const Elf64_Ehdr *eh;
	int ret = map_file(s, path);

	if (ret < 0)
		return ret;
	eh = s->map;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != NATIVE_DATA || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    !in_map(s, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)) ||
	    (eh->e_phnum && (eh->e_phentsize != sizeof(Elf64_Phdr) ||
			     !in_map(s, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr)))))
		return -ENOEXEC;
	return 0;
}

static void unmap(struct ust_elf_symbols *s)
{
	if (s->map)
		munmap(s->map, s->map_size);
	s->map = NULL;
	free(s->syms);
	s->syms = NULL;
	s->nr = 0;
}

/* The .symtab of the separate debug file of build_id, when installed. */
static int load_debug_file(struct ust_elf_symbols *s, const uint8_t *id, size_t len)
{
	char path[64 + 2 * 64];
	size_t i, n;
	int ret;

	if (len < 2 || len > 64)
		return -ENOENT;
	n = (size_t)snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%02x/", id[0]);
	for (i = 1; i < len; i++)
		n += (size_t)snprintf(path + n, sizeof(path) - n, "%02x", id[i]);
	snprintf(path + n, sizeof(path) - n, ".debug");
	ret = open_elf(s, path);
	if (!ret && !build_id_matches(s, id, len))
		ret = -ESTALE;
	if (!ret)
		ret = read_symtab(s, SHT_SYMTAB);
	if (ret < 0)
		unmap(s);
	return ret;
}

int ust_elf_symbols_load(struct ust_elf_symbols *s, const char *path,
			 const uint8_t *build_id, size_t build_id_len)
{
	const Elf64_Ehdr *eh;
	const Elf64_Phdr *ph;
	uint64_t first_load = 0;
	unsigned i;
	int ret;

	memset(s, 0, sizeof(*s));
	ret = open_elf(s, path);
	if (ret < 0)
		goto end;
	if (build_id_len && !build_id_matches(s, build_id, build_id_len)) {
		ret = -ESTALE;
		goto end;
	}
	eh = s->map;
	ph = (const Elf64_Phdr *)((const char *)s->map + eh->e_phoff);
	for (i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD) {
			first_load = ph[i].p_vaddr;
			break;
		}
	}
	ret = read_symtab(s, SHT_SYMTAB);
	if (ret == -ENOENT) {
		/* Stripped: its debug file has the local functions too. */
		unmap(s);
		ret = load_debug_file(s, build_id, build_id_len);
		if (ret == -ENOENT || ret == -ESTALE) {
			ret = open_elf(s, path);
			if (!ret)
				ret = read_symtab(s, SHT_DYNSYM);
		}
	}
end:
	s->first_load = first_load;
	if (ret < 0)
		unmap(s);
	return ret;
}

const struct ust_elf_sym *ust_elf_symbols_find(const struct ust_elf_symbols *s, uint64_t vaddr,
					       uint64_t *offset)
{
	size_t lo = 0, hi = s->nr;
	const struct ust_elf_sym *e;

	/* The last symbol at or below vaddr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->syms[mid].value <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	e = &s->syms[lo - 1];
	if (vaddr != e->value && vaddr - e->value >= e->size)
		return NULL;
	*offset = vaddr - e->value;
	return e;
}

void ust_elf_symbols_fini(struct ust_elf_symbols *s)
{
	unmap(s);
}
