/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Layer: ustd/output; may call: libustcomm
 *
 * ustd's local files, the bottom of its pipeline: trace directories and
 * their metadata (trace_dir.c), directories published whole (dir_publish.c),
 * a stream's series of bounded files (tracefile.c), the page cache written
 * back behind the drain (writeback.c), files written straight from the
 * rings with O_DIRECT instead (direct_io.c) and the packet index
 * (packet_index.c).
 * It knows nothing of programs, relayd or sessions.
 *
 * Here (output.c): files and directories as ustd makes them under its
 * output directory, their modes, mkdir -p, and writes that go out whole;
 * what every other file of ustd/output writes with.
 */
#ifndef USTD_OUTPUT_H
#define USTD_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

/* The modes of everything ustd creates under its output directory (the
 * umask applies too): the user's own, 0700 and 0600, since a trace holds
 * what a program did and a session's files what a user traces; 0750 and
 * 0640 after ustd_set_group_readable() (ustd --group-readable). */
mode_t ustd_dir_mode(void);
mode_t ustd_file_mode(void);
void ustd_set_group_readable(void);

/* Creates path and its missing parents, like mkdir -p. Returns 0 or a
 * negative errno. */
int ustd_mkdir_p(const char *path);

/* Writes all of buf, retrying partial writes and EINTR. Returns 0 or a
 * negative errno. */
int ustd_write_all(int fd, const void *buf, size_t len);

/* The same for iovcnt pieces written as one; iov is consumed. */
int ustd_writev_all(int fd, struct iovec *iov, int iovcnt);
/* The same at offset, the file's offset left as it is. */
int ustd_pwritev_all(int fd, struct iovec *iov, int iovcnt, uint64_t offset);

#endif
