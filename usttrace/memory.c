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

int usttrace_check_memory(uint32_t size, uint32_t num, const struct ustctl_session *session)
{
	const struct ustctl_channel_conf *all = NULL;
	struct ustcomm_mem_request req = { 0 };
	struct ustcomm_mem_avail ma;
	uint32_t best_size, best_num, s, n;
	char why[512];
	int ncpus = get_nprocs_conf();
	size_t i;

	size = size ? size : UST_SUBBUF_SIZE_DEFAULT;
	num = num ? num : ust_subbuf_num_default(ncpus > 0 ? (uint32_t)ncpus : 1);
	for (i = 0; session && i < session->nr_channels; i++)
		if (!strcmp(session->channels[i].name, "*"))
			all = &session->channels[i];
	best_size = size;
	best_num = num;
	usttrace_geometry(NULL, all, &best_size, &best_num);
	for (i = 0; session && i < session->nr_channels; i++) {
		s = size;
		n = num;
		usttrace_geometry(&session->channels[i], all, &s, &n);
		if ((uint64_t)s * n > (uint64_t)best_size * best_num) {
			best_size = s;
			best_num = n;
		}
	}
	/* Every possible CPU, as libust makes a buffer for each. */
	ustcomm_mem_request_add(&req, best_size, best_num, ncpus > 0 ? (uint32_t)ncpus : 1);
	ustcomm_mem_avail(&ma);
	if (ustcomm_mem_check(&req, &ma, why, sizeof(why)) == 0)
		return 0;
	ustcomm_err("%s: choose smaller --subbuf-size/--subbuf-num", why);
	return -ENOMEM;
}
