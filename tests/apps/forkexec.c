/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A traced program that starts other programs the ways services do:
 *   forkexec fork|vfork|system|daemon N PROGRAM [ARGS...]
 * Records ust:forkexec (seq) before each start, starts PROGRAM N times
 * one after another (fork()+execv(), vfork()+execv(), system() of the
 * words joined, or a double fork whose grandchild, in a session of its
 * own, execs PROGRAM while its parent exits) and waits for each (not for
 * a daemon's grandchild). Prints "children N exited E signalled S" and
 * exits 0.
 *   forkexec stamp
 * prints how long ago, in microseconds, FORKEXEC_T0 (CLOCK_MONOTONIC
 * nanoseconds, set by the parent just before fork) was: the time from
 * fork() to this main(); then, on the same line, the page faults its
 * main thread took before main() (RUSAGE_THREAD's minor faults): the
 * pages the constructors touched, which no machine's load changes, and
 * not those a listener thread may be making beside it.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <ust/marker.h>

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static void set_t0(void)
{
	char t0[32];

	snprintf(t0, sizeof(t0), "%llu", now_ns());
	setenv("FORKEXEC_T0", t0, 1);
}

static pid_t start(const char *mode, char **argv)
{
	pid_t pid;

	set_t0();
	pid = strcmp(mode, "vfork") ? fork() : vfork();
	if (pid != 0)
		return pid;
	if (!strcmp(mode, "daemon")) {
		setsid();
		if (fork() != 0)
			_exit(0);
	}
	execv(argv[0], argv);
	_exit(127);
}

static int run_system(char **argv)
{
	char cmd[4096] = "";
	size_t len = 0;
	int i;

	for (i = 0; argv[i]; i++)
		len += (size_t)snprintf(cmd + len, sizeof(cmd) - len, "%s'%s'", i ? " " : "", argv[i]);
	set_t0();
	return system(cmd);
}

int main(int argc, char **argv)
{
	int i, n, status, exited = 0, signalled = 0;
	struct rusage ru;
	const char *t0;
	pid_t pid;

	if (argc == 2 && !strcmp(argv[1], "stamp")) {
		t0 = getenv("FORKEXEC_T0");
		getrusage(RUSAGE_THREAD, &ru);
		printf("%llu %ld\n", t0 ? (now_ns() - strtoull(t0, NULL, 10)) / 1000ull : 0ull,
		       ru.ru_minflt);
		return 0;
	}
	if (argc < 4) {
		fprintf(stderr, "usage: forkexec fork|vfork|system|daemon N PROGRAM [ARGS...]\n"
			"       forkexec stamp\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	n = atoi(argv[2]);
	for (i = 0; i < n; i++) {
		trace_mark(ust, forkexec, "seq %d", i);
		if (!strcmp(argv[1], "system")) {
			status = run_system(argv + 3);
		} else {
			pid = start(argv[1], argv + 3);
			if (pid < 0 || waitpid(pid, &status, 0) != pid) {
				perror("forkexec");
				return 1;
			}
		}
		if (WIFSIGNALED(status)) {
			signalled++;
			fprintf(stderr, "forkexec: child %d killed by signal %d\n", i, WTERMSIG(status));
		} else if (WIFEXITED(status)) {
			exited++;
		}
	}
	printf("children %d exited %d signalled %d\n", n, exited, signalled);
	return 0;
}
