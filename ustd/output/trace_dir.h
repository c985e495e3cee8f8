/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One trace directory on disk: OUTPUT/<procname>-<pid>-<YYYYMMDD-HHMMSS>,
 * holding the `metadata` file and one file per stream. Where ustd creates
 * its directories and files; dir_publish.c gives the hidden ones (a
 * snapshot, a chunk being filled) their names.
 */
#ifndef USTD_TRACE_DIR_H
#define USTD_TRACE_DIR_H

#include <stddef.h>
#include <sys/types.h>
#include <time.h>

struct ustd_trace_dir {
	char *path;			/* NULL when closed */
	int metadata_fd;		/* O_APPEND */
	size_t metadata_len;		/* bytes appended */
};

/* <procname>-<pid>-<YYYYMMDD-HHMMSS>, the local time `when`: the name of a
 * process's trace directory, and of its relay session. */
#define USTD_TRACE_NAME_MAX	96
int ustd_trace_name(char *out, size_t size, const char *procname, pid_t pid, time_t when);

/* Creates a fresh directory for one traced process under output (created
 * as needed), named after the local time `when`, with -1, -2... appended
 * when that name is taken, and its empty metadata file. Returns 0 or a
 * negative errno. */
int ustd_trace_dir_create(struct ustd_trace_dir *td, const char *output,
			  const char *procname, pid_t pid, time_t when);

/* <procname>-<pid>: a session's trace of one process, here and at relayd. */
void ustd_trace_proc_name(char *out, size_t size, const char *procname, pid_t pid);

/* The same, named <procname>-<pid> (a session's trace of one process). */
int ustd_trace_dir_create_proc(struct ustd_trace_dir *td, const char *output,
			       const char *procname, pid_t pid);

/* Appends one piece of TSDL text to the metadata file in a single write,
 * so that a reader never sees half of a declaration block; when the write
 * fails, whatever part of it reached the file is removed. */
int ustd_trace_dir_append_metadata(struct ustd_trace_dir *td, const char *text, size_t len);

/* Creates the file `name` in the directory, refusing one that exists
 * (-EEXIST). Returns the descriptor or a negative errno. */
int ustd_trace_dir_create_file(const struct ustd_trace_dir *td, const char *name);

/* Creates a stream's file `name` and its packet index index/<name>.idx
 * (packet_index.h), holding the index's header. Returns 0 with both
 * descriptors, or a negative errno (-EEXIST for a name taken). */
int ustd_trace_dir_create_stream(const struct ustd_trace_dir *td, const char *name,
				 int *fd, int *idx_fd);

/* Removes a stream's file `name` and its packet index, those that exist.
 * Returns 0 or the first negative errno. */
int ustd_trace_dir_remove_stream(const struct ustd_trace_dir *td, const char *name);

/*
 * Creates a snapshot's directory under a hidden name in parent (created
 * as needed; dir_publish.h) holding a copy of the metadata td has so far.
 * Returns 0 or a negative errno.
 */
int ustd_trace_dir_snapshot(const struct ustd_trace_dir *td, const char *parent,
			    struct ustd_trace_dir *snap);

/* Once its streams are written: renames the snapshot to
 * <parent>/<name of td>-snapshot-<*n>, *n growing past names taken.
 * Returns 0 or a negative errno (the snapshot keeps its hidden name). */
int ustd_trace_dir_snapshot_publish(const struct ustd_trace_dir *td, struct ustd_trace_dir *snap,
				    const char *parent, unsigned *n);

/*
 * Rotation: moves the closed-off directory into chunk (under its own
 * name) and opens a fresh one where it was, with a copy of the metadata
 * so far. The caller has closed the stream files. Returns 0 or a
 * negative errno (td is then closed unless the move itself failed).
 */
int ustd_trace_dir_rotate(struct ustd_trace_dir *td, const char *chunk);

/*
 * The name of a session's archived chunk n, which began at begin and ended
 * at end: <session_dir>/archives/<begin>-<end>-<n>, both times in local
 * time as YYYYMMDDTHHMMSS+HHMM (LTTng's naming), to out. A chunk is filled
 * under a hidden name and given this one when complete (dir_publish.h).
 * Returns 0 or a negative errno.
 */
int ustd_trace_dir_chunk_name(const char *session_dir, time_t begin, time_t end, unsigned n,
			      char *out, size_t size);

void ustd_trace_dir_close(struct ustd_trace_dir *td);

/* Closes and removes a directory that got no file but its empty metadata:
 * left behind, it would make every reader of the output directory fail. */
void ustd_trace_dir_discard(struct ustd_trace_dir *td);

/* Removes path when it is a trace directory in which nothing was written:
 * an empty metadata file alone (a ustd killed between making it and the
 * program's first declarations). Returns 1 when removed, else 0. */
int ustd_trace_dir_remove_unwritten(const char *path);

#endif
