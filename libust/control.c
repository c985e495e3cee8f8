/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The control socket, <rundir>/apps/<pid>: no thread until the program is
 * first told something, and at most one control signal that cuts a wait
 * of the program short.
 *
 * Until then the listening socket is non-blocking and in asynchronous
 * mode (O_ASYNC, F_SETOWN to the process, F_SETSIG to the control signal,
 * SIGURG unless UST_SIGNAL says otherwise): the kernel signals the process
 * when a controller connects or writes. Only controllers that target the
 * program connect (ustctl list-pids and a starting ustd do not, 12.10), and
 * SIGURG's default action is to ignore it, so a signal that lands where
 * libust's handler is not installed (a child between fork and exec, a
 * program that reset its handlers) does nothing.
 *
 * The handler, installed with SA_SIGINFO and SA_RESTART, serves our
 * descriptors (without blocking) and hands every delivery whose si_fd is
 * not one of ours to the handler that was installed before it. When it
 * has served a request that engages the program (anything but ustd's
 * question whether a session concerns it; a request that has not arrived
 * within a few milliseconds counts as engaging, engaged_after_wait()),
 * and it interrupted the program in a wait for the outside world
 * (interrupted_wait.h), it hands the
 * socket to a listener thread and turns asynchronous mode off: no later
 * request signals the program. Elsewhere (the program computing) it
 * leaves things as they are; a signal there interrupts no wait. The
 * thread is also started in a normal context when the program traces from
 * start-up, when UST_CONTROL=thread, when the signal is blocked at start,
 * and when libust finds its handler replaced (ust_control_check()).
 *
 * Why the handler is async-signal-safe:
 * - It takes ust_lock(), whose holder always has the control signal
 *   blocked (registry.c): a holder is never the thread the handler
 *   interrupted, so the wait ends when that other thread unlocks.
 * - Under the lock it runs only code built for signal context: accept4,
 *   recv, send, getsockopt, fcntl (system calls); ustcomm_ctl_decode
 *   (parsing in place); and the commands (control_cmd.c, trace_*.c), whose
 *   memory comes from ust_zalloc() and mmap(), text from ustcomm_format(),
 *   and which otherwise make system calls. No malloc, no stdio, no lock
 *   but ust_lock. pthread_create() only where interrupted_wait.h says the
 *   interrupted code holds none of the C library's locks.
 * - It saves and restores errno.
 * A command that must wait (destroy-trace waits for ustd to write the last
 * packets) waits in poll() with a bound, interrupting one thread of the
 * program for at most that long.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "libust/control.h"
#include "libust/interrupted_wait.h"
#include "libust/lock.h"
#include "libust/registry.h"
#include "libust/ring_buffer.h"
#include "libust/sigsafe_alloc.h"
#include "libust/trace.h"
#include "libustcomm/ctl_protocol.h"
#include "libustcomm/format.h"
#include "libustcomm/log.h"
#include "libustcomm/rundir.h"
#include "libustcomm/signal_name.h"
#include "libustcomm/strbuf.h"

#define MAX_CONNS	8
/* How long a handler that interrupted a wait gives a connection's first
 * request to arrive (engaged_after_wait()). */
#define REQUEST_WAIT_MS	5
#define IN_CAP		(sizeof(struct ustcomm_ctl_header) + USTCOMM_CTL_MAX_REQUEST)

struct conn {
	int fd;				/* -1: free slot */
	char *in;
	size_t in_len;
	size_t in_cap;			/* IN_CAP, more while a load-session arrives */
	struct ustcomm_strbuf out;
	size_t out_off;
	uint64_t age;			/* order of acceptance, to evict the oldest */
	/*
	 * Another user: told why, then its input is discarded until it hangs
	 * up (closing with its request unread would reset the connection
	 * before it could read the reason).
	 */
	int refused;
	int served;			/* requests answered on it */
};

