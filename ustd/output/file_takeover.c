/* SPDX-License-Identifier: GPL-2.0-only */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include "libustcomm/ctf_layout.h"
#include "libustcomm/packet_index.h"
#include "ustd/output/file_takeover.h"
#include "ustd/output/packet_index.h"

static int takeover_index_path(const char *path, char *out, size_t size)
{
	const char *base = strrchr(path, '/');
	int n;

	if (!base)
		return -EINVAL;
	n = snprintf(out, size, "%.*s/" UST_INDEX_DIR "/%s" UST_INDEX_SUFFIX, (int)(base - path),
		     path, base + 1);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* Whether a whole packet of the trace uuid (NULL: any) begins at off of
 * the size bytes of fd: its header and context then in pkt, its length
 * in the file in *len. */
static bool takeover_packet(int fd, uint64_t off, uint64_t size, const uint8_t *uuid,
			    char *pkt, uint64_t *len)
{
	return off <= size && size - off >= UST_PKT_HEADER_SIZE &&
	       pread(fd, pkt, UST_PKT_HEADER_SIZE, (off_t)off) == UST_PKT_HEADER_SIZE &&
	       ust_pkt_len(pkt, size - off, len) == 0 &&
	       (!uuid || memcmp(pkt + UST_PKT_UUID, uuid, 16) == 0);
}

/* The index's header, written again when it is not ours (a dead ustd
 * killed before it wrote it whole): the file's packets then get every
 * entry anew. Returns the bytes of entries to keep checking from. */
static int takeover_index_header(int idx_fd, uint64_t *idx_len)
{
	struct ust_index_file_header h;

	*idx_len = sizeof(h);
	if (pread(idx_fd, &h, sizeof(h), 0) == sizeof(h) && be32toh(h.magic) == UST_INDEX_MAGIC &&
	    be32toh(h.entry_len) == sizeof(struct ust_index_entry))
		return 0;
	ustd_index_file_header(&h);
	return pwrite(idx_fd, &h, sizeof(h), 0) == sizeof(h) ? 1 : -EIO;
}

/* Whether the packet of len bytes at off holds what its context says. */
static bool takeover_whole(int fd, uint64_t off, uint64_t len, ustd_takeover_whole whole,
			   void *arg)
{
	char *buf;
	bool ok;

	if (!whole)
		return true;
	buf = malloc(len);
	ok = buf && pread(fd, buf, len, (off_t)off) == (ssize_t)len && whole(buf, len, arg);
	free(buf);
	return ok;
}

int ustd_file_takeover(const char *path, const uint8_t *uuid, uint64_t first_seq,
		       ustd_takeover_whole whole, void *arg, struct ustd_takeover *r)
{
	char idx_path[PATH_MAX], pkt[UST_PKT_HEADER_SIZE];
	uint64_t off = 0, idx_len = sizeof(struct ust_index_file_header), len, seq, next = 0;
	struct ust_index_entry e;
	struct stat st;
	int fd, idx_fd = -1, ret;

	memset(r, 0, sizeof(*r));
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* Blocks until the dead ustd's last write landed: never long, its
	 * writes in flight are a few sub-buffers per stream. */
	if (flock(fd, LOCK_EX) < 0 || fstat(fd, &st) < 0) {
		ret = -errno;
		goto end;
	}
	ret = takeover_index_path(path, idx_path, sizeof(idx_path));
	if (ret < 0)
		goto end;
	idx_fd = open(idx_path, O_RDWR | O_CLOEXEC);
	if (idx_fd < 0 && errno != ENOENT) {
		ret = -errno;
		goto end;
	}
	ret = idx_fd >= 0 ? takeover_index_header(idx_fd, &idx_len) : 1;
	if (ret < 0)
		goto end;
	/* The entries that agree with the file, below first_seq. */
	while (ret == 0 && pread(idx_fd, &e, sizeof(e), (off_t)idx_len) == sizeof(e)) {
		seq = be64toh(e.packet_seq_num);
		if (be64toh(e.offset) != off || seq >= first_seq || seq < next ||
		    !takeover_packet(fd, off, (uint64_t)st.st_size, uuid, pkt, &len) ||
		    ust_get_u64(pkt + UST_PKT_SEQ_NUM) != seq || be64toh(e.packet_size) != len * 8)
			break;
		off += len;
		idx_len += sizeof(e);
		next = seq + 1;
		r->kept++;
	}
	/* The packets after them that landed but have no entry. */
	while (takeover_packet(fd, off, (uint64_t)st.st_size, uuid, pkt, &len)) {
		seq = ust_get_u64(pkt + UST_PKT_SEQ_NUM);
		if (seq >= first_seq || seq < next)
			break;
		if (!takeover_whole(fd, off, len, whole, arg)) {
			r->damaged = true;
			break;
		}
		if (idx_fd >= 0) {
			ustd_index_entry(&e, pkt, off);
			if (pwrite(idx_fd, &e, sizeof(e), (off_t)idx_len) != sizeof(e)) {
				ret = -EIO;
				goto end;
			}
			idx_len += sizeof(e);
			r->indexed++;
		}
		off += len;
		next = seq + 1;
		r->kept++;
	}
	r->cut_bytes = (uint64_t)st.st_size - off;
	for (seq = off; takeover_packet(fd, seq, (uint64_t)st.st_size, uuid, pkt, &len); seq += len)
		r->cut++;
	ret = 0;
	if (ftruncate(fd, (off_t)off) < 0 || (idx_fd >= 0 && ftruncate(idx_fd, (off_t)idx_len) < 0))
		ret = -errno;
end:
	if (idx_fd >= 0)
		close(idx_fd);
	/* Releases the lock. */
	close(fd);
	return ret;
}
