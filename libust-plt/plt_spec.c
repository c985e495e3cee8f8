/* SPDX-License-Identifier: LGPL-2.1-only */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libust-func/plt_record.h"
#include "libust-plt/plt_spec.h"

#define PLT_SPECS_MAX	64
#define PLT_NAME_MAX	128

/* Written before the program runs (la_version), read-only afterwards. */
static struct {
	char name[PLT_NAME_MAX];
	struct ust_plt_spec spec;
} specs[PLT_SPECS_MAX];
static size_t nr_specs;

static struct ust_plt_spec *spec_get(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < nr_specs; i++) {
		if (strlen(specs[i].name) == len && !strncmp(specs[i].name, name, len))
			return &specs[i].spec;
	}
	if (nr_specs == PLT_SPECS_MAX || len >= PLT_NAME_MAX)
		return NULL;
	memcpy(specs[nr_specs].name, name, len);
	specs[nr_specs].name[len] = '\0';
	return &specs[nr_specs++].spec;
}

/* One line: "A NAME N" or "R NAME". */
static int spec_line(const char *line, size_t len)
{
	const char *name = line + 2, *end = line + len, *sp;
	struct ust_plt_spec *s;
	unsigned long n = 0;
	char num[4];

	if (len < 3 || (line[0] != 'A' && line[0] != 'R') || line[1] != ' ')
		return -EINVAL;
	sp = memchr(name, ' ', (size_t)(end - name));
	if (line[0] == 'A') {
		if (!sp || (size_t)(end - sp - 1) >= sizeof(num) || end == sp + 1)
			return -EINVAL;
		memcpy(num, sp + 1, (size_t)(end - sp - 1));
		num[end - sp - 1] = '\0';
		n = strtoul(num, NULL, 10);
		if (n < 1 || n > UST_PLT_ARGS_MAX || num[strspn(num, "0123456789")])
			return -EINVAL;
	} else if (sp) {
		return -EINVAL;
	} else {
		sp = end;
	}
	if (sp == name)
		return -EINVAL;
	s = spec_get(name, (size_t)(sp - name));
	if (!s)
		return -EINVAL;
	if (line[0] == 'A')
		s->nr_args = (uint32_t)n;
	else
		s->ret = 1;
	return 0;
}

int ust_plt_spec_init(void)
{
	const char *p = getenv("UST_PLT_RECORD"), *nl;
	size_t len;

	while (p && *p) {
		nl = strchr(p, '\n');
		len = nl ? (size_t)(nl - p) : strlen(p);
		if (len && spec_line(p, len) < 0) {
			fprintf(stderr, "ust-plt: UST_PLT_RECORD: cannot read \"%.*s\" (expected \"A NAME N\" with N from 1 to %d, or \"R NAME\", at most %d names): library calls are traced without the rest\n",
				(int)len, p, UST_PLT_ARGS_MAX, PLT_SPECS_MAX);
			return -EINVAL;
		}
		p = nl ? nl + 1 : p + len;
	}
	return 0;
}

const struct ust_plt_spec *ust_plt_spec_find(const char *name)
{
	size_t i;

	for (i = 0; i < nr_specs; i++) {
		if (!strcmp(specs[i].name, name))
			return &specs[i].spec;
	}
	return NULL;
}

int ust_plt_spec_never(const char *name)
{
	static const char *const never[] = {
		/* return twice: the second return would find the frame gone */
		"setjmp", "_setjmp", "sigsetjmp", "__sigsetjmp", "vfork", "getcontext",
		"savectx",
		/* never return normally: the call would stay open */
		"longjmp", "_longjmp", "siglongjmp", "__longjmp_chk", "setcontext",
		"swapcontext", "exit", "_exit", "_Exit", "quick_exit", "abort",
		"pthread_exit", "__stack_chk_fail", "__assert_fail", "__fortify_fail",
		"__chk_fail", "__libc_start_main", "__cxa_throw", "__cxa_rethrow",
		"_Unwind_Resume", "_Unwind_RaiseException", "_Unwind_ForcedUnwind",
		"err", "errx", "verr", "verrx",
	};
	/* The sanitizers' instrumentation calls its runtime: not the program's. */
	static const char *const runtime[] = {
		"__asan_", "__ubsan_", "__lsan_", "__tsan_", "__sanitizer_",
	};
	size_t i;

	for (i = 0; i < sizeof(never) / sizeof(never[0]); i++) {
		if (!strcmp(never[i], name))
			return 1;
	}
	for (i = 0; i < sizeof(runtime) / sizeof(runtime[0]); i++) {
		if (!strncmp(runtime[i], name, strlen(runtime[i])))
			return 1;
	}
	return 0;
}