static struct {
	int listen_fd;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	pid_t owner;			/* the process that created path */
	int sig;
	enum ust_control_mode mode;
	/* What the environment asked for: a child starts from it again. */
	enum ust_control_mode requested;
	/* Why a listener thread serves the socket (ustctl info). */
	const char *why;
	/* A request other than SESSION_STATE was served: the program is
	 * someone's target, and its next contact goes to a thread. */
	int engaged;
	struct sigaction previous;
	int handler_installed;
	struct conn conns[MAX_CONNS];
	uint64_t next_age;
	pthread_t thread;
	int kick_fd;			/* eventfd: the listener has buffers to populate */
	ust_control_handler handle;
} ctl = { .listen_fd = -1, .kick_fd = -1 };

static void conn_close(struct conn *c)
{
	__atomic_store_n(&c->fd, -1, __ATOMIC_RELAXED);
	ust_free(c->in);
	c->in = NULL;
	c->in_len = 0;
	c->in_cap = 0;
	ustcomm_strbuf_free(&c->out);
	c->out_off = 0;
	c->refused = 0;
	c->served = 0;
}

static void conn_drop(struct conn *c)
{
	int fd = c->fd;

	conn_close(c);
	close(fd);
}

/* Sends what is pending; 1 when all went, 0 when the socket is full. */
static int conn_flush(struct conn *c)
{
	while (c->out_off < c->out.len) {
		ssize_t n = send(c->fd, c->out.buf + c->out_off, c->out.len - c->out_off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return 0;	/* the controller reads: POLL_OUT calls us back */
			return -1;
		}
		c->out_off += (size_t)n;
	}
	ustcomm_strbuf_reset(&c->out);
	c->out_off = 0;
	return 1;
}

/*
 * A request longer than the buffer (load-session, up to its own bound)
 * gets a buffer its size, a mapping of its own freed with the connection.
 * Returns the longest payload the request at the head may have.
 */
static uint32_t conn_make_room(struct conn *c)
{
	struct ustcomm_ctl_header hdr;
	uint32_t max;
	size_t need;
	char *bigger;

	if (c->in_len < sizeof(hdr))
		return USTCOMM_CTL_MAX_REQUEST;
	memcpy(&hdr, c->in, sizeof(hdr));
	max = ustcomm_ctl_max_request(hdr.cmd);
	need = sizeof(hdr) + (size_t)hdr.payload_len;
	/* Only a well-formed header earns memory; decode refuses the rest. */
	if (hdr.magic != USTCOMM_CTL_MAGIC || hdr.version != USTCOMM_CTL_VERSION ||
	    hdr.payload_len > max || need <= c->in_cap)
		return max;
	bigger = ust_zalloc(need);
	if (!bigger)
		return USTCOMM_CTL_MAX_REQUEST;	/* refused as too long: the controller sees EOF */
	memcpy(bigger, c->in, c->in_len);
	ust_free(c->in);
	c->in = bigger;
	c->in_cap = need;
	return max;
}

/* Handles every whole request buffered, stopping when a reply is stuck. */
static int conn_handle(struct conn *c)
{
	struct ustcomm_ctl_msg msg;
	ssize_t used;
	uint32_t max;
	int ret;

	for (;;) {
		ret = conn_flush(c);
		if (ret <= 0)
			return ret;
		if (c->refused) {
			c->in_len = 0;
			return 1;
		}
		max = conn_make_room(c);
		used = ustcomm_ctl_decode(c->in, c->in_len, max, &msg);
		if (used == 0)
			return 1;
		if (used < 0)
			return -1;	/* malformed: nothing sensible to answer */
		if (msg.cmd != USTCOMM_CTL_SESSION_STATE)
			ctl.engaged = 1;
		c->served++;
		ctl.handle(&msg, &c->out);
		if (c->out.err)
			return -1;	/* no memory for the reply: the controller sees EOF */
		memmove(c->in, c->in + used, c->in_len - (size_t)used);
		c->in_len -= (size_t)used;
	}
}

