/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where each stream file being written is, for the ustd that comes after
 * one that was killed: <rundir>/writing holds a symbolic link per stream
 * file open for writing, named <trace uuid>-<stream name>, whose target
 * reads <pid of the ustd>:<pid of the program>:<absolute path of the file>.
 * ustd holds a shared flock() on every such file while it writes it (and
 * the kernel until the writes the device has of it land), so a mark whose
 * file nobody locks is left by a dead ustd. The next ustd, taking over
 * the program's buffers, finds the file by the trace's uuid and the
 * stream's name and repairs it (file_takeover.h) before it drains the
 * ring itself.
 */
#ifndef USTD_WRITE_MARK_H
#define USTD_WRITE_MARK_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

struct ustd_write_marks {
	int dirfd;			/* <rundir>/writing, -1: no marks kept */
};

struct ustd_write_mark {
	pid_t ustd;			/* that writes the file */
	pid_t program;			/* whose ring it is */
	char path[PATH_MAX];
};

/* Opens <rundir>/writing (ustcomm_write_marks_dir(): created 0700 and
 * checked like the run directory, saying what is wrong). Returns 0 or a
 * negative errno; m->dirfd is then -1 and the other calls do nothing. */
int ustd_write_marks_open(struct ustd_write_marks *m);
void ustd_write_marks_close(struct ustd_write_marks *m);

/* Marks the stream file path (absolute) as the one being written for
 * stream of the trace uuid of program, replacing the previous mark
 * atomically (the stream's next file). Returns 0 or a negative errno. */
int ustd_write_mark_set(const struct ustd_write_marks *m, const uint8_t uuid[16],
			const char *stream, pid_t program, const char *path);
/* The stream's file was closed with nothing of it in flight. */
void ustd_write_mark_clear(const struct ustd_write_marks *m, const uint8_t uuid[16],
			   const char *stream);
/* The stream's mark. Returns 0, -ENOENT when there is none, -EBUSY when
 * it is this ustd's own (the file is open here), or a negative errno. */
int ustd_write_mark_get(const struct ustd_write_marks *m, const uint8_t uuid[16],
			const char *stream, struct ustd_write_mark *mk);

/* A directory moved from `from` to `to` (a chunk archived at a restart):
 * the marks of files under it follow. */
void ustd_write_marks_moved(const struct ustd_write_marks *m, const char *from, const char *to);

/* Once the orphans are taken over (orphan.h): removes the marks of dead
 * ustds whose programs are gone too, indexing their files to the end. */
void ustd_write_marks_sweep(const struct ustd_write_marks *m);

#endif
