/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ustd, the consumer daemon: accepts applications on its UNIX socket, maps
 * the stream buffers they send and copies every finished packet to disk.
 * One thread, one epoll loop; it sleeps only in epoll_wait().
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <popt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "libustcomm/ctl_protocol.h"
#include "libustcomm/log.h"
#include "libustcomm/rundir.h"
#include "ustd/app.h"
#include "ustd/trace_dir.h"

#define USTD_MAX_EVENTS	64
/* How long the applications asked to reconnect have to answer. */
#define USTD_ADOPT_WAIT_MS	5000
#define USTD_ADOPT_POLL_MS	50
#define USTD_ADOPT_REPLY_MAX	1024

/* A control connection to an application asked to report to us again. */
struct ustd_adopt {
	int fd;
	pid_t pid;
	size_t len;
	char reply[USTD_ADOPT_REPLY_MAX];
};

struct ustd {
	struct ustd_ctx ctx;
	const char *sock_path;
	int listen_fd;
	int signal_fd;
	/* Kept open so that, out of descriptors, ustd can still accept and
	 * close a connection instead of spinning on a readable listener. */
	int spare_fd;
	struct ustd_watch listen_watch;
	struct ustd_watch signal_watch;
	struct ustd_app *apps;
	bool quit;
	struct ustd_adopt *adopt;	/* waiting for an answer */
	size_t nr_adopt;
	struct timespec adopt_deadline;
};

/* Every stream costs four descriptors (memfd, eventfd, file, and the
 * application's socket shared among its streams): take all we may. */
static void ustd_raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* Refuses to take the socket of a ustd that is alive; removes a stale one. */
static int ustd_claim_path(const char *path)
{
	struct stat st;
	int fd, ret = 0;

	if (lstat(path, &st) < 0) {
		if (errno != ENOENT) {
			ret = -errno;
			ustcomm_err("cannot use socket path %s: %s", path, strerror(errno));
		}
		goto end;
	}
	if (!S_ISSOCK(st.st_mode)) {
		ustcomm_err("%s exists and is not a socket: remove it or choose another path with --socket",
			    path);
		ret = -EEXIST;
		goto end;
	}
	fd = ustcomm_connect(path);
	if (fd >= 0) {
		close(fd);
		ustcomm_err("another ustd is already serving %s", path);
		ret = -EADDRINUSE;
	} else if (fd == -ECONNREFUSED) {
		ustcomm_dbg("removing the stale socket %s", path);
		if (unlink(path) < 0 && errno != ENOENT) {
			ret = -errno;
			ustcomm_err("cannot remove the stale socket %s: %s", path, strerror(errno));
		}
	} else {
		ret = fd;
		ustcomm_err("cannot check whether a ustd serves %s: %s", path, strerror(-fd));
	}
end:
	return ret;
}

static int ustd_listen(struct ustd *d)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	mode_t old_umask;
	int ret;

	if (strlen(d->sock_path) >= sizeof(addr.sun_path)) {
		ustcomm_err("socket path %s is too long (at most %zu bytes)", d->sock_path,
			    sizeof(addr.sun_path) - 1);
		return -ENAMETOOLONG;
	}
	strcpy(addr.sun_path, d->sock_path);
	ret = ustd_claim_path(d->sock_path);
	if (ret < 0)
		return ret;
	d->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (d->listen_fd < 0) {
		ret = -errno;
		ustcomm_err("cannot create a socket: %s", strerror(errno));
		return ret;
	}
	/* The socket is born 0600: no window in which others may connect. */
	old_umask = umask(0077);
	ret = bind(d->listen_fd, (struct sockaddr *)&addr, sizeof(addr));
	umask(old_umask);
	if (ret < 0) {
		ret = -errno;
		ustcomm_err("cannot bind %s: %s", d->sock_path, strerror(errno));
		return ret;
	}
	if (chmod(d->sock_path, 0600) < 0 || listen(d->listen_fd, SOMAXCONN) < 0) {
		ret = -errno;
		ustcomm_err("cannot listen on %s: %s", d->sock_path, strerror(errno));
		unlink(d->sock_path);
		return ret;
	}
	return 0;
}

