/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * What libust has told the user already: a warning about a filter and an
 * event (or about an event alone) is written the first time only, however
 * often the rules change afterwards. Event states live as long as the
 * process (registry.h), so their address names them.
 */
#ifndef UST_REPORT_ONCE_H
#define UST_REPORT_ONCE_H

/*
 * Under ust_lock, async-signal-safe (ust_zalloc): 1 the first time this
 * text and this object come together, 0 afterwards. The set remembers up
 * to 65,536 pairs; past that, and when out of memory, it answers 1 (a
 * repeat, rate-limited as every message is, rather than a silence).
 */
int ust_report_once(const char *text, const void *about);

#endif
