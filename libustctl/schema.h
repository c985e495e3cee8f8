/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * doc/xml/ust-session.xsd, compiled into the library by the build so that
 * a session file is checked against the schema of the library reading it,
 * wherever (or whether) the .xsd is installed.
 */
#ifndef USTCTL_SCHEMA_H
#define USTCTL_SCHEMA_H

#include <stddef.h>

extern const char ustctl_session_xsd[];
extern const size_t ustctl_session_xsd_len;

#endif
