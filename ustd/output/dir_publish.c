/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include "ustd/output/dir_publish.h"
#include "ustd/output/output.h"

/* Bounds the names tried past those taken. */
#define PUBLISH_MAX_TRIES	1000

int ustd_dir_partial(const char *parent, const char *stem, char *out, size_t size)
{
	int len, ret;

	ret = ustd_mkdir_p(parent);
	if (ret < 0)
		goto end;
	len = snprintf(out, size, "%s/.%s-partial-XXXXXX", parent, stem);
	if (len < 0 || (size_t)len >= size) {
		ret = -ENAMETOOLONG;
		goto end;
	}
	if (!mkdtemp(out))
		ret = -errno;
	else if (chmod(out, ustd_dir_mode()) < 0)
		ret = -errno;
end:
	return ret;
}

/*
 * RENAME_NOREPLACE makes taking the name and filling it one step. A file
 * system without it (EINVAL) gets a plain rename() of a name seen free:
 * ustd alone names the directories of its traces, one at a time.
 */
int ustd_dir_publish_as(const char *partial, const char *path)
{
	if (renameat2(AT_FDCWD, partial, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL)
		return -errno;
	if (access(path, F_OK) == 0)
		return -EEXIST;
	return rename(partial, path) < 0 ? -errno : 0;
}

int ustd_dir_publish(const char *partial, const char *parent, const char *stem, unsigned *n,
		     char *out, size_t size)
{
	int tries, len, ret = -EEXIST;

	for (tries = 0; tries < PUBLISH_MAX_TRIES && ret == -EEXIST; tries++) {
		len = snprintf(out, size, "%s/%s-%u", parent, stem, *n);
		if (len < 0 || (size_t)len >= size)
			return -ENAMETOOLONG;
		ret = ustd_dir_publish_as(partial, out);
		/* ENOTEMPTY: the name is a directory with files in it. */
		if (ret == -ENOTEMPTY)
			ret = -EEXIST;
		if (ret == -EEXIST)
			(*n)++;
	}
	return ret;
}
