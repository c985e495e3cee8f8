/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The files ustd keeps of its own sessions (manual 4.1, "After a
 * restart"): session files, which session_file.c writes and reads, with
 * a <resume> element last. Written under a temporary name and renamed,
 * so that a ustd killed half-way leaves the previous file whole.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libxml/parser.h>
#include "libustctl/internal.h"
#include "libustctl/session_file_extra.h"
#include "libustctl/session_xml.h"

void ustctl_session_resume_release(struct ustctl_session_resume *resume)
{
	free(resume->dir);
	resume->dir = NULL;
}

int ustctl_session_resume_write(const char *file, const struct ustctl_session *session,
				const struct ustctl_session_extra *extra,
				const struct ustctl_session_resume *resume)
{
	char tmp[PATH_MAX];
	int ret;

	if (resume->state < USTCTL_RESUME_CREATED || resume->state > USTCTL_RESUME_STOPPED ||
	    !resume->dir || resume->dir[0] != '/') {
		ustctl_set_error("cannot write %s: no state, or a session directory that is not absolute",
				 file);
		return -EINVAL;
	}
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", file) >= (int)sizeof(tmp)) {
		ustctl_set_error("cannot write %s: its name is too long", file);
		return -ENAMETOOLONG;
	}
	ret = ustctl_session_file_write_resume(tmp, session, extra, resume);
	if (!ret && rename(tmp, file) < 0) {
		ret = -errno;
		ustctl_set_failure("cannot rename %s to %s: %s", tmp, file, strerror(errno));
	}
	if (ret)
		unlink(tmp);
	return ret;
}

/* The <resume> element of a file the schema accepted. */
static int read_resume(const char *file, struct ustctl_session_resume *resume)
{
	xmlDocPtr doc = xmlReadFile(file, NULL, XML_PARSE_NONET | XML_PARSE_BIG_LINES |
				    XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	xmlNodePtr node = doc ? xmlDocGetRootElement(doc)->children : NULL;
	char *state = NULL, *chunks = NULL, *begin = NULL;
	int ret = -ENODATA;

	if (!doc) {
		ustctl_set_error("cannot read the session file %s again", file);
		return -EIO;
	}
	while (node && !ustctl_xml_is_element(node, "resume"))
		node = node->next;
	if (!node) {
		ustctl_set_error("%s: no <resume> element: not a file ustd keeps of a session", file);
		goto end;
	}
	state = ustctl_xml_attr_dup(node, "state");
	chunks = ustctl_xml_attr_dup(node, "chunks");
	begin = ustctl_xml_attr_dup(node, "chunk-begin");
	resume->dir = ustctl_xml_attr_dup(node, "directory");
	if (!state || !resume->dir) {
		ret = -ENOMEM;
		ustctl_set_error("out of memory");
		goto end;
	}
	resume->state = ustctl_resume_state_parse(state);
	resume->chunks = chunks ? (unsigned)strtoul(chunks, NULL, 10) : 0;
	resume->chunk_begin = begin ? strtoll(begin, NULL, 10) : 0;
	ret = 0;
end:
	free(state);
	free(chunks);
	free(begin);
	xmlFreeDoc(doc);
	return ret;
}

int ustctl_session_resume_read(const char *file, struct ustctl_session **session,
			       struct ustctl_session_extra **extra,
			       struct ustctl_session_resume *resume)
{
	int ret;

	memset(resume, 0, sizeof(*resume));
	ret = ustctl_session_file_read(file, session, extra);
	if (!ret)
		ret = read_resume(file, resume);
	if (!ret && (!*extra || !(*extra)->name)) {
		ret = -EINVAL;
		ustctl_set_error("%s: names no session", file);
	}
	if (ret) {
		ustctl_session_resume_release(resume);
		if (*session)
			ustctl_session_free(*session);
		ustctl_session_extra_free(*extra);
		*session = NULL;
		*extra = NULL;
	}
	return ret;
}