static void conn_service(struct conn *c)
{
	ssize_t n;
	int ret;

	for (;;) {
		ret = conn_handle(c);
		if (ret < 0)
			goto drop;
		if (ret == 0)
			return;
		n = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, MSG_DONTWAIT);
		if (n == 0)
			goto drop;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return;
			goto drop;
		}
		c->in_len += (size_t)n;
	}
drop:
	conn_drop(c);
}

/* Only our own user, or root, may command us. */
static int peer_allowed(int fd, uid_t *uid)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return 0;
	*uid = cred.uid;
	return cred.uid == geteuid() || cred.uid == 0;
}

/* The reason a stranger is refused; its requests are then read and dropped. */
static void refuse(struct conn *c, uid_t uid)
{
	struct ustcomm_ctl_header hdr;
	char why[160];
	int n;

	n = ustcomm_format(why, sizeof(why), "uid %u may not control process %d of uid %u",
			   (unsigned)uid, (int)getpid(), (unsigned)geteuid());
	ustcomm_ctl_header_init(&hdr, 0, -EPERM, 1, (uint32_t)n + 1);
	ustcomm_strbuf_append(&c->out, (const char *)&hdr, sizeof(hdr));
	ustcomm_strbuf_append(&c->out, why, (size_t)n + 1);
	c->refused = 1;
}

