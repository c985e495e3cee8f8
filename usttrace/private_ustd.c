/* SPDX-License-Identifier: GPL-2.0-only */
/* The private ustd usttrace starts (or the user's, with -s), its run
 * directory, and its end. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "libustcomm/log.h"
#include "libustcomm/protocol.h"
#include "libustcomm/rundir.h"
#include "usttrace/private_ustd.h"
#include "usttrace/program.h"
#include "usttrace/signals.h"

#define USTTRACE_READY_TIMEOUT_MS	10000

/* Is anything listening on path? */
static bool usttrace_ustd_listening(const char *path)
{
	int fd = ustcomm_connect(path);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* A private run directory, inside the user's when its path leaves room for
 * the socket name, else in /tmp. */
static int usttrace_make_rundir(struct usttrace *ut)
{
	struct sockaddr_un addr;
	char base[PATH_MAX];
	int n;

	if (ustcomm_rundir(base, sizeof(base)) < 0 ||
	    strlen(base) + sizeof("/usttrace-XXXXXX/ustd") > sizeof(addr.sun_path))
		snprintf(base, sizeof(base), "/tmp");
	n = snprintf(ut->rundir, sizeof(ut->rundir), "%s/usttrace-XXXXXX", base);
	if (n < 0 || (size_t)n >= sizeof(ut->rundir))
		return -ENAMETOOLONG;
	if (!mkdtemp(ut->rundir)) {
		n = -errno;
		ustcomm_err("cannot create a private run directory in %s: %s", base,
			    strerror(-n));
		ut->rundir[0] = '\0';
		return n;
	}
	snprintf(ut->sock_path, sizeof(ut->sock_path), "%s/ustd", ut->rundir);
	return 0;
}

/*
 * $UST_USTD, else the ustd installed next to usttrace, else the ustd of the
 * build tree usttrace runs from (usttrace/usttrace beside ustd/ustd, or
 * usttrace/.libs/usttrace under libtool), else ustd in PATH: so that the
 * tools of a build tree work together without any setting.
 */
static void usttrace_find_ustd(char *buf, size_t len)
{
	static const char *const beside[] = { "ustd", "../ustd/ustd", "../../ustd/ustd" };
	const char *env = getenv("UST_USTD");
	char exe[PATH_MAX];
	ssize_t n;
	char *slash;
	size_t i;

	if (env && env[0]) {
		snprintf(buf, len, "%s", env);
		return;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			slash[1] = '\0';
			for (i = 0; i < sizeof(beside) / sizeof(beside[0]); i++) {
				if ((size_t)snprintf(buf, len, "%s%s", exe, beside[i]) < len &&
				    access(buf, X_OK) == 0)
					return;
			}
		}
	}
	snprintf(buf, len, "ustd");
}

static void usttrace_exec_ustd(struct usttrace *ut, const char *ustd, int ready_fd,
			       pid_t parent)
{
	char fd_arg[16];
	const char *argv[14] = { ustd, "-o", ut->output, "-s", ut->sock_path,
				 "--ready-fd", fd_arg };
	int argc = 7;

	if (ut->relay) {
		argv[argc++] = "--relay";
		argv[argc++] = ut->relay;
	}
	if (ut->live_timer) {
		argv[argc++] = "--live-timer";
		argv[argc++] = ut->live_timer;
	}
	if (ut->relay_backlog) {
		argv[argc++] = "--relay-backlog";
		argv[argc++] = ut->relay_backlog;
	}
	if (ut->verbose)
		argv[argc++] = "-v";

	/* ustd must finish when usttrace says so, not when the terminal's ^C
	 * reaches the foreground group, and must not outlive usttrace. */
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(1);
	usttrace_restore_signals();
	snprintf(fd_arg, sizeof(fd_arg), "%d", ready_fd);
	if (strchr(ustd, '/'))
		execv(ustd, (char **)argv);
	else
		execvp(ustd, (char **)argv);
	ustcomm_err("cannot run %s: %s; set UST_USTD to the path of ustd", ustd, strerror(errno));
	_exit(127);
}

/* Waits, boundedly, for the ready byte of ustd. */
static int usttrace_wait_ready(struct usttrace *ut, int fd)
{
	struct timespec start, now;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char status_text[128], byte;
	long elapsed = 0;
	int status, n, ret = 0;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		n = poll(&pfd, 1, (int)(USTTRACE_READY_TIMEOUT_MS - elapsed));
		if (n > 0)
			break;
		if (n < 0 && errno != EINTR) {
			ret = -errno;
			ustcomm_err("waiting for ustd: %s", strerror(errno));
			goto end;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		elapsed = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
		if (elapsed >= USTTRACE_READY_TIMEOUT_MS) {
			ustcomm_err("ustd (pid %d) was not ready within %d s; giving up",
				    (int)ut->ustd_pid, USTTRACE_READY_TIMEOUT_MS / 1000);
			kill(ut->ustd_pid, SIGKILL);
			usttrace_wait(ut->ustd_pid, &status);
			ut->ustd_pid = 0;
			ret = -ETIMEDOUT;
			goto end;
		}
	}
	do
		n = read(fd, &byte, 1);
	while (n < 0 && errno == EINTR);
	if (n == 1)
		goto end;
	/* End of file: ustd exited (or closed the pipe) without being ready. */
	usttrace_wait(ut->ustd_pid, &status);
	ut->ustd_pid = 0;
	usttrace_describe_status(status_text, sizeof(status_text), status);
	ustcomm_err("ustd %s before it was ready", status_text);
	ret = -ECHILD;
end:
	return ret;
}

