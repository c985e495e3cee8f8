/* SPDX-License-Identifier: GPL-2.0-only */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ustd/output/dir_publish.h"
#include "ustd/output/output.h"
#include "ustd/output/packet_index.h"
#include "ustd/output/trace_dir.h"

/* Bounds the -1, -2... suffixes tried when one process starts several
 * traces within the same second. */
#define TRACE_DIR_MAX_SUFFIX	1000
/* A trace directory's path leaves room for "/metadata" in PATH_MAX. */
#define TRACE_DIR_PATH_MAX	(PATH_MAX - 16)

/* The process name comes from the application: keep it from escaping the
 * output directory or hiding the trace. */
static void trace_dir_clean_name(char *out, size_t size, const char *procname)
{
	size_t i;

	snprintf(out, size, "%s", procname[0] ? procname : "app");
	for (i = 0; out[i]; i++) {
		unsigned char c = (unsigned char)out[i];

		if (c == '/' || c < 0x20 || c == 0x7f || (i == 0 && c == '.'))
			out[i] = '_';
	}
}

/*
 * Makes the empty directory path, just created, a trace directory: its
 * metadata file, created exclusively. On failure nothing is left behind.
 */
static int trace_dir_open(struct ustd_trace_dir *td, const char *path)
{
	char meta[PATH_MAX];
	int ret = 0;

	snprintf(meta, sizeof(meta), "%s/metadata", path);
	td->metadata_fd = open(meta, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, ustd_file_mode());
	td->path = strdup(path);
	if (td->metadata_fd < 0 || !td->path) {
		ret = td->metadata_fd < 0 ? -errno : -ENOMEM;
		if (td->metadata_fd >= 0)
			close(td->metadata_fd);
		td->metadata_fd = -1;
		free(td->path);
		td->path = NULL;
		unlink(meta);
		rmdir(path);
	}
	return ret;
}

int ustd_trace_name(char *out, size_t size, const char *procname, pid_t pid, time_t when)
{
	char name[64], stamp[32];
	struct tm tm;
	int n;

	trace_dir_clean_name(name, sizeof(name), procname);
	if (!localtime_r(&when, &tm) || !strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm))
		return -EINVAL;
	n = snprintf(out, size, "%s-%d-%s", name, (int)pid, stamp);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int trace_dir_create_in(struct ustd_trace_dir *td, const char *output, const char *name);

int ustd_trace_dir_create(struct ustd_trace_dir *td, const char *output,
			  const char *procname, pid_t pid, time_t when)
{
	char name[USTD_TRACE_NAME_MAX];
	int ret;

	td->path = NULL;
	td->metadata_fd = -1;
	td->metadata_len = 0;
	ret = ustd_trace_name(name, sizeof(name), procname, pid, when);
	return ret < 0 ? ret : trace_dir_create_in(td, output, name);
}

void ustd_trace_proc_name(char *out, size_t size, const char *procname, pid_t pid)
{
	char clean[64];

	trace_dir_clean_name(clean, sizeof(clean), procname);
	snprintf(out, size, "%s-%d", clean, (int)pid);
}

int ustd_trace_dir_create_proc(struct ustd_trace_dir *td, const char *output,
			       const char *procname, pid_t pid)
{
	char name[USTD_TRACE_NAME_MAX];

	ustd_trace_proc_name(name, sizeof(name), procname, pid);
	return trace_dir_create_in(td, output, name);
}

static int trace_dir_create_in(struct ustd_trace_dir *td, const char *output, const char *name)
{
	char path[TRACE_DIR_PATH_MAX];
	int i, n, ret;

	td->path = NULL;
	td->metadata_fd = -1;
	td->metadata_len = 0;
	ret = ustd_mkdir_p(output);
	if (ret < 0)
		goto end;
	for (i = 0; ; i++) {
		if (i == 0)
			n = snprintf(path, sizeof(path), "%s/%s", output, name);
		else
			n = snprintf(path, sizeof(path), "%s/%s-%d", output, name, i);
		if (n < 0 || (size_t)n >= sizeof(path)) {
			ret = -ENAMETOOLONG;
			goto end;
		}
		if (mkdir(path, ustd_dir_mode()) == 0)
			break;
		if (errno != EEXIST || i == TRACE_DIR_MAX_SUFFIX) {
			ret = -errno;
			goto end;
		}
	}
	ret = trace_dir_open(td, path);
end:
	return ret;
}

