/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The memory available to a trace's buffers (mem_avail.h). Async-signal-
 * safe: only open/read/close and stack buffers, bounded in size because
 * libust runs this on whatever stack its control signal interrupted (about
 * 7 KiB at most, never nested).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "libustcomm/format.h"
#include "libustcomm/mem_avail.h"
#include "libustcomm/shm_layout.h"

/* Cgroup mount points and cgroup paths longer than this are not followed:
 * nothing then limits the trace but MemAvailable. */
#define MEM_PATH_MAX		512
/* A limit this large is "no limit" (cgroup v1 writes 2^63 - 4096). */
#define MEM_UNLIMITED		(1ull << 62)

_Static_assert(USTCOMM_MEM_SHARE == 2, "the refusal says 'half'");

/* A memory cgroup hierarchy: where it is mounted, the part of the
 * hierarchy the mount shows, and the process's cgroup in it. */
struct mem_hier {
	char mnt[MEM_PATH_MAX];
	char root[MEM_PATH_MAX];
	char path[MEM_PATH_MAX];
};

/* Its files, v2 or v1. */
struct mem_files {
	const char *limit;
	const char *usage;
	const char *inactive;	/* key in memory.stat */
};

static const struct mem_files mem_v2 = { "memory.max", "memory.current", "inactive_file" };
static const struct mem_files mem_v1 = { "memory.limit_in_bytes", "memory.usage_in_bytes",
					 "total_inactive_file" };

/* The file's first len - 1 bytes, NUL-terminated: its length, or -errno. */
static ssize_t read_text(const char *path, char *buf, size_t len)
{
	size_t have = 0;
	ssize_t n, ret;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		goto end;
	}
	while (have < len - 1) {
		n = read(fd, buf + have, len - 1 - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
	}
	close(fd);
	ret = (ssize_t)have;
end:
	buf[ret < 0 ? 0 : have] = '\0';
	return ret;
}

/* The decimal number s begins with: 0, or -EINVAL ("max", empty). */
static int parse_u64(const char *s, uint64_t *v)
{
	uint64_t n = 0;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (n > (UINT64_MAX - 9) / 10)
			return -EINVAL;
		n = n * 10 + (uint64_t)(*s - '0');
	}
	*v = n;
	return 0;
}

/* The value of "key VALUE" (or "key: VALUE") at the start of a line. */
static int find_key(const char *text, const char *key, uint64_t *v)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, klen) && (p[klen] == ' ' || p[klen] == ':')) {
			p += klen + 1;
			while (*p == ' ' || *p == '\t')
				p++;
			return parse_u64(p, v);
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -ENOENT;
}

static int copy_path(char *dst, const char *src)
{
	size_t len = strlen(src);

	if (len >= MEM_PATH_MAX || strchr(src, '\\'))
		return -ENAMETOOLONG;	/* too long, or escaped: not followed */
	memcpy(dst, src, len + 1);
	return 0;
}

/* Is word one of the comma-separated words of list? */
static int has_word(const char *list, const char *word)
{
	size_t len = strlen(word);
	const char *p;

	for (p = list; p; p = strchr(p, ',')) {
		if (*p == ',')
			p++;
		if (!strncmp(p, word, len) && (p[len] == ',' || p[len] == '\0'))
			return 1;
	}
	return 0;
}

/*
 * One line of /proc/self/mountinfo: "ID PARENT MAJ:MIN ROOT MOUNTPOINT
 * OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTIONS". Takes the first
 * cgroup2 mount, and the first cgroup v1 mount with the memory controller.
 */
static void mount_line(char *line, struct mem_hier *v2, struct mem_hier *v1)
{
	char *field[32], *p = line;
	unsigned n = 0, dash = 0;
	struct mem_hier *h;

	while (*p && n < UST_ARRAY_SIZE(field)) {
		field[n++] = p;
		p = strchr(p, ' ');
		if (!p)
			break;
		*p++ = '\0';
		if (!dash && n > 6 && !strcmp(field[n - 1], "-"))
			dash = n - 1;
	}
	if (!dash || n < dash + 4)
		return;
	if (!strcmp(field[dash + 1], "cgroup2"))
		h = v2;
	else if (!strcmp(field[dash + 1], "cgroup") && has_word(field[dash + 3], "memory"))
		h = v1;
	else
		return;
	if (h->mnt[0])
		return;
	if (copy_path(h->root, field[3]) < 0 || copy_path(h->mnt, field[4]) < 0)
		h->mnt[0] = '\0';
}

/* Streams /proc/self/mountinfo, which may be long, through a small buffer;
 * a line longer than it is no cgroup mount and is skipped. */
