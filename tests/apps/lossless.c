/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Floods tiny buffers with numbered events, for the blocking timeout:
 * lossless MODE N
 * MODE plain: the main thread emits seq 0..N-1; threads: two threads emit
 * N/2 each (seq i*N/2 + j); handler: N signals are raised, half through a
 * handler installed with sigaction(SA_SIGINFO), half with signal(), and
 * each handler emits one event. Prints "ready", waits for a line (or end
 * of file) on stdin, emits, prints "emitted" and exits 0.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ust/marker.h>

#define PAD "0123456789abcdef0123456789abcdef0123456789abcdef"

static unsigned n;
static volatile sig_atomic_t next_seq;

static void emit(unsigned seq)
{
	trace_mark(ust, lossless, "seq %u pad %s", seq, PAD);
}

static void *writer(void *arg)
{
	unsigned first = (unsigned)(unsigned long)arg, i;

	for (i = 0; i < n / 2; i++)
		emit(first + i);
	return NULL;
}

static void on_info(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	emit((unsigned)next_seq);
}

static void on_plain(int sig)
{
	(void)sig;
	emit((unsigned)next_seq);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "plain";
	struct sigaction sa = { .sa_sigaction = on_info, .sa_flags = SA_SIGINFO };
	pthread_t t[2];
	char line[16];
	unsigned i;

	n = argc > 2 ? (unsigned)atoi(argv[2]) : 100000;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL) < 0 || signal(SIGUSR2, on_plain) == SIG_ERR) {
		perror("lossless: installing the handlers");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		line[0] = '\0';
	if (!strcmp(mode, "threads")) {
		for (i = 0; i < 2; i++)
			pthread_create(&t[i], NULL, writer, (void *)(unsigned long)(i * (n / 2)));
		for (i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
	} else if (!strcmp(mode, "handler")) {
		for (i = 0; i < n; i++) {
			next_seq = (sig_atomic_t)i;
			raise(i % 2 ? SIGUSR2 : SIGUSR1);
		}
	} else {
		for (i = 0; i < n; i++)
			emit(i);
	}
	printf("emitted\n");
	fflush(stdout);
	return 0;
}
