/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Taking over a killed ustd's stream file (ustd/output/file_takeover.c) on
 * files made here packet by packet with the writer's own packet layout
 * (ust_shm_packet_open/close): an index shorter than the file, packets the
 * ring still holds, a packet cut short by the death, an index header that
 * is not one, an entry that disagrees with the file, another trace's
 * packet, no index at all, a packet the caller's check refuses; and the
 * lock: the repair waits for whoever still holds the file shared, as the
 * kernel holds a killed ustd's file until its writes at the device land.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "tap.h"
#include "libustcomm/ctf_layout.h"
#include "libustcomm/packet_index.h"
#include "libustcomm/shm_head.h"
#include "ustd/output/file_takeover.h"
#include "ustd/output/packet_index.h"

#define PKT		4096u
#define FIRST_SEQ	10u

static const uint8_t uuid[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
static const uint8_t other[16] = { 9 };
static char dir[64], file[128], idx[128];

/* Packet number seq of the trace u, PKT bytes, 100 of content. */
static void packet(char *pkt, const uint8_t *u, uint64_t seq)
{
	memset(pkt, 0, PKT);
	ust_shm_packet_open(pkt, u, 0, 0, seq, 1000 * seq);
	ust_shm_packet_close(pkt, 100, 1000 * seq + 500, 0);
	ust_put_u64(pkt + UST_PKT_PACKET_SIZE, PKT * 8);
}

/*
 * The stream file: n whole packets numbered from FIRST_SEQ (the one at
 * foreign_at of the other trace), then partial bytes of one more; its
 * index with the header and the first indexed entries, or none
 * (indexed < 0), or a header that is not one (bad_header).
 */
static void make(unsigned n, unsigned foreign_at, size_t partial, int indexed, int bad_header)
{
	struct ust_index_file_header h;
	struct ust_index_entry e;
	char pkt[PKT];
	unsigned i;
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int ifd = -1;

	unlink(idx);
	if (indexed >= 0) {
		ifd = open(idx, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		ustd_index_file_header(&h);
		if (bad_header)
			h.magic = 0;
		if (write(ifd, &h, sizeof(h)) != sizeof(h))
			abort();
	}
	for (i = 0; i < n + (partial ? 1 : 0); i++) {
		packet(pkt, i == foreign_at ? other : uuid, FIRST_SEQ + i);
		if (write(fd, pkt, i < n ? PKT : partial) != (ssize_t)(i < n ? PKT : partial))
			abort();
		if (ifd >= 0 && (int)i < indexed) {
			ustd_index_entry(&e, pkt, (uint64_t)i * PKT);
			if (write(ifd, &e, sizeof(e)) != sizeof(e))
				abort();
		}
	}
	close(fd);
	if (ifd >= 0)
		close(ifd);
}

static off_t size_of(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_size : -1;
}

/* Whether the index holds exactly the entries of the file's n packets. */
static int index_matches(unsigned n)
{
	struct ust_index_entry e, want;
	char pkt[PKT];
	unsigned i;
	int ok = 1, fd = open(file, O_RDONLY), ifd = open(idx, O_RDONLY);

	if (fd < 0 || ifd < 0 || size_of(idx) != (off_t)(sizeof(struct ust_index_file_header) +
							 n * sizeof(e)))
		ok = 0;
	for (i = 0; ok && i < n; i++) {
		if (pread(fd, pkt, PKT, (off_t)i * PKT) != PKT ||
		    pread(ifd, &e, sizeof(e), (off_t)(sizeof(struct ust_index_file_header) +
						      i * sizeof(e))) != sizeof(e))
			ok = 0;
		ustd_index_entry(&want, pkt, (uint64_t)i * PKT);
		ok = ok && memcmp(&e, &want, sizeof(e)) == 0;
	}
	if (fd >= 0)
		close(fd);
	if (ifd >= 0)
		close(ifd);
	return ok;
}

static void check(const char *what, int ret, const struct ustd_takeover *r, unsigned kept,
		  unsigned indexed, unsigned cut, uint64_t cut_bytes)
{
	tap_ok(ret == 0 && r->kept == kept && r->indexed == indexed && r->cut == cut &&
	       r->cut_bytes == cut_bytes,
	       "%s: kept %u, indexed %u, cut %u (%llu bytes)", what, kept, indexed, cut,
	       (unsigned long long)cut_bytes);
	if (ret != 0 || r->kept != kept || r->indexed != indexed || r->cut != cut ||
	    r->cut_bytes != cut_bytes)
		tap_diag("got %d: kept %llu, indexed %llu, cut %llu (%llu bytes)", ret,
			 (unsigned long long)r->kept, (unsigned long long)r->indexed,
			 (unsigned long long)r->cut, (unsigned long long)r->cut_bytes);
	tap_ok(size_of(file) == (off_t)kept * PKT, "%s: the file ends after its last packet kept",
	       what);
}

/* The whole-packet check: refuses packet FIRST_SEQ + 3; counts its calls. */
static bool refuse_seq(const char *pkt, size_t len, void *arg)
{
	(*(int *)arg)++;
	return len == PKT && ust_get_u64(pkt + UST_PKT_SEQ_NUM) != FIRST_SEQ + 3;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void)
{
	struct ustd_takeover r;
	double start, waited;
	int ret, fd, pipefd[2], refused = 0;
	char c;
	pid_t child;

	tap_plan(24);
	snprintf(dir, sizeof(dir), "/tmp/ust-takeover-XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	snprintf(file, sizeof(file), "%s/chan_0", dir);
	snprintf(idx, sizeof(idx), "%s/index", dir);
	mkdir(idx, 0700);
	snprintf(idx, sizeof(idx), "%s/index/chan_0.idx", dir);

	/* The ring holds packets 15 on: 13 and 14 landed unindexed, 15 too. */
	make(6, UINT_MAX, 0, 3, 0);
	ret = ustd_file_takeover(file, uuid, FIRST_SEQ + 5, NULL, NULL, &r);
	check("index short, one packet the ring holds", ret, &r, 5, 2, 1, PKT);
	tap_ok(index_matches(5), "index short: the index holds the 5 packets kept, exactly");

	/* The ring is gone: every whole packet stays, the torn one goes. */
	make(4, UINT_MAX, 1000, 4, 0);
	ret = ustd_file_takeover(file, uuid, UINT64_MAX, NULL, NULL, &r);
	check("a packet torn by the death", ret, &r, 4, 0, 0, 1000);
	tap_ok(index_matches(4), "torn: the index holds the 4 whole packets");

	/* An index entry claimed by the ring: cut with its packet. */
	make(5, UINT_MAX, 0, 5, 0);
	ret = ustd_file_takeover(file, uuid, FIRST_SEQ + 3, NULL, NULL, &r);
	check("indexed packets the ring holds", ret, &r, 3, 0, 2, 2 * PKT);
	tap_ok(index_matches(3), "indexed, held: the index keeps the 3 packets before");

	make(3, UINT_MAX, 0, 2, 1);
	ret = ustd_file_takeover(file, uuid, UINT64_MAX, NULL, NULL, &r);
	check("an index header that is not one", ret, &r, 3, 3, 0, 0);
	tap_ok(index_matches(3), "bad header: written again, with every entry");

	/* Another trace's packet: the file is not this one's past it. */
	make(5, 2, 0, 1, 0);
	ret = ustd_file_takeover(file, uuid, UINT64_MAX, NULL, NULL, &r);
	check("another trace's packet", ret, &r, 2, 1, 0, 3 * PKT);
	tap_ok(index_matches(2), "another trace: the index holds the 2 packets before it");

	/* No index: none is made, the file is cut all the same. */
	make(4, UINT_MAX, 0, -1, 0);
	ret = ustd_file_takeover(file, uuid, FIRST_SEQ + 2, NULL, NULL, &r);
	check("no index", ret, &r, 2, 0, 2, 2 * PKT);
	tap_ok(size_of(idx) < 0, "no index: none made");

	/* A packet the check refuses (bytes of a later one): cut there. */
	make(5, UINT_MAX, 0, 1, 0);
	ret = ustd_file_takeover(file, uuid, UINT64_MAX, refuse_seq, &refused, &r);
	check("a packet its events do not fill", ret, &r, 3, 2, 2, 2 * PKT);
	tap_ok(r.damaged && index_matches(3),
	       "refused: said, and the index holds the 3 packets before it");
	tap_ok(refused == 3, "refused: only the packets without an entry are checked (%d)",
	       refused);

	tap_ok(ustd_file_takeover("/nonexistent/ust/chan_0", uuid, 0, NULL, NULL, &r) == -ENOENT,
	       "a file that is gone: -ENOENT");

	/* The lock: a holder that lets go 300 ms later is waited for. */
	make(2, UINT_MAX, 0, 2, 0);
	if (pipe(pipefd) < 0)
		return 1;
	child = fork();
	if (child == 0) {
		fd = open(file, O_RDONLY);
		flock(fd, LOCK_SH);
		if (write(pipefd[1], "x", 1) != 1)
			_exit(1);
		usleep(300000);
		_exit(0);
	}
	if (read(pipefd[0], &c, 1) != 1)
		return 1;
	start = now();
	ret = ustd_file_takeover(file, uuid, UINT64_MAX, NULL, NULL, &r);
	waited = now() - start;
	waitpid(child, NULL, 0);
	tap_ok(ret == 0 && waited > 0.2,
	       "the repair waits for the file's last holder (%.0f ms)", waited * 1000);

	unlink(idx);
	unlink(file);
	snprintf(idx, sizeof(idx), "%s/index", dir);
	rmdir(idx);
	rmdir(dir);
	return tap_done();
}
