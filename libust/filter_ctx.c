/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The integer contexts a filter reads ($ctx.NAME), computed when the
 * filter runs. The common ones are cached loads (context.h); the ids and
 * namespaces are a system call each, paid only by filters that name
 * them. Async-signal-safe: getcpu, getres[ug]id and stat are system calls.
 */
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <pthread.h>

#include "libust/context.h"
#include "libust/filter_ctx.h"
#include "libust/getcpu.h"
#include "libustcomm/filter_bytecode.h"

static const char *const ns_paths[] = {
	[UST_FCTX_CGROUP_NS - UST_FCTX_NS_FIRST] = "/proc/thread-self/ns/cgroup",
	[UST_FCTX_IPC_NS - UST_FCTX_NS_FIRST] = "/proc/thread-self/ns/ipc",
	[UST_FCTX_MNT_NS - UST_FCTX_NS_FIRST] = "/proc/thread-self/ns/mnt",
	[UST_FCTX_NET_NS - UST_FCTX_NS_FIRST] = "/proc/thread-self/ns/net",
	[UST_FCTX_PID_NS - UST_FCTX_NS_FIRST] = "/proc/thread-self/ns/pid",
	[UST_FCTX_TIME_NS - UST_FCTX_NS_FIRST] = "/proc/thread-self/ns/time",
	[UST_FCTX_USER_NS - UST_FCTX_NS_FIRST] = "/proc/thread-self/ns/user",
	[UST_FCTX_UTS_NS - UST_FCTX_NS_FIRST] = "/proc/thread-self/ns/uts",
};

/* One of the real, effective and saved ids (which: 0, 1, 2). */
static int64_t res_id(long nr, int which)
{
	unsigned int ids[3] = { 0, 0, 0 };

	syscall(nr, &ids[0], &ids[1], &ids[2]);
	return ids[which];
}

int64_t ust_filter_ctx_int(unsigned ctx, const void *ip)
{
	struct stat st;

	switch (ctx) {
	case UST_FCTX_VPID:
		return ust_ctx_vpid();
	case UST_FCTX_VTID:
		return ust_ctx_vtid();
	case UST_FCTX_PTHREAD_ID:
		return (int64_t)pthread_self();
	case UST_FCTX_CPU_ID:
		return ust_getcpu();
	case UST_FCTX_IP:
		return (int64_t)(uintptr_t)ip;
	case UST_FCTX_VUID:
	case UST_FCTX_VEUID:
	case UST_FCTX_VSUID:
		return res_id(SYS_getresuid, (int)(ctx - UST_FCTX_VUID));
	case UST_FCTX_VGID:
	case UST_FCTX_VEGID:
	case UST_FCTX_VSGID:
		return res_id(SYS_getresgid, (int)(ctx - UST_FCTX_VGID));
	default:
		/* The linker admits no other id: these are the namespaces. */
		if (stat(ns_paths[ctx - UST_FCTX_NS_FIRST], &st))
			return 0;
		return (int64_t)st.st_ino;
	}
}