int ustd_trace_dir_append_metadata(struct ustd_trace_dir *td, const char *text, size_t len)
{
	int ret = ustd_write_all(td->metadata_fd, text, len);

	/* Half a block would make the whole trace unreadable: cut it off. */
	if (ret < 0 && ftruncate(td->metadata_fd, (off_t)td->metadata_len) < 0)
		ret = -errno;
	if (ret == 0)
		td->metadata_len += len;
	return ret;
}

int ustd_trace_dir_create_file(const struct ustd_trace_dir *td, const char *name)
{
	char path[PATH_MAX];
	int n, fd;

	n = snprintf(path, sizeof(path), "%s/%s", td->path, name);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, ustd_file_mode());
	return fd < 0 ? -errno : fd;
}

int ustd_trace_dir_create_stream(const struct ustd_trace_dir *td, const char *name,
				 int *fd, int *idx_fd)
{
	struct ust_index_file_header h;
	char path[PATH_MAX];
	int n, ret;

	*fd = *idx_fd = -1;
	n = snprintf(path, sizeof(path), "%s/" UST_INDEX_DIR, td->path);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	if (mkdir(path, ustd_dir_mode()) < 0 && errno != EEXIST)
		return -errno;
	ret = ustd_trace_dir_create_file(td, name);
	if (ret < 0)
		return ret;
	*fd = ret;
	n = snprintf(path, sizeof(path), UST_INDEX_DIR "/%s" UST_INDEX_SUFFIX, name);
	ret = n < 0 || (size_t)n >= sizeof(path) ? -ENAMETOOLONG :
		ustd_trace_dir_create_file(td, path);
	if (ret >= 0) {
		*idx_fd = ret;
		ustd_index_file_header(&h);
		ret = ustd_write_all(*idx_fd, &h, sizeof(h));
	}
	if (ret < 0) {
		close(*fd);
		if (*idx_fd >= 0)
			close(*idx_fd);
		*fd = *idx_fd = -1;
		/* Nothing half-made stays behind to be read as a stream. */
		ustd_trace_dir_remove_stream(td, name);
	}
	return ret < 0 ? ret : 0;
}

int ustd_trace_dir_remove_stream(const struct ustd_trace_dir *td, const char *name)
{
	char path[PATH_MAX];
	int n, ret = 0;

	n = snprintf(path, sizeof(path), "%s/%s", td->path, name);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	if (unlink(path) < 0 && errno != ENOENT)
		ret = -errno;
	n = snprintf(path, sizeof(path), "%s/" UST_INDEX_DIR "/%s" UST_INDEX_SUFFIX, td->path,
		     name);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	if (unlink(path) < 0 && errno != ENOENT && ret == 0)
		ret = -errno;
	return ret;
}

static int trace_dir_copy_metadata(const struct ustd_trace_dir *td,
				   struct ustd_trace_dir *snap)
{
	char path[PATH_MAX], buf[65536];
	size_t left = td->metadata_len;
	ssize_t n;
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/metadata", td->path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* Whole declaration blocks only: what was appended, not more. */
	while (left > 0 && ret == 0) {
		n = read(fd, buf, left < sizeof(buf) ? left : sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 ? -errno : -EIO;
			break;
		}
		ret = ustd_trace_dir_append_metadata(snap, buf, (size_t)n);
		left -= (size_t)n;
	}
	close(fd);
	return ret;
}

int ustd_trace_dir_snapshot(const struct ustd_trace_dir *td, const char *parent,
			    struct ustd_trace_dir *snap)
{
	char path[TRACE_DIR_PATH_MAX];
	int ret;

