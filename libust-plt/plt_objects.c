/* SPDX-License-Identifier: LGPL-2.1-only */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libust-plt/plt_objects.h"

/* Set while the program's objects are opened, before la_preinit reads it
 * (the dynamic linker's lock orders the two). */
static const char *recorder;

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static int has_prefix(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* Whether map is bound at load: its dynamic section says so, or LD_BIND_NOW. */
static int bound_now(const struct link_map *map)
{
	const char *env = getenv("LD_BIND_NOW");
	const ElfW(Dyn) *d;

	if (env && *env)
		return 1;
	for (d = map->l_ld; d && d->d_tag != DT_NULL; d++) {
		if (d->d_tag == DT_BIND_NOW ||
		    (d->d_tag == DT_FLAGS && (d->d_un.d_val & DF_BIND_NOW)) ||
		    (d->d_tag == DT_FLAGS_1 && (d->d_un.d_val & DF_1_NOW)))
			return 1;
	}
	return 0;
}

unsigned int ust_plt_objects_open(struct link_map *map, Lmid_t lmid)
{
	const char *name = base_name(map->l_name);

	if (lmid != LM_ID_BASE || has_prefix(name, "ld-linux") || has_prefix(name, "linux-vdso"))
		return 0;
	if (has_prefix(name, "libust") || has_prefix(name, "liburcu")) {
		if (has_prefix(name, "libust-func.so"))
			recorder = map->l_name;
		return 0;
	}
	if (has_prefix(name, "libc.so"))
		return LA_FLG_BINDTO;
	if (bound_now(map))
		fprintf(stderr, "ust-plt: %s is bound at load (linked with -z now, or LD_BIND_NOW is set): its library calls bypass the PLT and are not traced; link it with -z lazy to trace them\n",
			*map->l_name ? map->l_name : "the program");
	return LA_FLG_BINDTO | LA_FLG_BINDFROM;
}

const char *ust_plt_objects_recorder(void)
{
	return recorder;
}
