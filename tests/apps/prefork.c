/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A forking service: prefork WORKERS SECONDS. Keeps WORKERS worker
 * processes, replacing the oldest once a second (SIGTERM, reaped, a new
 * one forked), for SECONDS seconds. Each worker records ust:work (seq)
 * about every 500 us and, every 100 ms, starts /bin/true with fork() and
 * execv() and waits for it. "ready" once the first workers run; at the
 * end one line per worker "worker PID emitted N children C killed K" (C
 * programs started, K of them killed by a signal), then "workers W
 * killed K" (workers that did not end with status 0), and exit 0.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <ust/marker.h>

#define MAX_WORKERS 64

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static int run_true(void)
{
	char *argv[] = { "/bin/true", NULL };
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 0;
	return WIFSIGNALED(status);
}

/* The worker's life; its report goes to fd, one line, before it exits. */
static void worker(int fd)
{
	struct timespec tick = { 0, 500000L };
	int seq = 0, children = 0, killed = 0;
	char line[128];
	int n;

	while (!stop) {
		trace_mark(ust, work, "seq %d", seq);
		seq++;
		if (seq % 200 == 0) {
			children++;
			killed += run_true();
		}
		nanosleep(&tick, NULL);
	}
	n = snprintf(line, sizeof(line), "worker %d emitted %d children %d killed %d\n",
		     (int)getpid(), seq, children, killed);
	if (write(fd, line, (size_t)n) != n)
		_exit(1);
	_exit(0);
}

static pid_t spawn(int fd)
{
	pid_t pid = fork();

	if (pid == 0)
		worker(fd);
	return pid;
}

/* SIGTERM to the worker, then its status: 1 when it did not end well. */
static int retire(pid_t pid)
{
	int status;

	kill(pid, SIGTERM);
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFSIGNALED(status))
		fprintf(stderr, "prefork: worker %d killed by signal %d\n", (int)pid, WTERMSIG(status));
	else
		fprintf(stderr, "prefork: worker %d exited with %d\n", (int)pid, WEXITSTATUS(status));
	return 1;
}

int main(int argc, char **argv)
{
	int nw = argc > 1 ? atoi(argv[1]) : 4, seconds = argc > 2 ? atoi(argv[2]) : 5;
	struct sigaction sa = { .sa_handler = on_term };
	pid_t workers[MAX_WORKERS];
	int fds[2], i, s, oldest = 0, total = 0, bad = 0;
	char buf[4096];
	ssize_t n;

	if (nw < 1 || nw > MAX_WORKERS || pipe(fds) < 0) {
		fprintf(stderr, "usage: prefork WORKERS(1-%d) SECONDS\n", MAX_WORKERS);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Installed before any fork: a worker retired at once still ends well. */
	sigaction(SIGTERM, &sa, NULL);
	for (i = 0; i < nw; i++, total++)
		workers[i] = spawn(fds[1]);
	printf("ready\n");
	for (s = 0; s < seconds; s++) {
		sleep(1);
		bad += retire(workers[oldest]);
		workers[oldest] = spawn(fds[1]);
		total++;
		oldest = (oldest + 1) % nw;
	}
	for (i = 0; i < nw; i++)
		bad += retire(workers[i]);
	close(fds[1]);
	while ((n = read(fds[0], buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)n, stdout);
	printf("workers %d killed %d\n", total, bad);
	return 0;
}
