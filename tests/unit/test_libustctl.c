/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libustctl driving a real program: tests/apps/ticker with a private run
 * directory and a real ustd writing to a private directory; the trace is
 * read back with babeltrace2. Then the failures a user meets: a process
 * that does not exist, one without a socket, a stopped one, a refused
 * setting, a socket left by a dead process. Last, snapshots of a second
 * ticker in flight-recorder mode.
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <ust/ustctl.h>
#include "libustcomm/ctl_protocol.h"
#include "tests/unit/tap.h"

static char rundir[] = "/tmp/test_libustctl_run.XXXXXX";
static char outdir[] = "/tmp/test_libustctl_out.XXXXXX";
static pid_t ustd_pid = -1, app_pid = -1;

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Reads from fd until text arrives or seconds pass. */
static int wait_for_text(int fd, const char *text, int seconds)
{
	char buf[256] = "";
	size_t len = 0;
	double end = now_s() + seconds;

	while (now_s() < end && !strstr(buf, text) && len < sizeof(buf) - 1) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, 100) <= 0)
			continue;
		n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n <= 0)
			break;
		len += (size_t)n;
		buf[len] = '\0';
	}
	return strstr(buf, text) ? 0 : -1;
}

static pid_t start_ustd(const char *top)
{
	char prog[4096], fdarg[32];
	int p[2];
	pid_t pid;

	snprintf(prog, sizeof(prog), "%s/ustd/ustd", top);
	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		snprintf(fdarg, sizeof(fdarg), "--ready-fd=%d", p[1]);
		execl(prog, prog, "-o", outdir, fdarg, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	if (pid > 0 && wait_for_text(p[0], "R", 10)) {
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(p[0]);
	return pid;
}

/* flight: in flight-recorder mode, traced from its start. */
static pid_t start_ticker(const char *top, int flight)
{
	char prog[4096], sock[4096];
	struct stat st;
	int p[2], i;
	pid_t pid;

	snprintf(prog, sizeof(prog), "%s/tests/apps/ticker", top);
	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		dup2(p[1], STDOUT_FILENO);
		if (flight) {
			setenv("UST_OVERWRITE", "1", 1);
			setenv("UST_TRACE", "1", 1);
		}
		execl(prog, prog, "-t", "2", "-i", "1000", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	if (pid < 0 || wait_for_text(p[0], "ready", 10))
		goto fail;
	close(p[0]);
	snprintf(sock, sizeof(sock), "%s/apps/%d", rundir, (int)pid);
	for (i = 0; i < 100 && stat(sock, &st); i++)
		sleep_ms(50);
	if (i < 100)
		return pid;
	tap_diag("ticker made no control socket %s", sock);
	p[0] = -1;
fail:
	if (p[0] >= 0)
		close(p[0]);
	if (pid > 0) {
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
	}
	return -1;
}

static const struct ustctl_marker *find_marker(const struct ustctl_marker *m, size_t nr,
					       const char *name)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (!strcmp(m[i].name, name))
			return &m[i];
	return NULL;
}

static int marker_ok(const struct ustctl_marker *m, size_t nr, const char *name,
		     const char *format)
{
	const struct ustctl_marker *e = find_marker(m, nr, name);

	return e && e->is_format && !strcmp(e->format, format) && e->objects[0];
}

static void test_inspect(pid_t pid)
{
	struct ustctl_marker *m = NULL;
	struct ustctl_info info;
	size_t nr = 0;
	int ret;

	ret = ustctl_get_info(pid, &info);
	tap_ok(ret == 0 && info.pid == pid && !strcmp(info.procname, "ticker") &&
	       !strcmp(info.state, "none") && info.version[0],
	       "get_info: pid %d, name '%s', state '%s', libust %s (%d: %s)", (int)info.pid,
	       info.procname, info.state, info.version, ret, ustctl_last_error());
	ret = ustctl_list_markers(pid, &m, &nr);
	tap_ok(ret == 0 && marker_ok(m, nr, "ust:tick", "thread %u seq %lu") &&
	       marker_ok(m, nr, "ust:tock", "n %d") &&
	       marker_ok(m, nr, "other:count", "n %d name %s"),
	       "list_markers: ust:tick, ust:tock and other:count with their formats (%zu events; %d: %s)",
	       nr, ret, ustctl_last_error());
	tap_ok(ret == 0 && find_marker(m, nr, "ust:tick") && !find_marker(m, nr, "ust:tick")->enabled,
	       "markers start disabled");
	ustctl_free_markers(m, nr);
}

static void test_trace(pid_t pid)
{
	const char *patterns[] = { "ust:*" };
	struct ustctl_marker *m = NULL;
	struct ustctl_info info;
	uint32_t size = 0, num = 0;
	char *snap = NULL, num_text[32];
	size_t nr = 0;
	int ret;

	ret = ustctl_enable_marker(pid, NULL, patterns, 1);
	tap_ok(ret == 2, "enable_marker ust:* matches ust:tick and ust:tock (%d: %s)", ret,
	       ustctl_last_error());
	ret = ustctl_create_trace(pid, NULL);
	tap_ok(ret == 0, "create_trace (%d: %s)", ret, ustctl_last_error());
	ret = ustctl_set_subbuf_size(pid, NULL, "ust", 8192);
	if (!ret)
		ret = ustctl_set_subbuf_num(pid, "", "ust", 8);
	if (!ret)
		ret = ustctl_get_subbuf_size(pid, NULL, "ust", &size);
	if (!ret)
		ret = ustctl_get_subbuf_num(pid, USTCTL_DEFAULT_TRACE, "ust", &num);
	tap_ok(ret == 0 && size == 8192 && num == 8,
	       "set and get sub-buffers of channel ust: %u x %u (%d: %s)", (unsigned)num,
	       (unsigned)size, ret, ustctl_last_error());
	ret = ustctl_set_subbuf_size(pid, NULL, "ust", 12288);
	tap_ok(ret < 0, "a size that is not a power of two is refused: %s", ustctl_last_error());
	ret = ustctl_alloc_trace(pid, NULL);
	tap_ok(ret == 0, "alloc_trace (%d: %s)", ret, ustctl_last_error());
	ret = ustctl_set_subbuf_size(pid, NULL, "ust", 16384);
	tap_ok(ret == -EBUSY && !strncmp(ustctl_last_error(), "process ", 8) &&
	       strstr(ustctl_last_error(), "allocated"),
	       "set_subbuf_size after alloc is refused with the reason (%d: %s)", ret,
	       ustctl_last_error());
	ret = ustctl_start_trace(pid, NULL);
	tap_ok(ret == 0, "start_trace (%d: %s)", ret, ustctl_last_error());
	ret = ustctl_snapshot(pid, NULL, outdir, &snap);
	snprintf(num_text, sizeof(num_text), "process %d", (int)pid);
	tap_ok(ret == -EINVAL && !snap && strstr(ustctl_last_error(), num_text) &&
	       strstr(ustctl_last_error(), "flight-recorder"),
	       "snapshot of a trace written to disk as it goes is refused with the reason (%d: %s)",
	       ret, ustctl_last_error());
	free(snap);
	sleep_ms(300);
	ret = ustctl_get_info(pid, &info);
	tap_ok(ret == 0 && !strcmp(info.state, "started") && !strcmp(info.trace, "auto"),
	       "get_info: trace '%s' is '%s'", info.trace, info.state);
	ret = ustctl_force_switch(pid, NULL);
	tap_ok(ret == 0, "force_switch (%d: %s)", ret, ustctl_last_error());
	ret = ustctl_list_markers(pid, &m, &nr);
	tap_ok(ret == 0 && find_marker(m, nr, "ust:tick") && find_marker(m, nr, "ust:tick")->enabled &&
	       find_marker(m, nr, "other:count") && !find_marker(m, nr, "other:count")->enabled,
	       "ust:tick is enabled, other:count is not");
	ustctl_free_markers(m, nr);
	sleep_ms(200);
	ret = ustctl_stop_trace(pid, NULL);
	tap_ok(ret == 0, "stop_trace (%d: %s)", ret, ustctl_last_error());
	ret = ustctl_destroy_trace(pid, NULL);
	tap_ok(ret == 0, "destroy_trace (%d: %s)", ret, ustctl_last_error());
}

/* babeltrace2's text output of dir: how many events of each name (as
 * "name:") it shows. Returns its exit status, 0 when it read the trace. */
static int babeltrace_count(const char *dir, const char *const *names, long *counts,
			    size_t nr)
{
	const char *bt = getenv("BABELTRACE2");
	char cmd[8400], line[512];
	size_t i;
	FILE *f;

	memset(counts, 0, nr * sizeof(*counts));
	snprintf(cmd, sizeof(cmd), "'%s' '%s' 2>&1", bt && *bt ? bt : "babeltrace2", dir);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		for (i = 0; i < nr; i++)
			counts[i] += strstr(line, names[i]) != NULL;
	return pclose(f);
}

/* The one trace directory ustd wrote, with its metadata and a non-empty
 * stream; babeltrace2 reads ust:tick events from it and nothing else. */
static void test_trace_on_disk(void)
{
	const char *names[] = { "ust:tick:", "other:count:" };
	char dir[4096] = "", path[8192];
	size_t streams = 0, nonempty = 0, dirs = 0;
	long counts[2];
	struct dirent *de;
	struct stat st;
	DIR *d;
	int ret;

	d = opendir(outdir);
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		dirs++;
		snprintf(dir, sizeof(dir), "%s/%s", outdir, de->d_name);
	}
	if (d)
		closedir(d);
	tap_ok(dirs == 1 && strstr(dir, "ticker-"), "one trace directory: %s", dir);
	snprintf(path, sizeof(path), "%s/metadata", dir);
	tap_ok(stat(path, &st) == 0 && st.st_size > 0, "it has a metadata file");
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "metadata"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		streams++;
		if (stat(path, &st) == 0 && st.st_size > 0)
			nonempty++;
	}
	if (d)
		closedir(d);
	tap_ok(streams > 0 && nonempty > 0, "%zu stream files, %zu not empty", streams, nonempty);
	ret = babeltrace_count(dir, names, counts, 2);
	tap_ok(ret == 0 && counts[0] > 10 && counts[1] == 0,
	       "babeltrace2 reads %ld ust:tick events and %ld other:count events", counts[0],
	       counts[1]);
}

