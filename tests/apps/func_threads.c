/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Function calls in threads, for the thread buffers (test_thread_buffers.py).
 * Built with -finstrument-functions and linked with libust-func. Every
 * instrumented function counts its calls in its thread, and each thread
 * that called any prints, when it is done, the calls it made:
 *   calls TID FUNCTION N FUNCTION N ...
 * main() and the threads' start functions are not instrumented: only the
 * threads doing the work take thread buffers. outer() calls inner()
 * twice, inner() calls leaf().
 *
 *   run N CALLS together|apart   N threads, each calling outer() CALLS
 *     times in worker(): all at once, past a barrier after their first
 *     call and another before they end, or one after the other (each
 *     joined before the next starts).
 *   signal HANDLERS              one thread calls outer() in a loop while
 *     another sends it SIGUSR1, HANDLERS times, each once the handler
 *     before ran, at varied moments (and at most SIGNAL_BUDGET calls
 *     apart); the handler calls handler(), which calls sig_leaf().
 *   crash CALLS FILE             two threads: the main one calls outer()
 *     CALLS times in killer() and kills the process (SIGKILL) inside the
 *     first leaf() of the last, made once the other completed CALLS; the
 *     other calls outer() until then, storing in FILE (a uint64_t,
 *     mapped) the outer() calls it completed. Prints "other TID" and
 *     "killer TID" first.
 *   block CALLS MORE             one thread calls outer() CALLS times,
 *     prints "blocked PID", waits for a byte on stdin, then calls it MORE
 *     times.
 *   exitkey CALLS LATE           a thread calls outer() CALLS times and
 *     returns; a destructor of a thread-specific key, run as it exits after
 *     libust's (which gives its thread buffer back), calls it in late()
 *     until a second thread, started then, made its first call, then LATE
 *     more times, while the second calls it CALLS times more.
 *   fork CALLS CHILD PARENT      one thread calls outer() CALLS times,
 *     forks, and then the child calls it CHILD times, the parent PARENT
 *     times. The child prints its line, of its calls since the fork,
 *     before the parent's.
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOTRACE __attribute__((no_instrument_function))

enum {
	F_WORKER, F_OUTER, F_INNER, F_LEAF, F_HANDLER, F_SIG_LEAF, F_SIGNALLED, F_KILLER,
	F_LATE, F_COUNT
};
static const char *const func_names[F_COUNT] = {
	"worker", "outer", "inner", "leaf", "handler", "sig_leaf", "signalled_loop", "killer",
	"late"
};

/* A handler interrupts its thread's counting: it has counters of its own
 * (handler, sig_leaf), which the thread never writes. */
static __thread unsigned long calls[F_COUNT];
static volatile unsigned sink;
static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;

/* crash: the call of leaf() that kills the process, in the thread that
 * set it; 0: none. */
static __thread unsigned long kill_at;
static pthread_barrier_t barrier;
static int together;

static __attribute__((noinline)) void leaf(int i)
{
	calls[F_LEAF]++;
	if (kill_at && calls[F_LEAF] == kill_at)
		kill(getpid(), SIGKILL);
	sink += (unsigned)i;
}

static __attribute__((noinline)) void inner(int i)
{
	calls[F_INNER]++;
	leaf(i);
}

static __attribute__((noinline)) void outer(int i)
{
	calls[F_OUTER]++;
	inner(i);
	inner(i + 1);
}

static NOTRACE void print_calls(void)
{
	int f;

	pthread_mutex_lock(&print_lock);
	printf("calls %ld", (long)syscall(SYS_gettid));
	for (f = 0; f < F_COUNT; f++) {
		if (calls[f])
			printf(" %s %lu", func_names[f], calls[f]);
	}
	printf("\n");
	fflush(stdout);
	pthread_mutex_unlock(&print_lock);
}

/* n calls of outer(); with "together", the first and the rest on either
 * side of the barrier, so that every thread holds its buffer meanwhile. */
static __attribute__((noinline)) void worker(long n)
{
	long i;

	calls[F_WORKER]++;
	for (i = 0; i < n; i++) {
		outer((int)i);
		if (together && i == 0)
			pthread_barrier_wait(&barrier);
	}
	if (together)
		pthread_barrier_wait(&barrier);
}

static NOTRACE void *run_thread(void *arg)
{
	worker((long)(intptr_t)arg);
	print_calls();
	return NULL;
}

static NOTRACE int run(int n, long calls_each, int all_at_once)
{
	pthread_t th[64];
	int i;

	if (n < 1 || n > 64 || calls_each < 1)
		return 2;
	together = all_at_once;
	if (together)
		pthread_barrier_init(&barrier, NULL, (unsigned)n);
	for (i = 0; i < n; i++) {
		if (pthread_create(&th[i], NULL, run_thread, (void *)(intptr_t)calls_each))
			return 1;
		if (!together)
			pthread_join(th[i], NULL);
	}
	for (i = 0; together && i < n; i++)
		pthread_join(th[i], NULL);
	return 0;
}

static volatile sig_atomic_t handlers;
static volatile int stop_loop;
/* Calls of outer() the loop may still make: as many per signal at most,
 * so that the trace stays small however late the signals come. */
static int budget;
#define SIGNAL_BUDGET	200

static __attribute__((noinline)) void sig_leaf(int i)
{
	calls[F_SIG_LEAF]++;
	sink += (unsigned)i;
}

static __attribute__((noinline)) void handler(int sig)
{
	calls[F_HANDLER]++;
	sig_leaf(sig);
	handlers = handlers + 1;
}

static __attribute__((noinline)) void signalled_loop(void)
{
	int i = 0;

	calls[F_SIGNALLED]++;
	while (!stop_loop) {
		if (__atomic_load_n(&budget, __ATOMIC_RELAXED) > 0) {
			outer(i++);
			__atomic_fetch_sub(&budget, 1, __ATOMIC_RELAXED);
		}
	}
}

