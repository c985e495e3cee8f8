/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The wire protocol over a real socketpair: every message type with its
 * descriptors, a message dribbled in one byte at a time, a large message
 * that needs several writes, and malformed input, which must give the
 * right error and leak no descriptor.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "libustcomm/protocol.h"
#include "tap.h"

#define NR_TESTS	50

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static int make_pair(int sv[2])
{
	return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv);
}

/* Sends raw bytes, with fds attached to the first byte. */
static int send_raw(int sock, const void *data, size_t len, const int *fds, unsigned nr_fds)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * 32)];
	} control;
	struct iovec iov = { .iov_base = (void *)data, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (nr_fds) {
		struct cmsghdr *cmsg;

		memset(&control, 0, sizeof(control));
		mh.msg_control = control.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nr_fds);
		cmsg = CMSG_FIRSTHDR(&mh);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int) * nr_fds);
		memcpy(CMSG_DATA(cmsg), fds, sizeof(int) * nr_fds);
	}
	return sendmsg(sock, &mh, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
}

static size_t build_raw(char *out, uint32_t magic, uint16_t version, uint16_t type,
			uint32_t payload_len, uint32_t nr_fds, const void *payload,
			size_t payload_bytes)
{
	struct ustcomm_msg_header hdr = {
		.magic = magic, .version = version, .type = type,
		.payload_len = payload_len, .nr_fds = nr_fds,
	};

	memcpy(out, &hdr, sizeof(hdr));
	if (payload_bytes)
		memcpy(out + sizeof(hdr), payload, payload_bytes);
	return sizeof(hdr) + payload_bytes;
}

/* Reads everything that is there and pops one message: next()'s result. */
static int pump(struct ustcomm_receiver *rx, int sock, struct ustcomm_msg *msg)
{
	ssize_t n;
	int ret;

	for (;;) {
		ret = ustcomm_receiver_next(rx, msg);
		if (ret)
			return ret;
		n = ustcomm_receiver_read(rx, sock);
		if (n == -EAGAIN) {
			struct pollfd pfd = { .fd = sock, .events = POLLIN };

			poll(&pfd, 1, 5000);
			continue;
		}
		if (n <= 0)
			return n ? (int)n : -ECONNRESET;
	}
}

static void fill_hello(struct ustcomm_hello *h)
{
	int i;

	memset(h, 0, sizeof(*h));
	h->pid = 1234;
	for (i = 0; i < 16; i++)
		h->uuid[i] = (uint8_t)i;
	strcpy(h->procname, "myapp");
	strcpy(h->trace_name, "auto");
}

static void fill_stream(struct ustcomm_stream *s)
{
	memset(s, 0, sizeof(*s));
	s->stream_id = 3;
	s->cpu = 1;
	s->subbuf_size = 4096;
	s->subbuf_count = 4;
	strcpy(s->channel, "ust");
}

