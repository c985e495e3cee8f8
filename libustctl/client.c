/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * One request, one reply over a process's control socket, within a bounded
 * time: connect() gives up at the deadline (a program that is stuck or
 * stopped stops accepting once its backlog is full), the socket is
 * non-blocking after it and every other wait is a poll() against the same
 * deadline, so a program that is stopped, never takes its control signal
 * or never reads its socket costs the caller the timeout and no more.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "libustcomm/protocol.h"
#include "libustcomm/rundir.h"
#include "libustcomm/signal_name.h"
#include "libustctl/internal.h"

#define USTCTL_TIMEOUT_DEFAULT_MS 5000

/* A lone value, published with nothing else: relaxed accesses suffice. */
static int timeout_ms = USTCTL_TIMEOUT_DEFAULT_MS;

void ustctl_set_timeout(int ms)
{
	__atomic_store_n(&timeout_ms, ms > 0 ? ms : USTCTL_TIMEOUT_DEFAULT_MS, __ATOMIC_RELAXED);
}

int ustctl_socket_path(char *buf, size_t len, const char *dir, pid_t pid)
{
	int n = snprintf(buf, len, "%s/%d", dir, (int)pid);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int ustctl_parse_u64(pid_t pid, uint16_t cmd, const char *s, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (*s < '0' || *s > '9' || *end || errno || v > max) {
		ustctl_set_error("process %d answered %s with \"%s\" where a number was expected",
				 (int)pid, ustcomm_ctl_cmd_name(cmd), s);
		return -EPROTO;
	}
	*out = v;
	return 0;
}

int ustctl_parse_u32(pid_t pid, uint16_t cmd, const char *s, uint32_t max, uint32_t *out)
{
	uint64_t v;
	int ret = ustctl_parse_u64(pid, cmd, s, max, &v);

	if (!ret)
		*out = (uint32_t)v;
	return ret;
}

void ustctl_reply_release(struct ustctl_reply *reply)
{
	free(reply->buf);
	reply->buf = NULL;
}

static int encode_request(const char *who, uint16_t cmd, const char *const *args, size_t nr,
			  char **out, size_t *out_len)
{
	size_t payload = 0, i;
	int ret;

	for (i = 0; i < nr; i++)
		payload += strlen(args[i]) + 1;
	ret = ustcomm_ctl_encode(cmd, 0, 0, args, nr, out, out_len);
	if (ret == -E2BIG)
		ustctl_set_input_error("%s for %s: %zu arguments of %zu bytes; at most %u arguments of %u bytes fit in a request",
				       ustcomm_ctl_cmd_name(cmd), who, nr, payload,
				       ustcomm_ctl_max_args(cmd), ustcomm_ctl_max_request(cmd));
	else if (ret)
		ustctl_set_error("out of memory");
	return ret;
}

/*
 * Root may control every user's programs, whose sockets are in their own
 * run directories: the defaults of that user (its XDG_RUNTIME_DIR is
 * /run/user/UID on systemd systems) when our own has none.
 */
static int find_other_user_socket(pid_t pid, char *path, size_t len)
{
	const char *const formats[] = { "/run/user/%u/ust/apps/%d", "/tmp/ust-%u/apps/%d" };
	char proc[64], candidate[PATH_MAX];
	struct stat st;
	size_t i;

	snprintf(proc, sizeof(proc), "/proc/%d", (int)pid);
	if (stat(proc, &st) < 0 || st.st_uid == geteuid())
		return -ENOENT;
	for (i = 0; i < UST_ARRAY_SIZE(formats); i++) {
		int n = snprintf(candidate, sizeof(candidate), formats[i], (unsigned)st.st_uid,
				 (int)pid);

		if (n < 0 || (size_t)n >= len || lstat(candidate, &st) < 0)
			continue;
		memcpy(path, candidate, (size_t)n + 1);
		return 0;
	}
	return -ENOENT;
}

/* Fills path with the socket of pid: 0, -ENOENT (path: where ours would
 * be) or another negative errno with the last error set. */
static int find_socket(pid_t pid, char *path, size_t len)
{
	char dir[PATH_MAX];
	struct stat st;
	int ret;

	ret = ustcomm_apps_dir(dir, sizeof(dir));
	if (ret) {
		ustctl_set_error("cannot use the control socket directory to reach process %d: %s (see the message above)",
				 (int)pid, strerror(-ret));
		goto end;
	}
	ret = ustctl_socket_path(path, len, dir, pid);
	if (ret) {
		ustctl_set_error("the control socket path of process %d is too long; set UST_RUNDIR to a shorter path",
				 (int)pid);
		goto end;
	}
	if (lstat(path, &st) == 0)
		goto end;
	ret = -ENOENT;
	if (geteuid() == 0)
		ret = find_other_user_socket(pid, path, len);
end:
	return ret;
}

static int process_stopped(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd, stopped = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* The state follows the command name, which may hold ") ". */
	p = strrchr(buf, ')');
	if (p && p[1] == ' ')
		stopped = p[2] == 'T' || p[2] == 't';
	return stopped;
}

/* A peer's name in messages ("process 123", "ustd"), and its pid for
 * telling that it is stopped (0: not a program). */
struct peer {
	pid_t pid;
	char name[64];
};

/* The value of the environment variable var (name=) in pid's initial
 * environment, or def. */
static const char *proc_env(pid_t pid, const char *var, char *buf, size_t len, const char *def)
{
	char path[64], env[16384];
	size_t vlen = strlen(var);
	ssize_t n;
	char *p;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return def;
	n = read(fd, env, sizeof(env) - 1);
	close(fd);
	if (n <= 0)
		return def;
	env[n] = '\0';
	for (p = env; p < env + n; p += strlen(p) + 1) {
		if (!strncmp(p, var, vlen) && p[vlen] == '=') {
			snprintf(buf, len, "%s", p + vlen + 1);
			return buf;
		}
	}
	return def;
}

/* The mask on the line "field:" of a /proc status file, 0 when absent. */
static unsigned long long status_mask(const char *path, const char *field)
{
	unsigned long long mask = 0;
	size_t flen = strlen(field);
	char line[256];
	FILE *f = fopen(path, "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, field, flen)) {
			mask = strtoull(line + flen, NULL, 16);
			break;
		}
	}
	fclose(f);
	return mask;
}

