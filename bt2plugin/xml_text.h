/* SPDX-License-Identifier: LGPL-2.1-only */
/* Text in the summary's XML, for the sink's tables and its function profile. */
#ifndef UST_BT2_XML_TEXT_H
#define UST_BT2_XML_TEXT_H

#include <stdio.h>

/* str as XML attribute text: valid UTF-8 (ill-formed subparts as U+FFFD),
 * nothing XML 1.0 forbids (control characters, U+FFFE, U+FFFF). */
void ust_xml_escaped(FILE *f, const char *str);

#endif
