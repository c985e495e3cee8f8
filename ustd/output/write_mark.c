/* SPDX-License-Identifier: GPL-2.0-only */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>
#include "libustcomm/log.h"
#include "libustcomm/rundir.h"
#include "ustd/output/file_takeover.h"
#include "ustd/output/write_mark.h"

int ustd_write_marks_open(struct ustd_write_marks *m)
{
	char path[PATH_MAX];
	int ret = ustcomm_write_marks_dir(path, sizeof(path));

	m->dirfd = -1;
	if (ret < 0)
		return ret;
	/* Checked as the run directory (ours alone, no symbolic link): a
	 * mark elsewhere could send us to cut someone else's file. */
	m->dirfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return m->dirfd < 0 ? -errno : 0;
}

void ustd_write_marks_close(struct ustd_write_marks *m)
{
	if (m->dirfd >= 0)
		close(m->dirfd);
	m->dirfd = -1;
}

static int mark_name(const uint8_t uuid[16], const char *stream, char *out, size_t size)
{
	char u[37];
	int n;

	ustcomm_uuid_format(uuid, u);
	n = snprintf(out, size, "%s-%s", u, stream);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* name -> "<pid>:<program>:<path>", pid the ustd writing path for the
 * program, replacing what name was: a new link renamed over it, so that a
 * ustd killed meanwhile leaves the old mark or the new one. */
static int mark_write(const struct ustd_write_marks *m, const char *name,
		      const struct ustd_write_mark *mk)
{
	char tmp[NAME_MAX + 1], target[PATH_MAX + 16];
	int n = snprintf(tmp, sizeof(tmp), ".%s.new", name);

	if (n < 0 || (size_t)n >= sizeof(tmp))
		return -ENAMETOOLONG;
	n = snprintf(target, sizeof(target), "%d:%d:%s", (int)mk->ustd, (int)mk->program,
		     mk->path);
	if (n < 0 || (size_t)n >= sizeof(target))
		return -ENAMETOOLONG;
	unlinkat(m->dirfd, tmp, 0);
	if (symlinkat(target, m->dirfd, tmp) < 0)
		return -errno;
	if (renameat(m->dirfd, tmp, m->dirfd, name) < 0) {
		n = -errno;
		unlinkat(m->dirfd, tmp, 0);
		return n;
	}
	return 0;
}

int ustd_write_mark_set(const struct ustd_write_marks *m, const uint8_t uuid[16],
			const char *stream, pid_t program, const char *path)
{
	struct ustd_write_mark mk = { .ustd = getpid(), .program = program };
	char name[NAME_MAX + 1];
	int ret;

	if (m->dirfd < 0)
		return 0;
	if (strlen(path) >= sizeof(mk.path))
		return -ENAMETOOLONG;
	strcpy(mk.path, path);
	ret = mark_name(uuid, stream, name, sizeof(name));
	return ret < 0 ? ret : mark_write(m, name, &mk);
}

void ustd_write_mark_clear(const struct ustd_write_marks *m, const uint8_t uuid[16],
			   const char *stream)
{
	char name[NAME_MAX + 1];

	if (m->dirfd >= 0 && mark_name(uuid, stream, name, sizeof(name)) == 0)
		unlinkat(m->dirfd, name, 0);
}

static int mark_read(const struct ustd_write_marks *m, const char *name,
		     struct ustd_write_mark *mk)
{
	char target[PATH_MAX + 32];
	int ustd, program, at = 0;
	ssize_t n = readlinkat(m->dirfd, name, target, sizeof(target) - 1);

	if (n < 0)
		return -errno;
	target[n] = '\0';
	if (sscanf(target, "%d:%d:%n", &ustd, &program, &at) != 2 || !at || target[at] != '/')
		return -EINVAL;
	if (strlen(target + at) >= sizeof(mk->path))
		return -ENAMETOOLONG;
	mk->ustd = ustd;
	mk->program = program;
	strcpy(mk->path, target + at);
	return 0;
}

int ustd_write_mark_get(const struct ustd_write_marks *m, const uint8_t uuid[16],
			const char *stream, struct ustd_write_mark *mk)
{
	char name[NAME_MAX + 1];
	int ret;

	if (m->dirfd < 0)
		return -ENOENT;
	ret = mark_name(uuid, stream, name, sizeof(name));
	if (ret == 0)
		ret = mark_read(m, name, mk);
	/* Ours: the stream's file is open here (a program's second trace
	 * with the same uuid), and its lock would never be granted. */
	return ret == 0 && mk->ustd == getpid() ? -EBUSY : ret;
}

/* Calls fn on every mark (not the links being made), with its target. */
static void marks_each(const struct ustd_write_marks *m,
		       void (*fn)(const struct ustd_write_marks *m, const char *name,
				  const struct ustd_write_mark *mk, const void *arg),
		       const void *arg)
{
	struct ustd_write_mark mk;
	struct dirent *de;
	DIR *dir;
	int fd;

	if (m->dirfd < 0)
		return;
	fd = dup(m->dirfd);
	dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return;
	}
	/* The directory is read from its start whatever the descriptor
	 * shared with m->dirfd read before. */
	rewinddir(dir);
	while ((de = readdir(dir)) != NULL) {
		if (de->d_name[0] != '.' && mark_read(m, de->d_name, &mk) == 0)
			fn(m, de->d_name, &mk, arg);
	}
	closedir(dir);
}

