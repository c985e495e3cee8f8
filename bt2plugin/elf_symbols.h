/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The function symbols of an ELF file, to name the code addresses of a
 * trace offline: .symtab (from the file, else from its separate debug file
 * under /usr/lib/debug/.build-id), else .dynsym. ELFCLASS64 files of the
 * reading machine's byte order.
 */
#ifndef UST_BT2_ELF_SYMBOLS_H
#define UST_BT2_ELF_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

struct ust_elf_sym {
	uint64_t value, size;		/* file virtual address */
	const char *name;		/* in the mapped file */
};

struct ust_elf_symbols {
	void *map;
	size_t map_size;
	uint64_t first_load;		/* p_vaddr of the first PT_LOAD */
	struct ust_elf_sym *syms;	/* sorted by value */
	size_t nr;
};

/*
 * Reads path; when build_id_len is not 0, the file's build-id must be that
 * one (else -ESTALE: the file changed since the trace). Returns 0 or a
 * negative errno (-ENOEXEC: not an ELF file this reader knows).
 */
int ust_elf_symbols_load(struct ust_elf_symbols *s, const char *path,
			 const uint8_t *build_id, size_t build_id_len);
/* The function holding vaddr (a file address), or NULL; *offset from it. */
const struct ust_elf_sym *ust_elf_symbols_find(const struct ust_elf_symbols *s, uint64_t vaddr,
					       uint64_t *offset);
void ust_elf_symbols_fini(struct ust_elf_symbols *s);

#endif
