/* SPDX-License-Identifier: LGPL-2.1-only */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "libustcomm/format.h"
#include "libustcomm/signal_name.h"

static const struct {
	const char *name;
	int sig;
} names[] = {
	{ "URG", SIGURG },
	{ "IO", SIGIO },
	{ "POLL", SIGIO },
	{ "USR1", SIGUSR1 },
	{ "USR2", SIGUSR2 },
	{ "WINCH", SIGWINCH },
	{ "PWR", SIGPWR },
};

int ustcomm_signal_parse(const char *s)
{
	char *end;
	size_t i;
	long v;

	if (!s || !*s)
		return SIGURG;
	if (!strncmp(s, "SIG", 3))
		s += 3;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(s, names[i].name))
			return names[i].sig;
	}
	if (!strncmp(s, "RTMIN", 5)) {
		v = 0;
		if (s[5]) {
			if (s[5] != '+' || !s[6])
				return -EINVAL;
			v = strtol(s + 6, &end, 10);
			if (*end)
				return -EINVAL;
		}
		v += SIGRTMIN;
	} else {
		v = strtol(s, &end, 10);
		if (end == s || *end)
			return -EINVAL;
	}
	if (v < 1 || v > SIGRTMAX || v == SIGKILL || v == SIGSTOP)
		return -EINVAL;
	return (int)v;
}

void ustcomm_signal_name(int sig, char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (names[i].sig == sig) {
			ustcomm_format(buf, len, "SIG%s", names[i].name);
			return;
		}
	}
	if (sig >= SIGRTMIN && sig <= SIGRTMAX)
		ustcomm_format(buf, len, "SIGRTMIN+%d", sig - SIGRTMIN);
	else
		ustcomm_format(buf, len, "signal %d", sig);
}
