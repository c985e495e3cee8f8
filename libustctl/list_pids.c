/* SPDX-License-Identifier: LGPL-2.1-only */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "libustcomm/protocol.h"
#include "libustcomm/rundir.h"
#include "libustcomm/unix_listening.h"
#include "libustctl/internal.h"

/* A pid from a directory entry: digits only, no leading zero, in range. */
static pid_t entry_pid(const char *name)
{
	unsigned long v;
	char *end;

	if (*name < '1' || *name > '9')
		return 0;
	errno = 0;
	v = strtoul(name, &end, 10);
	if (*end || errno || v > INT_MAX)
		return 0;
	return (pid_t)v;
}

/* Whether pid's network namespace is ours: /proc/net/unix shows ours only. */
static int same_netns(pid_t pid)
{
	struct stat self, other;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
	if (stat("/proc/self/ns/net", &self) < 0 || stat(path, &other) < 0)
		return 0;
	return self.st_ino == other.st_ino && self.st_dev == other.st_dev;
}

/*
 * A socket whose process is gone, or that nobody listens on (its number
 * now belongs to another process), is left over from a crash: removed.
 * Listening is read from the kernel's table, never by connecting: a
 * connection would ring the program's control signal, and listing rings
 * nobody. The table names a socket as it was bound, so the directory is
 * also looked up through its real path. A program in another network
 * namespace is not in our table: listed, since we cannot tell.
 */
static int is_live(pid_t pid, const char *dir, const char *path)
{
	char real[PATH_MAX], alt[PATH_MAX];
	int ret;

	if (kill(pid, 0) < 0 && errno == ESRCH) {
		unlink(path);
		return 0;
	}
	ret = ustcomm_unix_listening(path);
	if (ret == 0 && realpath(dir, real) &&
	    ustctl_socket_path(alt, sizeof(alt), real, pid) == 0 && strcmp(alt, path))
		ret = ustcomm_unix_listening(alt);
	if (ret < 0 || ret == 1)
		return 1;
	if (!same_netns(pid))
		return 1;
	unlink(path);
	return 0;
}

static int compare_pids(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

int ustctl_list_pids(pid_t **pids, size_t *nr)
{
	char dir[PATH_MAX], path[PATH_MAX];
	size_t count = 0, cap = 0;
	pid_t *list = NULL, *bigger, pid;
	struct dirent *de;
	struct stat st;
	DIR *d = NULL;
	int ret;

	ret = ustcomm_apps_dir(dir, sizeof(dir));
	if (ret) {
		ustctl_set_error("cannot use the control socket directory: %s (see the message above)",
				 strerror(-ret));
		goto end;
	}
	d = opendir(dir);
	if (!d) {
		ret = -errno;
		ustctl_set_error("cannot read the control socket directory %s: %s", dir,
				 strerror(errno));
		goto end;
	}
	while ((de = readdir(d))) {
		pid = entry_pid(de->d_name);
		if (!pid || ustctl_socket_path(path, sizeof(path), dir, pid) ||
		    lstat(path, &st) < 0 || !S_ISSOCK(st.st_mode) || !is_live(pid, dir, path))
			continue;
		if (count == cap) {
			cap = cap ? 2 * cap : 16;
			bigger = realloc(list, cap * sizeof(*list));
			if (!bigger) {
				ret = -ENOMEM;
				ustctl_set_error("out of memory");
				goto end;
			}
			list = bigger;
		}
		list[count++] = pid;
	}
	if (count)
		qsort(list, count, sizeof(*list), compare_pids);
end:
	if (d)
		closedir(d);
	if (ret) {
		free(list);
		list = NULL;
		count = 0;
	}
	*pids = list;
	*nr = count;
	return ret;
}