static int ustd_watch_fd(struct ustd *d, int fd, struct ustd_watch *w)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = w };

	return epoll_ctl(d->ctx.epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

static int ustd_setup_signals(struct ustd *d)
{
	sigset_t mask;

	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
		return -errno;
	d->signal_fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	return d->signal_fd < 0 ? -errno : 0;
}

static void ustd_accept_one(struct ustd *d, int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct ustd_app *app;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
		ustcomm_err("cannot identify a connecting process: %s; connection refused",
			    strerror(errno));
		close(fd);
		return;
	}
	if (cred.uid != getuid() && cred.uid != 0) {
		ustcomm_err("refused connection from pid %d uid %u", (int)cred.pid,
			    (unsigned)cred.uid);
		close(fd);
		return;
	}
	app = ustd_app_new(&d->ctx, fd, cred.pid);
	if (!app)
		return;
	app->next = d->apps;
	d->apps = app;
	ustcomm_dbg("connection from pid %d", (int)cred.pid);
}

static void ustd_accept(struct ustd *d)
{
	int fd;

	for (;;) {
		fd = accept4(d->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd >= 0) {
			ustd_accept_one(d, fd);
			continue;
		}
		if (errno == EINTR || errno == ECONNABORTED)
			continue;
		if ((errno == EMFILE || errno == ENFILE) && d->spare_fd >= 0) {
			ustcomm_err("out of file descriptors: a connection is refused");
			close(d->spare_fd);
			fd = accept4(d->listen_fd, NULL, NULL, SOCK_CLOEXEC);
			if (fd >= 0)
				close(fd);
			d->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
			continue;
		}
		if (errno != EAGAIN)
			ustcomm_err("cannot accept a connection: %s", strerror(errno));
		return;
	}
}

static void ustd_on_signal(struct ustd *d)
{
	struct signalfd_siginfo si;

	while (read(d->signal_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		ustcomm_dbg("signal %u: finishing", si.ssi_signo);
		d->quit = true;
	}
}

/* Frees the applications that ended during the last epoll batch. */
static void ustd_reap(struct ustd *d)
{
	struct ustd_app **link = &d->apps, *app;

	while ((app = *link)) {
		if (app->closed) {
			*link = app->next;
			ustd_app_free(app);
		} else {
			link = &app->next;
		}
	}
}

/*
 * Applications traced before we started (a ustd that died, restarted on
 * the same socket) lost their consumer: each control socket of our user in
 * <rundir>/apps is asked to reconnect here (USTCOMM_CTL_RECONNECT); the
 * application then describes its trace again and hands over its buffers,
 * which we continue from where the last consumer stopped. One that is
 * connected to a live ustd declines. Never waits: the connection and the
 * request are non-blocking, the answers are read from the main loop
 * (ustd_adopt_poll), and an application that does not answer in time is
 * forgotten; the applications connect back while the loop runs.
 */
static void ustd_adopt_ask(struct ustd *d, const char *path, pid_t pid)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct ustcomm_ctl_header hdr;
	size_t plen = strlen(d->sock_path) + 1;
	char req[sizeof(hdr) + PATH_MAX];
	struct ustd_adopt *bigger;
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	int fd;

	if (strlen(path) >= sizeof(addr.sun_path) || plen > PATH_MAX)
		return;
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	/* A full backlog (EAGAIN) means a stuck application: skipped. */
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) < 0 ||
	    cred.uid != getuid())
		goto drop;
	ustcomm_ctl_header_init(&hdr, USTCOMM_CTL_RECONNECT, 0, 1, (uint32_t)plen);
	memcpy(req, &hdr, sizeof(hdr));
	memcpy(req + sizeof(hdr), d->sock_path, plen);
	if (send(fd, req, sizeof(hdr) + plen, MSG_DONTWAIT | MSG_NOSIGNAL) !=
	    (ssize_t)(sizeof(hdr) + plen))
		goto drop;
	bigger = realloc(d->adopt, (d->nr_adopt + 1) * sizeof(*d->adopt));
	if (!bigger)
		goto drop;
	d->adopt = bigger;
	d->adopt[d->nr_adopt].fd = fd;
	d->adopt[d->nr_adopt].pid = pid;
	d->adopt[d->nr_adopt].len = 0;
	d->nr_adopt++;
	return;
drop:
	close(fd);
}

static void ustd_adopt_scan(struct ustd *d)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *dp;
	char *end;
	long pid;

	if (ustcomm_apps_dir(dir, sizeof(dir)) < 0)
		return;
	dp = opendir(dir);
	if (!dp)
		return;
	while ((de = readdir(dp))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0 || pid > INT_MAX ||
		    snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path) ||
		    lstat(path, &st) < 0 || !S_ISSOCK(st.st_mode) || st.st_uid != getuid())
			continue;
		ustd_adopt_ask(d, path, (pid_t)pid);
	}
	closedir(dp);
	clock_gettime(CLOCK_MONOTONIC, &d->adopt_deadline);
	d->adopt_deadline.tv_sec += USTD_ADOPT_WAIT_MS / 1000;
}

