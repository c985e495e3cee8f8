/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * usttrace --plt, -A and -R: the program's library calls traced through
 * the PLT by libust-plt, the dynamic linker's audit library, which hands
 * them to libust-func (both loaded into the program by its environment).
 */
#ifndef USTTRACE_PLT_H
#define USTTRACE_PLT_H

#include <limits.h>

#include "libustcomm/strbuf.h"

struct usttrace_plt {
	int on;				/* --plt, or implied by -A or -R */
	struct ustcomm_strbuf record;	/* UST_PLT_RECORD (libust-plt/plt_spec.h) */
	char audit[PATH_MAX];		/* libust-plt.so, found */
	char func[PATH_MAX];		/* libust-func.so.0, found */
};

/* -A NAME[@N] (kind 'A') or -R NAME ('R'); 0, or -EINVAL after saying why. */
int usttrace_plt_add(struct usttrace_plt *plt, char kind, const char *spec);
/* Finds the two libraries, beside usttrace in a build tree or an
 * installation, else where they were to be installed; 0, or -ENOENT after
 * saying which is missing. */
int usttrace_plt_find(struct usttrace_plt *plt);
/* In the program's process, before exec: LD_AUDIT, LD_PRELOAD and
 * GLIBC_TUNABLES (added to the ones set) and UST_PLT_RECORD. */
void usttrace_plt_setenv(const struct usttrace_plt *plt);

#endif
