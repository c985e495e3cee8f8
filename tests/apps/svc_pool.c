/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A forking service whose workers are programs of their own:
 *   svc_pool serve WORKERS EVENTS	the service
 *   svc_pool work EVENTS		a worker (what the service runs)
 * Every event of a process carries "seq", numbered from 0 in that
 * process, whatever the event, so that (pid, seq) names each event once.
 *
 * A worker records svc:work EVENTS times, one a millisecond, and exits 0:
 * a worker lives about a second. The service keeps WORKERS of them, each
 * replaced by a new one as it ends, started alternately with fork()+execv()
 * and with posix_spawn() (glibc's runs no atfork handler). Its own loop
 * records svc:tick once a millisecond and reads commands on stdin:
 *   error		records svc:error, prints "error SEQ"
 *   burst N		records N svc:tick as fast as it can (a pause of 1 ms
 *			every 200), prints "burst FIRST LAST"
 * It prints "started PID exec|spawn" as it starts each worker, "ready"
 * once the first ones run. The end of its input ends it: no more workers
 * are started, the running ones are waited for, then it prints
 * "worker PID exec|spawn STATUS" per worker and "service emitted N" (its
 * events: seq 0..N-1), and exits 0.
 */
#include <limits.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <ust/marker.h>

#define MAX_RUNNING 16
#define MAX_STARTED 4096

extern char **environ;

struct worker {
	pid_t pid;
	int spawned;	/* posix_spawn(), else fork()+execv() */
	int status;
};

static struct worker started[MAX_STARTED];
static int nr_started;
static char self[PATH_MAX];
static char *work_argv[4];
static unsigned seq;

static int work(int events)
{
	struct timespec ms = { 0, 1000000L };
	int i;

	for (i = 0; i < events; i++) {
		trace_mark(svc, work, "seq %u", seq++);
		nanosleep(&ms, NULL);
	}
	return 0;
}

static int start_worker(void)
{
	struct worker *w = &started[nr_started];
	pid_t pid;

	if (nr_started == MAX_STARTED)
		return -1;
	w->spawned = nr_started % 2;
	if (w->spawned) {
		if (posix_spawn(&pid, self, NULL, NULL, work_argv, environ))
			return -1;
	} else {
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			execv(self, work_argv);
			_exit(127);
		}
		if (pid < 0)
			return -1;
	}
	w->pid = pid;
	w->status = -1;
	nr_started++;
	printf("started %d %s\n", (int)pid, w->spawned ? "spawn" : "exec");
	fflush(stdout);
	return 0;
}

/* Notes the status of the worker that ended; 1 when it was one of ours. */
static int note_end(pid_t pid, int status)
{
	int i;

	for (i = 0; i < nr_started; i++) {
		if (started[i].pid == pid) {
			started[i].status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
			return 1;
		}
	}
	return 0;
}

static void command(const char *line)
{
	struct timespec ms = { 0, 1000000L };
	unsigned first, i, n;

	if (!strncmp(line, "error", 5)) {
		trace_mark(svc, error, "seq %u", seq);
		printf("error %u\n", seq++);
	} else if (sscanf(line, "burst %u", &n) == 1) {
		first = seq;
		for (i = 0; i < n; i++) {
			trace_mark(svc, tick, "seq %u", seq++);
			if (i % 200 == 199)
				nanosleep(&ms, NULL);
		}
		printf("burst %u %u\n", first, seq - 1);
	} else {
		fprintf(stderr, "svc_pool: unknown command %s", line);
	}
	fflush(stdout);
}

static int serve(int nw)
{
	struct pollfd in = { .fd = STDIN_FILENO, .events = POLLIN };
	int i, running, status, open_input = 1;
	char line[128];
	pid_t pid;

	for (i = 0; i < nw; i++)
		if (start_worker() < 0)
			return 1;
	running = nw;
	printf("ready\n");
	fflush(stdout);
	while (running) {
		trace_mark(svc, tick, "seq %u", seq++);
		if (open_input && poll(&in, 1, 1) > 0) {
			if (fgets(line, sizeof(line), stdin))
				command(line);
			else
				open_input = 0;
		} else if (!open_input) {
			usleep(1000);
		}
		while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
			if (!note_end(pid, status))
				continue;
			running--;
			if (open_input && start_worker() == 0)
				running++;
		}
	}
	for (i = 0; i < nr_started; i++)
		printf("worker %d %s %d\n", (int)started[i].pid,
		       started[i].spawned ? "spawn" : "exec", started[i].status);
	printf("service emitted %u\n", seq);
	return 0;
}

int main(int argc, char **argv)
{
	ssize_t n;

	if (argc == 4 && !strcmp(argv[1], "serve") && atoi(argv[2]) > 0 &&
	    atoi(argv[2]) <= MAX_RUNNING) {
		n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n <= 0)
			return 1;
		self[n] = '\0';
		work_argv[0] = self;
		work_argv[1] = "work";
		work_argv[2] = argv[3];
		return serve(atoi(argv[2]));
	}
	if (argc == 3 && !strcmp(argv[1], "work"))
		return work(atoi(argv[2]));
	fprintf(stderr, "usage: svc_pool serve WORKERS(1-%d) EVENTS | svc_pool work EVENTS\n",
		MAX_RUNNING);
	return 2;
}