struct mark_move {
	const char *from, *to;
};

static void mark_move(const struct ustd_write_marks *m, const char *name,
		      const struct ustd_write_mark *mk, const void *arg)
{
	const struct mark_move *mv = arg;
	size_t len = strlen(mv->from);
	struct ustd_write_mark to = *mk;
	int n;

	if (strncmp(mk->path, mv->from, len) != 0 || mk->path[len] != '/')
		return;
	n = snprintf(to.path, sizeof(to.path), "%s%s", mv->to, mk->path + len);
	if (n > 0 && (size_t)n < sizeof(to.path) && mark_write(m, name, &to) == 0)
		ustcomm_dbg("the write mark of %s follows it to %s", mk->path, to.path);
}

void ustd_write_marks_moved(const struct ustd_write_marks *m, const char *from, const char *to)
{
	const struct mark_move mv = { from, to };

	marks_each(m, mark_move, &mv);
}

static bool alive(pid_t pid)
{
	return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

/*
 * A mark whose ustd and program are both gone: nobody will write the
 * ring's packets elsewhere (its orphan, if the program left one, was
 * taken over already), so every whole packet in the file stays and gets
 * its index entry (the dead ustd gave a sub-buffer back before it wrote
 * its packet's entry). A mark whose program lives is kept for the ustd
 * the program reports to; a pid reused meanwhile only keeps a mark.
 */
static void mark_sweep(const struct ustd_write_marks *m, const char *name,
		       const struct ustd_write_mark *mk, const void *arg)
{
	struct ustd_takeover r;
	int ret;

	(void)arg;
	if (mk->ustd == getpid() || alive(mk->ustd) || alive(mk->program))
		return;
	ret = ustd_file_takeover(mk->path, NULL, UINT64_MAX, NULL, NULL, &r);
	if (ret == 0 && r.indexed)
		ustcomm_dbg("%s, a killed ustd's file, indexed to its end: %llu entries added",
			    mk->path, (unsigned long long)r.indexed);
	else if (ret < 0 && ret != -ENOENT)
		ustcomm_dbg("%s, a killed ustd's file, cannot be indexed to its end: %s",
			    mk->path, strerror(-ret));
	unlinkat(m->dirfd, name, 0);
}

void ustd_write_marks_sweep(const struct ustd_write_marks *m)
{
	marks_each(m, mark_sweep, NULL);
}
