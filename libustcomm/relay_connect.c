/* SPDX-License-Identifier: LGPL-2.1-only */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include "libustcomm/relay_connect.h"

static int tcp_wait_connect(int fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	socklen_t len = sizeof(int);
	int err = 0, n;

	do {
		n = poll(&pfd, 1, timeout_ms);
	} while (n < 0 && errno == EINTR);
	if (n == 0)
		return -ETIMEDOUT;
	if (n < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
		return -errno;
	return -err;
}

static int tcp_connect_one(const struct addrinfo *ai, int timeout_ms)
{
	struct timeval tv = { .tv_sec = timeout_ms / 1000,
			      .tv_usec = (timeout_ms % 1000) * 1000 };
	int fd, flags, one = 1, ret;

	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    ai->ai_protocol);
	if (fd < 0)
		return -errno;
	ret = connect(fd, ai->ai_addr, ai->ai_addrlen) < 0 ? -errno : 0;
	if (ret == -EINPROGRESS)
		ret = tcp_wait_connect(fd, timeout_ms);
	flags = fcntl(fd, F_GETFL);
	if (ret == 0 && (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0 ||
			 setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0 ||
			 setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
			 setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0))
		ret = -errno;
	if (ret < 0) {
		close(fd);
		return ret;
	}
	return fd;
}

int ustcomm_relay_connect_port(const struct ustcomm_relay_url *url, const char *text,
			       uint16_t port, const char *which, int timeout_ms, char *err,
			       size_t err_size)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_ADDRCONFIG };
	struct addrinfo *res, *ai;
	char serv[8];
	int fd = -ENOENT, gai;

	snprintf(serv, sizeof(serv), "%u", port);
	gai = getaddrinfo(url->host, serv, &hints, &res);
	if (gai) {
		snprintf(err, err_size, "cannot reach lttng-relayd at %s: host %s: %s", text,
			 url->host, gai == EAI_SYSTEM ? strerror(errno) : gai_strerror(gai));
		return -EHOSTUNREACH;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		fd = tcp_connect_one(ai, timeout_ms);
		if (fd >= 0)
			break;
	}
	freeaddrinfo(res);
	if (fd < 0)
		snprintf(err, err_size,
			 "cannot reach lttng-relayd at %s: %s port %u: %s (is lttng-relayd running there, listening on these ports?)",
			 text, which, port, strerror(-fd));
	return fd;
}
