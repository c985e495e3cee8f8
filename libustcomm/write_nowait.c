/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * How each kind of descriptor is written without waiting (write_nowait.h).
 *
 * O_NONBLOCK cannot be set for the write: it belongs to the open file
 * description, which the program, its parent and its siblings share, and
 * their own writes would fail with EAGAIN while it is set. So:
 * - sockets (journald's stream for a service's stderr): send() with
 *   MSG_DONTWAIT and MSG_NOSIGNAL, both per call;
 * - regular files, /dev/null and other devices that are not terminals do
 *   not wait for a reader: write();
 * - pipes and terminals: pwritev2() with RWF_NOWAIT, non-blocking for this
 *   call alone where the kernel supports it for the file (pipes on recent
 *   Linux). Where it does not (EOPNOTSUPP: terminals, older kernels), the
 *   same pipe or terminal opened again through /proc/self/fd with
 *   O_NONBLOCK: a description of our own, closed at once so that it never
 *   keeps a pipe open after the program closed its end. Opening a pipe
 *   that nobody reads fails with ENXIO, before any write. Without /proc
 *   (or without the right to open it), poll() for room, then write: the
 *   one window left is another writer filling the pipe between the two.
 * SIGPIPE, raised by a write to a pipe whose reader left, is blocked in
 * this thread around the write. The kernel sends it to the writing thread,
 * so no other thread takes it meanwhile; when our write failed with EPIPE
 * and the signal was not pending before, sigtimedwait() consumes it before
 * the old mask returns. One pending before belongs to the program: it
 * stays, and ours merges into it.
 *
 * Async-signal-safe: fstat, isatty (ioctl), send, write, pwritev2, open,
 * close, poll, pthread_sigmask (rt_sigprocmask), sigpending and
 * sigtimedwait are system calls that keep no state in user space.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "libustcomm/format.h"
#include "libustcomm/write_nowait.h"

static ssize_t result(ssize_t n)
{
	return n < 0 ? -errno : n;
}

/* Through a description of our own: -ENOSYS when /proc cannot give one. */
static ssize_t write_reopened(int fd, const void *buf, size_t len)
{
	char path[32];
	ssize_t n;
	int own;

	ustcomm_format(path, sizeof(path), "/proc/self/fd/%d", fd);
	own = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (own < 0)
		return errno == ENXIO ? -EPIPE : -ENOSYS;
	n = result(write(own, buf, len));
	close(own);
	return n;
}

static ssize_t write_polled(int fd, const void *buf, size_t len)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };

	if (poll(&pfd, 1, 0) < 0)
		return -errno;
	if (pfd.revents & POLLERR)
		return -EPIPE;
	if (!(pfd.revents & POLLOUT))
		return -EAGAIN;
	return result(write(fd, buf, len));
}

ssize_t ustcomm_write_nowait(int fd, const void *buf, size_t len)
{
	static const struct timespec no_wait;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	sigset_t pipe_set, old, pending;
	struct stat st;
	int was_pending;
	ssize_t n;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISSOCK(st.st_mode))
		return result(send(fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL));
	if (!S_ISFIFO(st.st_mode) && !(S_ISCHR(st.st_mode) && isatty(fd)))
		return result(write(fd, buf, len));
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	sigpending(&pending);
	was_pending = sigismember(&pending, SIGPIPE);
	n = result(pwritev2(fd, &iov, 1, -1, RWF_NOWAIT));
	if (n == -EOPNOTSUPP || n == -EINVAL || n == -ENOSYS)
		n = write_reopened(fd, buf, len);
	if (n == -ENOSYS)
		n = write_polled(fd, buf, len);
	if (n == -EPIPE && !was_pending)
		sigtimedwait(&pipe_set, NULL, &no_wait);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return n;
}