/* 1 when the connection is done with: answered, gone, or malformed. */
static int ustd_adopt_read(struct ustd *d, struct ustd_adopt *a)
{
	struct ustcomm_ctl_msg msg;
	const char *pos = NULL, *why;
	ssize_t n, used;

	n = recv(a->fd, a->reply + a->len, sizeof(a->reply) - a->len, MSG_DONTWAIT);
	if (n < 0)
		return errno != EAGAIN && errno != EINTR;
	if (n == 0)
		return 1;
	a->len += (size_t)n;
	used = ustcomm_ctl_decode(a->reply, a->len, sizeof(a->reply), &msg);
	if (used == 0)
		return a->len == sizeof(a->reply);
	if (used < 0)
		return 1;
	why = ustcomm_ctl_next(&msg, &pos);
	if (msg.status == 0) {
		if (d->ctx.verbose)
			fprintf(stderr, "ustd: pid %d answered the reconnect request\n", (int)a->pid);
	} else {
		ustcomm_dbg("pid %d does not report here: %s", (int)a->pid,
			    why ? why : strerror(-msg.status));
	}
	return 1;
}

static void ustd_adopt_poll(struct ustd *d)
{
	struct timespec now;
	size_t i = 0;
	int expired;

	clock_gettime(CLOCK_MONOTONIC, &now);
	expired = now.tv_sec > d->adopt_deadline.tv_sec ||
		  (now.tv_sec == d->adopt_deadline.tv_sec &&
		   now.tv_nsec >= d->adopt_deadline.tv_nsec);
	while (i < d->nr_adopt) {
		if (expired || ustd_adopt_read(d, &d->adopt[i])) {
			close(d->adopt[i].fd);
			d->adopt[i] = d->adopt[--d->nr_adopt];
		} else {
			i++;
		}
	}
	if (!d->nr_adopt) {
		free(d->adopt);
		d->adopt = NULL;
	}
}

static int ustd_loop(struct ustd *d)
{
	struct epoll_event evs[USTD_MAX_EVENTS];
	struct ustd_watch *w;
	int i, n;

	while (!d->quit) {
		n = epoll_wait(d->ctx.epfd, evs, USTD_MAX_EVENTS,
			       d->nr_adopt ? USTD_ADOPT_POLL_MS : -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ustcomm_err("epoll_wait: %s", strerror(errno));
			return -errno;
		}
		for (i = 0; i < n; i++) {
			w = evs[i].data.ptr;
			switch (w->kind) {
			case USTD_WATCH_LISTEN:
				ustd_accept(d);
				break;
			case USTD_WATCH_SIGNAL:
				ustd_on_signal(d);
				break;
			case USTD_WATCH_APP:
				ustd_app_on_socket((struct ustd_app *)w);
				break;
			case USTD_WATCH_STREAM:
				ustd_app_on_stream((struct ustd_app_stream *)w);
				break;
			}
		}
		ustd_reap(d);
		if (d->nr_adopt)
			ustd_adopt_poll(d);
	}
	return 0;
}

/* Connections still in the backlog may be applications that already sent
 * everything and exited: take them too before writing the last packets. */
static void ustd_finish(struct ustd *d)
{
	struct ustd_app *app;

	ustd_accept(d);
	for (app = d->apps; app; app = app->next)
		ustd_app_finish(app);
	ustd_reap(d);
}

static int ustd_signal_ready(int fd)
{
	int ret = 0;

	if (write(fd, "R", 1) != 1) {
		ret = -errno;
		ustcomm_err("cannot write to --ready-fd %d: %s", fd, strerror(errno));
	}
	close(fd);
	return ret;
}

/* Applications reconnecting after a restart are told this path (RECONNECT):
 * it must not depend on ustd's working directory. */
