/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The memory check of usttrace (memory.h). It runs before ustd and the
 * program start, so that a geometry too large is a usage error, said at
 * once, rather than a program killed by the OOM killer (or another process
 * of the machine killed in its place) and a trace that says nothing.
 */
#include <errno.h>
#include <string.h>
#include <sys/sysinfo.h>

#include "libustcomm/log.h"
#include "libustcomm/mem_avail.h"
#include "libustcomm/shm_layout.h"
#include "usttrace/memory.h"

/* A channel's geometry as libust decides it (channel_conf.h): its own
 * setting, else that of "*", else the default. */
static void usttrace_geometry(const struct ustctl_channel_conf *c,
			      const struct ustctl_channel_conf *all, uint32_t *size, uint32_t *num)
{
	if (c && c->subbuf_size)
		*size = c->subbuf_size;
	else if (all && all->subbuf_size)
		*size = all->subbuf_size;
	if (c && c->subbuf_num)
		*num = c->subbuf_num;
	else if (all && all->subbuf_num)
		*num = all->subbuf_num;
}

/* A channel's thread buffers, as libust counts them (trace_settings.c):
 * for every channel, or for thread_channel only when not NULL. */
static uint32_t usttrace_threads(const char *channel, uint32_t thread_buffers,
				 const char *thread_channel)
{
	return thread_channel && strcmp(channel, thread_channel) ? 0 : thread_buffers;
}

/* Keeps in best the channel of the most memory: c's (NULL: one no
 * setting names), with the geometry it would have (geo: size, num,
 * thread buffers). */
static void usttrace_candidate(const struct ustctl_channel_conf *c,
			       const struct ustctl_channel_conf *all, uint32_t size, uint32_t num,
			       uint32_t ncpus, uint32_t threads, uint64_t *best, uint32_t geo[3])
{
	uint32_t s = size, n = num ? num : ust_subbuf_num_default(ncpus + threads);

	usttrace_geometry(c, all, &s, &n);
	if ((uint64_t)s * n * (ncpus + threads) > *best) {
		*best = (uint64_t)s * n * (ncpus + threads);
		geo[0] = s;
		geo[1] = n;
		geo[2] = threads;
	}
}

int usttrace_check_memory(uint32_t size, uint32_t num, const struct ustctl_session *session,
			  uint32_t thread_buffers, const char *thread_channel)
{
	const struct ustctl_channel_conf *all = NULL, *threaded = NULL;
	struct ustcomm_mem_request req = { 0 };
	struct ustcomm_mem_avail ma;
	int conf = get_nprocs_conf();
	uint32_t ncpus = conf > 0 ? (uint32_t)conf : 1, geo[3];
	uint64_t best = 0;
	char why[512];
	size_t i;

	size = size ? size : UST_SUBBUF_SIZE_DEFAULT;
	for (i = 0; session && i < session->nr_channels; i++) {
		if (!strcmp(session->channels[i].name, "*"))
			all = &session->channels[i];
		else if (thread_channel && !strcmp(session->channels[i].name, thread_channel))
			threaded = &session->channels[i];
	}
	/* A channel no setting names, the channel of the thread buffers, and
	 * each channel the session sets. */
	usttrace_candidate(NULL, all, size, num, ncpus,
			   usttrace_threads("", thread_buffers, thread_channel), &best, geo);
	if (thread_channel)
		usttrace_candidate(threaded, all, size, num, ncpus, thread_buffers, &best, geo);
	for (i = 0; session && i < session->nr_channels; i++)
		usttrace_candidate(&session->channels[i], all, size, num, ncpus,
				   usttrace_threads(session->channels[i].name, thread_buffers,
						    thread_channel), &best, geo);
	ustcomm_mem_request_add(&req, geo[0], geo[1], ncpus, geo[2]);
	ustcomm_mem_avail(&ma);
	if (ustcomm_mem_check(&req, &ma, why, sizeof(why)) == 0)
		return 0;
	ustcomm_err("%s: choose smaller --subbuf-size/--subbuf-num%s", why,
		    thread_buffers ? " or fewer --thread-buffers" : "");
	return -ENOMEM;
}
