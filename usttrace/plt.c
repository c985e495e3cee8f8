/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libustcomm/log.h"
#include "usttrace/plt.h"

/* The integer and pointer argument registers of x86-64, all that
 * libust-plt can read (libust-func/plt_record.h). */
#define USTTRACE_PLT_ARGS_MAX	6
/*
 * glibc sizes the static TLS block when it loads an audit library, before
 * the program's libraries: their initial-exec TLS (the C library's,
 * libust's, libust-func's, liburcu's, the program's own) must then fit in
 * the surplus it keeps for libraries loaded later, 512 bytes by default
 * beside a fixed part; without room, the program does not start ("cannot
 * allocate memory in static TLS block"). The tunable enlarges it, at this
 * many bytes more in every thread.
 */
#define USTTRACE_PLT_STATIC_TLS	"glibc.rtld.optional_static_tls=8192"

int usttrace_plt_add(struct usttrace_plt *plt, char kind, const char *spec)
{
	const char *at = kind == 'A' ? strrchr(spec, '@') : NULL;
	size_t len = at ? (size_t)(at - spec) : strlen(spec);
	unsigned long n = USTTRACE_PLT_ARGS_MAX;
	char *end;

	if (at) {
		errno = 0;
		n = strtoul(at + 1, &end, 10);
		if (errno || *end || !at[1] || at[1] == '-' || n < 1 || n > USTTRACE_PLT_ARGS_MAX) {
			ustcomm_err("-A %s: expected NAME or NAME@N with N from 1 to %d (the integer and pointer registers)",
				    spec, USTTRACE_PLT_ARGS_MAX);
			return -EINVAL;
		}
	}
	if (!len || strcspn(spec, " \n") < len) {
		ustcomm_err("-%c %s: expected the name of a library function, as the program calls it",
			    kind, spec);
		return -EINVAL;
	}
	plt->on = 1;
	if (kind == 'A')
		ustcomm_strbuf_printf(&plt->record, "A %.*s %lu\n", (int)len, spec, n);
	else
		ustcomm_strbuf_printf(&plt->record, "R %s\n", spec);
	return plt->record.err;
}

/* name beside usttrace in a build tree (usttrace/usttrace, or
 * usttrace/.libs/usttrace under libtool), or installed beside it
 * (PREFIX/bin and PREFIX/lib, wherever PREFIX was moved), else in LIBDIR. */
static int usttrace_plt_lib(const char *name, char *buf, size_t len)
{
	static const char *const beside[] = { "../.libs/", "../../.libs/", "../lib/" };
	char exe[PATH_MAX], real[PATH_MAX];
	ssize_t n;
	char *slash;
	size_t i;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		for (i = 0; slash && i < sizeof(beside) / sizeof(beside[0]); i++) {
			slash[1] = '\0';
			/* Its real path, without the "..": the statedump names it. */
			if ((size_t)snprintf(buf, len, "%s%s%s", exe, beside[i], name) < len &&
			    realpath(buf, real) && strlen(real) < len) {
				memcpy(buf, real, strlen(real) + 1);
				return 0;
			}
		}
	}
	if ((size_t)snprintf(buf, len, "%s/%s", USTTRACE_LIBDIR, name) < len &&
	    access(buf, R_OK) == 0)
		return 0;
	ustcomm_err("--plt: %s not found in %s: is UST installed with it (x86-64 and glibc only)?",
		    name, USTTRACE_LIBDIR);
	return -ENOENT;
}

int usttrace_plt_find(struct usttrace_plt *plt)
{
	int ret;

	ret = usttrace_plt_lib("libust-plt.so", plt->audit, sizeof(plt->audit));
	if (ret == 0)
		ret = usttrace_plt_lib("libust-func.so.0", plt->func, sizeof(plt->func));
	return ret;
}

/* name=value, after what name holds already (sep between). */
static void usttrace_plt_add_env(const char *name, const char *value, char sep)
{
	const char *old = getenv(name);
	char *both;

	if (!old || !*old) {
		setenv(name, value, 1);
		return;
	}
	if (asprintf(&both, "%s%c%s", old, sep, value) < 0)
		return;
	setenv(name, both, 1);
	free(both);
}

void usttrace_plt_setenv(const struct usttrace_plt *plt)
{
	const char *tunables = getenv("GLIBC_TUNABLES");

	if (!tunables || !strstr(tunables, "glibc.rtld.optional_static_tls"))
		usttrace_plt_add_env("GLIBC_TUNABLES", USTTRACE_PLT_STATIC_TLS, ':');
	usttrace_plt_add_env("LD_AUDIT", plt->audit, ':');
	usttrace_plt_add_env("LD_PRELOAD", plt->func, ' ');
	if (plt->record.len)
		setenv("UST_PLT_RECORD", plt->record.buf, 1);
}
