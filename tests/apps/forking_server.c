/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A forking server for session tests: forking_server N WORKERS. main() records N events
 * svc:start (seq 0..N-1) first thing, forks WORKERS workers that each
 * record N svc:work events and exit, waits for them and prints "ready".
 * Then each line "go" on its standard input records N svc:tick events
 * (seq numbered on from the last) and prints "done"; the end of its input
 * ends it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <ust/marker.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100, workers = argc > 2 ? atoi(argv[2]) : 0;
	int i, w, status, tick = 0;
	char line[64];
	pid_t pid;

	for (i = 0; i < n; i++)
		trace_mark(svc, start, "seq %d", i);
	for (w = 0; w < workers; w++) {
		pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			for (i = 0; i < n; i++)
				trace_mark(svc, work, "seq %d worker %d", i, w);
			exit(0);
		}
	}
	for (w = 0; w < workers; w++) {
		if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "service: a worker failed\n");
			return 1;
		}
	}
	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		if (strncmp(line, "go", 2))
			continue;
		for (i = 0; i < n; i++, tick++)
			trace_mark(svc, tick, "seq %d", tick);
		printf("done\n");
		fflush(stdout);
	}
	return 0;
}
