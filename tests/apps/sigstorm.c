/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tracing from signal handlers under a storm:
 *   sigstorm THREADS EVENTS_PER_THREAD PERIOD_MICROSECONDS
 * Each thread emits EVENTS_PER_THREAD numbered ust:loop events while two
 * per-thread POSIX timers fire at it every PERIOD_MICROSECONDS. Their
 * handlers emit numbered ust:sig_a and ust:sig_b events. The handlers do
 * not mask each other, so B also interrupts A in the middle of its event,
 * and both interrupt the loop in the middle of its own. At the end, per
 * thread: "emitted THREAD LOOP SIG_A SIG_B NESTED B_IN_A", NESTED counting
 * the handler runs that interrupted an event of the same thread, B_IN_A
 * those of B that interrupted A's.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ust/marker.h>

#define SIG_A (SIGRTMIN + 4)
#define SIG_B (SIGRTMIN + 5)

struct storm_thread {
	pthread_t tid;
	unsigned id;
	unsigned long loop, sig_a, sig_b, nested, b_in_a;
	/* Depth of event writes in progress in this thread, handlers included. */
	volatile sig_atomic_t writing;
	volatile sig_atomic_t in_a;
};

static unsigned long nr_events;
static long period_us;
static __thread struct storm_thread *self;

static void on_sig_a(int sig)
{
	struct storm_thread *st = self;

	(void)sig;
	if (!st)
		return;
	if (st->writing)
		st->nested++;
	st->writing++;
	st->in_a = 1;
	trace_mark(ust, sig_a, "thread %u seq %lu", st->id, st->sig_a);
	st->in_a = 0;
	st->writing--;
	st->sig_a++;
}

static void on_sig_b(int sig)
{
	struct storm_thread *st = self;

	(void)sig;
	if (!st)
		return;
	if (st->writing)
		st->nested++;
	if (st->in_a)
		st->b_in_a++;
	st->writing++;
	trace_mark(ust, sig_b, "thread %u seq %lu tag %s", st->id, st->sig_b, "interrupts");
	st->writing--;
	st->sig_b++;
}

static int storm_timer(timer_t *timer, int sig, long offset_ns)
{
	struct sigevent sev = {
		.sigev_notify = SIGEV_THREAD_ID,
		.sigev_signo = sig,
	};
	struct itimerspec its = {
		.it_interval = { period_us / 1000000, (period_us % 1000000) * 1000 },
		.it_value = { 0, offset_ns + 1000 },
	};

	/* glibc spells sigev_notify_thread_id this way before 2.41. */
	sev._sigev_un._tid = gettid();
	if (timer_create(CLOCK_MONOTONIC, &sev, timer) < 0)
		return -errno;
	if (timer_settime(*timer, 0, &its, NULL) < 0)
		return -errno;
	return 0;
}

static void *worker(void *arg)
{
	struct storm_thread *st = arg;
	timer_t ta, tb;
	sigset_t set;
	unsigned long i;

	self = st;
	/* B half a period after A: it often lands while A's handler runs. */
	if (storm_timer(&ta, SIG_A, 0) < 0 || storm_timer(&tb, SIG_B, period_us * 500) < 0) {
		perror("timer_create");
		exit(1);
	}
	for (i = 0; i < nr_events; i++) {
		st->writing++;
		trace_mark(ust, loop, "thread %u seq %lu", st->id, i);
		st->writing--;
		st->loop++;
	}
	/* Counts are final once neither handler can run any more. */
	sigemptyset(&set);
	sigaddset(&set, SIG_A);
	sigaddset(&set, SIG_B);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	timer_delete(ta);
	timer_delete(tb);
	return NULL;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_flags = SA_RESTART };
	unsigned nr_threads, t;
	struct storm_thread *threads;

	if (argc != 4) {
		fprintf(stderr, "usage: sigstorm THREADS EVENTS_PER_THREAD PERIOD_MICROSECONDS\n");
		return 2;
	}
	nr_threads = (unsigned)atoi(argv[1]);
	nr_events = strtoul(argv[2], NULL, 10);
	period_us = atol(argv[3]);
	if (!nr_threads || period_us <= 0)
		return 2;
	/* Neither handler masks the other: B lands inside A and A inside B. */
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_sig_a;
	sigaction(SIG_A, &sa, NULL);
	sa.sa_handler = on_sig_b;
	sigaction(SIG_B, &sa, NULL);
	threads = calloc(nr_threads, sizeof(*threads));
	if (!threads)
		return 1;
	for (t = 0; t < nr_threads; t++) {
		threads[t].id = t;
		if (pthread_create(&threads[t].tid, NULL, worker, &threads[t])) {
			perror("pthread_create");
			return 1;
		}
	}
	for (t = 0; t < nr_threads; t++) {
		pthread_join(threads[t].tid, NULL);
		printf("emitted %u %lu %lu %lu %lu %lu\n", t, threads[t].loop, threads[t].sig_a,
		       threads[t].sig_b, threads[t].nested, threads[t].b_in_a);
	}
	free(threads);
	return 0;
}
