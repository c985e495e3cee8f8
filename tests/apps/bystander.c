/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A -lust program that does what programs do with signals, to see that
 * libust's control signal harms none of it:  bystander [OPTIONS] MS
 * It prints "ready", then waits in rounds (nanosleep, poll, select and
 * epoll_wait of 20 ms in turn, ust:round after each) for MS milliseconds
 * and prints "early N" (rounds that ended with EINTR or time left), then
 * "done" and exits 0.
 *   -r  resets every signal to SIG_DFL with signal() first (a daemon's
 *       start), -R with sigaction()
 *   -o  uses SIGIO itself: a pipe in O_ASYNC mode, a SA_SIGINFO handler
 *       that counts the deliveries naming the pipe and the others, a byte
 *       written each round; prints "sigio initial DFL|OTHER" (what
 *       sigaction() said before the program installed its handler) and
 *       "sigio own N foreign M" at the end
 *   -u  installs a SIGURG handler of its own (which does not chain), then
 *       forks a child that exits at once, as a program that uses SIGURG
 *       for out-of-band data and starts workers does
 *   -s  blocks every signal and takes them from a signalfd while it waits
 *       (its rounds poll the signalfd); prints "signalfd SIGNAME..." for
 *       each signal read other than SIGTERM
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <ust/marker.h>

static volatile sig_atomic_t sigio_own, sigio_foreign;
static int sigio_pipe[2] = { -1, -1 };

static void on_sigio(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (si->si_code > 0 && si->si_fd == sigio_pipe[0])
		sigio_own++;
	else
		sigio_foreign++;
}

static void on_urg(int sig)
{
	(void)sig;
}

/* The program's own SIGURG handler, then a fork(): libust's listener
 * thread takes over there (libust/control.c). */
static void own_sigurg(void)
{
	struct sigaction sa = { .sa_handler = on_urg, .sa_flags = SA_RESTART };
	int status;
	pid_t pid;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGURG, &sa, NULL);
	pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		perror("bystander: fork");
		exit(1);
	}
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void reset_all(int with_sigaction)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	int sig;

	for (sig = 1; sig < NSIG; sig++) {
		if (sig == SIGKILL || sig == SIGSTOP)
			continue;
		if (with_sigaction)
			sigaction(sig, &dfl, NULL);
		else
			signal(sig, SIG_DFL);
	}
}

static void own_sigio(void)
{
	struct sigaction sa = { .sa_sigaction = on_sigio, .sa_flags = SA_SIGINFO | SA_RESTART };
	struct sigaction old;

	sigaction(SIGIO, NULL, &old);
	printf("sigio initial %s\n", !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL ?
	       "DFL" : "OTHER");
	sigemptyset(&sa.sa_mask);
	if (pipe(sigio_pipe) < 0 || sigaction(SIGIO, &sa, NULL) < 0 ||
	    fcntl(sigio_pipe[0], F_SETOWN, getpid()) < 0 ||
	    fcntl(sigio_pipe[0], F_SETSIG, SIGIO) < 0 ||
	    fcntl(sigio_pipe[0], F_SETFL, O_ASYNC | O_NONBLOCK) < 0) {
		perror("bystander: SIGIO pipe");
		exit(1);
	}
}

static int own_signalfd(void)
{
	sigset_t all;
	int fd;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	fd = signalfd(-1, &all, SFD_CLOEXEC | SFD_NONBLOCK);
	if (fd < 0) {
		perror("bystander: signalfd");
		exit(1);
	}
	return fd;
}

/* One 20 ms wait of the kind i picks; 1 when it ended early. */
static int wait_round(int i, int ep, int sfd)
{
	struct timespec req = { 0, 20000000L }, rem = { 0, 0 };
	struct timeval tv = { 0, 20000 };
	struct epoll_event ev;
	struct pollfd p = { .fd = sfd, .events = POLLIN };
	int r;

	if (sfd >= 0) {
		r = poll(&p, 1, 20);
		return r < 0 && errno == EINTR;
	}
	switch (i % 4) {
	case 0:
		r = nanosleep(&req, &rem);
		return r < 0 && errno == EINTR;
	case 1:
		r = poll(NULL, 0, 20);
		return r < 0 && errno == EINTR;
	case 2:
		r = select(0, NULL, NULL, NULL, &tv);
		return r < 0 && errno == EINTR;
	default:
		r = epoll_wait(ep, &ev, 1, 20);
		return r < 0 && errno == EINTR;
	}
}

static int drain_signalfd(int sfd)
{
	struct signalfd_siginfo si;
	int term = 0;

	while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGTERM)
			term = 1;
		else
			printf("signalfd %s\n", strsignal((int)si.ssi_signo));
	}
	return term;
}

int main(int argc, char **argv)
{
	int opt, use_sigio = 0, use_signalfd = 0, sfd = -1, ep, early = 0, i;
	long ms, end;

	while ((opt = getopt(argc, argv, "rRosu")) != -1) {
		switch (opt) {
		case 'r':
			reset_all(0);
			break;
		case 'R':
			reset_all(1);
			break;
		case 'o':
			use_sigio = 1;
			break;
		case 's':
			use_signalfd = 1;
			break;
		case 'u':
			own_sigurg();
			break;
		default:
			fprintf(stderr, "usage: bystander [-r|-R] [-o] [-s] [-u] MS\n");
			return 2;
		}
	}
	ms = optind < argc ? atol(argv[optind]) : 1000;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (use_sigio)
		own_sigio();
	if (use_signalfd)
		sfd = own_signalfd();
	ep = epoll_create1(EPOLL_CLOEXEC);
	printf("ready\n");
	end = now_ms() + ms;
	for (i = 0; now_ms() < end; i++) {
		early += wait_round(i, ep, sfd);
		trace_mark(ust, round, "round %d", i);
		if (use_sigio && write(sigio_pipe[1], "x", 1) == 1) {
			char c;

			while (read(sigio_pipe[0], &c, 1) == 1)
				;
		}
		if (sfd >= 0 && drain_signalfd(sfd))
			break;
	}
	printf("early %d\n", early);
	if (use_sigio)
		printf("sigio own %d foreign %d\n", (int)sigio_own, (int)sigio_foreign);
	printf("done\n");
	return 0;
}
