/* SPDX-License-Identifier: LGPL-2.1-only */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libust-func/func_record.h"
#include "libust-func/func_symbols.h"
#include "libust/event_clock.h"

#define RECORD_ADDRS_MAX	256
/* Calls kept open per thread with a time: deeper ones are not recorded. */
#define RECORD_PENDING_MAX	64

/* The addresses of the -F and -N functions, sorted: set once before the
 * program's threads start (the constructor), read-only afterwards. */
struct addr_set {
	uintptr_t addr[RECORD_ADDRS_MAX];
	size_t nr;
	int given;		/* a name was given, even one not found */
};

int ust_func_record_on;
static struct addr_set only, never;
static uint32_t max_depth;	/* 0: no limit */
static uint64_t min_ticks;	/* 0: no time; else in the events' clock */

/*
 * A thread's place in its calls: depth counts the calls open (entered by
 * a hook, not yet exited), in_at and out_at the depth of the -F call that
 * opened the recorded subtree and of the -N call that opened the skipped
 * one (0: none). Only the thread and its signal handlers touch it; a
 * handler's calls are nested in the interrupted one's and return before
 * it resumes, so each update is complete when seen.
 */
struct record_thread {
	uint32_t depth, in_at, out_at;
	/* With a time: the kept calls open, innermost last; the first
	 * written of them have had their entry written. */
	uint32_t open, written, deep;
	struct {
		uintptr_t func;
		uint64_t start;
	} pending[RECORD_PENDING_MAX];
};

static __thread struct record_thread self __attribute__((tls_model("initial-exec")));

static __attribute__((no_instrument_function)) int in_set(const struct addr_set *s,
							   uintptr_t a)
{
	size_t lo = 0, hi = s->nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->addr[mid] == a)
			return 1;
		if (s->addr[mid] < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* The depth of the call at depth d below the root of what is recorded. */
static __attribute__((no_instrument_function)) int within_depth(uint32_t d)
{
	return !max_depth || d - (self.in_at ? self.in_at : 1) < max_depth;
}

/* A kept call begins: with a time, its entry waits for its exit. */
static __attribute__((no_instrument_function)) int keep_entry(uintptr_t func)
{
	if (!min_ticks)
		return 1;
	if (self.deep || self.open == RECORD_PENDING_MAX) {
		self.deep++;
		return 0;
	}
	self.pending[self.open].func = func;
	self.pending[self.open].start = ust_event_clock_read();
	self.open++;
	return 0;
}

/* A kept call ends: with a time, written if it was long enough or a
 * callee was, after the entries still waiting. */
static __attribute__((no_instrument_function)) int keep_exit(ust_func_write_at write_at)
{
	uint64_t now;
	uint32_t i;

	if (!min_ticks)
		return 1;
	if (self.deep) {
		self.deep--;
		return 0;
	}
	if (!self.open)
		return 0;
	self.open--;
	if (self.written > self.open) {
		self.written = self.open;
		return 1;
	}
	now = ust_event_clock_read();
	if (now - self.pending[self.open].start < min_ticks)
		return 0;
	for (i = self.written; i <= self.open; i++)
		write_at(self.pending[i].func, self.pending[i].start);
	self.written = self.open;
	return 1;
}

int ust_func_record_entry(uintptr_t func)
{
	uint32_t d = ++self.depth;

	if (self.out_at)
		return 0;
	if (never.given && in_set(&never, func)) {
		self.out_at = d;
		return 0;
	}
	if (only.given && !self.in_at) {
		if (!in_set(&only, func))
			return 0;
		self.in_at = d;
	}
	return within_depth(d) && keep_entry(func);
}

int ust_func_record_exit(ust_func_write_at write_at)
{
	uint32_t d = self.depth;
	int keep;

	/* An exit with no entry seen (a call open when the program started
	 * tracing, or left by longjmp()) keeps the depth at 0. */
	if (d)
		self.depth--;
	if (self.out_at) {
		if (d <= self.out_at)
			self.out_at = 0;
		return 0;
	}
	if (only.given && !self.in_at)
		return 0;
	keep = within_depth(d);
	if (d <= self.in_at)
		self.in_at = 0;
	return keep && keep_exit(write_at);
}

static __attribute__((no_instrument_function)) void add_addr(uintptr_t addr, void *arg)
{
	struct addr_set *s = arg;

	if (s->nr < RECORD_ADDRS_MAX)
		s->addr[s->nr++] = addr;
}

static __attribute__((no_instrument_function)) int by_addr(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

	return x < y ? -1 : x > y;
}

void ust_func_record_init(void)
{
	const char *env = getenv("UST_FUNC_RECORD");
	char *copy, *line, *save = NULL;

	if (!env || !*env)
		return;
	copy = strdup(env);
	if (!copy)
		return;
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct addr_set *s = line[0] == 'F' ? &only : line[0] == 'N' ? &never : NULL;

		if (line[0] == 'D' && line[1] == ' ') {
			max_depth = (uint32_t)strtoul(line + 2, NULL, 10);
			continue;
		}
		if (line[0] == 'T' && line[1] == ' ') {
			/* At least a tick: 0 means no time. */
			min_ticks = ust_event_clock_ticks(strtoull(line + 2, NULL, 10)) ?: 1;
			continue;
		}
		if (!s || line[1] != ' ') {
			fprintf(stderr, "libust-func: UST_FUNC_RECORD: '%s' ignored: expected F NAME, N NAME, D DEPTH or T NANOSECONDS\n",
				line);
			continue;
		}
		s->given = 1;
		if (!ust_func_symbols_find(line + 2, add_addr, s))
			fprintf(stderr, "libust-func: UST_FUNC_RECORD: no function %s in the program or its libraries\n",
				line + 2);
	}
	free(copy);
	qsort(only.addr, only.nr, sizeof(only.addr[0]), by_addr);
	qsort(never.addr, never.nr, sizeof(never.addr[0]), by_addr);
	ust_func_record_on = only.given || never.given || max_depth || min_ticks;
}
