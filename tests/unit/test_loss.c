/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ustcomm_loss_scan() on trace directories laid out as ustd writes them:
 * stream files of packets whose contexts count the events discarded so
 * far, and index/<stream>.idx beside them. The count of a stream is its
 * last packet's, read from the index when it has one that names the same
 * stream, else by walking the packets; a stream written to several
 * directories counts once.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "libustcomm/ctf_layout.h"
#include "libustcomm/loss.h"
#include "libustcomm/packet_index.h"
#include "tap.h"

#define PKT	4096u

static char root[] = "/tmp/ust-test-loss.XXXXXX";

static void put_u32(char *p, uint32_t v) { memcpy(p, &v, sizeof(v)); }
static void put_u64(char *p, uint64_t v) { memcpy(p, &v, sizeof(v)); }

/* A stream file name in dir of n packets of stream (id, cpu) whose
 * discarded counts are counts[]; its index too when index is 1, with the
 * last entry's count and stream id replaced when asked (to be wrong). */
static int write_stream(const char *dir, const char *name, uint32_t id, uint64_t cpu,
			const uint64_t *counts, int n, int index, int64_t index_last,
			int64_t index_id)
{
	char path[512], pkt[PKT];
	struct ust_index_file_header h = { htobe32(UST_INDEX_MAGIC), htobe32(UST_INDEX_MAJOR),
					   htobe32(UST_INDEX_MINOR),
					   htobe32(sizeof(struct ust_index_entry)) };
	struct ust_index_entry e;
	int fd, ifd = -1, i, ret = -1;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (index) {
		snprintf(path, sizeof(path), "%s/index", dir);
		mkdir(path, 0700);
		snprintf(path, sizeof(path), "%s/index/%s.idx", dir, name);
		ifd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (ifd < 0 || write(ifd, &h, sizeof(h)) != sizeof(h))
			goto end;
	}
	if (fd < 0)
		goto end;
	for (i = 0; i < n; i++) {
		memset(pkt, 0, sizeof(pkt));
		put_u32(pkt + UST_PKT_MAGIC, UST_CTF_MAGIC);
		memset(pkt + UST_PKT_UUID, 0x5a, 16);
		put_u32(pkt + UST_PKT_STREAM_ID, id);
		put_u64(pkt + UST_PKT_STREAM_INSTANCE_ID, cpu);
		put_u64(pkt + UST_PKT_PACKET_SIZE, PKT * 8);
		put_u64(pkt + UST_PKT_CONTENT_SIZE, UST_PKT_HEADER_SIZE * 8);
		put_u64(pkt + UST_PKT_EVENTS_DISCARDED, counts[i]);
		if (write(fd, pkt, sizeof(pkt)) != sizeof(pkt))
			goto end;
		if (ifd < 0)
			continue;
		memset(&e, 0, sizeof(e));
		e.offset = htobe64((uint64_t)i * PKT);
		e.packet_size = htobe64(PKT * 8);
		e.events_discarded = htobe64(i == n - 1 && index_last >= 0 ? (uint64_t)index_last :
					     counts[i]);
		e.stream_id = htobe64(i == n - 1 && index_id >= 0 ? (uint64_t)index_id : id);
		e.stream_instance_id = htobe64(cpu);
		if (write(ifd, &e, sizeof(e)) != sizeof(e))
			goto end;
	}
	ret = 0;
end:
	if (fd >= 0)
		close(fd);
	if (ifd >= 0)
		close(ifd);
	return ret;
}

static uint64_t scan(const char *dir, unsigned depth)
{
	struct ustcomm_loss l = USTCOMM_LOSS_INIT;
	uint64_t n;

	if (ustcomm_loss_scan(&l, dir, depth) < 0)
		n = UINT64_MAX;
	else
		n = ustcomm_loss_total(&l);
	ustcomm_loss_free(&l);
	return n;
}

static void make_dir(char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s/%s", root, name);
	mkdir(out, 0700);
}

int main(void)
{
	static const uint64_t counts[] = { 0, 3, 3, 10, 12 };
	char a[256], b[256], c[256], d[256], e[256], top[256];

	tap_plan(6);
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	make_dir(a, sizeof(a), "indexed");
	write_stream(a, "chan_0", 1, 0, counts, 5, 1, 40, -1);
	write_stream(a, "chan_1", 1, 1, counts, 2, 1, -1, -1);
	tap_ok(scan(a, 0) == 40 + 3,
	       "with indexes: each stream's last entry counts (40 + 3), not its packets (12 + 3)");

	make_dir(b, sizeof(b), "no-index");
	write_stream(b, "chan_0", 1, 0, counts, 5, 0, -1, -1);
	tap_ok(scan(b, 0) == 12, "without an index: the largest count of its packets (12)");

	make_dir(c, sizeof(c), "other-stream");
	write_stream(c, "chan_0", 1, 0, counts, 5, 1, 40, 7);
	tap_ok(scan(c, 0) == 12,
	       "an index that names another stream is not believed: the packets count (12)");

	make_dir(d, sizeof(d), "bad-header");
	write_stream(d, "chan_0", 1, 0, counts, 5, 1, 40, -1);
	snprintf(top, sizeof(top), "%s/index/chan_0.idx", d);
	{
		int fd = open(top, O_WRONLY);
		uint32_t bad = 0;

		tap_ok(fd >= 0 && pwrite(fd, &bad, sizeof(bad), 0) == sizeof(bad) && scan(d, 0) == 12,
		       "an index without its magic is not believed: the packets count (12)");
		if (fd >= 0)
			close(fd);
	}

	make_dir(e, sizeof(e), "empty-index");
	write_stream(e, "chan_0", 1, 0, counts, 5, 1, -1, -1);
	snprintf(top, sizeof(top), "%s/index/chan_0.idx", e);
	tap_ok(truncate(top, sizeof(struct ust_index_file_header)) == 0 && scan(e, 0) == 12,
	       "an index of no entry yet: the packets count (12)");

	/* The same stream (uuid, id, cpu) in two directories, as a resumed
	 * trace writes it: the larger count, once. */
	tap_ok(scan(root, 1) == 40 + 3 + 0,
	       "directories below: the same stream counts once, by its largest count (43)");

	snprintf(top, sizeof(top), "rm -rf '%s'", root);
	if (system(top) != 0)
		tap_diag("could not remove %s", root);
	return tap_failed ? 1 : 0;
}
