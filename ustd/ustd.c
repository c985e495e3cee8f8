/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ustd, the consumer daemon: accepts applications on its UNIX socket, maps
 * the stream buffers they send and copies every finished packet to disk.
 * One thread, one epoll loop; it sleeps only in epoll_wait(). The top of
 * the pipeline: main() and its loop (here) and ustd's own scheduling
 * (sched.c) over ustd/session, ustd/conn, ustd/relay and ustd/output.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <popt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <ust/version.h>
#include "libustcomm/bufsize.h"
#include "libustcomm/log.h"
#include "libustcomm/relay_url.h"
#include "libustcomm/rundir.h"
#include "ustd/conn/accept.h"
#include "ustd/conn/adopt.h"
#include "ustd/conn/app.h"
#include "ustd/conn/uid_set.h"
#include "ustd/session/session_uid.h"
#include "ustd/conn/orphan.h"
#include "ustd/conn/handshake.h"
#include "ustd/conn/trigger.h"
#include "ustd/output/output.h"
#include "ustd/relay/relay.h"
#include "ustd/sched.h"
#include "ustd/session/session.h"
#include "ustd/session/session_ctl.h"
#include "ustd/session/session_rotate.h"
#include "ustd/output/trace_dir.h"
#include "ustd/conn/space_wait.h"
#include "ustd/output/writeback.h"
#include "ustd/output/direct_io.h"

#define USTD_MAX_EVENTS	64
#define USTD_LIVE_TIMER_DEFAULT_US	1000000ul