/* True when a and b are the same open file. */
static int same_file(int a, int b)
{
	struct stat sa, sb;

	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 &&
		sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static void test_messages(void)
{
	struct ustcomm_receiver rx;
	struct ustcomm_msg msg = { 0 };
	const struct ustcomm_hello *hello;
	const struct ustcomm_stream *stream;
	struct ustcomm_hello h;
	struct ustcomm_stream s;
	int sv[2], fds[2], ret, cloexec;
	static const char tsdl[] = "event { name = \"x\"; };\n";

	make_pair(sv);
	ustcomm_receiver_init(&rx);
	fds[0] = memfd_create("shm", MFD_CLOEXEC);
	fds[1] = eventfd(0, EFD_CLOEXEC);

	tap_ok(ustcomm_receiver_read(&rx, sv[1]) == -EAGAIN, "read with nothing there: -EAGAIN");

	fill_hello(&h);
	fill_stream(&s);
	ret = ustcomm_send_msg(sv[0], USTCOMM_MSG_HELLO, &h, sizeof(h), NULL, 0);
	ret |= ustcomm_send_msg(sv[0], USTCOMM_MSG_METADATA, tsdl, sizeof(tsdl) - 1, NULL, 0);
	ret |= ustcomm_send_msg(sv[0], USTCOMM_MSG_STREAM, &s, sizeof(s), fds, 2);
	ret |= ustcomm_send_msg(sv[0], USTCOMM_MSG_GOODBYE, NULL, 0, NULL, 0);
	tap_ok(ret == 0, "four messages sent");

	ret = pump(&rx, sv[1], &msg);
	tap_ok(ret == 1 && msg.type == USTCOMM_MSG_HELLO && msg.nr_fds == 0 &&
	       ustcomm_check_hello(&msg, &hello) == 0 && hello->pid == 1234 &&
	       !strcmp(hello->procname, "myapp") && !strcmp(hello->trace_name, "auto") &&
	       hello->uuid[15] == 15, "HELLO received and valid");
	ustcomm_msg_release(&msg);

	ret = pump(&rx, sv[1], &msg);
	tap_ok(ret == 1 && msg.type == USTCOMM_MSG_METADATA &&
	       msg.payload_len == sizeof(tsdl) - 1 && !strcmp(msg.payload, tsdl),
	       "METADATA received, NUL-terminated");
	ustcomm_msg_release(&msg);

	ret = pump(&rx, sv[1], &msg);
	tap_ok(ret == 1 && msg.type == USTCOMM_MSG_STREAM && msg.nr_fds == 2 &&
	       ustcomm_check_stream(&msg, &stream) == 0 && stream->stream_id == 3 &&
	       stream->cpu == 1 && !strcmp(stream->channel, "ust"),
	       "STREAM received and valid");
	tap_ok(msg.nr_fds == 2 && same_file(msg.fds[0], fds[0]) && same_file(msg.fds[1], fds[1]),
	       "STREAM descriptors are the memfd and the eventfd, in order");
	cloexec = msg.nr_fds == 2 ? fcntl(msg.fds[0], F_GETFD) : 0;
	tap_ok(cloexec > 0 && (cloexec & FD_CLOEXEC), "received descriptors are close-on-exec");
	ustcomm_msg_release(&msg);

	ret = pump(&rx, sv[1], &msg);
	tap_ok(ret == 1 && msg.type == USTCOMM_MSG_GOODBYE && msg.payload_len == 0 &&
	       msg.payload && msg.payload[0] == '\0', "GOODBYE received");
	tap_ok(ustcomm_check_hello(&msg, &hello) == -EPROTO &&
	       ustcomm_check_stream(&msg, &stream) == -EPROTO,
	       "GOODBYE is neither HELLO nor STREAM");
	ustcomm_msg_release(&msg);
	tap_ok(ustcomm_receiver_next(&rx, &msg) == 0 && rx.len == 0 && rx.nr_fds == 0,
	       "receiver empty afterwards");

	close(sv[0]);
	tap_ok(ustcomm_receiver_read(&rx, sv[1]) == 0, "peer close: read returns 0");
	ustcomm_receiver_fini(&rx);
	close(sv[1]);
	close(fds[0]);
	close(fds[1]);
}

/* The buffer flags a STREAM may carry: a thread buffer is never a
 * flight recorder's (shm_layout.h). */
static void test_stream_flags(void)
{
	static const struct {
		uint32_t flags;
		int ret;
		const char *what;
	} cases[] = {
		{ 0, 0, "a per-CPU buffer" },
		{ UST_SHM_FLAG_OVERWRITE, 0, "a flight recorder's" },
		{ UST_SHM_FLAG_THREAD, 0, "a thread buffer" },
		{ UST_SHM_FLAG_OVERWRITE | UST_SHM_FLAG_THREAD, -EPROTO,
		  "a flight recorder's thread buffer" },
		{ 4, -EPROTO, "an unknown flag" },
	};
	const struct ustcomm_stream *stream;
	struct ustcomm_stream s;
	struct ustcomm_msg msg = { .type = USTCOMM_MSG_STREAM, .payload_len = sizeof(s),
				   .payload = (char *)&s, .nr_fds = 2 };
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fill_stream(&s);
		s.flags = cases[i].flags;
		tap_ok(ustcomm_check_stream(&msg, &stream) == cases[i].ret, "STREAM of %s: %s",
		       cases[i].what, cases[i].ret ? "refused" : "accepted");
	}
}