static int set_async(int fd, int on)
{
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0)
		return -errno;
	if (on && (fcntl(fd, F_SETOWN, getpid()) < 0 || fcntl(fd, F_SETSIG, ctl.sig) < 0))
		return -errno;
	flags = on ? flags | O_ASYNC : flags & ~O_ASYNC;
	if (fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

static void accept_all(void)
{
	struct conn *c, *slot;
	uid_t uid = (uid_t)-1;
	int fd, i;

	for (;;) {
		fd = accept4(ctl.listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return;		/* EAGAIN: all taken; anything else: next time */
		}
		slot = NULL;
		for (i = 0; i < MAX_CONNS; i++) {
			c = &ctl.conns[i];
			if (c->fd < 0) {
				slot = c;
				break;
			}
			if (!slot || c->age < slot->age)
				slot = c;
		}
		/* All taken: a controller that went quiet makes room. */
		if (slot->fd >= 0)
			conn_drop(slot);
		slot->in = ust_zalloc(IN_CAP);
		slot->in_cap = IN_CAP;
		if (!slot->in || (ctl.mode == UST_CONTROL_SIGNAL && set_async(fd, 1) < 0)) {
			ust_free(slot->in);
			slot->in = NULL;
			close(fd);
			continue;
		}
		slot->age = ctl.next_age++;
		if (!peer_allowed(fd, &uid))
			refuse(slot, uid);
		__atomic_store_n(&slot->fd, fd, __ATOMIC_RELAXED);
	}
}

/* Under ust_lock. */
static void serve(void)
{
	int i;

	if (ctl.listen_fd < 0)
		return;
	accept_all();
	for (i = 0; i < MAX_CONNS; i++) {
		if (ctl.conns[i].fd >= 0)
			conn_service(&ctl.conns[i]);
	}
}

/*
 * Under ust_lock: whether a controller connected and its first request
 * has not arrived yet; with fds, the pollfds to wait for it on.
 */
static nfds_t request_pending(struct pollfd *fds)
{
	nfds_t n = 0;
	int i;

	for (i = 0; i < MAX_CONNS; i++) {
		const struct conn *c = &ctl.conns[i];

		if (c->fd >= 0 && !c->served && !c->refused) {
			if (fds)
				fds[n] = (struct pollfd){ .fd = c->fd, .events = POLLIN };
			n++;
		}
	}
	return n;
}

/*
 * Under ust_lock, in the handler that interrupted a wait: whether the
 * requests served make the program someone's target. The kernel often
 * signals a connection before its request is written; that request's own
 * signal would then cut a second wait short. So the handler gives the
 * request a moment to arrive (controllers write it right after
 * connecting) and serves it: ustd's question whether a session concerns
 * the program engages nothing, and such a program keeps no thread. A
 * request that is still not there counts as engaging.
 */
static int engaged_after_wait(void)
{
	struct pollfd fds[MAX_CONNS];
	nfds_t n;

	if (ctl.engaged)
		return 1;
	n = request_pending(fds);
	if (!n)
		return 0;
	if (poll(fds, n, REQUEST_WAIT_MS) > 0)
		serve();
	return ctl.engaged || request_pending(NULL);
}

/* Racy reads of descriptors only decide whether to look: harmless. */
static int is_ours(int fd)
{
	int i;

	if (fd < 0)
		return 0;
	if (fd == __atomic_load_n(&ctl.listen_fd, __ATOMIC_RELAXED))
		return 1;
	for (i = 0; i < MAX_CONNS; i++) {
		if (fd == __atomic_load_n(&ctl.conns[i].fd, __ATOMIC_RELAXED))
			return 1;
	}
	return 0;
}

/*
 * A delivery that is not ours goes to the previous handler. With none (the
 * default action, or ignored), it is dropped: for a UST_SIGNAL whose
 * default action terminates (SIGIO, SIGUSR1), a stray delivery would
 * otherwise end the program.
 */
static void chain(int sig, siginfo_t *si, void *uc)
{
	const struct sigaction *prev = &ctl.previous;

	if (prev->sa_flags & SA_SIGINFO) {
		if (prev->sa_sigaction)
			prev->sa_sigaction(sig, si, uc);
	} else if (prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN) {
		prev->sa_handler(sig);
	}
}

static int start_listener(void);

/*
 * Under ust_lock: a listener thread serves the socket from now on, and no
 * descriptor of ours signals the process any more. A connection's
 * asynchronous mode goes after the thread exists: a request arriving in
 * between is served by one or the other.
 */
static int thread_takes_over(const char *why)
{
	int i, ret;

	if (ctl.mode != UST_CONTROL_SIGNAL || ctl.listen_fd < 0)
		return 0;
	ret = start_listener();
	if (ret < 0)
		return ret;
	ctl.mode = UST_CONTROL_THREAD;
	ctl.why = why;
	set_async(ctl.listen_fd, 0);
	for (i = 0; i < MAX_CONNS; i++) {
		if (ctl.conns[i].fd >= 0)
			set_async(ctl.conns[i].fd, 0);
	}
	return 0;
}

/* Async-signal-safe: see the top of this file. */
static void control_handler(int sig, siginfo_t *si, void *uc)
{
	int saved_errno = errno;

	/*
	 * A standard signal does not queue: while one delivery is pending,
	 * the next merges into it and only the first si_fd survives. A
	 * delivery naming another descriptor may therefore hide one of ours,
	 * so we always look (non-blocking, nothing waits) and chain what is
	 * not ours.
	 */
	ust_lock();
	serve();
	if (ctl.mode == UST_CONTROL_SIGNAL && ust_interrupted_wait(uc) && engaged_after_wait())
		thread_takes_over("since the first request that found the program waiting");
	ust_control_populate();
	ust_unlock();
	if (!si || si->si_code <= 0 || !is_ours(si->si_fd))
		chain(sig, si, uc);
	errno = saved_errno;
}

/*
 * The listener also makes the pages of new buffers (channel.h), so that
 * the thread that made them, at start-up or at its first event, goes on
 * at once: kicked through kick_fd, read here.
 */
static void *listener(void *arg)
{
	struct pollfd pfds[MAX_CONNS + 2];
	struct ust_rb *rb;
	uint64_t kicks;
	nfds_t n;
	int i;

	(void)arg;
	for (;;) {
		for (;;) {
			ust_lock();
			rb = ust_trace_unpopulated();
			ust_unlock();
			if (!rb)
				break;
			ust_rb_populate(rb);
		}
		ust_lock();
		n = 0;
		if (ctl.listen_fd >= 0)
			pfds[n++] = (struct pollfd){ .fd = ctl.listen_fd, .events = POLLIN };
		for (i = 0; i < MAX_CONNS; i++) {
			const struct conn *c = &ctl.conns[i];

			if (c->fd >= 0)
				pfds[n++] = (struct pollfd){
					.fd = c->fd,
					.events = c->out_off < c->out.len ? POLLOUT : POLLIN,
				};
		}
		ust_unlock();
		if (!n)
			return NULL;
		pfds[n++] = (struct pollfd){ .fd = ctl.kick_fd, .events = POLLIN };
		if (poll(pfds, n, -1) < 0 && errno != EINTR)
			return NULL;
		if (read(ctl.kick_fd, &kicks, sizeof(kicks)) < 0 && errno != EAGAIN)
			return NULL;
		ust_lock();
		serve();
		ust_unlock();
	}
}

static int start_listener(void)
{
	sigset_t all, old;
	int ret;

	if (ctl.kick_fd < 0)
		ctl.kick_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (ctl.kick_fd < 0)
		return -errno;
	/* The program's signals go to its own threads, not to ours. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = -pthread_create(&ctl.thread, NULL, listener, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!ret)
		pthread_detach(ctl.thread);
	return ret;
}

static int open_socket(void)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char dir[sizeof(addr.sun_path)];
	int fd = -1, n, ret;

	ret = ustcomm_apps_dir(dir, sizeof(dir));
	if (ret < 0)
		goto end;
	n = ustcomm_format(ctl.path, sizeof(ctl.path), "%s/%d", dir, (int)getpid());
	if (n < 0 || (size_t)n >= sizeof(ctl.path)) {
		ret = -ENAMETOOLONG;
		ustcomm_err("control socket path %s/%d is too long; set UST_RUNDIR to a shorter path",
			    dir, (int)getpid());
		goto end;
	}
	memcpy(addr.sun_path, ctl.path, (size_t)n + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		ret = -errno;
		goto end;
	}
	/* A socket named after our pid belongs to a dead process that had it. */
	unlink(ctl.path);
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 || listen(fd, 16) < 0) {
		ret = -errno;
		ustcomm_err("cannot open control socket %s: %s", ctl.path,
			    ustcomm_strerror(errno));
		goto end;
	}
	ctl.owner = getpid();
	if (ctl.mode == UST_CONTROL_SIGNAL) {
		ret = set_async(fd, 1);
		if (ret < 0)
			goto end;
	}
	__atomic_store_n(&ctl.listen_fd, fd, __ATOMIC_RELAXED);
	fd = -1;
	ret = 0;
	if (ctl.mode == UST_CONTROL_THREAD)
		ret = start_listener();
end:
	if (fd >= 0)
		close(fd);
	if (ret < 0)
		ctl.path[0] = '\0';
	return ret;
}

