/* SPDX-License-Identifier: LGPL-2.1-only */
/* The trigger channel to ustd (trigger_notify.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "libust/trace_internal.h"
#include "libust/trigger_notify.h"
#include "libustcomm/format.h"
#include "libustcomm/protocol.h"

/*
 * Writers load it without a lock; it changes only by dup3() onto the same
 * number, which swaps the open file atomically, so a writer never sends on
 * a descriptor that is not a trigger socket. -1 before the first channel.
 */
static int channel_fd = -1;

int ust_trigger_channel_open(void)
{
	int sv[2], ret, fd = __atomic_load_n(&channel_fd, __ATOMIC_RELAXED);

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) < 0)
		return ust_trace_fail(-errno, "cannot create the trigger channel: %s",
				      ustcomm_strerror(errno));
	ret = ust_trace_send_msg(USTCOMM_MSG_TRIGGER_CHANNEL, NULL, 0, &sv[1], 1);
	close(sv[1]);
	if (ret < 0) {
		close(sv[0]);
		return ret;
	}
	if (fd < 0) {
		/* Release: pairs with the acquire load in ust_trigger_notify(). */
		__atomic_store_n(&channel_fd, sv[0], __ATOMIC_RELEASE);
		return 0;
	}
	if (dup3(sv[0], fd, O_CLOEXEC) < 0)
		ret = ust_trace_fail(-errno, "cannot replace the trigger channel: %s",
				     ustcomm_strerror(errno));
	close(sv[0]);
	return ret;
}

int ust_trigger_notify(uint32_t id, uint32_t at_most, uint64_t fired, uint64_t limited,
		       const char *dir)
{
	struct ustcomm_trigger_fired body = {
		.id = id, .at_most = at_most, .fired = fired, .limited = limited,
	};
	size_t dir_len = strlen(dir) + 1;
	struct ustcomm_msg_header hdr =
		ustcomm_msg_header_make(USTCOMM_MSG_TRIGGER_FIRED,
					(uint32_t)(sizeof(body) + dir_len), 0);
	struct iovec iov[3] = {
		{ &hdr, sizeof(hdr) }, { &body, sizeof(body) }, { (void *)dir, dir_len },
	};
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 3 };
	/* Acquire: pairs with the release store in ust_trigger_channel_open(). */
	int fd = __atomic_load_n(&channel_fd, __ATOMIC_ACQUIRE);

	int saved_errno = errno, ret = 0;

	if (fd < 0)
		return -ENOTCONN;
	/* The interrupted code (a signal handler may trace) keeps its errno. */
	if (sendmsg(fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		ret = -errno;
	errno = saved_errno;
	return ret;
}