/* A STREAM message written one byte per send(); the fds ride on byte 0. */
static void test_dribble(void)
{
	struct ustcomm_receiver rx;
	struct ustcomm_msg msg = { 0 };
	const struct ustcomm_stream *stream;
	struct ustcomm_stream s;
	char raw[256];
	size_t len, i;
	int sv[2], fds[2], early = 0, ret = 0, sent = 0;

	make_pair(sv);
	ustcomm_receiver_init(&rx);
	fds[0] = memfd_create("shm", MFD_CLOEXEC);
	fds[1] = eventfd(0, EFD_CLOEXEC);
	fill_stream(&s);
	len = build_raw(raw, USTCOMM_MAGIC, USTCOMM_VERSION, USTCOMM_MSG_STREAM,
			sizeof(s), 2, &s, sizeof(s));
	for (i = 0; i < len; i++) {
		sent += send_raw(sv[0], raw + i, 1, fds, i == 0 ? 2 : 0) == 0;
		while (ustcomm_receiver_read(&rx, sv[1]) > 0)
			;
		ret = ustcomm_receiver_next(&rx, &msg);
		if (ret != 0 && i != len - 1)
			early = 1;
	}
	tap_ok(sent == (int)len && !early, "no message before the last of %zu bytes", len);
	tap_ok(ret == 1 && msg.nr_fds == 2 && same_file(msg.fds[0], fds[0]) &&
	       same_file(msg.fds[1], fds[1]) && ustcomm_check_stream(&msg, &stream) == 0,
	       "byte-by-byte STREAM complete with both descriptors");
	ustcomm_msg_release(&msg);
	ustcomm_receiver_fini(&rx);
	close(sv[0]);
	close(sv[1]);
	close(fds[0]);
	close(fds[1]);
}

/* A message larger than the socket buffer: the sender must loop. */
static void test_large(void)
{
	struct ustcomm_receiver rx;
	struct ustcomm_msg msg = { 0 };
	size_t size = 900000, i;
	char *big = malloc(size);
	int sv[2], ret, status = -1, same;
	pid_t pid;

	for (i = 0; i < size; i++)
		big[i] = (char)('a' + i % 26);
	make_pair(sv);
	ustcomm_receiver_init(&rx);
	pid = fork();
	if (pid == 0)
		_exit(ustcomm_send_msg(sv[0], USTCOMM_MSG_METADATA, big, (uint32_t)size,
				       NULL, 0) ? 1 : 0);
	ret = pump(&rx, sv[1], &msg);
	waitpid(pid, &status, 0);
	same = ret == 1 && msg.payload_len == size && !memcmp(msg.payload, big, size);
	tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0 && same,
	       "%zu-byte METADATA sent in pieces and received whole", size);
	ustcomm_msg_release(&msg);
	ustcomm_receiver_fini(&rx);
	close(sv[0]);
	close(sv[1]);
	free(big);
}

static void test_send_errors(void)
{
	int sv[2], fds[3] = { 0, 1, 2 };
	char c = 0;

	make_pair(sv);
	tap_ok(ustcomm_send_msg(sv[0], USTCOMM_MSG_STREAM, &c, 1, fds, 3) == -EINVAL,
	       "send refuses 3 descriptors");
	tap_ok(ustcomm_send_msg(sv[0], USTCOMM_MSG_METADATA, &c, USTCOMM_MAX_PAYLOAD + 1,
				NULL, 0) == -EINVAL, "send refuses an oversize payload");
	close(sv[1]);
	tap_ok(ustcomm_send_msg(sv[0], USTCOMM_MSG_GOODBYE, NULL, 0, NULL, 0) == -EPIPE,
	       "send to a closed peer: -EPIPE, no SIGPIPE");
	close(sv[0]);
}

