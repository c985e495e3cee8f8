/* SPDX-License-Identifier: LGPL-2.1-only */
#include "config.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libust-func/func_symbols.h"

struct lookup {
	const char *name;
	void (*found)(uintptr_t addr, void *arg);
	void *arg;
	size_t nr;
};

/* The symbol table of type in the file mapped at m (size bytes), with its strings. */
static const Elf64_Shdr *table_of(const char *m, size_t size, uint32_t type,
				  const Elf64_Shdr **strtab)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m;
	const Elf64_Shdr *sh;
	size_t i;

	if (eh->e_shoff == 0 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > size)
		return NULL;
	sh = (const Elf64_Shdr *)(m + eh->e_shoff);
	for (i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type != type || sh[i].sh_link >= eh->e_shnum ||
		    sh[i].sh_offset + sh[i].sh_size > size ||
		    sh[sh[i].sh_link].sh_offset + sh[sh[i].sh_link].sh_size > size)
			continue;
		*strtab = &sh[sh[i].sh_link];
		return &sh[i];
	}
	return NULL;
}

/* The functions named l->name in the ELF file path, loaded at bias. */
static void find_in(struct lookup *l, const char *path, uintptr_t bias)
{
	const Elf64_Shdr *tab, *str;
	const Elf64_Sym *sym;
	struct stat st;
	char *m = MAP_FAILED;
	size_t i, n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && (size_t)st.st_size >= sizeof(Elf64_Ehdr))
		m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return;
	if (memcmp(m, ELFMAG, SELFMAG) || m[EI_CLASS] != ELFCLASS64)
		goto end;
	tab = table_of(m, (size_t)st.st_size, SHT_SYMTAB, &str);
	if (!tab)
		tab = table_of(m, (size_t)st.st_size, SHT_DYNSYM, &str);
	if (!tab)
		goto end;
	sym = (const Elf64_Sym *)(m + tab->sh_offset);
	n = tab->sh_size / sizeof(*sym);
	for (i = 0; i < n; i++) {
		const char *s = m + str->sh_offset + sym[i].st_name;

		if (ELF64_ST_TYPE(sym[i].st_info) != STT_FUNC || sym[i].st_shndx == SHN_UNDEF ||
		    sym[i].st_name >= str->sh_size ||
		    !memchr(s, 0, str->sh_size - sym[i].st_name) || strcmp(s, l->name))
			continue;
		l->found(bias + sym[i].st_value, l->arg);
		l->nr++;
	}
end:
	munmap(m, (size_t)st.st_size);
}

static int each_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	/* The executable has no name here: its file is /proc/self/exe. */
	find_in(arg, info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "/proc/self/exe",
		info->dlpi_addr);
	return 0;
}

size_t ust_func_symbols_find(const char *name, void (*found)(uintptr_t addr, void *arg),
			     void *arg)
{
	struct lookup l = { name, found, arg, 0 };

	dl_iterate_phdr(each_object, &l);
	return l.nr;
}
