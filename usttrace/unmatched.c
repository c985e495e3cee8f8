/* SPDX-License-Identifier: GPL-2.0-only */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "libustcomm/log.h"
#include "libustcomm/pattern.h"
#include "usttrace/unmatched.h"

/* Does an event declared in dir/metadata match pattern? Event names are
 * the declared names holding a ':' (streams and clocks have none). */
static bool unmatched_in(const char *dir, const char *pattern)
{
	char path[4200], line[1024], *name, *end;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/metadata", dir);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		name = strstr(line, "name = \"");
		if (!name)
			continue;
		name += 8;
		end = strchr(name, '"');
		if (!end)
			continue;
		*end = '\0';
		found = strchr(name, ':') && ustcomm_pattern_match(pattern, name);
	}
	fclose(f);
	return found;
}

void usttrace_warn_unmatched(const char *patterns, char **dirs, size_t nr_dirs)
{
	char *copy, *p, *next;
	bool found;
	size_t i;

	if (!patterns || !*patterns || !nr_dirs)
		return;
	copy = strdup(patterns);
	if (!copy)
		return;
	for (p = copy; p; p = next) {
		next = strchr(p, ',');
		if (next)
			*next++ = '\0';
		for (found = false, i = 0; !found && i < nr_dirs; i++)
			found = unmatched_in(dirs[i], p);
		if (!found)
			ustcomm_warn("pattern '%s' (-m) matched no event of the program: nothing of it was recorded (`ustctl list-markers PID` lists the names of a running program's events)",
				     p);
	}
	free(copy);
}
