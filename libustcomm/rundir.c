/* SPDX-License-Identifier: LGPL-2.1-only */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include "libustcomm/format.h"
#include "libustcomm/log.h"
#include "libustcomm/rundir.h"

/* Writes the run directory's path into buf; -ENAMETOOLONG when it does not fit. */
static int rundir_path(char *buf, size_t len)
{
	const char *env;
	int n;

	env = getenv("UST_RUNDIR");
	if (env && *env) {
		n = snprintf(buf, len, "%s", env);
	} else {
		env = getenv("XDG_RUNTIME_DIR");
		if (env && *env)
			n = snprintf(buf, len, "%s/ust", env);
		else
			n = snprintf(buf, len, "/tmp/ust-%u", (unsigned)geteuid());
	}
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	/* "dir/" would make lstat() follow a symlink named dir. */
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = '\0';
	return 0;
}

/* The remedy a message gives: "set UST_RUNDIR" would mislead whoever set it. */
static const char *rundir_remedy(void)
{
	const char *env = getenv("UST_RUNDIR");

	return env && *env ? "point UST_RUNDIR to another, private directory" :
			     "set UST_RUNDIR to a private directory";
}

/*
 * The sockets in the directory accept commands that start traces and read
 * memory, so the directory must be the caller's alone: checked with lstat so
 * that a symlink planted by someone else (in /tmp) is never followed.
 */
static int rundir_check(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0) {
		int ret = -errno;

		ustcomm_err("cannot use run directory %s: %s", path, ustcomm_strerror(-ret));
		return ret;
	}
	if (S_ISLNK(st.st_mode)) {
		ustcomm_err("run directory %s is a symbolic link; remove it or %s", path,
			    rundir_remedy());
		return -EPERM;
	}
	if (!S_ISDIR(st.st_mode)) {
		ustcomm_err("run directory %s is not a directory; remove it or %s", path,
			    rundir_remedy());
		return -ENOTDIR;
	}
	if (st.st_uid != geteuid()) {
		ustcomm_err("run directory %s is owned by uid %u, not by uid %u; remove it or %s",
			    path, (unsigned)st.st_uid, (unsigned)geteuid(), rundir_remedy());
		return -EPERM;
	}
	if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		ustcomm_err("run directory %s is open to other users (mode %03o); run 'chmod 700 %s'",
			    path, (unsigned)(st.st_mode & 0777), path);
		return -EPERM;
	}
	return 0;
}

int ustcomm_rundir(char *buf, size_t len)
{
	int ret;

	ret = rundir_path(buf, len);
	if (ret) {
		ustcomm_err("run directory path is longer than %zu bytes; set UST_RUNDIR to a shorter path",
			    len - 1);
		goto end;
	}
	if (mkdir(buf, 0700) < 0 && errno != EEXIST) {
		ret = -errno;
		ustcomm_err("cannot create run directory %s: %s; create its parent or %s",
			    buf, ustcomm_strerror(errno), rundir_remedy());
		goto end;
	}
	ret = rundir_check(buf);
end:
	return ret;
}

/* <rundir>/name, created 0700 and checked like the run directory; what
 * says what it holds, for messages. */
static int rundir_sub(char *buf, size_t len, const char *name, const char *what)
{
	char dir[4096];
	int n, ret;

	ret = ustcomm_rundir(dir, sizeof(dir));
	if (ret)
		goto end;
	n = snprintf(buf, len, "%s/%s", dir, name);
	if (n < 0 || (size_t)n >= len) {
		ret = -ENAMETOOLONG;
		ustcomm_err("%s directory %s/%s is too long; set UST_RUNDIR to a shorter path",
			    what, dir, name);
		goto end;
	}
	if (mkdir(buf, 0700) < 0 && errno != EEXIST) {
		ret = -errno;
		ustcomm_err("cannot create %s directory %s: %s", what, buf, ustcomm_strerror(errno));
		goto end;
	}
	ret = rundir_check(buf);
end:
	return ret;
}

int ustcomm_apps_dir(char *buf, size_t len)
{
	return rundir_sub(buf, len, "apps", "control socket");
}

int ustcomm_orphans_dir(char *buf, size_t len)
{
	return rundir_sub(buf, len, "orphans", "orphan trace");
}

int ustcomm_write_marks_dir(char *buf, size_t len)
{
	return rundir_sub(buf, len, "writing", "write mark");
}

int ustcomm_daemon_socket_path(char *buf, size_t len)
{
	const char *env = getenv("UST_DAEMON_SOCKET");
	char dir[4096];
	int n, ret = 0;

	if (env && *env) {
		n = snprintf(buf, len, "%s", env);
	} else {
		ret = ustcomm_rundir(dir, sizeof(dir));
		if (ret)
			goto end;
		n = snprintf(buf, len, "%s/ustd", dir);
	}
	if (n < 0 || (size_t)n >= len) {
		ret = -ENAMETOOLONG;
		ustcomm_err("ustd socket path is longer than %zu bytes; set UST_DAEMON_SOCKET to a shorter path",
			    len - 1);
	}
end:
	return ret;
}

int ustcomm_daemon_sibling_path(char *buf, size_t len, const char *daemon_path,
				const char *suffix)
{
	int n = snprintf(buf, len, "%s%s", daemon_path, suffix);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int ustcomm_uuid_generate(unsigned char uuid[16])
{
	size_t done = 0;

	while (done < 16) {
		ssize_t n = getrandom(uuid + done, 16 - done, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		done += (size_t)n;
	}
	uuid[6] = (uuid[6] & 0x0f) | 0x40;	/* version 4: random */
	uuid[8] = (uuid[8] & 0x3f) | 0x80;	/* variant 1 (RFC 4122) */
	return 0;
}

void ustcomm_uuid_format(const unsigned char uuid[16], char out[37])
{
	static const char hex[] = "0123456789abcdef";
	size_t i, o = 0;

	for (i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[o++] = '-';
		out[o++] = hex[uuid[i] >> 4];
		out[o++] = hex[uuid[i] & 0xf];
	}
	out[o] = '\0';
}

USTCOMM_API int ustcomm_default_output_dir(char *buf, size_t len)
{
	const char *home = getenv("HOME");
	struct passwd *pw;
	int n;

	if (!home || !home[0]) {
		pw = getpwuid(getuid());
		if (!pw)
			return -ENOENT;
		home = pw->pw_dir;
	}
	n = snprintf(buf, len, "%s/ust-traces", home);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}
