/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A traced program that starts another program without fork()'s atfork
 * handlers:  spawner vfork|spawn PROGRAM [ARGS...]
 * A thread emits ust:spawner_busy while the main thread emits ust:spawner
 * (seq 0..99), starts PROGRAM with vfork()+execv() or posix_spawn(), waits
 * for it, emits ust:spawner (seq 100..199) and exits with its status.
 */
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <ust/marker.h>

extern char **environ;

static volatile int stop;

static void *busy(void *arg)
{
	unsigned long n = 0;

	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		trace_mark(ust, spawner_busy, "seq %lu", n++);
		usleep(100);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t tid;
	int i, status;
	pid_t pid;

	if (argc < 3 || (strcmp(argv[1], "vfork") && strcmp(argv[1], "spawn"))) {
		fprintf(stderr, "usage: spawner vfork|spawn PROGRAM [ARGS...]\n");
		return 2;
	}
	if (pthread_create(&tid, NULL, busy, NULL))
		return 1;
	for (i = 0; i < 100; i++)
		trace_mark(ust, spawner, "seq %d", i);
	if (!strcmp(argv[1], "vfork")) {
		pid = vfork();
		if (pid == 0) {
			execv(argv[2], argv + 2);
			_exit(127);
		}
	} else if (posix_spawn(&pid, argv[2], NULL, NULL, argv + 2, environ)) {
		pid = -1;
	}
	if (pid < 0) {
		perror("spawner");
		return 1;
	}
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	for (i = 100; i < 200; i++)
		trace_mark(ust, spawner, "seq %d", i);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(tid, NULL);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
