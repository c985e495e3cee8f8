/* SPDX-License-Identifier: LGPL-2.1-only */
/* Cached thread and process identity for filters and contexts (context.h). */
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "libust/context.h"
#include "libust/perf_counter.h"
#include "libustcomm/ctf_layout.h"

/* initial-exec: one load off the thread pointer, no __tls_get_addr call. */
static __thread int32_t cached_tid __attribute__((tls_model("initial-exec")));
static int32_t cached_pid;
/* Zero-padded: the procname context copies all 16 bytes. */
static char procname[USTCOMM_CTX_PROCNAME_SIZE + 1];

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
	memset(procname, 0, sizeof(procname));
	memcpy(procname, name, len);
	procname[len] = '\0';
}

void ust_ctx_after_fork_child(void)
{
	ust_perf_after_fork_child();
	cached_tid = 0;
	__atomic_store_n(&cached_pid, 0, __ATOMIC_RELAXED);
}

void ust_ctx_record(const struct ustcomm_ctx_set *set, char *p, const void *ip)
{
	unsigned i;

	for (i = 0; i < set->nr; i++) {
		switch (set->ids[i]) {
		case USTCOMM_CTX_VPID:
			ust_put_u32(p, (uint32_t)ust_ctx_vpid());
			p += 4;
			break;
		case USTCOMM_CTX_VTID:
			ust_put_u32(p, (uint32_t)ust_ctx_vtid());
			p += 4;
			break;
		case USTCOMM_CTX_PROCNAME:
			memcpy(p, procname, USTCOMM_CTX_PROCNAME_SIZE);
			p += USTCOMM_CTX_PROCNAME_SIZE;
			break;
		case USTCOMM_CTX_PTHREAD_ID:
			ust_put_u64(p, (uint64_t)pthread_self());
			p += 8;
			break;
		case USTCOMM_CTX_IP:
			ust_put_u64(p, (uint64_t)(uintptr_t)ip);
			p += 8;
			break;
		default:
			ust_put_u64(p, ust_perf_read(set->ids[i]));
			p += 8;
			break;
		}
	}
}
