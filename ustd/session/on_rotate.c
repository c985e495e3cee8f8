/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>
#include "libustcomm/log.h"
#include "ustd/session/on_rotate.h"
#include "ustd/session/session.h"

extern char **environ;

struct hook {
	struct ustd_session_watch end_watch;	/* the pidfd */
	struct ustd_session_watch timer_watch;
	int epfd, pidfd, timer_fd;
	pid_t pid;
	uint64_t timeout_us;
	bool killed;
	char session[USTCOMM_SESSION_NAME_MAX];
	char *chunk;
	struct hook *next;
};

/* Running, and ended but still named by the epoll batch under way (its
 * timer may have expired with the end): freed by ustd_on_rotate_reap(). */
static struct hook *hooks, *ended;

/* Out of the loop; freed after the batch. */
static void hook_end(struct hook *h)
{
	struct hook **link;

	for (link = &hooks; *link; link = &(*link)->next) {
		if (*link == h) {
			*link = h->next;
			break;
		}
	}
	/* Out of the set before the close: a command being started holds a
	 * copy of every descriptor until its exec. */
	if (h->pidfd >= 0) {
		epoll_ctl(h->epfd, EPOLL_CTL_DEL, h->pidfd, NULL);
		close(h->pidfd);
	}
	if (h->timer_fd >= 0) {
		epoll_ctl(h->epfd, EPOLL_CTL_DEL, h->timer_fd, NULL);
		close(h->timer_fd);
	}
	h->pidfd = h->timer_fd = -1;
	h->pid = 0;
	h->next = ended;
	ended = h;
}

static void hook_on_end(struct ustd_session_watch *w, uint32_t events)
{
	struct hook *h = (struct hook *)((char *)w - offsetof(struct hook, end_watch));
	int status = 0;
	pid_t pid;

	(void)events;
	if (!h->pid)
		return;
	pid = waitpid(h->pid, &status, WNOHANG);
	if (pid == 0 || (pid < 0 && errno == EINTR))
		return;
	if (pid < 0)
		ustcomm_err("session %s: the --on-rotate command for %s ended, how is unknown: %s",
			    h->session, h->chunk, strerror(errno));
	else if (h->killed)
		ustcomm_err("session %s: the --on-rotate command for %s ran past its bound of %llu ms and was killed (--on-rotate-timeout sets the bound)",
			    h->session, h->chunk, (unsigned long long)(h->timeout_us / 1000));
	else if (WIFEXITED(status) && WEXITSTATUS(status))
		ustcomm_err("session %s: the --on-rotate command for %s failed: exit status %d%s",
			    h->session, h->chunk, WEXITSTATUS(status),
			    WEXITSTATUS(status) == 127 ? " (command not found?)" : "");
	else if (WIFSIGNALED(status))
		ustcomm_err("session %s: the --on-rotate command for %s was killed by signal %d",
			    h->session, h->chunk, WTERMSIG(status));
	hook_end(h);
}

static void hook_on_timer(struct ustd_session_watch *w, uint32_t events)
{
	struct hook *h = (struct hook *)((char *)w - offsetof(struct hook, timer_watch));
	uint64_t ticks;

	(void)events;
	if (!h->pid || read(h->timer_fd, &ticks, sizeof(ticks)) < 0)
		return;
	/* The whole group: what the shell started too. Reaped on the pidfd. */
	h->killed = true;
	kill(-h->pid, SIGKILL);
}

static int hook_spawn(struct hook *h, const char *cmd)
{
	char *script = NULL, *argv[6];
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, ignored;
	int ret;

	if (asprintf(&script, "%s \"$1\"", cmd) < 0)
		return -ENOMEM;
	argv[0] = "sh";
	argv[1] = "-c";
	argv[2] = script;
	argv[3] = "ustd-on-rotate";
	argv[4] = h->chunk;
	argv[5] = NULL;
	sigemptyset(&none);
	/* What ustd ignores stays ignored across exec: not for the command. */
	sigemptyset(&ignored);
	sigaddset(&ignored, SIGPIPE);
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	/* ustd blocks the signals its signalfd reads: the command must not
	 * inherit that, and gets a group of its own, killed whole. */
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
					POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &ignored);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	ret = -posix_spawn(&h->pid, "/bin/sh", &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	free(script);
	return ret;
}

static int hook_watch(struct hook *h)
{
	struct itimerspec its = { .it_value = { (time_t)(h->timeout_us / 1000000),
						(long)(h->timeout_us % 1000000) * 1000 } };
	struct epoll_event ev = { .events = EPOLLIN };

#ifdef SYS_pidfd_open
	h->pidfd = (int)syscall(SYS_pidfd_open, h->pid, 0);
#else
	errno = ENOSYS;
#endif
	if (h->pidfd < 0)
		return -errno;
	h->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (h->timer_fd < 0 || timerfd_settime(h->timer_fd, 0, &its, NULL) < 0)
		return -errno;
	ev.data.ptr = &h->end_watch;
	if (epoll_ctl(h->epfd, EPOLL_CTL_ADD, h->pidfd, &ev) < 0)
		return -errno;
	ev.data.ptr = &h->timer_watch;
	if (epoll_ctl(h->epfd, EPOLL_CTL_ADD, h->timer_fd, &ev) < 0)
		return -errno;
	return 0;
}

int ustd_on_rotate_run(int epfd, const char *session, const char *cmd, const char *chunk,
		       uint64_t timeout_us)
{
	struct hook *h = calloc(1, sizeof(*h));
	int ret = -ENOMEM, status;

	if (!h)
		goto end;
	h->end_watch.watch.kind = h->timer_watch.watch.kind = USTD_WATCH_SESSION;
	h->end_watch.fn = hook_on_end;
	h->timer_watch.fn = hook_on_timer;
	h->epfd = epfd;
	h->pidfd = h->timer_fd = -1;
	h->timeout_us = timeout_us;
	snprintf(h->session, sizeof(h->session), "%s", session);
	h->chunk = strdup(chunk);
	h->next = hooks;
	hooks = h;
	if (!h->chunk)
		goto end;
	ret = hook_spawn(h, cmd);
	if (ret < 0) {
		h->pid = 0;
		goto end;
	}
	ret = hook_watch(h);
	if (ret < 0) {
		/* Without its end in the loop it would be waited for: it goes. */
		kill(-h->pid, SIGKILL);
		waitpid(h->pid, &status, 0);
	}
end:
	if (ret < 0) {
		ustcomm_err("session %s: cannot run the --on-rotate command for %s: %s",
			    session, chunk, strerror(-ret));
		if (h)
			hook_end(h);
	}
	return ret;
}

void ustd_on_rotate_reap(void)
{
	struct hook *h;

	while ((h = ended)) {
		ended = h->next;
		free(h->chunk);
		free(h);
	}
}

void ustd_on_rotate_fini(void)
{
	while (hooks)
		hook_end(hooks);
	ustd_on_rotate_reap();
}
