/* SPDX-License-Identifier: LGPL-2.1-only */
/* Cached thread and process identity for filters (context.h). */
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "libust/context.h"

/* initial-exec: one load off the thread pointer, no __tls_get_addr call. */
static __thread int32_t cached_tid __attribute__((tls_model("initial-exec")));
static int32_t cached_pid;
static char procname[17];

int32_t ust_ctx_vtid(void)
{
	if (__builtin_expect(!cached_tid, 0))
		cached_tid = (int32_t)syscall(SYS_gettid);
	return cached_tid;
}

int32_t ust_ctx_vpid(void)
{
	int32_t pid = __atomic_load_n(&cached_pid, __ATOMIC_RELAXED);

	if (__builtin_expect(!pid, 0)) {
		pid = (int32_t)getpid();
		__atomic_store_n(&cached_pid, pid, __ATOMIC_RELAXED);
	}
	return pid;
}

const char *ust_ctx_procname(void)
{
	return procname;
}

void ust_ctx_init(const char *name)
{
	size_t len = strlen(name);

	if (len >= sizeof(procname))
		len = sizeof(procname) - 1;
	memcpy(procname, name, len);
	procname[len] = '\0';
}

void ust_ctx_after_fork_child(void)
{
	cached_tid = 0;
	__atomic_store_n(&cached_pid, 0, __ATOMIC_RELAXED);
}
