/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * A program built with -finstrument-functions and linked with libust-func,
 * whose call tree is known (test_func.py): in each of two threads, work()
 * calls recurse() FUNC_DEPTH deep and middle() FUNC_MIDDLE times, each
 * middle() calling leaf() twice; then the main thread loads the C++
 * library argv[1] and calls its func_cxx_run(FUNC_CXX_CALLS).
 * With "exit" after it, main() then calls finish(), which never returns
 * (exit()). With "loop N" instead of all that, main() calls middle() N
 * times: calls enough to fill small buffers.
 * It includes no UST header: function tracing needs no edit of the code.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUNC_DEPTH	8
#define FUNC_MIDDLE	3
#define FUNC_CXX_CALLS	4

static volatile unsigned sink;	/* wraps: the loop sums past INT_MAX */

static __attribute__((noinline)) void leaf(int i)
{
	sink += (unsigned)i;
}

static __attribute__((noinline)) void middle(int i)
{
	leaf(i);
	leaf(i + 1);
}

static __attribute__((noinline)) int recurse(int depth)
{
	if (depth <= 1)
		return 1;
	return recurse(depth - 1) + 1;
}

static __attribute__((noinline)) void work(void)
{
	int i;

	sink += recurse(FUNC_DEPTH);
	for (i = 0; i < FUNC_MIDDLE; i++)
		middle(i);
}

static __attribute__((noinline, noreturn)) void finish(int status)
{
	fflush(stdout);
	exit(status);
}

static void *worker(void *arg)
{
	(void)arg;
	work();
	return NULL;
}

int main(int argc, char **argv)
{
	int (*run)(int);
	pthread_t th;
	void *lib;

	if (argc == 3 && !strcmp(argv[1], "loop")) {
		long i, n = atol(argv[2]);

		for (i = 0; i < n; i++)
			middle((int)i);
		return 0;
	}
	if (argc != 2 && !(argc == 3 && !strcmp(argv[2], "exit"))) {
		fprintf(stderr, "usage: %s LIBFUNC_CXX.so [exit] | loop N\n", argv[0]);
		return 2;
	}
	if (pthread_create(&th, NULL, worker, NULL)) {
		fprintf(stderr, "func_calls: cannot create a thread\n");
		return 1;
	}
	work();
	pthread_join(th, NULL);
	lib = dlopen(argv[1], RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "func_calls: %s\n", dlerror());
		return 1;
	}
	run = (int (*)(int))dlsym(lib, "func_cxx_run");
	if (!run) {
		fprintf(stderr, "func_calls: %s\n", dlerror());
		return 1;
	}
	printf("func_cxx_run: %d\n", run(FUNC_CXX_CALLS));
	if (argc == 3)
		finish(0);
	return 0;
}