/*
 * Sends raw bytes (with nr_send_fds fresh descriptors) and returns what the
 * receiver makes of them: next()'s error, or the check_* result of a message.
 */
static int feed(const void *raw, size_t len, unsigned nr_send_fds, int check)
{
	struct ustcomm_receiver rx;
	struct ustcomm_msg msg = { 0 };
	const struct ustcomm_hello *hello;
	const struct ustcomm_stream *stream;
	int sv[2], fds[32], ret;
	unsigned i;

	make_pair(sv);
	ustcomm_receiver_init(&rx);
	for (i = 0; i < nr_send_fds; i++)
		fds[i] = eventfd(0, EFD_CLOEXEC);
	send_raw(sv[0], raw, len, fds, nr_send_fds);
	for (i = 0; i < nr_send_fds; i++)
		close(fds[i]);
	ret = pump(&rx, sv[1], &msg);
	if (ret == 1) {
		if (check == USTCOMM_MSG_HELLO)
			ret = ustcomm_check_hello(&msg, &hello);
		else if (check == USTCOMM_MSG_STREAM)
			ret = ustcomm_check_stream(&msg, &stream);
		ustcomm_msg_release(&msg);
	}
	ustcomm_receiver_fini(&rx);
	close(sv[0]);
	close(sv[1]);
	return ret;
}

