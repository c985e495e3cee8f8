/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The objects whose library calls libust-plt records, as the dynamic
 * linker opens them: those of the program's link namespace, except the
 * dynamic linker, the C library (its calls are its own business, and
 * libust makes them while recording), the sanitizers' runtimes, and UST's
 * own libraries with the libraries they need (liburcu). Calls go to any
 * of them but the dynamic linker and UST's.
 */
#ifndef UST_PLT_OBJECTS_H
#define UST_PLT_OBJECTS_H

#include <link.h>

#include "libust-plt/plt_spec.h"

/* The la_objopen() flags for map, opened in namespace lmid; *cookie says
 * them too, for ust_plt_objects_watched(). */
unsigned int ust_plt_objects_open(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
	UST_PLT_HIDDEN;
/*
 * Whether a call from the object of refcook to that of defcook is traced.
 * The dynamic linker also asks about calls to objects whose answer it did
 * not keep (its own functions, such as _dl_find_object): only an object
 * la_objopen() answered has its cookie marked.
 */
int ust_plt_objects_watched(uintptr_t refcook, uintptr_t defcook) UST_PLT_HIDDEN;
/* The path of libust-func as the program loaded it, or NULL. */
const char *ust_plt_objects_recorder(void) UST_PLT_HIDDEN;

#endif