static NOTRACE void *signalled(void *arg)
{
	(void)arg;
	signalled_loop();
	print_calls();
	return NULL;
}

static NOTRACE int signal_storm(long want)
{
	struct sigaction sa;
	volatile long spin;
	pthread_t th;
	long k;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL) < 0 || pthread_create(&th, NULL, signalled, NULL))
		return 1;
	for (k = 0; k < want; k++) {
		__atomic_store_n(&budget, SIGNAL_BUDGET, __ATOMIC_RELAXED);
		/* Each lands elsewhere in the loop's calls. */
		for (spin = 0; spin < (k * 7919) % 4096; spin++)
			;
		pthread_kill(th, SIGUSR1);
		while (handlers <= k)
			sched_yield();
	}
	stop_loop = 1;
	pthread_join(th, NULL);
	return 0;
}

static volatile uint64_t *completed;

static NOTRACE void *crash_other(void *arg)
{
	int i = 0;

	(void)arg;
	printf("other %ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);
	pthread_barrier_wait(&barrier);
	for (;;) {
		outer(i++);
		/* After the call's last event: at the kill, the calls in the
		 * trace are this or one more. */
		__atomic_store_n(completed, *completed + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* n calls of outer(), the last once the other thread completed as many:
 * it dies in that one. */
static __attribute__((noinline)) void killer(long n)
{
	long i;

	calls[F_KILLER]++;
	for (i = 0; i < n - 1; i++)
		outer((int)i);
	while (__atomic_load_n(completed, __ATOMIC_ACQUIRE) < (uint64_t)n)
		;
	outer((int)i);
}

static NOTRACE int crash(long n, const char *path)
{
	pthread_t th;
	int fd;

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, sizeof(uint64_t)) < 0)
		return 1;
	completed = mmap(NULL, sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (completed == MAP_FAILED)
		return 1;
	pthread_barrier_init(&barrier, NULL, 2);
	if (pthread_create(&th, NULL, crash_other, NULL))
		return 1;
	/* The last outer() dies in its first leaf(). */
	kill_at = 2 * (unsigned long)n - 1;
	pthread_barrier_wait(&barrier);
	printf("killer %ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);
	killer(n);
	return 1;
}

static NOTRACE void *blocked(void *arg)
{
	long *n = arg;
	char c;

	worker(n[0]);
	printf("blocked %ld\n", (long)getpid());
	fflush(stdout);
	if (read(0, &c, 1) != 1)
		return NULL;
	worker(n[1]);
	print_calls();
	return NULL;
}

static sem_t taker_go;
static volatile int taker_started;
static pthread_key_t late_key;

/* Calls that overlap the other thread's first ones, then n more. */
static __attribute__((noinline)) void late(long n)
{
	long i = 0;

	calls[F_LATE]++;
	while (!taker_started)
		outer((int)i++);
	for (i = 0; i < n; i++)
		outer((int)i);
}

static NOTRACE void late_calls(void *arg)
{
	sem_post(&taker_go);
	late((long)(intptr_t)arg);
	print_calls();
}

static NOTRACE void *exiting(void *arg)
{
	long *n = arg;

	worker(n[0]);
	pthread_setspecific(late_key, (void *)(intptr_t)n[1]);
	return NULL;
}

static NOTRACE void *taker(void *arg)
{
	long *n = arg;

	sem_wait(&taker_go);
	outer(0);
	taker_started = 1;
	worker(n[0]);
	print_calls();
	return NULL;
}

/* The key is made after libust's: glibc runs the destructors in the order
 * of the keys. */
static NOTRACE int exit_key(long *n)
{
	pthread_t a, b;

	if (sem_init(&taker_go, 0, 0) || pthread_key_create(&late_key, late_calls) ||
	    pthread_create(&a, NULL, exiting, n) || pthread_create(&b, NULL, taker, n))
		return 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}

static NOTRACE void *forking(void *arg)
{
	long *n = arg;
	pid_t pid;
	int status;

	worker(n[0]);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return NULL;
	if (pid == 0) {
		/* The child's trace holds its calls since the fork only. */
		memset(calls, 0, sizeof(calls));
		worker(n[1]);
		print_calls();
		exit(0);
	}
	waitpid(pid, &status, 0);
	worker(n[2]);
	print_calls();
	return NULL;
}

static NOTRACE int one_thread(void *(*fn)(void *), long *n)
{
	pthread_t th;

	if (pthread_create(&th, NULL, fn, n))
		return 1;
	pthread_join(th, NULL);
	return 0;
}

NOTRACE int main(int argc, char **argv)
{
	long n[3];
	int i;

	for (i = 0; i < 3; i++)
		n[i] = i + 2 < argc ? atol(argv[i + 2]) : 0;
	if (argc == 5 && !strcmp(argv[1], "run"))
		return run((int)n[0], n[1], !strcmp(argv[4], "together"));
	if (argc == 3 && !strcmp(argv[1], "signal"))
		return signal_storm(n[0]);
	if (argc == 4 && !strcmp(argv[1], "crash"))
		return crash(n[0], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "block"))
		return one_thread(blocked, n);
	if (argc == 4 && !strcmp(argv[1], "exitkey"))
		return exit_key(n);
	if (argc == 5 && !strcmp(argv[1], "fork"))
		return one_thread(forking, n);
	fprintf(stderr, "usage: %s run N CALLS together|apart | signal HANDLERS |"
		" crash CALLS FILE | block CALLS MORE | exitkey CALLS LATE |"
		" fork CALLS CHILD PARENT\n", argv[0]);
	return 2;
}