/* 1 when every thread of pid blocks the signal bit. */
static int blocked_everywhere(pid_t pid, unsigned long long bit)
{
	char dir[64], path[384];
	struct dirent *de;
	int all = 1, seen = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/status", dir, de->d_name);
		seen = 1;
		if (!(status_mask(path, "SigBlk:") & bit))
			all = 0;
	}
	closedir(d);
	return seen && all;
}

/*
 * Why a running program leaves its control signal unanswered, from what
 * the kernel shows of it: the signal ignored, at its default action (the
 * program reset its handlers), or blocked in every thread (a signalfd, or
 * a mask set in main()). NULL when its handler is in place: then another
 * handler than libust's may have taken the signal over.
 */
static const char *signal_cause(pid_t pid, char *signame, size_t len)
{
	char env[64], path[64];
	unsigned long long bit;
	int sig;

	sig = ustcomm_signal_parse(proc_env(pid, "UST_SIGNAL", env, sizeof(env), NULL));
	if (sig <= 0)
		sig = ustcomm_signal_parse(NULL);
	ustcomm_signal_name(sig, signame, len);
	bit = 1ull << (sig - 1);
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (status_mask(path, "SigIgn:") & bit)
		return "ignores";
	if (!(status_mask(path, "SigCgt:") & bit))
		return "reset to its default action";
	if (blocked_everywhere(pid, bit))
		return "blocks in every thread (a signalfd, or a signal mask)";
	return NULL;
}

