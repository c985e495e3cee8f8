/* SPDX-License-Identifier: GPL-2.0-only */
/* usttrace -p PID: a running program traced until Ctrl-C. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "libustcomm/log.h"
#include "usttrace/attach.h"
#include "usttrace/private_ustd.h"
#include "usttrace/report.h"
#include "usttrace/settings.h"
#include "usttrace/signals.h"

/* -p: the name of the trace usttrace creates in the program, apart from
 * its own (auto) and those of ustctl users. */
static void usttrace_attach_trace_name(char *buf, size_t len)
{
	snprintf(buf, len, "usttrace-%d", (int)getpid());
}

/* Is the program gone (exited, a zombie included)? pidfd says so when
 * the kernel has it; else its state in /proc. */
static bool usttrace_attach_gone(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return true;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && (p[2] == 'Z' || p[2] == 'X');
}

/* Until a signal or until the program is gone: true when it is gone. */
static bool usttrace_attach_wait(pid_t pid)
{
	struct pollfd pfd = { .fd = -1, .events = POLLIN };
	int n;

#ifdef SYS_pidfd_open
	pfd.fd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
	while (!usttrace_got_signal) {
		if (pfd.fd >= 0) {
			n = poll(&pfd, 1, 1000);
			if (n > 0)
				break;
		} else {
			poll(NULL, 0, 100);
		}
		if (usttrace_attach_gone(pid))
			break;
	}
	if (pfd.fd >= 0)
		close(pfd.fd);
	return !usttrace_got_signal || usttrace_attach_gone(pid);
}

/* -p: the rules of the -m patterns (all events without), with --filter
 * and the log level, in the program's trace. */
static int usttrace_attach_rules(struct usttrace *ut, const char *trace)
{
	const char *level = ut->loglevel ? ut->loglevel : ut->loglevel_only;
	struct ustctl_rule rule;
	char *copy, *tok, *save = NULL;
	pid_t pid = ut->attach_pid;
	int ret = 0, matched;

	copy = usttrace_rule_patterns(ut, &rule);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (level || ut->filter) {
			rule.pattern = tok;
			ret = ustctl_enable_rule(pid, trace, &rule);
		} else {
			const char *patterns[1] = { tok };

			ret = ustctl_enable_marker_matches(pid, trace, patterns, 1, &matched);
			if (ret >= 0 && matched == 0)
				ustcomm_warn("pid %d: pattern '%s' matches no event of the program now",
					     (int)pid, tok);
		}
		if (ret < 0) {
			ustcomm_err("pid %d: -m %s: %s", (int)pid, tok, ustctl_last_error());
			break;
		}
	}
	free(copy);
	return ret < 0 ? ret : 0;
}

/* -p: the --context ones, for every channel. */
static int usttrace_attach_contexts(struct usttrace *ut, const char *trace)
{
	char *copy, *tok, *save = NULL;
	int ret = 0;

	if (!ut->contexts.len)
		return 0;
	copy = strdup(ut->contexts.buf);
	if (!copy) {
		ustcomm_err("out of memory");
		return -ENOMEM;
	}
	for (tok = strtok_r(copy, "+", &save); tok; tok = strtok_r(NULL, "+", &save)) {
		ret = ustctl_add_context(ut->attach_pid, trace, "*", tok);
		if (ret < 0 && ret != -EEXIST) {
			ustcomm_err("pid %d: --context %s: %s", (int)ut->attach_pid, tok,
				    ustctl_last_error());
			break;
		}
		ret = 0;
	}
	free(copy);
	return ret;
}

/*
 * usttrace -p PID: points the program at the private ustd (unless -s),
 * creates a trace of its own in it with the -m rules, starts it, and
 * waits for Ctrl-C (SIGINT, SIGTERM, SIGHUP) or for the program to exit;
 * then stops and destroys the trace (destroy returns once ustd has it on
 * disk) and gives the program back its ustd. Returns usttrace's status.
 */
int usttrace_attach(struct usttrace *ut)
{
	pid_t pid = ut->attach_pid;
	char trace[64], *old_sock = NULL;
	bool created = false, gone;
	int ret, rc = USTTRACE_EXIT_FAILURE;

	if (kill(pid, 0) < 0 && errno == ESRCH) {
		ustcomm_err("-p %d: no such process", (int)pid);
		return USTTRACE_EXIT_FAILURE;
	}
	/* Is it a program with libust, and can we talk to it? */
	ret = ustctl_get_sock_path(pid, &old_sock);
	if (ret < 0) {
		ustcomm_err("-p %d: %s", (int)pid, ustctl_last_error());
		return USTTRACE_EXIT_FAILURE;
	}
	if (usttrace_prepare(ut) < 0)
		goto out;
	usttrace_attach_trace_name(trace, sizeof(trace));
	if (!ut->shared && ustctl_set_sock_path(pid, ut->sock_path) < 0) {
		ustcomm_err("pid %d: cannot point it at the private ustd: %s", (int)pid,
			    ustctl_last_error());
		goto out;
	}
	if (ustctl_create_trace(pid, trace) < 0) {
		ustcomm_err("pid %d: cannot create trace %s: %s", (int)pid, trace,
			    ustctl_last_error());
		goto restore;
	}
	created = true;
	if (usttrace_attach_contexts(ut, trace) < 0 || usttrace_attach_rules(ut, trace) < 0)
		goto destroy;
	if (ustctl_start_trace(pid, trace) < 0) {
		ustcomm_err("pid %d: cannot start trace %s: %s", (int)pid, trace,
			    ustctl_last_error());
		goto destroy;
	}
	fprintf(stderr, "usttrace: tracing pid %d; Ctrl-C to stop\n", (int)pid);
	gone = usttrace_attach_wait(pid);
	if (gone) {
		/* Its libust wrote the trace out at exit. */
		fprintf(stderr, "usttrace: pid %d has exited\n", (int)pid);
		created = false;
	} else if (ut->verbose) {
		fprintf(stderr, "usttrace: %s: stopping the trace of pid %d\n",
			strsignal(usttrace_got_signal), (int)pid);
	}
	rc = 0;
	if (created && ustctl_stop_trace(pid, trace) < 0 && !usttrace_attach_gone(pid)) {
		ustcomm_err("pid %d: cannot stop trace %s: %s", (int)pid, trace,
			    ustctl_last_error());
		rc = USTTRACE_EXIT_FAILURE;
	}
destroy:
	if (created && ustctl_destroy_trace(pid, trace) < 0 && !usttrace_attach_gone(pid)) {
		ustcomm_err("pid %d: cannot destroy trace %s: %s; the trace may be incomplete",
			    (int)pid, trace, ustctl_last_error());
		rc = USTTRACE_EXIT_FAILURE;
	}
restore:
	if (!ut->shared && !usttrace_attach_gone(pid) &&
	    ustctl_set_sock_path(pid, old_sock) < 0)
		ustcomm_err("pid %d: cannot point it back at %s: %s", (int)pid, old_sock,
			    ustctl_last_error());
	usttrace_stop_ustd(ut);
	if (rc == 0)
		usttrace_finish(ut, pid, 0);
out:
	free(old_sock);
	return rc;
}
