/* SPDX-License-Identifier: LGPL-2.1-only */
#include "config.h"

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

/* A cookie is the object's link_map address until la_objopen() sets it:
 * user-space addresses never have the top bit. */
#define PLT_COOKIE_MARK	((uintptr_t)1 << (sizeof(uintptr_t) * 8 - 1))

static unsigned int objects_open(struct link_map *map, Lmid_t lmid)
{
	const char *name = base_name(map->l_name);

	if (lmid != LM_ID_BASE || has_prefix(name, "ld-linux") || has_prefix(name, "linux-vdso"))
		return 0;
	if (has_prefix(name, "libust-func.so"))
		recorder = map->l_name;
	if (has_prefix(name, "libust.so") || has_prefix(name, "libust-func.so") ||
	    has_prefix(name, "libustcomm.so") || has_prefix(name, "libustctl.so") ||
	    has_prefix(name, "liburcu"))
		return 0;
	/* The sanitizers' runtimes: their calls are their interceptors'. */
	if (has_prefix(name, "libc.so") || has_prefix(name, "libasan") ||
	    has_prefix(name, "libubsan") || has_prefix(name, "libtsan") ||
	    has_prefix(name, "liblsan"))
		return LA_FLG_BINDTO;
	return LA_FLG_BINDTO | LA_FLG_BINDFROM;
}

unsigned int ust_plt_objects_open(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	unsigned int flags = objects_open(map, lmid);

	*cookie = PLT_COOKIE_MARK | flags;
	return flags;
}

int ust_plt_objects_watched(uintptr_t refcook, uintptr_t defcook)
{
	return (refcook & (PLT_COOKIE_MARK | LA_FLG_BINDFROM)) == (PLT_COOKIE_MARK | LA_FLG_BINDFROM) &&
	       (defcook & (PLT_COOKIE_MARK | LA_FLG_BINDTO)) == (PLT_COOKIE_MARK | LA_FLG_BINDTO);
}

const char *ust_plt_objects_recorder(void)
{
	return recorder;
}
