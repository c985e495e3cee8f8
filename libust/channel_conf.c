/* SPDX-License-Identifier: LGPL-2.1-only */
#include <errno.h>
#include <string.h>

#include "libust/channel_conf.h"
#include "libustcomm/blocking.h"
#include "libustcomm/format.h"
#include "libustcomm/shm_layout.h"

/* Every channel of a trace, plus "*". */
#define CHAN_CONF_MAX		(UST_TRACE_MAX_CHANNELS + 1)

struct chan_conf {
	char name[UST_SHM_CHANNEL_NAME_MAX];
	uint32_t size, num;		/* 0: the default */
	int blocking_set;		/* 0: that of "*", or the default */
	uint32_t blocking;
	int tracefile_set;		/* 0: that of "*", or unbounded */
	uint32_t tracefile_count;
	uint64_t tracefile_size;
	struct ustcomm_ctx_set ctx;
};

/* A trace slot's settings (trace.h), and ust_chan_conf_save()'s copy. */
struct conf_table {
	struct chan_conf confs[CHAN_CONF_MAX];
	unsigned nr_confs;
	struct chan_conf saved[CHAN_CONF_MAX];
	unsigned nr_saved;
};

static struct conf_table tables[UST_TRACES_MAX];
/* The selected slot's (ust_chan_conf_select()). */
static struct conf_table *t = &tables[0];

void ust_chan_conf_select(uint32_t slot)
{
	t = &tables[slot];
}

void ust_chan_conf_clear(void)
{
	t->nr_confs = 0;
	memset(t->confs, 0, sizeof(t->confs));
}

void ust_chan_conf_save(void)
{
	memcpy(t->saved, t->confs, sizeof(t->confs));
	t->nr_saved = t->nr_confs;
}

void ust_chan_conf_restore(void)
{
	memcpy(t->confs, t->saved, sizeof(t->confs));
	t->nr_confs = t->nr_saved;
}

static struct chan_conf *conf_find(const char *channel)
{
	unsigned i;

	for (i = 0; i < t->nr_confs; i++) {
		if (!strcmp(t->confs[i].name, channel))
			return &t->confs[i];
	}
	return NULL;
}

/* The caller checked that the name fits. */
static struct chan_conf *conf_get(const char *channel)
{
	struct chan_conf *c = conf_find(channel);

	if (c || t->nr_confs == CHAN_CONF_MAX)
		return c;
	c = &t->confs[t->nr_confs++];
	memcpy(c->name, channel, strlen(channel) + 1);
	return c;
}

int ust_chan_conf_set_subbuf(const char *channel, int is_num, uint32_t value)
{
	struct chan_conf *c = conf_get(channel);

	if (!c)
		return -ENOSPC;
	if (is_num)
		c->num = value;
	else
		c->size = value;
	return 0;
}

void ust_chan_conf_geometry(const char *channel, uint32_t def_size, uint32_t def_num,
			    uint32_t *size, uint32_t *num)
{
	const struct chan_conf *c = conf_find(channel);
	const struct chan_conf *all = conf_find(UST_CHAN_CONF_ALL);

	*size = c && c->size ? c->size : all && all->size ? all->size : def_size;
	*num = c && c->num ? c->num : all && all->num ? all->num : def_num;
}

int ust_chan_conf_set_blocking(const char *channel, uint32_t us)
{
	struct chan_conf *c = conf_get(channel);

	if (!c)
		return -ENOSPC;
	c->blocking = us;
	c->blocking_set = 1;
	return 0;
}

uint32_t ust_chan_conf_blocking(const char *channel)
{
	const struct chan_conf *c = conf_find(channel);
	const struct chan_conf *all = conf_find(UST_CHAN_CONF_ALL);

	return c && c->blocking_set ? c->blocking :
		all && all->blocking_set ? all->blocking : UST_BLOCKING_NEVER;
}

int ust_chan_conf_set_tracefile(const char *channel, uint64_t size, uint32_t count)
{
	struct chan_conf *c = conf_get(channel);

	if (!c)
		return -ENOSPC;
	c->tracefile_size = size;
	c->tracefile_count = count;
	c->tracefile_set = 1;
	return 0;
}

void ust_chan_conf_tracefile(const char *channel, uint64_t *size, uint32_t *count)
{
	const struct chan_conf *c = conf_find(channel);
	const struct chan_conf *all = conf_find(UST_CHAN_CONF_ALL);

	if (!c || !c->tracefile_set)
		c = all && all->tracefile_set ? all : NULL;
	*size = c ? c->tracefile_size : 0;
	*count = c ? c->tracefile_count : 0;
}

int ust_chan_conf_add_context(const char *channel, int id)
{
	struct ustcomm_ctx_set set;
	struct chan_conf *c;

	ust_chan_conf_contexts(channel, &set);
	if (ustcomm_ctx_set_has(&set, id))
		return -EEXIST;
	c = conf_get(channel);
	if (!c)
		return -ENOSPC;
	/* At most one of each context: the set cannot overflow. */
	c->ctx.ids[c->ctx.nr++] = (uint8_t)id;
	return 0;
}

void ust_chan_conf_contexts(const char *channel, struct ustcomm_ctx_set *set)
{
	const struct chan_conf *all = conf_find(UST_CHAN_CONF_ALL);
	const struct chan_conf *c = strcmp(channel, UST_CHAN_CONF_ALL) ? conf_find(channel) : NULL;
	unsigned i;

	memset(set, 0, sizeof(*set));
	if (all)
		*set = all->ctx;
	/* A context given to the channel before "*" got it too is recorded
	 * once, where "*" puts it. */
	for (i = 0; c && i < c->ctx.nr; i++)
		if (!ustcomm_ctx_set_has(set, c->ctx.ids[i]))
			set->ids[set->nr++] = c->ctx.ids[i];
}

static void put_string(struct ustcomm_strbuf *sb, const char *s)
{
	ustcomm_strbuf_append(sb, s, strlen(s) + 1);
}

void ust_chan_conf_describe(struct ustcomm_strbuf *sb,
			    void (*geometry)(const char *channel, uint32_t *size, uint32_t *num),
			    uint32_t *nr)
{
	char num[16];
	uint32_t size, count;
	unsigned i, j;

	for (i = 0; i < t->nr_confs; i++) {
		const struct chan_conf *c = &t->confs[i];

		if (strcmp(c->name, UST_CHAN_CONF_ALL)) {
			geometry(c->name, &size, &count);
		} else {
			size = c->size;
			count = c->num;
		}
		put_string(sb, c->name);
		ustcomm_format(num, sizeof(num), "%u", size);
		put_string(sb, num);
		ustcomm_format(num, sizeof(num), "%u", count);
		put_string(sb, num);
		/* The channel's own contexts, separated by commas. */
		for (j = 0; j < c->ctx.nr; j++) {
			const char *ctx = ustcomm_ctx_name(c->ctx.ids[j]);

			if (j)
				ustcomm_strbuf_append(sb, ",", 1);
			ustcomm_strbuf_append(sb, ctx, strlen(ctx));
		}
		ustcomm_strbuf_append(sb, "", 1);
		/* The channel's own blocking timeout, "" when it has none. */
		num[0] = '\0';
		if (c->blocking_set)
			ustcomm_blocking_format(num, sizeof(num), c->blocking);
		put_string(sb, num);
		*nr += 5;
	}
}