static int is_dir_in(const char *path, const char *dir)
{
	size_t len = strlen(dir);
	struct stat st;

	return path && !strncmp(path, dir, len) && path[len] == '/' && path[len + 1] &&
	       stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int read_all(int fd, void *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = read(fd, (char *)buf + got, len - got);
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

/* The child side of start_fake(): one request, one late answer. */
static void fake_serve(int ready, int delay_ms)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct ustcomm_ctl_header hdr;
	char payload[8192], answer[8300];
	const char *dir;
	int fd, conn;
	size_t len;

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/apps/%d", rundir, (int)getpid());
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(addr)) || listen(fd, 1))
		_exit(1);
	if (write(ready, "R", 1) != 1)
		_exit(1);
	conn = accept(fd, NULL, NULL);
	if (conn < 0 || read_all(conn, &hdr, sizeof(hdr)) || hdr.payload_len >= sizeof(payload) ||
	    read_all(conn, payload, hdr.payload_len) || hdr.cmd != USTCOMM_CTL_SNAPSHOT ||
	    hdr.nr_strings != 2)
		_exit(1);
	payload[hdr.payload_len] = '\0';
	dir = payload + strlen(payload) + 1;
	len = (size_t)snprintf(answer, sizeof(answer), "%s/snap", dir) + 1;
	sleep_ms(delay_ms);
	hdr.status = 0;
	hdr.nr_strings = 1;
	hdr.payload_len = (uint32_t)len;
	if (write(conn, &hdr, sizeof(hdr)) != sizeof(hdr) || write(conn, answer, len) != (ssize_t)len)
		_exit(1);
	unlink(addr.sun_path);
	_exit(0);
}

