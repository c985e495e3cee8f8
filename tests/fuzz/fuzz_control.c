/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libFuzzer target: bytes from a controller, fed to the application's side
 * of the control protocol exactly as the control server feeds them:
 * decoded in place, executed under ust_lock(), the reply checked to be a
 * well-formed message. Built with clang from libust's and libustcomm's own
 * sources, so that the decoder and the commands are instrumented.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <ust/marker.h>

#include "libust/control.h"
#include "libust/control_cmd.h"
#include "libust/lock.h"
#include "libust/registry.h"
#include "libustcomm/ctl_protocol.h"
#include "libustcomm/strbuf.h"

/* Events for list-markers and the enable rules to work on. */
static void __attribute__((used)) fuzz_sites(int n, const char *s)
{
	trace_mark(fuzz, first, "n %d s %s", n, s);
	trace_mark(fuzz, second, "%lu %x %p", (unsigned long)n, (unsigned)n, (void *)s);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return ust_register_object2(__start___ust_events, __stop___ust_events, NULL, NULL,
				    UST_DESC_VERSION);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ustcomm_strbuf out = USTCOMM_STRBUF_INIT;
	struct ustcomm_ctl_msg msg, reply;
	ssize_t used, got;

	while (size) {
		used = ustcomm_ctl_decode(data, size, USTCOMM_CTL_MAX_REQUEST, &msg);
		if (used <= 0)
			break;
		ustcomm_strbuf_reset(&out);
		ust_lock();
		ust_control_handle(&msg, &out);
		ust_unlock();
		if (!out.err) {
			got = ustcomm_ctl_decode(out.buf, out.len, USTCOMM_CTL_MAX_REPLY, &reply);
			if (got != (ssize_t)out.len || reply.cmd != msg.cmd ||
			    (reply.status < 0 && reply.nr_strings != 1))
				abort();
		}
		data += used;
		size -= (size_t)used;
	}
	ustcomm_strbuf_free(&out);
	return 0;
}