	snap->path = NULL;
	snap->metadata_fd = -1;
	snap->metadata_len = 0;
	ret = ustd_dir_partial(parent, "snapshot", path, sizeof(path));
	if (ret < 0)
		return ret;
	ret = trace_dir_open(snap, path);
	if (ret < 0)
		return ret;
	ret = trace_dir_copy_metadata(td, snap);
	if (ret < 0)
		ustd_trace_dir_discard(snap);
	return ret;
}

int ustd_trace_dir_snapshot_publish(const struct ustd_trace_dir *td, struct ustd_trace_dir *snap,
				    const char *parent, unsigned *n)
{
	char stem[TRACE_DIR_PATH_MAX], path[TRACE_DIR_PATH_MAX];
	const char *base = strrchr(td->path, '/');
	char *copy;
	int ret;

	snprintf(stem, sizeof(stem), "%s-snapshot", base ? base + 1 : td->path);
	ret = ustd_dir_publish(snap->path, parent, stem, n, path, sizeof(path));
	if (ret < 0)
		return ret;
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	free(snap->path);
	snap->path = copy;
	return 0;
}

void ustd_trace_dir_close(struct ustd_trace_dir *td)
{
	if (td->metadata_fd >= 0)
		close(td->metadata_fd);
	td->metadata_fd = -1;
	free(td->path);
	td->path = NULL;
}

void ustd_trace_dir_discard(struct ustd_trace_dir *td)
{
	char meta[PATH_MAX];

	if (td->path) {
		snprintf(meta, sizeof(meta), "%s/metadata", td->path);
		unlink(meta);
		rmdir(td->path);
	}
	ustd_trace_dir_close(td);
}

int ustd_trace_dir_remove_unwritten(const char *path)
{
	char meta[PATH_MAX];
	struct dirent *de;
	struct stat st;
	int others = 0;
	DIR *dir;

	if (snprintf(meta, sizeof(meta), "%s/metadata", path) >= (int)sizeof(meta) ||
	    stat(meta, &st) < 0 || st.st_size != 0)
		return 0;
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((de = readdir(dir)) != NULL)
		others += strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
			  strcmp(de->d_name, "metadata");
	closedir(dir);
	if (others || unlink(meta) < 0)
		return 0;
	return rmdir(path) == 0;
}

int ustd_trace_dir_rotate(struct ustd_trace_dir *td, const char *chunk)
{
	struct ustd_trace_dir old = { .metadata_fd = -1, .metadata_len = td->metadata_len };
	char moved[TRACE_DIR_PATH_MAX];
	const char *base = strrchr(td->path, '/');
	char *path = td->path;
	int n, ret;

	base = base ? base + 1 : td->path;
	n = snprintf(moved, sizeof(moved), "%s/%s", chunk, base);
	if (n < 0 || (size_t)n >= sizeof(moved))
		return -ENAMETOOLONG;
	if (rename(path, moved) < 0)
		return -errno;
	close(td->metadata_fd);
	td->metadata_fd = -1;
	td->path = NULL;
	td->metadata_len = 0;
	old.path = moved;
	/* The same name again, with every declaration so far: the events of
	 * the next chunk use them. */
	ret = mkdir(path, ustd_dir_mode()) < 0 ? -errno : trace_dir_open(td, path);
	if (ret == 0)
		ret = trace_dir_copy_metadata(&old, td);
	free(path);
	return ret;
}

int ustd_trace_dir_chunk_name(const char *session_dir, time_t begin, time_t end, unsigned n,
			      char *out, size_t size)
{
	char b[32], e[32];
	struct tm tm;
	int len;

	if (!localtime_r(&begin, &tm) || !strftime(b, sizeof(b), "%Y%m%dT%H%M%S%z", &tm) ||
	    !localtime_r(&end, &tm) || !strftime(e, sizeof(e), "%Y%m%dT%H%M%S%z", &tm))
		return -EINVAL;
	len = snprintf(out, size, "%s/archives/%s-%s-%u", session_dir, b, e, n);
	return len < 0 || (size_t)len >= size ? -ENAMETOOLONG : 0;
}