/*
 * A stand-in for a program, on a socket of its own in the run directory:
 * it answers one snapshot request after delay_ms with DIR/snap, DIR being
 * the directory it was sent. No ustd involved: this is libustctl's part.
 */
static pid_t start_fake(int delay_ms)
{
	int p[2];
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		fake_serve(p[1], delay_ms);
	}
	close(p[1]);
	if (pid > 0 && wait_for_text(p[0], "R", 10)) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(p[0]);
	return pid;
}

/* What libustctl sends and how long it waits, against start_fake(). */
static void test_snapshot_request(void)
{
	char cwd[4096], want[4096];
	char *path = NULL;
	int ret = -1, status = -1;
	pid_t fake;
	double t;

	fake = start_fake(2000);
	tap_ok(fake > 0, "a stand-in program listens");
	if (fake <= 0)
		return;
	/* The program may take the timeout plus its 10 s wait for ustd. */
	ustctl_set_timeout(1000);
	t = now_s();
	if (getcwd(cwd, sizeof(cwd)) && chdir(outdir) == 0) {
		ret = ustctl_snapshot(fake, NULL, "rel/./d//../e/", &path);
		if (chdir(cwd))
			tap_diag("cannot go back to %s", cwd);
	}
	t = now_s() - t;
	ustctl_set_timeout(0);
	waitpid(fake, &status, 0);
	snprintf(want, sizeof(want), "%s/rel/d/../e/snap", outdir);
	tap_ok(ret == 0 && path && !strcmp(path, want),
	       "a relative directory is sent absolute, '.' and '//' dropped, '..' kept: %s (%d: %s)",
	       path ? path : "(none)", ret, ustctl_last_error());
	tap_ok(ret == 0 && t > 1.5 && WIFEXITED(status) && !WEXITSTATUS(status),
	       "with a 1 s timeout, a snapshot answered after %.1f s is still taken", t);
	free(path);
}