static int usttrace_start_ustd(struct usttrace *ut)
{
	char ustd[PATH_MAX];
	pid_t parent = getpid();
	int pipefd[2], ready_fd, ret;

	usttrace_find_ustd(ustd, sizeof(ustd));
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		ret = -errno;
		ustcomm_err("pipe: %s", strerror(errno));
		return ret;
	}
	ut->ustd_pid = fork();
	if (ut->ustd_pid < 0) {
		ret = -errno;
		ustcomm_err("fork: %s", strerror(errno));
		ut->ustd_pid = 0;
		close(pipefd[0]);
		close(pipefd[1]);
		return ret;
	}
	if (ut->ustd_pid == 0) {
		/* dup() drops close-on-exec: only ustd gets this end. */
		ready_fd = dup(pipefd[1]);
		if (ready_fd < 0)
			_exit(127);
		usttrace_exec_ustd(ut, ustd, ready_fd, parent);
	}
	close(pipefd[1]);
	ret = usttrace_wait_ready(ut, pipefd[0]);
	close(pipefd[0]);
	if (ret == 0 && ut->verbose)
		fprintf(stderr, "usttrace: private ustd (pid %d, %s) listening on %s\n",
			(int)ut->ustd_pid, ustd, ut->sock_path);
	return ret;
}

/* Has the private ustd write out everything and waits for it. */
/*
 * ustd writes what its programs left in their buffers before it exits on
 * SIGTERM: milliseconds, seconds for a slow disk. The wait has a bound all
 * the same: past USTTRACE_USTD_SAY_MS the user is told what usttrace waits
 * for, past USTTRACE_USTD_KILL_MS ustd is killed and that is said.
 */
#define USTTRACE_USTD_SAY_MS	10000
#define USTTRACE_USTD_KILL_MS	60000

/* Whether pid exited within ms (pidfd; without one, a wait in 10 ms steps). */
static bool usttrace_exits_within(pid_t pid, int ms)
{
	struct pollfd pfd = { .fd = -1, .events = POLLIN };
	siginfo_t si;
	bool gone = false;

#ifdef SYS_pidfd_open
	pfd.fd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
	if (pfd.fd >= 0) {
		/* A second Ctrl-C interrupts the poll: waited for anyway,
		 * in 100 ms steps, so that the bound stays. */
		for (; ms > 0 && !gone; ms -= 100) {
			int n = poll(&pfd, 1, ms < 100 ? ms : 100);

			gone = n > 0;
		}
		close(pfd.fd);
		return gone;
	}
	for (; ms > 0 && !gone; ms -= 10) {
		si.si_pid = 0;
		gone = waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
			si.si_pid == pid;
		if (!gone)
			poll(NULL, 0, 10);
	}
	return gone;
}

static pid_t usttrace_wait_ustd(pid_t pid, int *status)
{
	if (!usttrace_exits_within(pid, USTTRACE_USTD_SAY_MS)) {
		ustcomm_err("still waiting for ustd (pid %d) to write the trace out", (int)pid);
		if (!usttrace_exits_within(pid, USTTRACE_USTD_KILL_MS - USTTRACE_USTD_SAY_MS)) {
			ustcomm_err("ustd (pid %d) did not finish within %d s of SIGTERM: killed; the trace may be incomplete",
				    (int)pid, USTTRACE_USTD_KILL_MS / 1000);
			kill(pid, SIGKILL);
		}
	}
	return usttrace_wait(pid, status);
}

void usttrace_stop_ustd(struct usttrace *ut)
{
	char text[128];
	int status;

	if (ut->ustd_pid <= 0)
		return;
	kill(ut->ustd_pid, SIGTERM);
	if (usttrace_wait_ustd(ut->ustd_pid, &status) > 0 &&
	    !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		usttrace_describe_status(text, sizeof(text), status);
		ustcomm_err("ustd %s; the trace may be incomplete", text);
	}
	ut->ustd_pid = 0;
}

void usttrace_remove_rundir(struct usttrace *ut)
{
	if (!ut->rundir[0])
		return;
	/* ustd removes its socket when it exits cleanly. */
	if (unlink(ut->sock_path) < 0 && errno != ENOENT)
		ustcomm_err("cannot remove %s: %s", ut->sock_path, strerror(errno));
	if (rmdir(ut->rundir) < 0)
		ustcomm_err("cannot remove %s: %s", ut->rundir, strerror(errno));
}

int usttrace_prepare(struct usttrace *ut)
{
	struct tm tm;
	time_t now = time(NULL);
	int ret;

	strftime(ut->start_stamp, sizeof(ut->start_stamp), "%Y%m%d-%H%M%S",
		 localtime_r(&now, &tm));
	if (ut->shared) {
		ret = ustcomm_daemon_socket_path(ut->sock_path, sizeof(ut->sock_path));
		if (ret < 0)
			return ret;
		if (!usttrace_ustd_listening(ut->sock_path)) {
			ustcomm_err("no ustd is listening on %s: start `ustd` or drop -s",
				    ut->sock_path);
			return -ENOENT;
		}
		return 0;
	}
	if (ut->output_arg) {
		snprintf(ut->output, sizeof(ut->output), "%s", ut->output_arg);
	} else if (ustcomm_default_output_dir(ut->output, sizeof(ut->output)) < 0) {
		ustcomm_err("cannot tell the home directory: give the output directory with -o");
		return -ENOENT;
	}
	ret = usttrace_make_rundir(ut);
	if (ret < 0)
		return ret;
	return usttrace_start_ustd(ut);
}