static void test_malformed(void)
{
	struct ustcomm_hello h;
	struct ustcomm_stream s;
	char raw[8192], longer[sizeof(h) + 1] = { 0 };
	size_t len;
	int base = count_fds();

	fill_hello(&h);
	len = build_raw(raw, 0xdeadbeef, USTCOMM_VERSION, USTCOMM_MSG_HELLO, sizeof(h), 0, &h, sizeof(h));
	tap_ok(feed(raw, len, 0, 0) == -EPROTO, "bad magic: -EPROTO");
	len = build_raw(raw, USTCOMM_MAGIC, USTCOMM_VERSION + 1, USTCOMM_MSG_HELLO, sizeof(h), 0, &h, sizeof(h));
	tap_ok(feed(raw, len, 0, 0) == -EPROTO, "bad version: -EPROTO");
	len = build_raw(raw, USTCOMM_MAGIC, USTCOMM_VERSION, 99, 0, 0, NULL, 0);
	tap_ok(feed(raw, len, 0, 0) == -EPROTO, "unknown type: -EPROTO");
	len = build_raw(raw, USTCOMM_MAGIC, USTCOMM_VERSION, USTCOMM_MSG_METADATA,
			USTCOMM_MAX_PAYLOAD + 1, 0, NULL, 0);
	tap_ok(feed(raw, len, 0, 0) == -EMSGSIZE, "oversize payload_len: -EMSGSIZE");
	len = build_raw(raw, USTCOMM_MAGIC, USTCOMM_VERSION, USTCOMM_MSG_METADATA,
			UINT32_MAX, 0, NULL, 0);
	tap_ok(feed(raw, len, 0, 0) == -EMSGSIZE, "payload_len 2^32-1: -EMSGSIZE");

	fill_stream(&s);
	len = build_raw(raw, USTCOMM_MAGIC, USTCOMM_VERSION, USTCOMM_MSG_STREAM, sizeof(s), 2, &s, sizeof(s));
	tap_ok(feed(raw, len, 0, 0) == -EPROTO, "STREAM announcing 2 fds without any: -EPROTO");
	len = build_raw(raw, USTCOMM_MAGIC, USTCOMM_VERSION, USTCOMM_MSG_STREAM, sizeof(s), 0, &s, sizeof(s));
	tap_ok(feed(raw, len, 0, 0) == -EPROTO, "STREAM announcing 0 fds: -EPROTO");
	len = build_raw(raw, USTCOMM_MAGIC, USTCOMM_VERSION, USTCOMM_MSG_STREAM, sizeof(s), 3, &s, sizeof(s));
	tap_ok(feed(raw, len, 3, 0) == -EPROTO, "STREAM with 3 fds: -EPROTO");
	len = build_raw(raw, USTCOMM_MAGIC, USTCOMM_VERSION, USTCOMM_MSG_HELLO, sizeof(h), 2, &h, sizeof(h));
	tap_ok(feed(raw, len, 2, 0) == -EPROTO, "HELLO with fds: -EPROTO");
	tap_ok(feed(raw, len, 20, 0) == -EPROTO, "20 fds in one message: -EPROTO");

	len = build_raw(raw, USTCOMM_MAGIC, USTCOMM_VERSION, USTCOMM_MSG_HELLO, sizeof(h) - 1, 0, &h, sizeof(h) - 1);
	tap_ok(feed(raw, len, 0, USTCOMM_MSG_HELLO) == -EPROTO, "HELLO one byte short: -EPROTO");
	len = build_raw(raw, USTCOMM_MAGIC, USTCOMM_VERSION, USTCOMM_MSG_HELLO, sizeof(h) + 1, 0,
			memcpy(longer, &h, sizeof(h)), sizeof(longer));
	tap_ok(feed(raw, len, 0, USTCOMM_MSG_HELLO) == -EPROTO, "HELLO one byte long: -EPROTO");
	memset(h.procname, 'a', sizeof(h.procname));
	len = build_raw(raw, USTCOMM_MAGIC, USTCOMM_VERSION, USTCOMM_MSG_HELLO, sizeof(h), 0, &h, sizeof(h));
	tap_ok(feed(raw, len, 0, USTCOMM_MSG_HELLO) == -EPROTO, "non-terminated procname: -EPROTO");
	fill_hello(&h);
	h.trace_name[0] = '\0';
	len = build_raw(raw, USTCOMM_MAGIC, USTCOMM_VERSION, USTCOMM_MSG_HELLO, sizeof(h), 0, &h, sizeof(h));
	tap_ok(feed(raw, len, 0, USTCOMM_MSG_HELLO) == -EPROTO, "empty trace name: -EPROTO");
	fill_hello(&h);
	strcpy(h.procname, "../x");
	len = build_raw(raw, USTCOMM_MAGIC, USTCOMM_VERSION, USTCOMM_MSG_HELLO, sizeof(h), 0, &h, sizeof(h));
	tap_ok(feed(raw, len, 0, USTCOMM_MSG_HELLO) == -EPROTO, "procname with '/': -EPROTO");
	fill_hello(&h);
	h.procname[1] = '\n';
	len = build_raw(raw, USTCOMM_MAGIC, USTCOMM_VERSION, USTCOMM_MSG_HELLO, sizeof(h), 0, &h, sizeof(h));
	tap_ok(feed(raw, len, 0, USTCOMM_MSG_HELLO) == -EPROTO, "procname with a control character: -EPROTO");
	fill_hello(&h);
	strcpy(h.output, "traces/here");
	len = build_raw(raw, USTCOMM_MAGIC, USTCOMM_VERSION, USTCOMM_MSG_HELLO, sizeof(h), 0, &h, sizeof(h));
	tap_ok(feed(raw, len, 0, USTCOMM_MSG_HELLO) == -EPROTO, "relative output directory: -EPROTO");
	strcpy(h.output, "net://127.0.0.1:0");
	len = build_raw(raw, USTCOMM_MAGIC, USTCOMM_VERSION, USTCOMM_MSG_HELLO, sizeof(h), 0, &h, sizeof(h));
	tap_ok(feed(raw, len, 0, USTCOMM_MSG_HELLO) == -EPROTO, "output URL with port 0: -EPROTO");
	memset(h.output, '/', sizeof(h.output));
	len = build_raw(raw, USTCOMM_MAGIC, USTCOMM_VERSION, USTCOMM_MSG_HELLO, sizeof(h), 0, &h, sizeof(h));
	tap_ok(feed(raw, len, 0, USTCOMM_MSG_HELLO) == -EPROTO, "non-terminated output: -EPROTO");
	fill_hello(&h);
	strcpy(h.output, "net://[::1]:6000:6001");
	len = build_raw(raw, USTCOMM_MAGIC, USTCOMM_VERSION, USTCOMM_MSG_HELLO, sizeof(h), 0, &h, sizeof(h));
	tap_ok(feed(raw, len, 0, USTCOMM_MSG_HELLO) == 0, "output URL with an IPv6 host and ports: valid");

	s.subbuf_size = 6000;
	len = build_raw(raw, USTCOMM_MAGIC, USTCOMM_VERSION, USTCOMM_MSG_STREAM, sizeof(s), 2, &s, sizeof(s));
	tap_ok(feed(raw, len, 2, USTCOMM_MSG_STREAM) == -EPROTO, "sub-buffer size not a power of two: -EPROTO");
	fill_stream(&s);
	s.subbuf_count = UST_SUBBUF_NUM_MAX * 2;
	len = build_raw(raw, USTCOMM_MAGIC, USTCOMM_VERSION, USTCOMM_MSG_STREAM, sizeof(s), 2, &s, sizeof(s));
	tap_ok(feed(raw, len, 2, USTCOMM_MSG_STREAM) == -EPROTO, "too many sub-buffers: -EPROTO");
	fill_stream(&s);
	memset(s.channel, 'c', sizeof(s.channel));
	len = build_raw(raw, USTCOMM_MAGIC, USTCOMM_VERSION, USTCOMM_MSG_STREAM, sizeof(s), 2, &s, sizeof(s));
	tap_ok(feed(raw, len, 2, USTCOMM_MSG_STREAM) == -EPROTO, "non-terminated channel: -EPROTO");
	fill_stream(&s);
	len = build_raw(raw, USTCOMM_MAGIC, USTCOMM_VERSION, USTCOMM_MSG_STREAM, sizeof(s), 2, &s, sizeof(s));
	tap_ok(feed(raw, len, 2, USTCOMM_MSG_STREAM) == 0, "the same STREAM, well-formed, passes");

	tap_ok(count_fds() == base, "no descriptor leaked by malformed input (%d, %d)",
	       count_fds(), base);
}