/* A ticker in flight-recorder mode, traced from its start by UST_TRACE=1. */
static void test_snapshot(pid_t pid)
{
	const char *names[] = { "ust:tick:" };
	char cwd[4096], dir[4096];
	char *first = NULL, *second = NULL, *none = NULL;
	long ticks[1] = { 0 };
	int ret = -1, bt;

	sleep_ms(300);
	/* Relative to our working directory: the program and ustd have theirs. */
	if (getcwd(cwd, sizeof(cwd)) && chdir(outdir) == 0) {
		ret = ustctl_snapshot(pid, NULL, "snaps/./x/", &first);
		if (chdir(cwd))
			tap_diag("cannot go back to %s", cwd);
	}
	snprintf(dir, sizeof(dir), "%s/snaps/x", outdir);
	tap_ok(ret == 0 && is_dir_in(first, dir),
	       "snapshot into snaps/./x/ from %s: a new directory %s (%d: %s)", outdir,
	       first ? first : "(none)", ret, ustctl_last_error());
	bt = first ? babeltrace_count(first, names, ticks, 1) : -1;
	tap_ok(bt == 0 && ticks[0] > 10, "babeltrace2 reads %ld ust:tick events from it",
	       ticks[0]);

	ret = ustctl_snapshot(pid, USTCTL_DEFAULT_TRACE, NULL, &second);
	tap_ok(ret == 0 && is_dir_in(second, outdir) && (!first || strcmp(first, second)),
	       "snapshot without a directory: another one in ustd's output directory, %s (%d: %s)",
	       second ? second : "(none)", ret, ustctl_last_error());
	bt = second ? babeltrace_count(second, names, ticks, 1) : -1;
	tap_ok(bt == 0 && ticks[0] > 10, "babeltrace2 reads %ld ust:tick events from that one",
	       ticks[0]);

	ret = ustctl_snapshot(pid, "other", NULL, &none);
	tap_ok(ret == -ENOENT && !none && strstr(ustctl_last_error(), "no trace 'other'"),
	       "snapshot of a trace the process does not have: -ENOENT (%d: %s)", ret,
	       ustctl_last_error());
	free(first);
	free(second);
	free(none);
}