static void set_timeout_error(const struct peer *p, uint16_t cmd, int ms)
{
	char signame[32];
	const char *cause;

	if (!p->pid) {
		ustctl_set_error("%s did not answer %s within %g s", p->name,
				 ustcomm_ctl_cmd_name(cmd), ms / 1000.0);
		return;
	}
	if (process_stopped(p->pid)) {
		ustctl_set_error("process %d did not answer %s within %g s: it is stopped (resume it with kill -CONT %d)",
				 (int)p->pid, ustcomm_ctl_cmd_name(cmd), ms / 1000.0, (int)p->pid);
		return;
	}
	cause = signal_cause(p->pid, signame, sizeof(signame));
	if (cause)
		ustctl_set_error("process %d did not answer %s within %g s: it %s %s, libust's control signal; start it with UST_CONTROL=thread, or with UST_SIGNAL set to a signal it leaves alone",
				 (int)p->pid, ustcomm_ctl_cmd_name(cmd), ms / 1000.0, cause,
				 signame);
	else
		ustctl_set_error("process %d did not answer %s within %g s: it is busy, or a handler of its own took %s, libust's control signal, over; start it with UST_CONTROL=thread, or with UST_SIGNAL set to a signal it leaves alone",
				 (int)p->pid, ustcomm_ctl_cmd_name(cmd), ms / 1000.0, signame);
}

static int connect_app(pid_t pid, uint16_t cmd, char *path, size_t len, int ms)
{
	int ret;

	ret = find_socket(pid, path, len);
	if (ret && ret != -ENOENT)
		goto end;
	if (kill(pid, 0) < 0 && errno == ESRCH) {
		/* Whatever socket carries its number was left by it. */
		if (!ret)
			unlink(path);
		ustctl_set_error("process %d does not exist", (int)pid);
		ret = -ESRCH;
		goto end;
	}
	if (ret) {
		ustctl_set_error("process %d has no control socket %s: it is not linked with -lust, or it runs as another user or with another UST_RUNDIR",
				 (int)pid, path);
		goto end;
	}
	ret = ustcomm_connect_within(path, ms);
	if (ret >= 0)
		goto end;
	if (ret == -ETIMEDOUT) {
		struct peer p = { .pid = pid };

		set_timeout_error(&p, cmd, ms);
	} else if (ret == -ECONNREFUSED) {
		/* Nobody listens: the socket outlived the process that made it
		 * (the number now belongs to another process). */
		unlink(path);
		ustctl_set_error("process %d does not listen on %s, a socket left by a process that died: removed it",
				 (int)pid, path);
	} else if (ret == -EACCES || ret == -EPERM) {
		ustctl_set_error("permission denied on the control socket %s of process %d: it belongs to another user",
				 path, (int)pid);
	} else {
		ustctl_set_error("cannot connect to process %d on %s: %s", (int)pid, path,
				 strerror(-ret));
	}
end:
	return ret;
}

/* The peer answers our commands with our rights: it must be ours. */
static int check_peer(const struct peer *p, int fd, const char *path)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
		int ret = -errno;

		ustctl_set_error("cannot tell who serves %s for %s: %s", path, p->name,
				 strerror(-ret));
		return ret;
	}
	if (geteuid() != 0 && cred.uid != geteuid()) {
		ustctl_set_error("permission denied: the socket %s of %s is served by uid %u, not by uid %u",
				 path, p->name, (unsigned)cred.uid, (unsigned)geteuid());
		return -EPERM;
	}
	return 0;
}

/* Waits until fd is ready for events or the deadline passes (-ETIMEDOUT). */
static int wait_fd(int fd, short events, const struct timespec *deadline)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	struct timespec now;
	long long left;
	int n;

	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		left = (deadline->tv_sec - now.tv_sec) * 1000LL +
		       (deadline->tv_nsec - now.tv_nsec) / 1000000;
		if (left <= 0)
			return -ETIMEDOUT;
		n = poll(&pfd, 1, (int)left);
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}

static int send_request(const struct peer *p, uint16_t cmd, int fd, const char *buf, size_t len,
			const struct timespec *deadline, int ms)
{
	size_t off = 0;
	ssize_t n;
	int ret = 0;

	while (off < len) {
		ret = wait_fd(fd, POLLOUT, deadline);
		if (ret)
			break;
		n = send(fd, buf + off, len - off, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			ret = -errno;
			break;
		}
		off += (size_t)n;
	}
	if (ret == -ETIMEDOUT)
		set_timeout_error(p, cmd, ms);
	else if (ret)
		ustctl_set_error("cannot send %s to %s: %s", ustcomm_ctl_cmd_name(cmd),
				 p->name, strerror(-ret));
	return ret;
}