struct ustd {
	struct ustd_ctx ctx;
	const char *sock_path;
	int listen_fd;
	int signal_fd;
	struct ustd_accept accept;	/* of listen_fd */
	struct ustd_handshake handshake;
	struct ustd_watch signal_watch;
	struct ustd_watch live_watch;	/* of ctx.live_fd */
	struct ustd_app *apps;
	bool quit;
	struct ustd_adopt adopt;
	struct ustd_space_wait space_wait;
	struct ustd_write_marks marks;
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

static void ustd_on_signal(struct ustd *d)
{
	struct signalfd_siginfo si;

	while (read(d->signal_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		ustcomm_dbg("signal %u: finishing", si.ssi_signo);
		d->quit = true;
	}
}

static void ustd_on_live_timer(struct ustd *d)
{
	struct ustd_app *app;
	uint64_t ticks;

	const struct itimerspec stop = { { 0, 0 }, { 0, 0 } };
	bool streaming = false;

	if (read(d->ctx.live_fd, &ticks, sizeof(ticks)) < 0)
		return;
	for (app = d->apps; app; app = app->next) {
		ustd_app_on_live_tick(app);
		streaming |= app->relayed;
	}
	/* Nothing streamed: no wake-ups until app.c starts it again. */
	if (!streaming)
		timerfd_settime(d->ctx.live_fd, 0, &stop, NULL);
}

/*
 * --relay: checks that relayd answers before any application is accepted,
 * so that a wrong URL is an error at start, not a trace sent nowhere.
 */
static int ustd_relay_setup(struct ustd *d, const char *text, struct ustcomm_relay_url *url)
{
	struct ustd_relay probe;
	const char *why;
	int ret;

	ret = ustcomm_relay_url_parse(text, url, &why);
	if (ret < 0) {
		ustcomm_err("--relay %s: %s (expected net://HOST[:CONTROL_PORT[:DATA_PORT]])",
			    text, why);
		return ret;
	}
	ret = ustd_relay_connect(&probe, url, text);
	if (ret < 0) {
		ustcomm_err("%s", probe.err);
		return ret;
	}
	ustd_relay_close(&probe);
	d->ctx.relay = url;
	d->ctx.relay_text = text;
	return 0;
}

/*
 * What every relay session needs, whether --relay or a trace's own output
 * names the relayd: the host name sessions are filed under, and the live
 * timer, which app.c starts when a trace is streamed.
 */
static int ustd_live_setup(struct ustd *d, unsigned long live_timer_us)
{
	if (gethostname(d->ctx.hostname, sizeof(d->ctx.hostname)) < 0 || !d->ctx.hostname[0])
		snprintf(d->ctx.hostname, sizeof(d->ctx.hostname), "localhost");
	d->ctx.hostname[sizeof(d->ctx.hostname) - 1] = '\0';
	d->ctx.live_timer_us = (uint32_t)live_timer_us;
	d->ctx.live_fd = -1;
	if (!live_timer_us)
		return 0;
	d->ctx.live_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (d->ctx.live_fd < 0) {
		ustcomm_err("cannot set up the live timer: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

/* Frees the applications that ended during the last epoll batch; their
 * descriptors let connections be taken again if that had stopped. */
static void ustd_reap(struct ustd *d)
{
	struct ustd_app **link = &d->apps, *app;
	bool freed = false;

	while ((app = *link)) {
		if (app->release)
			ustd_app_release(app);
		if (app->closed) {
			*link = app->next;
			ustd_app_free(app);
			freed = true;
		} else {
			link = &app->next;
		}
	}
	if (freed)
		ustd_accept_resume(&d->accept);
}

static int ustd_loop(struct ustd *d)
{
	struct epoll_event evs[USTD_MAX_EVENTS];
	struct ustd_watch *w;
	int i, n;

	while (!d->quit) {
		n = epoll_wait(d->ctx.epfd, evs, USTD_MAX_EVENTS, -1);
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
				ustd_accept_on_listen(&d->accept);
				break;
			case USTD_WATCH_LISTEN_RETRY:
				ustd_listen_resume(ustd_listen_pause_of(w));
				break;
			case USTD_WATCH_HANDSHAKE_TIMER:
				ustd_handshake_on_timer(&d->handshake);
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
			case USTD_WATCH_ADOPT:
				ustd_adopt_on_conn(&d->adopt, (struct ustd_adopt_conn *)w);
				break;
			case USTD_WATCH_ADOPT_TIMER:
				ustd_adopt_on_timer(&d->adopt);
				break;
			case USTD_WATCH_LIVE_TIMER:
				ustd_on_live_timer(d);
				break;
			case USTD_WATCH_SESSION:
				((struct ustd_session_watch *)w)->fn((struct ustd_session_watch *)w,
								     evs[i].events);
				break;
			case USTD_WATCH_TRIGGER:
				ustd_trigger_on_readable((struct ustd_trigger_chan *)w);
				break;
			case USTD_WATCH_UID_TIMER:
				ustd_uid_set_on_timer(w);
				break;
			case USTD_WATCH_SPACE_TIMER:
				ustd_space_wait_on_timer(&d->space_wait);
				break;
			}
		}
		ustd_reap(d);
		ustd_adopt_reap(&d->adopt);
		ustd_rotation_reap();
		ustcomm_log_flush(0);
	}
	return 0;
}

/* Connections still in the backlog may be applications that already sent
 * everything and exited: take them too before writing the last packets. */
static void ustd_finish(struct ustd *d)
{
	struct ustd_app *app;

	ustd_accept_backlog(&d->accept);
	/* Before the programs: the sets' traces are ended by their sessions. */
	ustd_sessions_uid_end(d->ctx.sessions);
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

enum { USTD_OPT_HELP = 1000, USTD_OPT_VERSION };

/* Wrong command line, as ustctl and ust-summary: 1 stays "could not start". */
#define USTD_EXIT_USAGE	2

int main(int argc, const char **argv)
{
	char *output_arg = NULL, *sock_arg = NULL, *relay_arg = NULL, *live_arg = NULL;
	char *live_port_arg = NULL;
	char *backlog_arg = NULL;
	struct ustcomm_relay_url relay_url;
	unsigned long live_timer_us = USTD_LIVE_TIMER_DEFAULT_US;
	char *end;
	char output[PATH_MAX], resolved[PATH_MAX], sock_path[PATH_MAX];
	int ready_fd = -1, verbose = 0, stats = 0, group_readable = 0, nice = USTD_NICE_DEFAULT;
	int direct_io = 0, page_cache = 0;
	int rt_prio = USTD_RT_PRIO_DEFAULT, rc, ret;
	bool usage = false;
	char *rt_arg = NULL;
	struct ustd d = {
		.ctx.epfd = -1, .listen_fd = -1, .signal_fd = -1,
		.accept.pause.timer_fd = -1, .handshake.timer_fd = -1,
		.signal_watch.kind = USTD_WATCH_SIGNAL,
		.ctx.live_fd = -1,
		.live_watch.kind = USTD_WATCH_LIVE_TIMER,
		.marks.dirfd = -1,
	};
	struct poptOption options[] = {
		{ "output", 'o', POPT_ARG_STRING, &output_arg, 0,
		  "write traces under DIR (default: $HOME/ust-traces)", "DIR" },
		{ "socket", 's', POPT_ARG_STRING, &sock_arg, 0,
		  "listen on PATH (default: $UST_DAEMON_SOCKET, else <run dir>/ustd)", "PATH" },
		{ "relay", 'r', POPT_ARG_STRING, &relay_arg, 0,
		  "stream every trace to the lttng-relayd at URL, net://HOST[:CONTROL_PORT[:DATA_PORT]] (ports 5342 and 5343 by default); the output directory is then the fallback for when relayd goes away",
		  "URL" },
		{ "live-timer", '\0', POPT_ARG_STRING, &live_arg, 0,
		  "for traces streamed to lttng-relayd (by --relay or by their own output): every USEC microseconds, send what was recorded so far and tell live viewers which streams are idle (default 1000000; 0: no live viewing)",
		  "USEC" },
		{ "live-port", '\0', POPT_ARG_STRING, &live_port_arg, 0,
		  "with --relay: the port that relayd serves live viewers on (lttng-relayd --live-port), for the live URL ustd -v prints; without it ustd names relayd's default, 5344, as such",
		  "PORT" },
		{ "relay-backlog", '\0', POPT_ARG_STRING, &backlog_arg, 0,
		  "for traces streamed to lttng-relayd: keep up to SIZE bytes (k, M, G) per trace of packets relayd has not confirmed writing, or one copy of the trace's buffers if more, before writing them to the output directory too (default 64M)",
		  "SIZE" },
		{ "ready-fd", '\0', POPT_ARG_INT, &ready_fd, 0,
		  "once listening, write one byte to FD and close it", "FD" },
		{ "verbose", 'v', POPT_ARG_NONE, &verbose, 0,
		  "say which application is traced where", NULL },
		{ "realtime", '\0', POPT_ARG_STRING | POPT_ARGFLAG_OPTIONAL, &rt_arg, 'R',
		  "run with the SCHED_FIFO policy at priority PRIO (default 1) where allowed (root, CAP_SYS_NICE, RLIMIT_RTPRIO), so that ustd drains before busy writers fill their buffers; without this option ustd runs at a normal priority (--nice)",
		  "PRIO" },
		{ "nice", '\0', POPT_ARG_INT, &nice, 0,
		  "without SCHED_FIFO, run at this nice value, or at the lowest one allowed (default -10)",
		  "N" },
		{ "stats", '\0', POPT_ARG_NONE, &stats, 0,
		  "when each trace ends, say how fast its sub-buffers were drained: time from full to free, waiting and writing, percentiles",
		  NULL },
		{ "group-readable", '\0', POPT_ARG_NONE, &group_readable, 0,
		  "let the group of each trace directory read the traces (directories 0750, files 0640; default: the user's alone, 0700 and 0600)",
		  NULL },
		{ "page-cache", '\0', POPT_ARG_NONE, &page_cache, 0,
		  "write stream files through the page cache (default: straight from the buffers with O_DIRECT through io_uring where the file system allows, half the CPU; through the page cache while the disk lags)",
		  NULL },
		{ "direct-io", '\0', POPT_ARG_NONE, &direct_io, 0,
		  "the default: write stream files straight from the buffers where the file system allows",
		  NULL },
		{ "help", 'h', POPT_ARG_NONE, NULL, USTD_OPT_HELP, "show this help", NULL },
		/* -? as popt's autohelp had it, for whoever learned it there. */
		{ NULL, '?', POPT_ARG_NONE | POPT_ARGFLAG_DOC_HIDDEN, NULL, USTD_OPT_HELP,
		  NULL, NULL },
		{ "version", 'V', POPT_ARG_NONE, NULL, USTD_OPT_VERSION, "print the version",
		  NULL },
		POPT_TABLEEND
	};
	poptContext pc;

	ustcomm_log_set_prefix("ustd");
	/* Clients, and the disk, must not make ustd write without end. */
	ustcomm_log_limit_repeats();
	pc = poptGetContext("ustd", argc, argv, options, 0);
	/* --realtime alone asks for the real-time policy at priority 1. */
	while ((rc = poptGetNextOpt(pc)) == 'R' || rc == USTD_OPT_HELP || rc == USTD_OPT_VERSION) {
		/* At once, whatever else is given: the answer is all that is asked. */
		if (rc == USTD_OPT_HELP) {
			poptPrintHelp(pc, stdout, 0);
			printf("\nExit status: 0 when stopped by SIGTERM or SIGINT, 1 when it cannot start,\n"
			       "2 when the command line is wrong. See ustd(1).\n");
			ret = 0;
			goto end;
		}
		if (rc == USTD_OPT_VERSION) {
			printf("ustd (ust) %s\n", UST_VERSION);
			ret = 0;
			goto end;
		}
		rt_prio = USTD_RT_PRIO_ASKED;
	}
	/* A usage error exits 2, as in ustctl, not 1 as a failure to start. */
	usage = true;
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
	ret = ustd_sched_options(nice, rt_arg, &rt_prio);
	if (ret < 0)
		goto end;
	d.ctx.verbose = verbose;
	d.ctx.stats = stats;
	if (group_readable)
		ustd_set_group_readable();
	if (page_cache && direct_io) {
		ustcomm_err("--page-cache and --direct-io say opposite things: give one (see ustd --help)");
		ret = -EINVAL;
		goto end;
	}
	if (page_cache)
		ustd_dio_refuse();
	d.ctx.relay_backlog = USTD_RELAY_PENDING_MIN;
	if (backlog_arg &&
	    ustcomm_parse_size(backlog_arg, 1u << 20, 1ull << 40, &d.ctx.relay_backlog) < 0) {
		ustcomm_err("--relay-backlog %s: expected a size from 1M to 1024G (k, M, G: powers of 1024)",
			    backlog_arg);
		ret = -EINVAL;
		goto end;
	}
	if (live_arg) {
		errno = 0;
		live_timer_us = strtoul(live_arg, &end, 10);
		if (errno || *end || !live_arg[0] || live_arg[0] == '-' ||
		    live_timer_us > UINT32_MAX || (live_timer_us && live_timer_us < 1000)) {
			ustcomm_err("--live-timer %s: expected 0 or microseconds from 1000 to 4294967295",
				    live_arg);
			ret = -EINVAL;
			goto end;
		}
	}

	if (live_port_arg) {
		unsigned long port;

		errno = 0;
		port = strtoul(live_port_arg, &end, 10);
		if (!relay_arg || errno || *end || live_port_arg[0] < '0' || live_port_arg[0] > '9' ||
		    !port || port > 65535) {
			ustcomm_err(relay_arg ? "--live-port %s: a port is a number from 1 to 65535" :
				    "--live-port %s: only with --relay", live_port_arg);
			ret = -EINVAL;
			goto end;
		}
		d.ctx.live_port = (uint16_t)port;
	}

	usage = false;
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
			/* The run directory's check said what is wrong with it;
			 * UST_RUNDIR is the remedy only when it is not the cause. */
			if (getenv("UST_DAEMON_SOCKET") && *getenv("UST_DAEMON_SOCKET"))
				ustcomm_err("cannot use UST_DAEMON_SOCKET=%s: %s; give --socket",
					    getenv("UST_DAEMON_SOCKET"), strerror(-ret));
			else if (getenv("UST_RUNDIR") && *getenv("UST_RUNDIR"))
				ustcomm_err("cannot put the socket in UST_RUNDIR=%s: %s; fix that directory, point UST_RUNDIR to another or give --socket",
					    getenv("UST_RUNDIR"), strerror(-ret));
			else
				ustcomm_err("cannot find where to put the socket (%s): set UST_RUNDIR to a private directory or give --socket",
					    strerror(-ret));
			goto end;
		}
	}
	d.sock_path = sock_path;

	ustd_raise_fd_limit();
	ustd_sched_setup(rt_prio, nice, verbose);
	ret = ustd_setup_signals(&d);
	if (ret < 0) {
		ustcomm_err("cannot set up signal handling: %s", strerror(-ret));
		goto end;
	}
	/* After the signals are blocked: the thread inherits the mask, and
	 * they are all read from signal_fd. */
	ustd_writeback_start();
	d.ctx.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (d.ctx.epfd < 0) {
		ret = -errno;
		ustcomm_err("epoll_create1: %s", strerror(errno));
		goto end;
	}
	ret = ustd_live_setup(&d, live_timer_us);
	if (ret == 0 && relay_arg)
		ret = ustd_relay_setup(&d, relay_arg, &relay_url);
	if (ret < 0)
		goto end;
	ret = ustd_listen(&d);
	if (ret < 0)
		goto end;
	ret = ustd_handshake_init(&d.handshake, d.ctx.epfd, &d.apps);
	if (ret == 0)
		ret = ustd_accept_start(&d.accept, &d.ctx, d.listen_fd, &d.apps, &d.handshake);
	if (ret == 0)
		ret = ustd_watch_fd(&d, d.signal_fd, &d.signal_watch);
	if (ret == 0 && d.ctx.live_fd >= 0)
		ret = ustd_watch_fd(&d, d.ctx.live_fd, &d.live_watch);
	if (ret < 0) {
		ustcomm_err("epoll_ctl: %s", strerror(-ret));
		goto unlink;
	}
	if (verbose && relay_arg)
		fprintf(stderr, "ustd: listening on %s, streaming traces to lttng-relayd at %s (fallback: %s)\n",
			sock_path, relay_arg, resolved);
	else if (verbose)
		fprintf(stderr, "ustd: listening on %s, writing traces under %s\n", sock_path, resolved);
	ret = ustd_write_marks_open(&d.marks);
	if (ret < 0)
		ustcomm_err("write marks are off (%s): if this ustd is killed, the next one cannot repair its files, and their last packets may be in two traces",
			    strerror(-ret));
	d.ctx.marks = &d.marks;
	ret = ustd_sessions_start(&d.ctx.sessions, &d.ctx, sock_path, &d.apps);
	if (ret < 0)
		goto unlink;
	ustd_space_wait_init(&d.space_wait, &d.ctx, &d.adopt, sock_path);
	d.ctx.space_wait = &d.space_wait;
	ustd_adopt_start(&d.adopt, &d.ctx, sock_path);
	/* Before ready: whoever waits for ustd finds the orphans written. */
	ustd_orphans_take(&d.ctx, &d.apps);
	ustd_write_marks_sweep(&d.marks);
	if (ready_fd >= 0) {
		ret = ustd_signal_ready(ready_fd);
		if (ret < 0)
			goto unlink;
	}
	ret = ustd_loop(&d);
	ustd_finish(&d);
unlink:
	ustd_writeback_stop();
	ustd_sessions_fini(d.ctx.sessions);
	ustd_adopt_fini(&d.adopt);
	ustd_space_wait_fini(&d.space_wait);
	ustd_write_marks_close(&d.marks);
	unlink(sock_path);
end:
	if (d.listen_fd >= 0)
		close(d.listen_fd);
	if (d.signal_fd >= 0)
		close(d.signal_fd);
	ustd_accept_fini(&d.accept);
	ustd_handshake_fini(&d.handshake);
	ustcomm_log_flush(1);
	if (d.ctx.live_fd >= 0)
		close(d.ctx.live_fd);
	if (d.ctx.epfd >= 0)
		close(d.ctx.epfd);
	poptFreeContext(pc);
	free(output_arg);
	free(sock_arg);
	free(relay_arg);
	free(live_arg);
	free(live_port_arg);
	free(backlog_arg);
	free(rt_arg);
	if (ret < 0)
		return usage ? USTD_EXIT_USAGE : EXIT_FAILURE;
	return EXIT_SUCCESS;
}
