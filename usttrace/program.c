/* SPDX-License-Identifier: GPL-2.0-only */
/* Running the traced program under the environment that traces it, and
 * waiting for it (and, with -f, for every descendant). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "libustcomm/log.h"
#include "libustcomm/pattern.h"
#include "usttrace/program.h"
#include "usttrace/signals.h"

int usttrace_exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

void usttrace_describe_status(char *buf, size_t len, int status)
{
	if (WIFEXITED(status))
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "was killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(buf, len, "ended with wait status %#x", status);
}

pid_t usttrace_wait(pid_t pid, int *status)
{
	pid_t ret;

	do
		ret = waitpid(pid, status, 0);
	while (ret < 0 && errno == EINTR);
	return ret;
}

/* In the program's process, before exec. */
static void usttrace_setenv_program(const struct usttrace *ut)
{
	char pid[16];

	setenv("UST_TRACE", "1", 1);
	if (ut->follow) {
		unsetenv("UST_TRACE_PID");
	} else {
		snprintf(pid, sizeof(pid), "%d", (int)getpid());
		setenv("UST_TRACE_PID", pid, 1);
	}
	if (ut->overwrite)
		setenv("UST_OVERWRITE", "1", 1);
	setenv("UST_AUTOPROBE", ut->autoprobe.len ? ut->autoprobe.buf : "1", 1);
	if (ut->channels.len)
		setenv("UST_CHANNELS", ut->channels.buf, 1);
	setenv("UST_DAEMON_SOCKET", ut->sock_path, 1);
	if (ut->subbuf_size)
		setenv("UST_SUBBUF_SIZE", ut->subbuf_size, 1);
	if (ut->subbuf_num)
		setenv("UST_SUBBUF_NUM", ut->subbuf_num, 1);
	if (ut->func_record.len)
		setenv("UST_FUNC_RECORD", ut->func_record.buf, 1);
	/* --thread-buffers 0 too: off means off, whatever UST_THREAD_BUFFERS
	 * the environment passed down. */
	if (ut->thread_buffers_all || ut->nr_thread_buffers) {
		char spec[32];

		if (ut->thread_buffers_all)
			snprintf(spec, sizeof(spec), "%u", ut->nr_thread_buffers);
		else
			snprintf(spec, sizeof(spec), USTCOMM_FUNC_CHANNEL ":%u",
				 ut->nr_thread_buffers);
		setenv("UST_THREAD_BUFFERS", spec, 1);
	}
	if (ut->plt.on)
		usttrace_plt_setenv(&ut->plt);
}

/* Are our children only ustd (or nobody)? Orphaned descendants are
 * reparented to us before their parent can be reaped, so then every
 * descendant has exited. */
int usttrace_only_ustd_left(const struct usttrace *ut)
{
	char path[64], buf[4096];
	ssize_t n;
	char *p, *end;
	long pid;
	int fd, only = 1;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)getpid(), (int)getpid());
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	for (p = buf; *p; p = end) {
		pid = strtol(p, &end, 10);
		if (end == p)
			break;
		if (pid != ut->ustd_pid)
			only = 0;
	}
	return only;
}

/* -f: reaps every descendant until none is left; the program's status in *status. */
static void usttrace_wait_all(struct usttrace *ut, pid_t program, int *status)
{
	char text[128];
	pid_t pid;
	int st;

	for (;;) {
		if (usttrace_only_ustd_left(ut) == 1)
			break;
		pid = waitpid(-1, &st, 0);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break;		/* ECHILD: nobody left, not even ustd (-s) */
		}
		if (pid == program) {
			*status = st;
			usttrace_program_pid = 0;
		} else if (pid == ut->ustd_pid) {
			usttrace_describe_status(text, sizeof(text), st);
			ustcomm_err("ustd %s while the programs ran; their traces may be incomplete",
				    text);
			ut->ustd_pid = 0;
		}
	}
}

/*
 * Runs the program and waits for it. Returns 0 with its wait status in
 * *status, -EINTR when a signal came before it was started, or the negative
 * errno its exec failed with (said on stderr).
 */
int usttrace_run_program(struct usttrace *ut, pid_t *pid, int *status)
{
	int pipefd[2], err, n, ret = 0;
	sigset_t old;

	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		ret = -errno;
		ustcomm_err("pipe: %s", strerror(errno));
		return ret;
	}
	/* Until its pid is known, a signal for the program waits. */
	usttrace_block_signals(&old);
	if (usttrace_got_signal) {
		ret = -EINTR;
		goto unblock;
	}
	*pid = fork();
	if (*pid < 0) {
		ret = -errno;
		ustcomm_err("fork: %s", strerror(errno));
		goto unblock;
	}
	if (*pid == 0) {
		close(pipefd[0]);
		usttrace_restore_signals();
		sigprocmask(SIG_SETMASK, &old, NULL);
		usttrace_setenv_program(ut);
		execvp(ut->argv[0], ut->argv);
		err = errno;
		while (write(pipefd[1], &err, sizeof(err)) < 0 && errno == EINTR)
			;
		_exit(err == EACCES ? USTTRACE_EXIT_CANNOT_RUN : USTTRACE_EXIT_NOT_FOUND);
	}
	usttrace_program_pid = *pid;
unblock:
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(pipefd[1]);
	if (ret == 0) {
		/* Close-on-exec: end of file means the program is running. */
		do
			n = read(pipefd[0], &err, sizeof(err));
		while (n < 0 && errno == EINTR);
		if (ut->follow && n != (int)sizeof(err))
			usttrace_wait_all(ut, *pid, status);
		else
			usttrace_wait(*pid, status);
		usttrace_program_pid = 0;
		if (n == (int)sizeof(err)) {
			ustcomm_err("cannot run %s: %s", ut->argv[0], strerror(err));
			ret = -err;
		}
	}
	close(pipefd[0]);
	return ret;
}