int ust_control_init(enum ust_control_mode mode, int sig, ust_control_handler handle)
{
	struct sigaction sa = { .sa_sigaction = control_handler,
				.sa_flags = SA_SIGINFO | SA_RESTART };
	sigset_t cur;
	int ret;

	for (ret = 0; ret < MAX_CONNS; ret++)
		ctl.conns[ret].fd = -1;
	ctl.sig = sig;
	ctl.handle = handle;
	ctl.mode = ctl.requested = mode;
	if (mode == UST_CONTROL_THREAD)
		ctl.why = "UST_CONTROL=thread";
	if (mode == UST_CONTROL_NONE)
		return 0;
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	if (mode == UST_CONTROL_SIGNAL && sigismember(&cur, sig)) {
		ustcomm_dbg("signal %d is blocked: the control socket is served by a thread", sig);
		ctl.mode = ctl.requested = mode = UST_CONTROL_THREAD;
		ctl.why = "the control signal was blocked at start";
	}
	if (mode == UST_CONTROL_SIGNAL) {
		sigemptyset(&sa.sa_mask);
		sigaddset(&sa.sa_mask, sig);
		if (sigaction(sig, &sa, &ctl.previous) < 0)
			return -errno;
		ctl.handler_installed = 1;
		ust_lock_set_signal(sig);
	}
	return open_socket();
}

