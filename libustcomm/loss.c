/* SPDX-License-Identifier: LGPL-2.1-only */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "libustcomm/ctf_layout.h"
#include "libustcomm/log.h"
#include "libustcomm/loss.h"
#include "libustcomm/packet_index.h"

struct ustcomm_loss_stream {
	uint8_t uuid[16];
	uint32_t stream_id;
	uint64_t instance;
	uint64_t discarded;		/* the largest count seen */
};

/* One count of the stream of the packet header hdr. */
static int loss_note(struct ustcomm_loss *l, const char *hdr, uint64_t discarded)
{
	struct ustcomm_loss_stream *s, *grown;
	uint32_t id = ust_get_u32(hdr + UST_PKT_STREAM_ID);
	uint64_t instance = ust_get_u64(hdr + UST_PKT_STREAM_INSTANCE_ID);
	size_t i;

	for (i = 0; i < l->nr; i++) {
		s = &l->streams[i];
		if (s->stream_id != id || s->instance != instance ||
		    memcmp(s->uuid, hdr + UST_PKT_UUID, sizeof(s->uuid)))
			continue;
		if (discarded > s->discarded)
			s->discarded = discarded;
		return 0;
	}
	if (l->nr == l->alloc) {
		grown = realloc(l->streams, (l->alloc * 2 + 8) * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		l->streams = grown;
		l->alloc = l->alloc * 2 + 8;
	}
	s = &l->streams[l->nr++];
	memcpy(s->uuid, hdr + UST_PKT_UUID, sizeof(s->uuid));
	s->stream_id = id;
	s->instance = instance;
	s->discarded = discarded;
	return 0;
}

/*
 * The count of the last packet of the stream file name, whose first
 * packet's header is hdr, by its index (index/NAME.idx beside it): two
 * reads, where walking the packets reads a header per packet, from the
 * disk once ustd dropped the pages it wrote from the cache (10 ms for a
 * 64 MB stream). -1 without an index of this stream.
 */
static int loss_from_index(int dfd, const char *name, const char *hdr, uint64_t *discarded)
{
	struct ust_index_file_header h;
	struct ust_index_entry e;
	char path[PATH_MAX];
	uint64_t len, n;
	struct stat st;
	int fd, ret = -1;

	if (snprintf(path, sizeof(path), UST_INDEX_DIR "/%s" UST_INDEX_SUFFIX, name) >=
	    (int)sizeof(path))
		return -1;
	fd = openat(dfd, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) || fstat(fd, &st) < 0 ||
	    be32toh(h.magic) != UST_INDEX_MAGIC || be32toh(h.major) != UST_INDEX_MAJOR ||
	    be32toh(h.entry_len) < sizeof(e) || (uint64_t)st.st_size < sizeof(h))
		goto end;
	len = be32toh(h.entry_len);
	n = ((uint64_t)st.st_size - sizeof(h)) / len;
	if (!n || pread(fd, &e, sizeof(e), (off_t)(sizeof(h) + (n - 1) * len)) !=
	    (ssize_t)sizeof(e))
		goto end;
	if (be64toh(e.stream_id) != ust_get_u32(hdr + UST_PKT_STREAM_ID) ||
	    be64toh(e.stream_instance_id) != ust_get_u64(hdr + UST_PKT_STREAM_INSTANCE_ID))
		goto end;
	*discarded = be64toh(e.events_discarded);
	ret = 0;
end:
	close(fd);
	return ret;
}

/* Walks the packets of one stream file by the sizes they give; stops at
 * the first that is not a whole packet (a file being written). The
 * counts are cumulative: with an index, its last entry is enough. */
static int loss_scan_file(struct ustcomm_loss *l, int dfd, const char *name, int fd)
{
	char hdr[UST_PKT_HEADER_SIZE];
	uint64_t off = 0, size, last;
	int ret = 0;

	for (;;) {
		if (pread(fd, hdr, sizeof(hdr), (off_t)off) != (ssize_t)sizeof(hdr))
			break;
		size = ust_get_u64(hdr + UST_PKT_PACKET_SIZE) / 8;
		if (ust_get_u32(hdr + UST_PKT_MAGIC) != UST_CTF_MAGIC || size < sizeof(hdr))
			break;
		if (!off && loss_from_index(dfd, name, hdr, &last) == 0)
			return loss_note(l, hdr, last);
		ret = loss_note(l, hdr, ust_get_u64(hdr + UST_PKT_EVENTS_DISCARDED));
		if (ret < 0)
			break;
		off += size;
	}
	return ret;
}

int ustcomm_loss_scan(struct ustcomm_loss *l, const char *dir, unsigned depth)
{
	char sub[PATH_MAX];
	struct dirent *de;
	struct stat st;
	int dfd, fd, ret = 0;
	DIR *d;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	d = fdopendir(dfd);
	if (!d) {
		ret = -errno;
		close(dfd);
		goto end;
	}
	while (ret == 0 && (de = readdir(d))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "metadata"))
			continue;
		fd = openat(dfd, de->d_name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) < 0)
			st.st_mode = 0;
		if (S_ISREG(st.st_mode))
			ret = loss_scan_file(l, dfd, de->d_name, fd);
		close(fd);
		if (S_ISDIR(st.st_mode) && depth && strcmp(de->d_name, UST_INDEX_DIR) &&
		    snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name) < (int)sizeof(sub))
			ret = ustcomm_loss_scan(l, sub, depth - 1);
	}
	closedir(d);
end:
	return ret;
}

uint64_t ustcomm_loss_total(const struct ustcomm_loss *l)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < l->nr; i++)
		n += l->streams[i].discarded;
	return n;
}

void ustcomm_loss_free(struct ustcomm_loss *l)
{
	free(l->streams);
	l->streams = NULL;
	l->nr = l->alloc = 0;
}

void ustcomm_loss_warn(uint64_t n, const char *what)
{
	if (!n)
		return;
	ustcomm_warn("%" PRIu64 " events were discarded (%s): the buffers were full; babeltrace2 reports where in the trace. To lose fewer, use bigger buffers (--subbuf-size, --subbuf-num) or let writers wait for ustd (--blocking-timeout)",
		     n, what);
}
