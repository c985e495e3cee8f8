/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include "ustd/output/output.h"

static bool fs_group_readable;

mode_t ustd_dir_mode(void)
{
	return fs_group_readable ? 0750 : 0700;
}

mode_t ustd_file_mode(void)
{
	return fs_group_readable ? 0640 : 0600;
}

void ustd_set_group_readable(void)
{
	fs_group_readable = true;
}

int ustd_mkdir_p(const char *path)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);
	struct stat st;
	char *p;
	int ret = 0;

	if (len == 0 || len >= sizeof(buf)) {
		ret = len ? -ENAMETOOLONG : -ENOENT;
		goto end;
	}
	memcpy(buf, path, len + 1);
	for (p = buf + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		if (p[-1] != '/') {
			char c = *p;

			*p = '\0';
			if (mkdir(buf, ustd_dir_mode()) < 0 && errno != EEXIST) {
				ret = -errno;
				goto end;
			}
			*p = c;
		}
		if (*p == '\0')
			break;
	}
	/* EEXIST above may name a file that is not a directory. */
	if (stat(path, &st) < 0)
		ret = -errno;
	else if (!S_ISDIR(st.st_mode))
		ret = -ENOTDIR;
end:
	return ret;
}

/* at: where in the file, or -1 for the file's offset. */
static int output_writev(int fd, struct iovec *iov, int iovcnt, off_t at)
{
	ssize_t n = 0;
	int ret = 0;

	for (;;) {
		/* Skip what went out; resume in the iovec a short write
		 * stopped in. */
		for (; iovcnt > 0 && (size_t)n >= iov->iov_len; iov++, iovcnt--)
			n -= (ssize_t)iov->iov_len;
		if (iovcnt == 0)
			break;
		iov->iov_base = (char *)iov->iov_base + n;
		iov->iov_len -= (size_t)n;
		n = at < 0 ? writev(fd, iov, iovcnt) : pwritev(fd, iov, iovcnt, at);
		if (n > 0 && at >= 0)
			at += n;
		if (n < 0) {
			if (errno == EINTR) {
				n = 0;
				continue;
			}
			ret = -errno;
			goto end;
		}
		/* No progress and no error: nothing would change on retry. */
		if (n == 0) {
			ret = -EIO;
			goto end;
		}
	}
end:
	return ret;
}

int ustd_writev_all(int fd, struct iovec *iov, int iovcnt)
{
	return output_writev(fd, iov, iovcnt, -1);
}

int ustd_pwritev_all(int fd, struct iovec *iov, int iovcnt, uint64_t offset)
{
	return output_writev(fd, iov, iovcnt, (off_t)offset);
}

int ustd_write_all(int fd, const void *buf, size_t len)
{
	struct iovec iov = { (void *)buf, len };

	return ustd_writev_all(fd, &iov, 1);
}
