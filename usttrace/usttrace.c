/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * usttrace: trace a program from its first instruction to its exit, like
 * strace. Starts a private ustd (or uses the user's, with -s), runs the
 * program with the environment that makes libust trace at start-up, and
 * once the program is gone has ustd write everything out.
 *
 * Which processes are traced: the program, and the children it forks
 * (libust gives each a trace of its own). Programs it executes in
 * children are not: UST_TRACE_PID names the one process the environment
 * starts tracing in. With -f (follow) every descendant is traced, executed
 * or forked; usttrace becomes their subreaper (PR_SET_CHILD_SUBREAPER), so
 * that orphans are reparented to it, and waits until every one has exited
 * (each has then had its trace written: libust's exit waits for ustd).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include "libustcomm/log.h"
#include "libustcomm/pattern.h"
#include "usttrace/memory.h"
#include "usttrace/attach.h"
#include "usttrace/options.h"
#include "usttrace/private_ustd.h"
#include "usttrace/program.h"
#include "usttrace/report.h"
#include "usttrace/settings.h"
#include "usttrace/signals.h"

int main(int argc, const char **argv)
{
	struct usttrace ut = { .patterns = USTCOMM_STRBUF_INIT,
			       .autoprobe = USTCOMM_STRBUF_INIT,
			       .channels = USTCOMM_STRBUF_INIT,
			       .contexts = USTCOMM_STRBUF_INIT };
	poptContext pc = NULL;
	pid_t pid = 0;
	int status = 0, rc = USTTRACE_EXIT_FAILURE, ret;

	ustcomm_log_set_prefix("usttrace");
	usttrace_install_signals();
	ret = usttrace_parse(&ut, &pc, argc, argv);
	if (ret == USTTRACE_DONE)
		rc = 0;
	if (ret)
		goto end;
	if (usttrace_settings(&ut) < 0)
		goto end;
	/* Before ustd and the program: nothing is started to be refused. */
	if (usttrace_check_memory(usttrace_u32(ut.subbuf_size), usttrace_u32(ut.subbuf_num),
				  ut.session, ut.overwrite ? 0 : ut.nr_thread_buffers,
				  ut.thread_buffers_all ? NULL : USTCOMM_FUNC_CHANNEL) < 0)
		goto end;
	if (ut.follow && prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) {
		ustcomm_err("-f: cannot become the subreaper of the program's descendants: %s",
			    strerror(errno));
		goto end;
	}
	if (ut.attach_pid) {
		rc = usttrace_attach(&ut);
		goto stop;
	}
	if (usttrace_prepare(&ut) < 0)
		goto stop;
	if (ut.follow && !ut.shared && usttrace_only_ustd_left(&ut) < 0) {
		ustcomm_err("-f needs /proc/PID/task/TID/children (a kernel with CONFIG_PROC_CHILDREN) to tell when every descendant has exited");
		goto stop;
	}
	ret = usttrace_run_program(&ut, &pid, &status);
	if (ret == -EINTR) {
		rc = 128 + usttrace_got_signal;
	} else if (ret < 0 && pid > 0) {
		rc = -ret == EACCES ? USTTRACE_EXIT_CANNOT_RUN : USTTRACE_EXIT_NOT_FOUND;
	} else if (ret == 0) {
		rc = usttrace_exit_code(status);
		usttrace_stop_ustd(&ut);
		usttrace_finish(&ut, pid, status);
	}
stop:
	usttrace_stop_ustd(&ut);
	usttrace_remove_rundir(&ut);
end:
	ustcomm_strbuf_free(&ut.patterns);
	ustcomm_strbuf_free(&ut.autoprobe);
	ustcomm_strbuf_free(&ut.channels);
	ustcomm_strbuf_free(&ut.func_record);
	ustcomm_strbuf_free(&ut.plt.record);
	ustcomm_strbuf_free(&ut.contexts);
	free(ut.session_file);
	if (ut.session)
		ustctl_session_free(ut.session);
	ustctl_session_extra_free(ut.session_extra);
	free(ut.filter);
	free(ut.loglevel);
	free(ut.loglevel_only);
	free(ut.perfetto);
	free(ut.relay);
	free(ut.live_timer);
	free(ut.relay_backlog);
	free(ut.output_arg);
	free(ut.attach_arg);
	free(ut.subbuf_size);
	free(ut.subbuf_num);
	free(ut.blocking);
	free(ut.func_depth);
	free(ut.thread_buffers);
	free(ut.func_time);
	free(ut.tracefile_size);
	free(ut.tracefile_count);
	poptFreeContext(pc);
	return rc;
}