static void test_sessions(pid_t pid)
{
	char file[4096];
	struct ustctl_session *s = NULL;
	struct ustctl_marker *m = NULL;
	struct ustctl_rule rules[] = { { 0, "ust:*" }, { 1, "ust:tock" } };
	struct ustctl_session load = { .rules = rules, .nr_rules = 2 };
	size_t nr = 0, i;
	int ret, found_rule = 0, found_channel = 0;

	snprintf(file, sizeof(file), "%s/saved.xml", outdir);
	ret = ustctl_save_session(pid, NULL, file);
	if (!ret)
		ret = ustctl_session_read(file, &s);
	for (i = 0; s && i < s->nr_rules; i++)
		found_rule |= s->rules[i].enable && !strcmp(s->rules[i].pattern, "ust:*");
	for (i = 0; s && i < s->nr_channels; i++)
		found_channel |= !strcmp(s->channels[i].name, "ust") &&
				 s->channels[i].subbuf_size == 8192 && s->channels[i].subbuf_num == 8;
	tap_ok(ret == 0 && found_rule && found_channel,
	       "save_session keeps the rule ust:* and channel ust 8 x 8192 (%d: %s)", ret,
	       ustctl_last_error());
	ustctl_session_free(s);
	snprintf(file, sizeof(file), "%s/load.xml", outdir);
	ret = ustctl_session_write(file, &load);
	if (!ret)
		ret = ustctl_load_session(pid, NULL, file);
	if (!ret)
		ret = ustctl_list_markers(pid, &m, &nr);
	tap_ok(ret == 0 && find_marker(m, nr, "ust:tick") && !find_marker(m, nr, "ust:tick")->enabled &&
	       find_marker(m, nr, "ust:tock") && find_marker(m, nr, "ust:tock")->enabled,
	       "load_session applies its rules in order (%d: %s)", ret, ustctl_last_error());
	ustctl_free_markers(m, nr);
}

/* A TCP port of 127.0.0.1 nobody listens on: bound, then closed. */
static int closed_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;

	if (fd >= 0 && !bind(fd, (struct sockaddr *)&a, sizeof(a)) &&
	    !getsockname(fd, (struct sockaddr *)&a, &len))
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

/* Where a trace goes: chosen at create-trace or set-output, checked,
 * kept in the session, fixed once allocated, forgotten with the trace. */