/* Descriptors sent faster than messages are popped: the 17th is refused. */
static void test_fd_flood(void)
{
	struct ustcomm_receiver rx;
	struct ustcomm_stream s;
	char raw[256];
	size_t len;
	int sv[2], fds[2], i, base = count_fds();
	ssize_t n = 0;

	make_pair(sv);
	ustcomm_receiver_init(&rx);
	fill_stream(&s);
	len = build_raw(raw, USTCOMM_MAGIC, USTCOMM_VERSION, USTCOMM_MSG_STREAM, sizeof(s), 2, &s, sizeof(s));
	fds[0] = eventfd(0, EFD_CLOEXEC);
	fds[1] = eventfd(0, EFD_CLOEXEC);
	for (i = 0; i < 9; i++)
		send_raw(sv[0], raw, len, fds, 2);
	close(fds[0]);
	close(fds[1]);
	for (i = 0; i < 9; i++) {
		n = ustcomm_receiver_read(&rx, sv[1]);
		if (n < 0)
			break;
	}
	tap_ok(n == -EPROTO && rx.nr_fds == 16, "more than 16 pending descriptors: -EPROTO (%zd, %u)",
	       n, rx.nr_fds);
	ustcomm_receiver_fini(&rx);
	close(sv[0]);
	close(sv[1]);
	tap_ok(count_fds() == base, "flood leaks no descriptor");
}

int main(void)
{
	int base;

	signal(SIGPIPE, SIG_DFL);
	tap_plan(NR_TESTS);
	base = count_fds();
	test_messages();
	test_dribble();
	test_stream_flags();
	test_large();
	test_send_errors();
	test_malformed();
	test_fd_flood();
	tap_ok(count_fds() == base, "as many descriptors open at the end as at the start");
	return tap_done();
}