static int ustd_absolute_path(const char *path, char *out, size_t size)
{
	char cwd[PATH_MAX];
	int n;

	if (path[0] == '/') {
		n = snprintf(out, size, "%s", path);
	} else {
		if (!getcwd(cwd, sizeof(cwd)))
			return -errno;
		n = snprintf(out, size, "%s/%s", cwd, path);
	}
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int main(int argc, const char **argv)
{
	char *output_arg = NULL, *sock_arg = NULL;
	char output[PATH_MAX], resolved[PATH_MAX], sock_path[PATH_MAX];
	int ready_fd = -1, verbose = 0, rc, ret;
	struct ustd d = {
		.ctx.epfd = -1, .listen_fd = -1, .signal_fd = -1, .spare_fd = -1,
		.listen_watch.kind = USTD_WATCH_LISTEN,
		.signal_watch.kind = USTD_WATCH_SIGNAL,
	};
	struct poptOption options[] = {
		{ "output", 'o', POPT_ARG_STRING, &output_arg, 0,
		  "write traces under DIR (default: $HOME/ust-traces)", "DIR" },
		{ "socket", 's', POPT_ARG_STRING, &sock_arg, 0,
		  "listen on PATH (default: $UST_DAEMON_SOCKET, else <run dir>/ustd)", "PATH" },
		{ "ready-fd", '\0', POPT_ARG_INT, &ready_fd, 0,
		  "once listening, write one byte to FD and close it", "FD" },
		{ "verbose", 'v', POPT_ARG_NONE, &verbose, 0,
		  "say which application is traced where", NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	poptContext pc;

	ustcomm_log_set_prefix("ustd");
	pc = poptGetContext("ustd", argc, argv, options, 0);
	rc = poptGetNextOpt(pc);
	if (rc < -1) {
		ustcomm_err("%s: %s (see ustd --help)", poptBadOption(pc, POPT_BADOPTION_NOALIAS),
			    poptStrerror(rc));
		ret = -EINVAL;
		goto end;
	}
	if (poptPeekArg(pc)) {
		ustcomm_err("unexpected argument %s (see ustd --help)", poptPeekArg(pc));
		ret = -EINVAL;
		goto end;
	}
	if (ready_fd >= 0 && fcntl(ready_fd, F_GETFD) < 0) {
		ustcomm_err("--ready-fd %d is not an open descriptor", ready_fd);
		ret = -EBADF;
		goto end;
	}
	d.ctx.verbose = verbose;

	if (output_arg) {
		snprintf(output, sizeof(output), "%s", output_arg);
	} else if (ustcomm_default_output_dir(output, sizeof(output)) < 0) {
		ustcomm_err("cannot tell the home directory: give the output directory with --output");
		ret = -ENOENT;
		goto end;
	}
	ret = ustd_mkdir_p(output);
	if (ret < 0) {
		ustcomm_err("cannot create the output directory %s: %s", output, strerror(-ret));
		goto end;
	}
	/* Absolute, so that every message names a path usable from anywhere. */
	if (!realpath(output, resolved)) {
		ret = -errno;
		ustcomm_err("cannot resolve the output directory %s: %s", output, strerror(errno));
		goto end;
	}
	d.ctx.output = resolved;

	if (sock_arg) {
		ret = ustd_absolute_path(sock_arg, sock_path, sizeof(sock_path));
		if (ret < 0) {
			ustcomm_err("cannot use socket path %s: %s", sock_arg, strerror(-ret));
			goto end;
		}
	} else {
		ret = ustcomm_daemon_socket_path(sock_path, sizeof(sock_path));
		if (ret < 0) {
			ustcomm_err("cannot find where to put the socket (%s): set UST_RUNDIR or give --socket",
				    strerror(-ret));
			goto end;
		}
	}
	d.sock_path = sock_path;

	ustd_raise_fd_limit();
	ret = ustd_setup_signals(&d);
	if (ret < 0) {
		ustcomm_err("cannot set up signal handling: %s", strerror(-ret));
		goto end;
	}
	d.ctx.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (d.ctx.epfd < 0) {
		ret = -errno;
		ustcomm_err("epoll_create1: %s", strerror(errno));
		goto end;
	}
	d.spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ret = ustd_listen(&d);
	if (ret < 0)
		goto end;
	ret = ustd_watch_fd(&d, d.listen_fd, &d.listen_watch);
	if (ret == 0)
		ret = ustd_watch_fd(&d, d.signal_fd, &d.signal_watch);
	if (ret < 0) {
		ustcomm_err("epoll_ctl: %s", strerror(-ret));
		goto unlink;
	}
	if (verbose)
		fprintf(stderr, "ustd: listening on %s, writing traces under %s\n", sock_path, resolved);
	ustd_adopt_scan(&d);
	if (ready_fd >= 0) {
		ret = ustd_signal_ready(ready_fd);
		if (ret < 0)
			goto unlink;
	}
	ret = ustd_loop(&d);
	ustd_finish(&d);
unlink:
	unlink(sock_path);
end:
	if (d.listen_fd >= 0)
		close(d.listen_fd);
	if (d.signal_fd >= 0)
		close(d.signal_fd);
	if (d.spare_fd >= 0)
		close(d.spare_fd);
	if (d.ctx.epfd >= 0)
		close(d.ctx.epfd);
	d.adopt_deadline.tv_sec = 0;
	if (d.nr_adopt)
		ustd_adopt_poll(&d);
	poptFreeContext(pc);
	free(output_arg);
	free(sock_arg);
	return ret < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