static void find_mounts(struct mem_hier *v2, struct mem_hier *v1)
{
	char buf[2048], *start, *nl;
	size_t have = 0;
	int fd, skipping = 0;
	ssize_t n;

	fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	for (;;) {
		n = read(fd, buf + have, sizeof(buf) - 1 - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
		buf[have] = '\0';
		start = buf;
		while ((nl = strchr(start, '\n'))) {
			*nl = '\0';
			if (!skipping)
				mount_line(start, v2, v1);
			skipping = 0;
			start = nl + 1;
		}
		have -= (size_t)(start - buf);
		memmove(buf, start, have);
		if (have == sizeof(buf) - 1) {
			skipping = 1;
			have = 0;
		}
	}
	close(fd);
}

/* The process's cgroups, from /proc/self/cgroup: "0::PATH" (v2) and
 * "N:CONTROLLERS:PATH" with memory among the controllers (v1). */
static void find_cgroups(struct mem_hier *v2, struct mem_hier *v1)
{
	char buf[2048], *line, *next, *ctrl, *path;
	struct mem_hier *h;

	if (read_text("/proc/self/cgroup", buf, sizeof(buf)) < 0)
		return;
	for (line = buf; *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		ctrl = strchr(line, ':');
		path = ctrl ? strchr(ctrl + 1, ':') : NULL;
		if (!path)
			continue;
		*ctrl++ = '\0';
		*path++ = '\0';
		if (!strcmp(line, "0") && !*ctrl)
			h = v2;
		else if (has_word(ctrl, "memory"))
			h = v1;
		else
			continue;
		if (h->mnt[0] && copy_path(h->path, path) < 0)
			h->mnt[0] = '\0';
	}
}

static uint64_t cgroup_room(const struct ustcomm_mem_avail *ma)
{
	return ma->cg_limit > ma->cg_used ? ma->cg_limit - ma->cg_used : 0;
}

/* limit - (usage - inactive page cache) of the cgroup at dir, if it has
 * a limit; the tightest so far is kept in ma. */
static void cgroup_level(const char *dir, const struct mem_files *f, struct ustcomm_mem_avail *ma)
{
	char file[MEM_PATH_MAX * 2 + 32], text[2048];
	uint64_t limit, usage, inactive = 0, room;

	ustcomm_format(file, sizeof(file), "%s/%s", dir, f->limit);
	if (read_text(file, text, 32) < 0 || parse_u64(text, &limit) < 0 ||
	    limit >= MEM_UNLIMITED)
		return;			/* no controller here, or "max" */
	ustcomm_format(file, sizeof(file), "%s/%s", dir, f->usage);
	if (read_text(file, text, 32) < 0 || parse_u64(text, &usage) < 0)
		return;
	ustcomm_format(file, sizeof(file), "%s/memory.stat", dir);
	if (read_text(file, text, sizeof(text)) >= 0 && find_key(text, f->inactive, &inactive) == 0 &&
	    inactive <= usage)
		usage -= inactive;
	room = limit > usage ? limit - usage : 0;
	if (ma->cg_limit == USTCOMM_MEM_UNKNOWN || room < cgroup_room(ma)) {
		ma->cg_limit = limit;
		ma->cg_used = usage;
	}
}

/* The process's cgroup and every ancestor visible in the mount. */
static void cgroup_walk(const struct mem_hier *h, const struct mem_files *f,
			struct ustcomm_mem_avail *ma)
{
	char dir[MEM_PATH_MAX * 2];
	const char *rel = h->path;
	size_t root_len = strlen(h->root), mnt_len;
	char *slash;

	if (!h->mnt[0] || !h->path[0])
		return;
	/* Without a cgroup namespace, a container's mount shows only the
	 * part of the hierarchy below its root: the path starts with it. */
	if (strcmp(h->root, "/")) {
		if (!strncmp(rel, h->root, root_len) && (rel[root_len] == '/' || !rel[root_len]))
			rel += root_len;
		else
			rel = "";	/* outside what the mount shows: its top */
	}
	mnt_len = (size_t)ustcomm_format(dir, sizeof(dir), "%s", h->mnt);
	if (mnt_len > 1 && dir[mnt_len - 1] == '/')
		dir[--mnt_len] = '\0';
	if (mnt_len + strlen(rel) >= sizeof(dir))
		return;
	memcpy(dir + mnt_len, rel, strlen(rel) + 1);
	for (;;) {
		cgroup_level(dir, f, ma);
		slash = strrchr(dir, '/');
		if (!slash || (size_t)(slash - dir) < mnt_len)
			break;
		*slash = '\0';
	}
}

USTCOMM_API void ustcomm_mem_avail(struct ustcomm_mem_avail *ma)
{
	struct mem_hier v2 = { "" }, v1 = { "" };
	uint64_t kib;
	char text[512];

	ma->meminfo = USTCOMM_MEM_UNKNOWN;
	ma->cg_limit = USTCOMM_MEM_UNKNOWN;
	ma->cg_used = 0;
	/* MemAvailable is in the first lines: 512 bytes hold it. */
	if (read_text("/proc/meminfo", text, sizeof(text)) >= 0 &&
	    find_key(text, "MemAvailable", &kib) == 0 && kib < UINT64_MAX / 1024)
		ma->meminfo = kib * 1024;
	find_mounts(&v2, &v1);
	find_cgroups(&v2, &v1);
	/* Both, for a hybrid machine: the memory controller is on one. */
	cgroup_walk(&v2, &mem_v2, ma);
	cgroup_walk(&v1, &mem_v1, ma);
	ma->avail = ma->meminfo;
	if (ma->cg_limit != USTCOMM_MEM_UNKNOWN && cgroup_room(ma) < ma->avail)
		ma->avail = cgroup_room(ma);
}

USTCOMM_API void ustcomm_mem_request_add(struct ustcomm_mem_request *req, uint32_t subbuf_size,
					 uint32_t subbuf_num, uint32_t nr_cpus,
					 uint32_t nr_threads)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	/* As the buffer is made (ring_buffer_alloc.c): its control page(s) too. */
	uint64_t one = ust_shm_map_size(subbuf_size, subbuf_num, page);

	if (req->nr_channels &&
	    (req->subbuf_size != subbuf_size || req->subbuf_num != subbuf_num))
		req->mixed = 1;
	if (!req->nr_channels || (uint64_t)subbuf_size * subbuf_num >
	    (uint64_t)req->subbuf_size * req->subbuf_num) {
		req->subbuf_size = subbuf_size;
		req->subbuf_num = subbuf_num;
	}
	req->nr_cpus = nr_cpus;
	req->nr_threads = nr_threads;
	req->nr_channels++;
	req->bytes += one * (nr_cpus + nr_threads);
}

