/* SPDX-License-Identifier: LGPL-2.1-only */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>

#include "libust/channel.h"

int ust_channel_create(struct ust_channel **out, const char *name, uint32_t stream_id,
		       uint32_t subbuf_size, uint32_t subbuf_count, const uint8_t uuid[16])
{
	struct ust_rb_config cfg = {
		.subbuf_size = subbuf_size,
		.subbuf_count = subbuf_count,
		.stream_id = stream_id,
		.channel = name,
	};
	struct ust_channel *chan;
	int ncpus, ret;
	uint32_t i;

	/* Every possible CPU, so that a CPU coming online finds its buffer. */
	ncpus = get_nprocs_conf();
	if (ncpus < 1)
		ncpus = 1;
	chan = calloc(1, sizeof(*chan));
	if (!chan)
		return -ENOMEM;
	chan->bufs = calloc(ncpus, sizeof(*chan->bufs));
	if (!chan->bufs) {
		ret = -ENOMEM;
		goto end;
	}
	strncpy(chan->name, name, sizeof(chan->name) - 1);
	chan->stream_id = stream_id;
	memcpy(cfg.uuid, uuid, sizeof(cfg.uuid));
	for (i = 0; i < (uint32_t)ncpus; i++) {
		cfg.cpu = i;
		ret = ust_rb_create(&chan->bufs[i], &cfg);
		if (ret < 0)
			goto end;
		chan->nr_cpus = i + 1;
	}
	*out = chan;
	return 0;
end:
	ust_channel_destroy(chan);
	return ret;
}

void ust_channel_destroy(struct ust_channel *chan)
{
	uint32_t i;

	if (!chan)
		return;
	for (i = 0; i < chan->nr_cpus; i++)
		ust_rb_destroy(&chan->bufs[i]);
	free(chan->bufs);
	free(chan);
}

void ust_channel_flush(struct ust_channel *chan)
{
	uint32_t i;

	for (i = 0; i < chan->nr_cpus; i++)
		ust_rb_flush(&chan->bufs[i]);
}
