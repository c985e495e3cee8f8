/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A traced program that forks: the child shares the parent's buffers
 * through MAP_SHARED and must not write into them or talk to the parent's
 * ustd connection. forker EVENTS
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include <ust/marker.h>

int main(int argc, char **argv)
{
	int i, n = argc > 1 ? atoi(argv[1]) : 100, status;
	pid_t pid;

	for (i = 0; i < n; i++)
		trace_mark(ust, parent, "seq %d", i);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		for (i = 0; i < n; i++)
			trace_mark(ust, child, "seq %d", i);
		exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "forker: child failed\n");
		return 1;
	}
	for (i = n; i < 2 * n; i++)
		trace_mark(ust, parent, "seq %d", i);
	return 0;
}