static void test_output(pid_t pid)
{
	char cwd[4096], url[64], want[4096], file[4096];
	struct ustctl_session *s = NULL, *back = NULL;
	struct ustctl_session w = { .output = url };
	struct stat st;
	int ret = -1, port = closed_port();

	ret = ustctl_set_output(pid, NULL, "ftp://host");
	tap_ok(ret == -EINVAL && strstr(ustctl_last_error(), "starts with net://"),
	       "set_output ftp://host: -EINVAL, a relay URL starts with net:// (%s)",
	       ustctl_last_error());
	snprintf(url, sizeof(url), "net://127.0.0.1:%d:%d", port, port + 1 > 65535 ? 1 : port + 1);
	ret = ustctl_create_trace_output(pid, NULL, url);
	snprintf(want, sizeof(want), "cannot reach lttng-relayd at %s: control port %d", url, port);
	tap_ok(port > 0 && ret < 0 && strstr(ustctl_last_error(), want),
	       "create_trace_output to a relayd that is not there: refused, naming the URL and the port (%d: %s)",
	       ret, ustctl_last_error());

	ret = -1;
	if (getcwd(cwd, sizeof(cwd)) && chdir(outdir) == 0) {
		ret = ustctl_create_trace_output(pid, NULL, "mine/./here");
		if (chdir(cwd))
			tap_diag("cannot go back to %s", cwd);
	}
	tap_ok(ret == 0, "no trace was left behind: create_trace_output with a relative directory works (%d: %s)",
	       ret, ustctl_last_error());
	snprintf(want, sizeof(want), "%s/mine/here", outdir);
	ret = ustctl_get_session(pid, NULL, &s);
	tap_ok(ret == 0 && s->output && !strcmp(s->output, want),
	       "get_session gives the output made absolute: %s", s && s->output ? s->output : "(none)");
	ustctl_session_free(s);
	s = NULL;
	ret = ustctl_start_trace(pid, NULL);
	tap_ok(ret == 0, "the trace starts (%d: %s)", ret, ustctl_last_error());
	ret = ustctl_set_output(pid, NULL, "/elsewhere");
	tap_ok(ret == -EBUSY && strstr(ustctl_last_error(), "output is fixed until destroy-trace"),
	       "set_output once the buffers are allocated: -EBUSY (%s)", ustctl_last_error());
	sleep_ms(200);
	ret = ustctl_destroy_trace(pid, NULL);
	tap_ok(ret == 0 && stat(want, &st) == 0 && S_ISDIR(st.st_mode),
	       "ustd wrote the trace under %s (%d: %s)", want, ret, ustctl_last_error());
	ret = ustctl_get_session(pid, NULL, &s);
	tap_ok(ret == 0 && !s->output, "destroying the trace forgets its output");
	ustctl_session_free(s);

	snprintf(url, sizeof(url), "net://[::1]:7000:7001");
	snprintf(file, sizeof(file), "%s/output.xml", outdir);
	ret = ustctl_session_write(file, &w);
	if (!ret)
		ret = ustctl_session_read(file, &back);
	tap_ok(ret == 0 && back->output && !strcmp(back->output, url),
	       "a session file keeps its output URL (%d: %s)", ret, ustctl_last_error());
	ustctl_session_free(back);
	snprintf(url, sizeof(url), "net://h:0");
	ret = ustctl_session_write(file, &w);
	tap_ok(ret == -EINVAL && strstr(ustctl_last_error(), "port is a number"),
	       "a session with a bad output URL is not written (%s)", ustctl_last_error());
}

static void test_sock_path(pid_t pid)
{
	char *path = NULL;
	int ret;

	ret = ustctl_get_sock_path(pid, &path);
	tap_ok(ret == 0 && path && !strncmp(path, rundir, strlen(rundir)),
	       "get_sock_path: %s (%d: %s)", path ? path : "(none)", ret, ustctl_last_error());
	if (!ret)
		ret = ustctl_set_sock_path(pid, path);
	tap_ok(ret == 0, "set_sock_path to the same (%d: %s)", ret, ustctl_last_error());
	free(path);
}

/* A socket nobody listens on, as a process that died leaves it. */
static int plant_stale_socket(pid_t pid, char *path, size_t len)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd, ret;

	snprintf(path, len, "%s/apps/%d", rundir, (int)pid);
	if (strlen(path) >= sizeof(addr.sun_path))
		return -1;
	memcpy(addr.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	ret = bind(fd, (struct sockaddr *)&addr, sizeof(addr));
	close(fd);
	return ret;
}

static pid_t dead_pid(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return pid;
}