USTCOMM_API int ustcomm_format_bytes(char *buf, size_t len, uint64_t v)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB" };
	unsigned i = 0, shift = 10, tenths;
	uint64_t whole;

	if (v < 1024)
		return ustcomm_format(buf, len, "%llu bytes", (unsigned long long)v);
	while (i + 1 < UST_ARRAY_SIZE(units) && v >> (shift + 10))
		i++, shift += 10;
	whole = v >> shift;
	/* Rounded to the nearest tenth: 96 GiB and 120 KiB is "96 GiB". */
	tenths = (unsigned)((((v & ((1ull << shift) - 1)) * 10) + (1ull << (shift - 1))) >> shift);
	if (tenths == 10) {
		whole++;
		tenths = 0;
	}
	/* 1023.96 KiB rounds to 1 MiB, not 1024 KiB. */
	if (whole == 1024 && i + 1 < UST_ARRAY_SIZE(units)) {
		whole = 1;
		i++;
	}
	if (tenths)
		return ustcomm_format(buf, len, "%llu.%u %s", (unsigned long long)whole, tenths,
				      units[i]);
	return ustcomm_format(buf, len, "%llu %s", (unsigned long long)whole, units[i]);
}

USTCOMM_API int ustcomm_mem_check(const struct ustcomm_mem_request *req,
				  const struct ustcomm_mem_avail *ma, char *why, size_t len)
{
	char total[32], share_text[32], size[32], a[32], b[32], what[192], meminfo[48], cg[96];
	char bufs[64];
	uint64_t share;
	int ret = 0;

	if (ma->avail == USTCOMM_MEM_UNKNOWN)
		goto end;		/* nothing could be read: nothing to go by */
	share = ma->avail / USTCOMM_MEM_SHARE;
	if (req->bytes <= share)
		goto end;
	ustcomm_format_bytes(total, sizeof(total), req->bytes);
	ustcomm_format_bytes(share_text, sizeof(share_text), share);
	ustcomm_format_bytes(size, sizeof(size), req->subbuf_size);
	if (req->nr_threads)
		ustcomm_format(bufs, sizeof(bufs), "(%u CPU%s + %u thread buffer%s)", req->nr_cpus,
			       req->nr_cpus == 1 ? "" : "s", req->nr_threads,
			       req->nr_threads == 1 ? "" : "s");
	else
		ustcomm_format(bufs, sizeof(bufs), "%u CPU%s", req->nr_cpus,
			       req->nr_cpus == 1 ? "" : "s");
	if (req->mixed)
		ustcomm_format(what, sizeof(what), "%u channels x %s = %s (the largest: %s x %u sub-buffers)",
			       req->nr_channels, bufs, total, size, req->subbuf_num);
	else
		ustcomm_format(what, sizeof(what), "%s x %u sub-buffers x %s x %u channel%s = %s",
			       size, req->subbuf_num, bufs, req->nr_channels,
			       req->nr_channels == 1 ? "" : "s", total);
	meminfo[0] = cg[0] = '\0';
	if (ma->meminfo != USTCOMM_MEM_UNKNOWN) {
		ustcomm_format_bytes(a, sizeof(a), ma->meminfo);
		ustcomm_format(meminfo, sizeof(meminfo), "%s MemAvailable", a);
	}
	if (ma->cg_limit != USTCOMM_MEM_UNKNOWN) {
		ustcomm_format_bytes(a, sizeof(a), ma->cg_limit);
		ustcomm_format_bytes(b, sizeof(b), ma->cg_used);
		ustcomm_format(cg, sizeof(cg), "cgroup limit %s with %s used", a, b);
	}
	ustcomm_format(why, len, "buffers of %s exceed %s, half of the memory available (%s%s%s)",
		       what, share_text, meminfo, meminfo[0] && cg[0] ? ", " : "", cg);
	ret = -ENOMEM;
end:
	return ret;
}
