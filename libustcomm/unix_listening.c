/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * /proc/net/unix has a line per UNIX socket of the namespace:
 * "Num: RefCount Protocol Flags Type St Inode Path", the flags in
 * hexadecimal, __SO_ACCEPTCON (0x10000) set on a listening socket, the
 * path as it was bound.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libustcomm/unix_listening.h"

#define SO_ACCEPTCON_FLAG	0x10000ul

static int line_listens_on(const char *line, const char *path)
{
	unsigned long flags;
	const char *p;
	size_t plen = strlen(path), len = strlen(line);

	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		len--;
	if (len <= plen || line[len - plen - 1] != ' ' || strncmp(line + len - plen, path, plen))
		return 0;
	/* Num, RefCount, Protocol, then Flags. */
	p = strchr(line, ' ');
	if (!p || !(p = strchr(p + 1, ' ')) || !(p = strchr(p + 1, ' ')))
		return 0;
	flags = strtoul(p + 1, NULL, 16);
	return (flags & SO_ACCEPTCON_FLAG) != 0;
}

int ustcomm_unix_listening(const char *path)
{
	char line[4096 + 128];
	int found = 0, ret;
	FILE *f;

	f = fopen("/proc/net/unix", "re");
	if (!f)
		return -errno;
	while (!found && fgets(line, sizeof(line), f))
		found = line_listens_on(line, path);
	ret = ferror(f) ? -EIO : found;
	fclose(f);
	return ret;
}
