/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A program that dies while tracing, for crash rescue:
 *   crasher THREADS STATEFILE HOW EVENTS [SPIN_US]
 * Each thread t emits ust:crash_event (thread t, seq 0, 1, 2...; a string
 * of varying length) as fast as SPIN_US (busy wait between events, default
 * 5) allows, and after each event's trace_mark() returns stores how many
 * of its events are committed (seq + 1) into slot t of STATEFILE, an array
 * of THREADS u64 mapped shared: the test reads what was committed even
 * after a SIGKILL. HOW is how it ends once the last thread has emitted
 * EVENTS events: "wait" (keeps emitting until the test kills it), "segv",
 * "abort" or "exit" (_exit(3)), each done by that non-main thread while
 * the others keep emitting; or "inherit": as "wait", but first a child
 * forked by a raw system call (so libust's fork handlers do not run and
 * the child keeps the connection to ustd open) prints "child PID" and
 * sleeps 60 s. "ready" on stdout once every thread runs.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <ust/marker.h>

static uint64_t *committed;
static unsigned nr_threads, nr_events;
static long spin_ns = 5000;
static const char *how;
static volatile int started;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Busy, not sleeping: with more threads than CPUs, the scheduler preempts
 * writers anywhere, also between a reservation and its commit. */
static void spin(void)
{
	uint64_t end = now_ns() + (uint64_t)spin_ns;

	while (now_ns() < end)
		;
}

static void die(void)
{
	/* A page nobody may touch (address 0 may be mapped in some sandboxes). */
	volatile int *forbidden = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (!strcmp(how, "segv"))
		*forbidden = 1;
	else if (!strcmp(how, "abort"))
		abort();
	else if (!strcmp(how, "exit"))
		_exit(3);
}

static void *worker(void *arg)
{
	static const char pad[] = "abcdefghijklmnopq";
	unsigned t = (unsigned)(uintptr_t)arg, seq;

	while (!__atomic_load_n(&started, __ATOMIC_ACQUIRE))
		;
	for (seq = 0; ; seq++) {
		if (t == nr_threads - 1 && seq == nr_events)
			die();
		trace_mark(ust, crash_event, "thread %u seq %u pad %s", t, seq,
			   pad + seq % (sizeof(pad) - 1));
		__atomic_store_n(&committed[t], (uint64_t)seq + 1, __ATOMIC_RELEASE);
		spin();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t tid;
	unsigned t;
	int fd;

	if (argc < 5) {
		fprintf(stderr, "usage: crasher THREADS STATEFILE HOW EVENTS [SPIN_US]\n");
		return 2;
	}
	nr_threads = (unsigned)atoi(argv[1]);
	how = argv[3];
	nr_events = (unsigned)atoi(argv[4]);
	if (argc > 5)
		spin_ns = atol(argv[5]) * 1000;
	fd = open(argv[2], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (nr_threads == 0 || fd < 0 || ftruncate(fd, nr_threads * sizeof(uint64_t)) < 0) {
		perror("crasher: state file");
		return 2;
	}
	committed = mmap(NULL, nr_threads * sizeof(uint64_t), PROT_READ | PROT_WRITE,
			 MAP_SHARED, fd, 0);
	if (committed == MAP_FAILED) {
		perror("crasher: mmap");
		return 2;
	}
	for (t = 0; t < nr_threads; t++) {
		if (pthread_create(&tid, NULL, worker, (void *)(uintptr_t)t)) {
			perror("crasher: pthread_create");
			return 2;
		}
	}
	if (!strcmp(how, "inherit")) {
#ifdef SYS_fork
		pid_t child = (pid_t)syscall(SYS_fork);
#else
		pid_t child = (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
#endif

		if (child == 0) {
			sleep(60);
			_exit(0);
		}
		printf("child %d\n", (int)child);
	}
	printf("ready\n");
	fflush(stdout);
	__atomic_store_n(&started, 1, __ATOMIC_RELEASE);
	for (;;)
		pause();
}