static void test_errors(pid_t app)
{
	char stale[4096], num[32];
	struct ustctl_info info;
	pid_t gone = dead_pid(), *pids = NULL;
	size_t nr = 0, i;
	int ret, listed_app = 0, listed_gone = 0, sorted = 1;
	double t;

	snprintf(num, sizeof(num), "%d", (int)gone);
	ret = ustctl_get_info(gone, &info);
	tap_ok(ret == -ESRCH && strstr(ustctl_last_error(), num),
	       "a process that does not exist: -ESRCH naming it (%d: %s)", ret, ustctl_last_error());
	snprintf(num, sizeof(num), "%d", (int)getpid());
	ret = ustctl_get_info(getpid(), &info);
	tap_ok(ret == -ENOENT && strstr(ustctl_last_error(), num) &&
	       strstr(ustctl_last_error(), "no control socket"),
	       "a process without a socket: -ENOENT (%d: %s)", ret, ustctl_last_error());

	tap_ok(plant_stale_socket(gone, stale, sizeof(stale)) == 0, "plant a stale socket %s", stale);
	ret = ustctl_list_pids(&pids, &nr);
	for (i = 0; i < nr; i++) {
		listed_app |= pids[i] == app;
		listed_gone |= pids[i] == gone;
		if (i)
			sorted &= pids[i - 1] < pids[i];
	}
	tap_ok(ret == 0 && listed_app && !listed_gone && sorted,
	       "list_pids lists the program, sorted, not the dead one (%zu pids; %d: %s)", nr, ret,
	       ustctl_last_error());
	tap_ok(access(stale, F_OK) < 0 && errno == ENOENT, "list_pids removed the stale socket");
	free(pids);

	kill(app, SIGSTOP);
	sleep_ms(100);
	ustctl_set_timeout(500);
	t = now_s();
	ret = ustctl_get_info(app, &info);
	t = now_s() - t;
	tap_ok(ret == -ETIMEDOUT && strstr(ustctl_last_error(), "did not answer") && t < 2.0,
	       "a stopped program: -ETIMEDOUT after %.2f s (%d: %s)", t, ret, ustctl_last_error());
	ustctl_set_timeout(0);
	kill(app, SIGCONT);
	ret = ustctl_get_info(app, &info);
	tap_ok(ret == 0 && info.pid == app, "the program answers again once continued (%d: %s)",
	       ret, ustctl_last_error());
}

static void stop_process(pid_t pid)
{
	int status;

	if (pid <= 0)
		return;
	kill(pid, SIGTERM);
	waitpid(pid, &status, 0);
}

int main(void)
{
	const char *top = getenv("top_builddir");
	char cmd[256];
	pid_t flight_pid;

	if (!top || !*top) {
		printf("1..0 # SKIP top_builddir is not set (run through make check)\n");
		return 0;
	}
	if (!mkdtemp(rundir) || !mkdtemp(outdir)) {
		perror("mkdtemp");
		return 1;
	}
	setenv("UST_RUNDIR", rundir, 1);
	unsetenv("UST_DAEMON_SOCKET");
	unsetenv("UST_TRACE");
	unsetenv("UST_AUTOPROBE");
	ustd_pid = start_ustd(top);
	tap_ok(ustd_pid > 0, "ustd started");
	app_pid = ustd_pid > 0 ? start_ticker(top, 0) : -1;
	tap_ok(app_pid > 0, "ticker started with its control socket");
	if (app_pid > 0) {
		test_inspect(app_pid);
		test_trace(app_pid);
		test_trace_on_disk();
		test_sessions(app_pid);
		test_output(app_pid);
		test_sock_path(app_pid);
		test_errors(app_pid);
	}
	stop_process(app_pid);
	test_snapshot_request();
	flight_pid = ustd_pid > 0 ? start_ticker(top, 1) : -1;
	tap_ok(flight_pid > 0, "ticker started in flight-recorder mode");
	if (flight_pid > 0)
		test_snapshot(flight_pid);
	stop_process(flight_pid);
	stop_process(ustd_pid);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", rundir, outdir);
	if (system(cmd))
		tap_diag("could not remove %s and %s", rundir, outdir);
	tap_plan(tap_count);
	return tap_done();
}
