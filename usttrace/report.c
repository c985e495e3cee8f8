/* SPDX-License-Identifier: GPL-2.0-only */
/* What usttrace says once the program is gone: where the traces are,
 * what they lost, and the views asked for. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "libustcomm/log.h"
#include "libustcomm/loss.h"
#include "usttrace/unmatched.h"
#include "usttrace/view.h"
#include "usttrace/report.h"

/* Is name <procname>-<pid>-<YYYYMMDD-HHMMSS>[-N], stamped no earlier than
 * usttrace started? pid 0: any pid. */
static bool usttrace_is_trace_of(const char *name, pid_t pid, const char *start_stamp)
{
	char needle[32];
	const char *p, *stamp;
	size_t i;

	snprintf(needle, sizeof(needle), "-%d-", (int)pid);
	for (p = strchr(name, '-'); p; p = strchr(p + 1, '-')) {
		if (pid) {
			if (strncmp(p, needle, strlen(needle)))
				continue;
			stamp = p + strlen(needle);
		} else {
			for (stamp = p + 1; *stamp >= '0' && *stamp <= '9'; stamp++)
				;
			if (stamp == p + 1 || *stamp != '-')
				continue;
			stamp++;
		}
		for (i = 0; i < 15; i++)
			if (i == 8 ? stamp[i] != '-' : (stamp[i] < '0' || stamp[i] > '9'))
				break;
		if (i < 15 || (stamp[15] != '\0' && stamp[15] != '-'))
			continue;
		if (strncmp(stamp, start_stamp, 15) >= 0)
			return true;
	}
	return false;
}

/* A program killed by a signal did not end its trace: ustd rescued it
 * from the buffers. Says so before the directories are named, so that
 * "trace written" is never all that is said of a killed program. */
static void usttrace_say_killed(const struct usttrace *ut, pid_t pid, int status)
{
	int sig = WTERMSIG(status);

	fprintf(stderr, "usttrace: %s (pid %d) was killed by signal %d (%s)%s\n", ut->argv[0],
		(int)pid, sig, strsignal(sig),
		sig == SIGKILL ? ": the kernel's OOM killer sends this one too (see dmesg)" : "");
}

/* Names the trace directories the program (pid) got in the output;
 * with -f, those of every process traced since usttrace started. Returns
 * them (NULL-terminated, to free with usttrace_free_dirs()) in *dirs.
 * The program's own directory is "rescued" when it was killed. */
static size_t usttrace_report(const struct usttrace *ut, pid_t pid, int status, char ***dirs)
{
	bool killed = WIFSIGNALED(status);
	struct dirent *de;
	size_t found = 0;
	char **grown;
	DIR *dir;

	*dirs = NULL;
	if (killed)
		usttrace_say_killed(ut, pid, status);
	if (ut->shared) {
		fprintf(stderr, "usttrace: traced pid %d: the trace is in the output directory of the ustd serving %s, in a directory named *-%d-*%s\n",
			(int)pid, ut->sock_path, (int)pid,
			ut->follow ? " (its descendants: named after their pids)" : "");
		return 0;
	}
	if (ut->relay)
		fprintf(stderr, "usttrace: traced pid %d: the trace was streamed to lttng-relayd at %s, session *-%d-*%s\n",
			(int)pid, ut->relay, (int)pid,
			ut->follow ? " (its descendants: named after their pids)" : "");
	dir = opendir(ut->output);
	if (!dir) {
		if (!ut->relay || errno != ENOENT)
			ustcomm_err("cannot read %s: %s", ut->output, strerror(errno));
		return 0;
	}
	while ((de = readdir(dir))) {
		if (!usttrace_is_trace_of(de->d_name, ut->follow ? 0 : pid, ut->start_stamp))
			continue;
		if (ut->relay)
			fprintf(stderr, "usttrace: part of the trace that relayd could not take is in %s/%s\n",
				ut->output, de->d_name);
		else if (killed && usttrace_is_trace_of(de->d_name, pid, ut->start_stamp))
			fprintf(stderr, "usttrace: trace rescued to %s/%s: what the program recorded until it was killed\n",
				ut->output, de->d_name);
		else
			fprintf(stderr, "usttrace: trace written to %s/%s\n", ut->output, de->d_name);
		grown = realloc(*dirs, (found + 2) * sizeof(**dirs));
		if (!grown || asprintf(&grown[found], "%s/%s", ut->output, de->d_name) < 0) {
			ustcomm_err("%s", strerror(ENOMEM));
			*dirs = grown;
			break;
		}
		*dirs = grown;
		grown[++found] = NULL;
	}
	closedir(dir);
	if (!found && !ut->relay)
		fprintf(stderr, "usttrace: no trace was %s for pid %d in %s (is the program linked with libust?)\n",
			killed ? "rescued" : "written", (int)pid, ut->output);
	return found;
}

static void usttrace_free_dirs(char **dirs)
{
	char **d;

	for (d = dirs; d && *d; d++)
		free(*d);
	free(dirs);
}

/* --summary and --perfetto, once the traces are complete. A failure there
 * does not change usttrace's exit status, which is the program's; it is
 * said on stderr. */
static void usttrace_view(const struct usttrace *ut, char **dirs, size_t nr_dirs)
{
	size_t i;

	if (!nr_dirs)
		return;
	for (i = 0; ut->summary && i < nr_dirs; i++)
		usttrace_view_summary(dirs[i]);
	if (ut->perfetto)
		usttrace_view_perfetto(dirs, nr_dirs, ut->perfetto);
}

/* Events the buffers discarded, as the packet contexts written count
 * them: said on stderr whatever else usttrace says, since a trace that
 * misses most of its events looks complete to whoever did not ask
 * babeltrace2. The exit status stays the program's. */
static void usttrace_report_loss(char **dirs, size_t nr_dirs)
{
	struct ustcomm_loss loss = USTCOMM_LOSS_INIT;
	char what[PATH_MAX + 64];
	size_t i;
	int ret;

	for (i = 0; i < nr_dirs; i++) {
		ret = ustcomm_loss_scan(&loss, dirs[i], 0);
		if (ret < 0)
			ustcomm_err("cannot count the events discarded in %s: %s", dirs[i],
				    strerror(-ret));
	}
	if (nr_dirs == 1)
		snprintf(what, sizeof(what), "counted in the packets of %s", dirs[0]);
	else
		snprintf(what, sizeof(what), "counted in the packets of the %zu traces above",
			 nr_dirs);
	ustcomm_loss_warn(ustcomm_loss_total(&loss), what);
	ustcomm_loss_free(&loss);
}


/* After the traced program: where its traces are, what they lost, the -m
 * patterns that matched nothing, and the views asked for. */
void usttrace_finish(const struct usttrace *ut, pid_t pid, int status)
{
	char **dirs = NULL;
	size_t nr_dirs = usttrace_report(ut, pid, status, &dirs);

	if (!ut->relay) {
		usttrace_report_loss(dirs, nr_dirs);
		usttrace_warn_unmatched(ut->patterns.buf, dirs, nr_dirs);
	}
	usttrace_view(ut, dirs, nr_dirs);
	usttrace_free_dirs(dirs);
}