void ust_control_start_thread(const char *why)
{
	if (thread_takes_over(why) < 0)
		ustcomm_dbg("no listener thread (%s): the control signal serves the socket", why);
}

void ust_control_populate(void)
{
	uint64_t one = 1;

	if (ctl.mode == UST_CONTROL_THREAD && ctl.kick_fd >= 0 &&
	    write(ctl.kick_fd, &one, sizeof(one)) == (ssize_t)sizeof(one))
		return;
	ust_trace_populate();
}

void ust_control_populate_soon(void)
{
	uint64_t one = 1;
	int saved_errno = errno;

	/* Loaded without the lock: a listener that starts meanwhile makes
	 * every page it finds asked for anyway. A failed write (the counter
	 * saturated) leaves the pages to page faults. */
	if (__atomic_load_n(&ctl.mode, __ATOMIC_RELAXED) == UST_CONTROL_THREAD &&
	    ctl.kick_fd >= 0 && write(ctl.kick_fd, &one, sizeof(one)) != sizeof(one))
		ustcomm_dbg("thread buffer pages left to page faults");
	errno = saved_errno;
}

void ust_control_check(void)
{
	struct sigaction cur;

	if (ctl.mode != UST_CONTROL_SIGNAL || sigaction(ctl.sig, NULL, &cur) < 0)
		return;
	if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == control_handler)
		return;
	ust_control_start_thread("the program replaced libust's handler of the control signal");
}

void ust_control_describe(char *buf, size_t len)
{
	char name[32];

	ustcomm_signal_name(ctl.sig, name, sizeof(name));
	switch (ctl.mode) {
	case UST_CONTROL_SIGNAL:
		ustcomm_format(buf, len, "signal %s, until a request finds the program waiting",
			       name);
		break;
	case UST_CONTROL_THREAD:
		ustcomm_format(buf, len, "listener thread (%s)", ctl.why ? ctl.why : "");
		break;
	case UST_CONTROL_NONE:
		ustcomm_format(buf, len, "none (UST_CONTROL=none)");
		break;
	}
}

static void close_all(void)
{
	int i;

	for (i = 0; i < MAX_CONNS; i++) {
		if (ctl.conns[i].fd >= 0)
			conn_drop(&ctl.conns[i]);
	}
	if (ctl.listen_fd >= 0)
		close(ctl.listen_fd);
	__atomic_store_n(&ctl.listen_fd, -1, __ATOMIC_RELAXED);
}

void ust_control_after_fork_child(int defer)
{
	/* The parent's descriptors: close ours, leave its socket file alone.
	 * The parent's listener thread is not in the child: the child starts
	 * over as libust started in the parent. */
	close_all();
	ctl.path[0] = '\0';
	/* The parent's eventfd: kicking it would wake the parent's listener. */
	if (ctl.kick_fd >= 0)
		close(ctl.kick_fd);
	ctl.kick_fd = -1;
	ctl.mode = ctl.requested;
	ctl.engaged = 0;
	if (ctl.mode == UST_CONTROL_SIGNAL)
		ctl.why = NULL;
	if (ctl.mode == UST_CONTROL_THREAD || (ctl.mode == UST_CONTROL_SIGNAL && !defer))
		open_socket();
}

void ust_control_open(void)
{
	if (ctl.mode != UST_CONTROL_NONE && ctl.listen_fd < 0)
		open_socket();
}

void ust_control_fini(void)
{
	close_all();
	if (ctl.path[0] && ctl.owner == getpid())
		unlink(ctl.path);
	ctl.path[0] = '\0';
}
