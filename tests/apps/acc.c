/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A single-threaded program whose one thread takes every control signal:
 *   acc [-i MICROSECONDS] [-f]
 * Each loop fires acc:sum (field n) and acc:tag (field m), so that a
 * filter on n or m fits one event of acc:* and not the other. SIGUSR1
 * prints "loops N" on stdout from the handler, so a test sees whether the
 * loop still advances; SIGTERM ends it after printing "loops N". -f forks
 * once, on SIGUSR2 (the test sends it once it has set the scene, however
 * slow the machine), a child that records one event and ends, and prints
 * "forked exit STATUS" or "forked signal NUMBER".
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <ust/marker.h>

static volatile sig_atomic_t stop, fork_now;
static volatile unsigned long loops;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void on_usr2(int sig)
{
	(void)sig;
	fork_now = 1;
}

/* Async-signal-safe: formats by hand, one write(). */
static void on_usr1(int sig)
{
	char buf[32], digits[24];
	unsigned long v = loops;
	size_t n = 0, len;

	(void)sig;
	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	memcpy(buf, "loops ", 6);
	for (len = 6; n; len++)
		buf[len] = digits[--n];
	buf[len++] = '\n';
	if (write(STDOUT_FILENO, buf, len) < 0)
		return;
}

int main(int argc, char **argv)
{
	struct sigaction term = { .sa_handler = on_term }, usr1 = { .sa_handler = on_usr1 };
	struct sigaction usr2 = { .sa_handler = on_usr2, .sa_flags = SA_RESTART };
	long interval_us = 1000;
	int opt, do_fork = 0;
	struct timespec ts;

	while ((opt = getopt(argc, argv, "i:f")) != -1) {
		switch (opt) {
		case 'i':
			interval_us = atol(optarg);
			break;
		case 'f':
			do_fork = 1;
			break;
		default:
			fprintf(stderr, "usage: acc [-i MICROSECONDS] [-f]\n");
			return 2;
		}
	}
	usr1.sa_flags = SA_RESTART;
	sigaction(SIGTERM, &term, NULL);
	sigaction(SIGUSR1, &usr1, NULL);
	sigaction(SIGUSR2, &usr2, NULL);
	ts.tv_sec = interval_us / 1000000;
	ts.tv_nsec = (interval_us % 1000000) * 1000;
	printf("ready\n");
	fflush(stdout);
	while (!stop) {
		trace_mark(acc, sum, "n %lu", loops);
		trace_mark(acc, tag, "m %lu", loops);
		loops++;
		nanosleep(&ts, NULL);
		if (do_fork && fork_now) {
			pid_t pid = fork();
			int status = 0;

			do_fork = 0;
			if (pid == 0) {
				/* Its first event starts its trace (libust/trace_fork.c). */
				trace_mark(acc, sum, "n %lu", loops);
				_exit(0);
			}
			if (pid < 0 || waitpid(pid, &status, 0) != pid)
				printf("fork failed\n");
			else if (WIFSIGNALED(status))
				printf("forked signal %d\n", WTERMSIG(status));
			else
				printf("forked exit %d\n", WEXITSTATUS(status));
			fflush(stdout);
		}
	}
	printf("loops %lu\n", loops);
	return 0;
}