/* Reads exactly one reply: the header first, then the payload it announces. */
static int receive_reply(const struct peer *p, uint16_t cmd, int fd, const struct timespec *deadline,
			 int ms, struct ustctl_reply *reply)
{
	struct ustcomm_ctl_header hdr;
	size_t len = 0, cap = sizeof(hdr);
	char *buf = malloc(cap), *bigger;
	ssize_t n;
	int ret;

	if (!buf) {
		ustctl_set_error("out of memory");
		return -ENOMEM;
	}
	for (;;) {
		ret = wait_fd(fd, POLLIN, deadline);
		if (ret == -ETIMEDOUT) {
			set_timeout_error(p, cmd, ms);
			goto end;
		}
		if (ret) {
			ustctl_set_error("cannot wait for %s: %s", p->name, strerror(-ret));
			goto end;
		}
		n = recv(fd, buf + len, cap - len, 0);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			ret = -errno;
			ustctl_set_error("cannot read the answer of %s to %s: %s", p->name,
					 ustcomm_ctl_cmd_name(cmd), strerror(errno));
			goto end;
		}
		if (n == 0) {
			ret = -EPROTO;
			ustctl_set_error("%s closed the connection without answering %s (it may not know that command: is it older than this libustctl?)",
					 p->name, ustcomm_ctl_cmd_name(cmd));
			goto end;
		}
		len += (size_t)n;
		if (len < cap)
			continue;
		n = ustcomm_ctl_decode(buf, len, USTCOMM_CTL_MAX_REPLY, &reply->msg);
		if (n < 0) {
			ret = -EPROTO;
			ustctl_set_error("%s sent a malformed answer to %s%s", p->name,
					 ustcomm_ctl_cmd_name(cmd),
					 n == -EMSGSIZE ? " (longer than any reply may be)" : "");
			goto end;
		}
		if (n > 0)
			break;
		/* The header is valid and announces a payload we make room for. */
		memcpy(&hdr, buf, sizeof(hdr));
		cap = sizeof(hdr) + hdr.payload_len;
		bigger = realloc(buf, cap);
		if (!bigger) {
			ret = -ENOMEM;
			ustctl_set_error("out of memory");
			goto end;
		}
		buf = bigger;
	}
	if (reply->msg.cmd != cmd || reply->msg.status > 0) {
		ret = -EPROTO;
		ustctl_set_error("%s answered %s with a reply to another command",
				 p->name, ustcomm_ctl_cmd_name(cmd));
	} else if (reply->msg.status < 0) {
		const char *pos = NULL, *reason = ustcomm_ctl_next(&reply->msg, &pos);

		ret = reply->msg.status;
		ustctl_set_error("%s: %s", p->name,
				 reason && *reason ? reason : strerror(-ret));
	}
end:
	if (ret) {
		free(buf);
		buf = NULL;
	}
	reply->buf = buf;
	return ret;
}

int ustctl_call(pid_t pid, uint16_t cmd, const char *const *args, size_t nr_args,
		struct ustctl_reply *reply)
{
	return ustctl_call_longer(pid, cmd, args, nr_args, 0, reply);
}

static int call(pid_t pid, uint16_t cmd, const char *const *args, size_t nr_args, int extra_ms,
		struct ustctl_reply *reply);

int ustctl_call_longer(pid_t pid, uint16_t cmd, const char *const *args, size_t nr_args,
		       int extra_ms, struct ustctl_reply *reply)
{
	int ret;

	ustctl_request_begin();
	ret = call(pid, cmd, args, nr_args, extra_ms, reply);
	ustctl_request_end();
	return ret;
}

