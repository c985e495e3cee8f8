/* SPDX-License-Identifier: LGPL-2.1-only */
#include "libust/event_clock.h"
#include "libustcomm/clock.h"
#include "libustcomm/common.h"

UST_API uint64_t ust_event_clock_read(void)
{
	/* Fenced: the caller compares it with the times of later events. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return ust_clock_read();
}

UST_API uint64_t ust_event_clock_ticks(uint64_t ns)
{
	struct ustcomm_clock_desc d;

	if (ustcomm_clock_describe(&d) < 0 || !d.freq)
		return ns;
	return (uint64_t)((unsigned __int128)ns * d.freq / 1000000000u);
}
