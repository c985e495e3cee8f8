/* SPDX-License-Identifier: GPL-2.0-only */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>
#include "libustcomm/log.h"
#include "libustcomm/orphan.h"
#include "libustcomm/rundir.h"
#include "ustd/conn/orphan.h"

/* Reads len bytes at off; 0, or -EPROTO for a file that ends before. */
static int orphan_read(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t n = pread(fd, buf, len, (off_t)off);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EPROTO;
}

/* The record at *off as a message: a STREAM's descriptors are the file
 * (the stream owns a copy) and a fresh eventfd nobody writes. *off moves
 * past the record, and past a STREAM's image, whose offset is *image_at. */
static int orphan_next(int fd, uint64_t size, uint64_t *off, struct ustcomm_msg *msg,
		       uint64_t *image_at)
{
	const struct ustcomm_stream *desc;
	struct ustcomm_msg_header hdr;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	int ret;

	memset(msg, 0, sizeof(*msg));
	msg->fds[0] = msg->fds[1] = -1;
	ret = orphan_read(fd, &hdr, sizeof(hdr), *off);
	if (ret == 0)
		ret = ustcomm_check_header(&hdr);
	if (ret < 0)
		goto end;
	msg->payload = malloc((size_t)hdr.payload_len + 1);
	if (!msg->payload) {
		ret = -ENOMEM;
		goto end;
	}
	ret = orphan_read(fd, msg->payload, hdr.payload_len, *off + sizeof(hdr));
	if (ret < 0)
		goto end;
	msg->payload[hdr.payload_len] = '\0';
	msg->type = hdr.type;
	msg->payload_len = hdr.payload_len;
	*off += sizeof(hdr) + hdr.payload_len;
	*image_at = 0;
	if (hdr.type != USTCOMM_MSG_STREAM) {
		/* A trigger channel has no meaning for a program gone. */
		ret = hdr.nr_fds ? -EPROTO : 0;
		goto end;
	}
	msg->nr_fds = 2;
	ret = ustcomm_check_stream(msg, &desc);
	if (ret < 0)
		goto end;
	*image_at = ustcomm_orphan_image_at(*off);
	*off = *image_at + ust_shm_map_size(desc->subbuf_size, desc->subbuf_count, page);
	if (*off > size) {
		ret = -EPROTO;
		goto end;
	}
	msg->fds[0] = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	msg->fds[1] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (msg->fds[0] < 0 || msg->fds[1] < 0)
		ret = -errno;
end:
	if (ret < 0)
		ustcomm_msg_release(msg);
	return ret;
}

/* Writes the orphan at path out; 0 once it is on disk whole. */
static int orphan_take(const struct ustd_ctx *ctx, struct ustd_app **apps, const char *path)
{
	struct ustcomm_orphan_head head;
	struct ustcomm_msg msg;
	struct ustd_app *app;
	uint64_t off = sizeof(head), image_at;
	struct stat st;
	int fd, ret;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		goto end;
	}
	ret = orphan_read(fd, &head, sizeof(head), 0);
	if (ret == 0 && (head.magic != USTCOMM_ORPHAN_MAGIC ||
			 head.version != USTCOMM_ORPHAN_VERSION || !head.pid || head.pid > INT_MAX))
		ret = -EPROTO;
	if (ret < 0)
		goto end;
	app = ustd_app_new_orphan(ctx, (pid_t)head.pid);
	if (!app) {
		ret = -ENOMEM;
		goto end;
	}
	app->next = *apps;
	*apps = app;
	while (ret == 0 && off < (uint64_t)st.st_size) {
		ret = orphan_next(fd, (uint64_t)st.st_size, &off, &msg, &image_at);
		if (ret == 0) {
			ret = ustd_app_take(app, &msg, image_at);
			ustcomm_msg_release(&msg);
		}
	}
	/* What was taken is written, even from a file cut short. */
	ustd_app_end_orphan(app);
	if (ret == 0 && (app->stopped || !app->said_hello))
		ret = -EIO;
end:
	close(fd);
	return ret;
}

void ustd_orphans_take(const struct ustd_ctx *ctx, struct ustd_app **apps)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *dp;
	int ret;

	if (ustcomm_orphans_dir(dir, sizeof(dir)) < 0)
		return;
	dp = opendir(dir);
	if (!dp)
		return;
	while ((de = readdir(dp))) {
		/* A name with a leading dot is still being written. */
		if (de->d_name[0] == '.' ||
		    snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path) ||
		    lstat(path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != getuid())
			continue;
		ret = orphan_take(ctx, apps, path);
		if (ret == 0) {
			unlink(path);
			continue;
		}
		/* Kept: a ustd with room or a fixed file system may take it. */
		ustcomm_err("cannot write the trace a program left in %s: %s; the file is kept",
			    path, strerror(-ret));
	}
	closedir(dp);
}