/* The deadline ms from now. */
static void deadline_in(struct timespec *deadline, int ms)
{
	clock_gettime(CLOCK_MONOTONIC, deadline);
	deadline->tv_sec += ms / 1000;
	deadline->tv_nsec += (ms % 1000) * 1000000L;
	if (deadline->tv_nsec >= 1000000000L) {
		deadline->tv_sec++;
		deadline->tv_nsec -= 1000000000L;
	}
}

/* One request and its reply on the connected fd, which it closes. */
static int converse(const struct peer *p, int fd, const char *path, uint16_t cmd,
		    const char *req, size_t req_len, const struct timespec *deadline, int ms,
		    struct ustctl_reply *reply)
{
	int ret = check_peer(p, fd, path);

	if (ret)
		goto end;
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0) {
		ret = -errno;
		ustctl_set_error("cannot talk to %s: %s", p->name, strerror(errno));
		goto end;
	}
	ret = send_request(p, cmd, fd, req, req_len, deadline, ms);
	if (!ret)
		ret = receive_reply(p, cmd, fd, deadline, ms, reply);
end:
	close(fd);
	return ret;
}

static int call(pid_t pid, uint16_t cmd, const char *const *args, size_t nr_args, int extra_ms,
		struct ustctl_reply *reply)
{
	int ms = __atomic_load_n(&timeout_ms, __ATOMIC_RELAXED);
	struct peer p = { .pid = pid };
	char path[PATH_MAX], *req = NULL;
	struct timespec deadline;
	size_t req_len;
	int fd, ret;

	memset(reply, 0, sizeof(*reply));
	ms = ms > INT_MAX - extra_ms ? INT_MAX : ms + extra_ms;
	if (pid <= 0) {
		ustctl_set_error("%d is not a process id", (int)pid);
		ret = -EINVAL;
		goto end;
	}
	snprintf(p.name, sizeof(p.name), "process %d", (int)pid);
	ret = encode_request(p.name, cmd, args, nr_args, &req, &req_len);
	if (ret)
		goto end;
	deadline_in(&deadline, ms);
	fd = connect_app(pid, cmd, path, sizeof(path), ms);
	if (fd < 0) {
		ret = fd;
		goto end;
	}
	ret = converse(&p, fd, path, cmd, req, req_len, &deadline, ms, reply);
end:
	free(req);
	return ret;
}

int ustctl_call_ustd(uint16_t cmd, const char *const *args, size_t nr_args, int extra_ms,
		     struct ustctl_reply *reply)
{
	int ms = __atomic_load_n(&timeout_ms, __ATOMIC_RELAXED);
	struct peer p = { .pid = 0, .name = "ustd" };
	char daemon[PATH_MAX], path[PATH_MAX], *req = NULL;
	struct timespec deadline;
	size_t req_len;
	int fd, ret;

	memset(reply, 0, sizeof(*reply));
	ustctl_request_begin();
	ms = ms > INT_MAX - extra_ms ? INT_MAX : ms + extra_ms;
	ret = ustcomm_daemon_socket_path(daemon, sizeof(daemon));
	if (!ret)
		ret = ustcomm_daemon_sibling_path(path, sizeof(path), daemon,
						  USTCOMM_SESSION_SOCKET_SUFFIX);
	if (ret) {
		ustctl_set_error("cannot tell where ustd's session socket is: set UST_DAEMON_SOCKET or UST_RUNDIR to a shorter path");
		goto end;
	}
	ret = encode_request(p.name, cmd, args, nr_args, &req, &req_len);
	if (ret)
		goto end;
	deadline_in(&deadline, ms);
	fd = ustcomm_connect_within(path, ms);
	if (fd < 0) {
		ret = fd;
		if (fd == -ENOENT || fd == -ECONNREFUSED)
			ustctl_set_error("no ustd serves sessions on %s: start ustd (ustd &), with the same UST_RUNDIR or UST_DAEMON_SOCKET", path);
		else
			ustctl_set_error("cannot connect to ustd on %s: %s", path, strerror(-fd));
		goto end;
	}
	ret = converse(&p, fd, path, cmd, req, req_len, &deadline, ms, reply);
end:
	free(req);
	ustctl_request_end();
	return ret;
}
