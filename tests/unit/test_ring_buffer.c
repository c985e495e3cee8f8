/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The ring buffer writer (libust/ring_buffer.c) against the consumer
 * (libustcomm/consumer.c), through the shared memory only: every packet the
 * consumer takes is decoded byte by byte the way babeltrace2 would (compact
 * timestamps rebuilt by the reader rule of CTF-NOTES section 5) and checked
 * against what the writers recorded in the payloads.
 *
 * Payload of every test event: u32 writer id, u64 sequence number, u64 clock
 * before the reservation, u64 clock after it; the event's own time must lie
 * between the two, which catches a compact timestamp decoded to the wrong
 * 2^27-tick window, and a time clamped to a previous one that was wrong.
 *
 * Everything runs with CLOCK_MONOTONIC first; the tests with several
 * writers then run again with the TSC clock when the machine offers it,
 * whose reads the writer does not order (libustcomm/clock.h).
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>
#include <urcu/arch.h>
#include <urcu/uatomic.h>

#include "tap.h"
#include "libust/getcpu.h"
#include "libust/ring_buffer.h"
#include "libustcomm/clock.h"
#include "libustcomm/consumer.h"
#include "libustcomm/ctf_layout.h"

#define PAYLOAD_LEN	28
#define MAX_WRITERS	8
#define HANDLER_WRITER	7
#define COMPACT_MASK	((UINT64_C(1) << UST_EVENT_COMPACT_TS_BITS) - 1)
#define NO_FIXED_ID	UINT32_MAX

static const uint8_t test_uuid[16] = {
	0x2a, 0x64, 0x22, 0xd0, 0x6c, 0xee, 0x11, 0xe0,
	0x8c, 0x08, 0xcb, 0x07, 0xd7, 0xb3, 0xa5, 0x64,
};

/* Ids spread over both sides of the compact limit (30). */
static uint32_t event_id_of(uint32_t writer, uint64_t seq)
{
	return (uint32_t)((seq * 7 + writer) % 37);
}

/*
 * The trace clock read in order with the code around it, for the bounds of
 * an event's time: ust_clock_read() alone may execute early or late.
 */
static uint64_t clock_ordered(void)
{
	uint64_t t;

#if defined(__x86_64__)
	__builtin_ia32_lfence();
	t = ust_clock_read();
	__builtin_ia32_lfence();
#else
	t = ust_clock_read();
#endif
	return t;
}

/* Deadlines, in nanoseconds whichever the trace clock. */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int emit(struct ust_rb *rb, uint32_t id, uint32_t writer, uint64_t seq,
		volatile sig_atomic_t *window)
{
	struct ust_event_ctx ctx;
	uint64_t t_lo = clock_ordered();
	int ret;

	ret = ust_rb_reserve(rb, id, PAYLOAD_LEN, &ctx);
	if (ret)
		return ret;
	if (window)
		*window = 1;
	ust_put_u64(ctx.payload + 20, clock_ordered());
	ust_put_u32(ctx.payload, writer);
	ust_put_u64(ctx.payload + 4, seq);
	ust_put_u64(ctx.payload + 12, t_lo);
	if (window)
		*window = 0;
	ust_rb_commit(rb, &ctx);
	return 0;
}

/* What a reader learns from a stream, and the first thing it found wrong. */
struct checker {
	uint32_t cpu;
	uint32_t stream_id;
	uint32_t fixed_id;		/* NO_FIXED_ID: event_id_of() */
	int strict_headers;		/* one writer: header form is exactly the writer rule */
	uint64_t packets;
	uint64_t events;
	uint64_t last_ts;
	uint64_t last_discarded;
	uint64_t compact, extended, extended_by_time, wraps;
	uint64_t count[MAX_WRITERS];
	uint64_t last_seq[MAX_WRITERS];
	char error[256];
};

static void checker_init(struct checker *chk, uint32_t cpu, uint32_t stream_id)
{
	memset(chk, 0, sizeof(*chk));
	chk->cpu = cpu;
	chk->stream_id = stream_id;
	chk->fixed_id = NO_FIXED_ID;
}

static void fail(struct checker *chk, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void fail(struct checker *chk, const char *fmt, ...)
{
	va_list ap;

	if (chk->error[0])
		return;
	va_start(ap, fmt);
	vsnprintf(chk->error, sizeof(chk->error), fmt, ap);
	va_end(ap);
}

/* Decodes one event at p (avail bytes left in the content); returns its size or 0. */
static size_t check_event(struct checker *chk, const char *p, size_t avail,
			  uint64_t *prev, uint64_t ts_end)
{
	uint64_t ts, seq, t_lo, t_hi;
	uint32_t id, writer, want_id;
	unsigned hdr;
	int compact = (p[0] & 31) != UST_EVENT_ID_EXTENDED;

	hdr = ust_event_header_size(compact);
	if (avail < hdr + PAYLOAD_LEN) {
		fail(chk, "event of packet %lu runs past content_size", (unsigned long)chk->packets);
		return 0;
	}
	if (compact) {
		uint32_t v = ust_get_u32(p);

		id = v & 31;
		ts = (*prev & ~COMPACT_MASK) | (v >> 5);
		if (ts < *prev)
			ts += COMPACT_MASK + 1;
		if ((ts & ~COMPACT_MASK) != (*prev & ~COMPACT_MASK))
			chk->wraps++;
		chk->compact++;
	} else {
		id = ust_get_u32(p + 1);
		ts = ust_get_u64(p + 5);
		chk->extended++;
		if (id <= UST_EVENT_COMPACT_MAX_ID)
			chk->extended_by_time++;
		if (chk->strict_headers && id <= UST_EVENT_COMPACT_MAX_ID &&
		    ((ts - *prev) >> UST_EVENT_COMPACT_TS_BITS) == 0)
			fail(chk, "event %lu: extended header where compact was due",
			     (unsigned long)chk->events);
	}
	writer = ust_get_u32(p + hdr);
	seq = ust_get_u64(p + hdr + 4);
	t_lo = ust_get_u64(p + hdr + 12);
	t_hi = ust_get_u64(p + hdr + 20);
	if (writer >= MAX_WRITERS) {
		fail(chk, "event %lu: writer %u", (unsigned long)chk->events, writer);
		return 0;
	}
	want_id = chk->fixed_id == NO_FIXED_ID ? event_id_of(writer, seq) : chk->fixed_id;
	if (id != want_id)
		fail(chk, "writer %u seq %lu: id %u, want %u", writer, (unsigned long)seq, id, want_id);
	if (ts < *prev || ts > ts_end)
		fail(chk, "writer %u seq %lu: time %lu outside [prev %lu, end %lu]", writer,
		     (unsigned long)seq, (unsigned long)ts, (unsigned long)*prev,
		     (unsigned long)ts_end);
	if (ts < t_lo || ts > t_hi)
		fail(chk, "writer %u seq %lu: time %lu decoded outside [%lu, %lu] (%s)", writer,
		     (unsigned long)seq, (unsigned long)ts, (unsigned long)t_lo,
		     (unsigned long)t_hi, compact ? "compact" : "extended");
	if (chk->count[writer] && seq <= chk->last_seq[writer])
		fail(chk, "writer %u: seq %lu after %lu", writer, (unsigned long)seq,
		     (unsigned long)chk->last_seq[writer]);
	chk->count[writer]++;
	chk->last_seq[writer] = seq;
	chk->events++;
	*prev = ts;
	return hdr + PAYLOAD_LEN;
}

static void check_packet(struct checker *chk, const char *pkt, size_t len)
{
	uint64_t begin = ust_get_u64(pkt + UST_PKT_TIMESTAMP_BEGIN);
	uint64_t end = ust_get_u64(pkt + UST_PKT_TIMESTAMP_END);
	uint64_t content = ust_get_u64(pkt + UST_PKT_CONTENT_SIZE);
	uint64_t discarded = ust_get_u64(pkt + UST_PKT_EVENTS_DISCARDED);
	uint64_t prev = begin;
	size_t pos = UST_PKT_HEADER_SIZE, n;

	if (ust_get_u32(pkt + UST_PKT_MAGIC) != UST_CTF_MAGIC ||
	    memcmp(pkt + UST_PKT_UUID, test_uuid, 16) ||
	    ust_get_u32(pkt + UST_PKT_STREAM_ID) != chk->stream_id ||
	    ust_get_u64(pkt + UST_PKT_STREAM_INSTANCE_ID) != chk->cpu ||
	    ust_get_u32(pkt + UST_PKT_CPU_ID) != chk->cpu)
		fail(chk, "packet %lu: bad header", (unsigned long)chk->packets);
	if (ust_get_u64(pkt + UST_PKT_SEQ_NUM) != chk->packets)
		fail(chk, "packet %lu: seq_num %lu", (unsigned long)chk->packets,
		     (unsigned long)ust_get_u64(pkt + UST_PKT_SEQ_NUM));
	if (content != len * 8 || ust_get_u64(pkt + UST_PKT_PACKET_SIZE) != len * 8)
		fail(chk, "packet %lu: content %lu packet %lu bits for %zu bytes",
		     (unsigned long)chk->packets, (unsigned long)content,
		     (unsigned long)ust_get_u64(pkt + UST_PKT_PACKET_SIZE), len);
	if (begin < chk->last_ts || end < begin)
		fail(chk, "packet %lu: [%lu, %lu] after %lu", (unsigned long)chk->packets,
		     (unsigned long)begin, (unsigned long)end, (unsigned long)chk->last_ts);
	if (discarded < chk->last_discarded)
		fail(chk, "packet %lu: events_discarded went down", (unsigned long)chk->packets);
	while (pos < len && !chk->error[0]) {
		n = check_event(chk, pkt + pos, len - pos, &prev, end);
		if (!n)
			break;
		pos += n;
	}
	if (pos != len)
		fail(chk, "packet %lu: events end at %zu, content at %zu",
		     (unsigned long)chk->packets, pos, len);
	chk->last_ts = end;
	chk->last_discarded = discarded;
	chk->packets++;
}

/* Takes, checks and releases every complete packet; returns how many. */
static int drain(struct ustcomm_cbuf *cb, struct checker *chk)
{
	const char *pkt;
	size_t len;
	int ret, n = 0;

	while ((ret = ustcomm_cbuf_get(cb, &pkt, &len)) == 1) {
		check_packet(chk, pkt, len);
		ustcomm_cbuf_put(cb);
		n++;
	}
	if (ret < 0)
		fail(chk, "ustcomm_cbuf_get: %s", strerror(-ret));
	return n;
}

static int rb_setup(struct ust_rb *rb, struct ustcomm_cbuf *cb, uint32_t size,
		    uint32_t count, uint32_t cpu)
{
	struct ust_rb_config cfg = {
		.subbuf_size = size, .subbuf_count = count,
		.stream_id = 3, .cpu = cpu, .channel = "test",
	};
	int ret;

	memcpy(cfg.uuid, test_uuid, 16);
	ret = ust_rb_create(rb, &cfg);
	if (ret)
		return ret;
	ret = ustcomm_cbuf_map(cb, rb->shm_fd, size, count);
	if (ret)
		ust_rb_destroy(rb);
	return ret;
}

static void rb_teardown(struct ust_rb *rb, struct ustcomm_cbuf *cb)
{
	ustcomm_cbuf_unmap(cb);
	ust_rb_destroy(rb);
}

/* ------------------------------------------------------------------ */

static void test_create_and_map(void)
{
	struct ust_rb_config cfg = {
		.subbuf_size = 4096, .subbuf_count = 4, .stream_id = 1, .cpu = 3,
		.channel = "test",
	};
	struct ust_rb rb;
	struct ustcomm_cbuf cb;
	char path[64], link[256];
	ssize_t n;
	const char *pkt;
	size_t len;
	uint64_t saved;
	int ret;

	cfg.subbuf_size = 3000;
	tap_ok(ust_rb_create(&rb, &cfg) == -EINVAL, "create: size not a power of two");
	cfg.subbuf_size = 2048;
	tap_ok(ust_rb_create(&rb, &cfg) == -EINVAL, "create: size below the minimum");
	cfg.subbuf_size = 4096;
	cfg.subbuf_count = 1;
	tap_ok(ust_rb_create(&rb, &cfg) == -EINVAL, "create: one sub-buffer");
	cfg.subbuf_count = 3;
	tap_ok(ust_rb_create(&rb, &cfg) == -EINVAL, "create: count not a power of two");
	cfg.subbuf_count = 4;
	cfg.channel = "a_channel_name_that_is_far_too_long_for_the_shared_memory_header_x";
	tap_ok(ust_rb_create(&rb, &cfg) == -EINVAL, "create: channel name too long");
	cfg.channel = "test";
	if (!tap_ok(ust_rb_create(&rb, &cfg) == 0, "create: valid buffer"))
		return;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", rb.shm_fd);
	n = readlink(path, link, sizeof(link) - 1);
	link[n > 0 ? n : 0] = '\0';
	tap_ok(strstr(link, "memfd:ust-test-3") != NULL, "memfd is named ust-test-3 (%s)", link);
	tap_ok(rb.ctl->magic == UST_SHM_MAGIC && rb.ctl->subbuf_size == 4096 &&
	       rb.ctl->subbuf_count == 4 && rb.ctl->cpu == 3 && rb.ctl->stream_id == 1 &&
	       !strcmp(rb.ctl->channel, "test") && rb.ctl->data_offset % 4096 == 0 &&
	       rb.ctl->map_size == rb.map_size, "shared header filled in");

	tap_ok(ustcomm_cbuf_map(&cb, rb.shm_fd, 8192, 4) == -EPROTO,
	       "map: announced size differs from the header");
	tap_ok(ustcomm_cbuf_map(&cb, rb.shm_fd, 4096, 3) == -EPROTO,
	       "map: announced count not a power of two");
	rb.ctl->magic = 0;
	tap_ok(ustcomm_cbuf_map(&cb, rb.shm_fd, 4096, 4) == -EPROTO, "map: bad magic");
	rb.ctl->magic = UST_SHM_MAGIC;
	if (!tap_ok(ustcomm_cbuf_map(&cb, rb.shm_fd, 4096, 4) == 0, "map: valid buffer"))
		goto end;
	tap_ok(ustcomm_cbuf_get(&cb, &pkt, &len) == 0, "get: nothing before any event");

	emit(&rb, 1, 0, 0, NULL);
	ust_rb_flush(&rb);
	saved = ust_get_u64(rb.data + UST_PKT_CONTENT_SIZE);
	ust_put_u64(rb.data + UST_PKT_CONTENT_SIZE, 1 << 20);
	tap_ok(ustcomm_cbuf_get(&cb, &pkt, &len) == -EPROTO, "get: content_size > packet_size");
	ust_put_u64(rb.data + UST_PKT_CONTENT_SIZE, saved);
	ret = ustcomm_cbuf_get(&cb, &pkt, &len);
	tap_ok(ret == 1 && len == UST_PKT_HEADER_SIZE + UST_EVENT_HEADER_COMPACT_SIZE + PAYLOAD_LEN,
	       "get: one flushed event gives a %zu-byte packet", ret == 1 ? len : 0);
	ustcomm_cbuf_put(&cb);
	tap_ok(rb.ctl->consumed == 4096, "put: consumed advanced by one sub-buffer");
	ustcomm_cbuf_unmap(&cb);
end:
	ust_rb_destroy(&rb);
}

static void test_getcpu(void)
{
	cpu_set_t old, one;
	int cpu = ust_getcpu();

	tap_ok(cpu >= 0 && cpu < CPU_SETSIZE, "ust_getcpu() = %d", cpu);
#ifdef UST_HAVE_GLIBC_RSEQ
	tap_diag("rseq %s", __rseq_size > 0 ? "registered" : "not registered: sched_getcpu()");
#endif
	if (sched_getaffinity(0, sizeof(old), &old))
		return;
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (!CPU_ISSET(0, &old) || sched_setaffinity(0, sizeof(one), &one)) {
		tap_ok(1, "ust_getcpu() when pinned # SKIP cannot pin to CPU 0");
		return;
	}
	sched_yield();
	tap_ok(ust_getcpu() == 0, "ust_getcpu() is 0 when pinned to CPU 0");
	sched_setaffinity(0, sizeof(old), &old);
}

/* (a) One writer: order, packets, both header forms, timestamp decoding. */
/* ticks of a clock of freq Hz as a sleep, for gaps measured in 2^27 ticks */
static struct timespec ticks_as_sleep(double ticks, uint64_t freq)
{
	double s = ticks / (double)freq;

	return (struct timespec) { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
}

static void test_single_writer(uint64_t freq)
{
	const uint64_t total = 3000;
	const double window = (double)(1u << UST_EVENT_COMPACT_TS_BITS);
	struct ust_rb rb;
	struct ustcomm_cbuf cb;
	struct checker chk;
	/* 60 and 200 ms with the nanosecond clock: the wrap needs 4 gaps. */
	struct timespec gap = ticks_as_sleep(0.45 * window, freq);
	struct timespec long_gap = ticks_as_sleep(1.5 * window, freq);
	uint64_t seq, failed = 0;

	if (!tap_ok(rb_setup(&rb, &cb, 4096, 8, 5) == 0, "single: buffer created and mapped"))
		return;
	checker_init(&chk, 5, 3);
	chk.strict_headers = 1;
	for (seq = 0; seq < total; seq++) {
		/* Gaps below 2^27 ns (compact, low bits wrap) and above (extended). */
		if (seq >= 1000 && seq < 1004)
			nanosleep(&gap, NULL);
		if (seq == 2000)
			nanosleep(&long_gap, NULL);
		if (emit(&rb, event_id_of(0, seq), 0, seq, NULL))
			failed++;
		drain(&cb, &chk);
	}
	ust_rb_flush(&rb);
	drain(&cb, &chk);
	tap_ok(!chk.error[0], "single: every packet and event well-formed%s%s",
	       chk.error[0] ? ": " : "", chk.error);
	tap_ok(failed == 0 && chk.count[0] == total && chk.last_seq[0] == total - 1 &&
	       chk.events == total, "single: %lu events read back in order",
	       (unsigned long)chk.events);
	tap_ok(chk.packets > 8 && chk.packets == rb.ctl->write_offset / 4096,
	       "single: %lu packets, the ring wrapped", (unsigned long)chk.packets);
	tap_ok(chk.compact > 0 && chk.extended > chk.extended_by_time,
	       "single: compact (%lu) and id-extended (%lu) headers",
	       (unsigned long)chk.compact, (unsigned long)(chk.extended - chk.extended_by_time));
	tap_ok(chk.extended_by_time >= 1, "single: a 200 ms gap forces an extended header (%lu)",
	       (unsigned long)chk.extended_by_time);
	tap_ok(chk.wraps >= 1, "single: compact timestamps decoded across 2^27 wraps (%lu)",
	       (unsigned long)chk.wraps);
	tap_ok(rb.ctl->events_discarded == 0 && chk.last_discarded == 0, "single: nothing discarded");
	rb_teardown(&rb, &cb);
}

/*
 * The last byte of a sub-buffer is always padding: an event that would end
 * exactly on the boundary goes to the next packet (or is dropped when even
 * an empty packet cannot hold it).
 */
static void test_boundaries(void)
{
	const uint32_t size = 4096, ext = UST_EVENT_HEADER_EXTENDED_SIZE;
	const size_t room = size - UST_PKT_HEADER_SIZE;	/* event bytes in an empty packet */
	struct ust_rb rb;
	struct ustcomm_cbuf cb;
	struct ust_event_ctx ctx;
	const char *pkt;
	size_t len;
	int ret;

	if (!tap_ok(rb_setup(&rb, &cb, size, 4, 0) == 0, "boundary: buffer created and mapped"))
		return;
	tap_ok(ust_rb_reserve(&rb, 40, room - ext, &ctx) == -ENOBUFS &&
	       rb.ctl->events_discarded == 1 && rb.ctl->write_offset == 0,
	       "boundary: an event filling a whole packet is dropped and counted");
	ret = ust_rb_reserve(&rb, 40, room - ext - 1, &ctx);
	tap_ok(ret == 0 && ctx.offset == UST_PKT_HEADER_SIZE && rb.ctl->write_offset == size - 1,
	       "boundary: an event ending one byte short of the boundary fits");
	if (ret)
		goto end;
	ust_rb_commit(&rb, &ctx);
	ret = ust_rb_reserve(&rb, 40, 0, &ctx);
	tap_ok(ret == 0 && ctx.offset == size + UST_PKT_HEADER_SIZE,
	       "boundary: the next event opens the next packet");
	if (ret)
		goto end;
	ust_rb_commit(&rb, &ctx);
	ret = ust_rb_reserve(&rb, 40, size - (UST_PKT_HEADER_SIZE + ext) - ext, &ctx);
	tap_ok(ret == 0 && ctx.offset == 2 * size + UST_PKT_HEADER_SIZE,
	       "boundary: an event that would end exactly on the boundary switches packets");
	if (ret)
		goto end;
	ust_rb_commit(&rb, &ctx);
	ret = ustcomm_cbuf_get(&cb, &pkt, &len);
	tap_ok(ret == 1 && len == size - 1 &&
	       ust_get_u64(pkt + UST_PKT_CONTENT_SIZE) == (size - 1) * 8 &&
	       ust_get_u64(pkt + UST_PKT_EVENTS_DISCARDED) == 1,
	       "boundary: the full packet holds %zu bytes, 1 discarded", ret == 1 ? len : 0);
	if (ret == 1)
		ustcomm_cbuf_put(&cb);
	ret = ustcomm_cbuf_get(&cb, &pkt, &len);
	tap_ok(ret == 1 && len == UST_PKT_HEADER_SIZE + ext,
	       "boundary: the switched packet holds one empty event");
end:
	rb_teardown(&rb, &cb);
}

/* A consumer thread draining as the writer wakes it, as ustd does. */
struct consumer {
	pthread_t thread;
	struct ustcomm_cbuf *cb;
	struct checker *chk;
	int wakeup_fd;
	int done;
	unsigned long wakeups;
};

static void *consumer_main(void *arg)
{
	struct consumer *c = arg;
	struct pollfd pfd = { .fd = c->wakeup_fd, .events = POLLIN };
	uint64_t v;
	int done;

	for (;;) {
		done = uatomic_read(&c->done);
		cmm_smp_rmb();	/* pairs with cmm_smp_mb() in consumer_stop() */
		drain(c->cb, c->chk);
		if (done || c->chk->error[0])
			break;
		if (poll(&pfd, 1, 5) == 1 && read(c->wakeup_fd, &v, sizeof(v)) == sizeof(v))
			c->wakeups += v;
	}
	return NULL;
}

static void consumer_stop(struct consumer *c)
{
	cmm_smp_mb();	/* the writers' last commits before done */
	uatomic_set(&c->done, 1);
	pthread_join(c->thread, NULL);
}

struct writer {
	pthread_t thread;
	struct ust_rb *rb;
	uint32_t id;
	uint64_t count;
	uint64_t written;
	uint64_t dropped;
	int pin;			/* CPU to run on, or -1 */
	int migrate;			/* switch between CPUs 0 and 1 every 256 events */
	uint64_t migrations;		/* events written on another CPU than the previous */
};

static int pin_to(int cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return sched_setaffinity(0, sizeof(one), &one);
}

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	uint64_t seq;
	int cpu, last_cpu = -1;

	if (w->pin >= 0)
		pin_to(w->pin);
	for (seq = 0; seq < w->count; seq++) {
		if (w->migrate && seq % 256 == 0)
			pin_to((int)(seq / 256) % 2);
		cpu = ust_getcpu();
		if (last_cpu >= 0 && cpu != last_cpu)
			w->migrations++;
		last_cpu = cpu;
		if (emit(w->rb, event_id_of(w->id, seq), w->id, seq, NULL))
			w->dropped++;
		else
			w->written++;
	}
	return NULL;
}

/* (b) Four writers, small buffers, a consumer draining concurrently. */
static void test_concurrent(void)
{
	struct ust_rb rb;
	struct ustcomm_cbuf cb;
	struct checker chk;
	struct consumer c = { 0 };
	struct writer w[4];
	uint64_t written = 0, dropped = 0;
	int i, counts_ok = 1;

	if (!tap_ok(rb_setup(&rb, &cb, 4096, 4, 1) == 0, "concurrent: buffer created and mapped"))
		return;
	checker_init(&chk, 1, 3);
	c.cb = &cb;
	c.chk = &chk;
	c.wakeup_fd = rb.wakeup_fd;
	pthread_create(&c.thread, NULL, consumer_main, &c);
	for (i = 0; i < 4; i++) {
		w[i] = (struct writer){ .rb = &rb, .id = i, .count = 50000, .pin = -1 };
		pthread_create(&w[i].thread, NULL, writer_main, &w[i]);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(w[i].thread, NULL);
		written += w[i].written;
		dropped += w[i].dropped;
	}
	ust_rb_flush(&rb);
	consumer_stop(&c);

	tap_diag("concurrent: %lu written, %lu dropped, %lu packets, %lu wakeups",
		 (unsigned long)written, (unsigned long)dropped, (unsigned long)chk.packets,
		 c.wakeups);
	tap_ok(!chk.error[0], "concurrent: packets well-formed, per-writer sequences increasing, "
	       "times non-decreasing%s%s", chk.error[0] ? ": " : "", chk.error);
	for (i = 0; i < 4; i++)
		if (chk.count[i] != w[i].written)
			counts_ok = 0;
	tap_ok(counts_ok && chk.events == written,
	       "concurrent: every recorded event read once (%lu)", (unsigned long)chk.events);
	tap_ok(rb.ctl->events_discarded == dropped && chk.last_discarded == dropped,
	       "concurrent: drops counted: %lu in shm, %lu in the last packet, %lu seen",
	       (unsigned long)rb.ctl->events_discarded, (unsigned long)chk.last_discarded,
	       (unsigned long)dropped);
	tap_ok(chk.events + chk.last_discarded == 4 * 50000,
	       "concurrent: read + discarded == attempted");
	tap_ok(c.wakeups > 0 && c.wakeups <= chk.packets,
	       "concurrent: at most one wakeup per packet (%lu for %lu)", c.wakeups,
	       (unsigned long)chk.packets);
	rb_teardown(&rb, &cb);
}

/*
 * (f) One buffer written from both CPUs at once, as happens when a thread
 * migrates or is preempted between ust_getcpu() and its reservation: a
 * writer pinned to each CPU and a third one hopping between them. Each CPU
 * reads its own clock, unordered; times must still never decrease in
 * buffer order, and each must lie between the writer's ordered reads
 * before and after its reservation.
 */
static void test_cross_cpu(void)
{
	const uint64_t per_writer = 200000;
	struct ust_rb rb;
	struct ustcomm_cbuf cb;
	struct checker chk;
	struct consumer c = { 0 };
	struct writer w[3];
	cpu_set_t allowed;
	uint64_t written = 0;
	int i, counts_ok = 1;

	if (sched_getaffinity(0, sizeof(allowed), &allowed) ||
	    !CPU_ISSET(0, &allowed) || !CPU_ISSET(1, &allowed)) {
		tap_ok(1, "cross-CPU: # SKIP needs CPUs 0 and 1");
		return;
	}
	if (!tap_ok(rb_setup(&rb, &cb, 16384, 4, 0) == 0, "cross-CPU: buffer created and mapped"))
		return;
	checker_init(&chk, 0, 3);
	c.cb = &cb;
	c.chk = &chk;
	c.wakeup_fd = rb.wakeup_fd;
	pthread_create(&c.thread, NULL, consumer_main, &c);
	for (i = 0; i < 3; i++) {
		w[i] = (struct writer){ .rb = &rb, .id = i, .count = per_writer,
					.pin = i < 2 ? i : -1, .migrate = i == 2 };
		pthread_create(&w[i].thread, NULL, writer_main, &w[i]);
	}
	for (i = 0; i < 3; i++) {
		pthread_join(w[i].thread, NULL);
		written += w[i].written;
	}
	ust_rb_flush(&rb);
	consumer_stop(&c);

	tap_diag("cross-CPU: %lu written, %lu packets, the hopping writer changed CPU %lu times",
		 (unsigned long)written, (unsigned long)chk.packets,
		 (unsigned long)w[2].migrations);
	tap_ok(w[2].migrations >= per_writer / 256 / 2,
	       "cross-CPU: the third writer ran on both CPUs (%lu changes)",
	       (unsigned long)w[2].migrations);
	tap_ok(!chk.error[0], "cross-CPU: times non-decreasing, each within its writer's "
	       "bounds%s%s", chk.error[0] ? ": " : "", chk.error);
	for (i = 0; i < 3; i++)
		if (chk.count[i] != w[i].written)
			counts_ok = 0;
	tap_ok(counts_ok && chk.events == written && written > 0,
	       "cross-CPU: every recorded event read once (%lu)", (unsigned long)chk.events);
	rb_teardown(&rb, &cb);
}

/*
 * (g) The clamp itself, made deterministic: the previous reservation's
 * time is far ahead of this CPU's clock (as if that CPU's TSC ran ahead,
 * or our rdtsc executed early). The next event and the flush must take
 * that time, not go back.
 */
static void test_clamp(void)
{
	struct ust_rb rb;
	struct ustcomm_cbuf cb;
	struct ust_event_ctx ctx;
	const char *pkt;
	size_t len;
	uint64_t ahead;
	uint32_t hdr;
	int ret;

	if (!tap_ok(rb_setup(&rb, &cb, 4096, 4, 0) == 0, "clamp: buffer created and mapped"))
		return;
	emit(&rb, 1, 0, 0, NULL);
	ahead = rb.ctl->last_timestamp + (UINT64_C(1) << 40) + 12345;
	rb.ctl->last_timestamp = ahead;
	ret = ust_rb_reserve(&rb, 1, PAYLOAD_LEN, &ctx);
	if (!tap_ok(ret == 0, "clamp: reserved after a time from the future"))
		goto end;
	memset(ctx.payload, 0, PAYLOAD_LEN);
	ust_rb_commit(&rb, &ctx);
	hdr = ust_get_u32(ctx.payload - UST_EVENT_HEADER_COMPACT_SIZE);
	tap_ok(rb.ctl->last_timestamp == ahead, "clamp: last_timestamp stays at the newer time");
	tap_ok((hdr & 31) == 1 && (hdr >> 5) == (uint32_t)(ahead & COMPACT_MASK),
	       "clamp: the event has the previous time, in a compact header (gap 0)");
	ust_rb_flush(&rb);
	ret = ustcomm_cbuf_get(&cb, &pkt, &len);
	tap_ok(ret == 1 && ust_get_u64(pkt + UST_PKT_TIMESTAMP_END) == ahead,
	       "clamp: the flush closes the packet at that time too");
end:
	rb_teardown(&rb, &cb);
}

/* (c) Discard mode without a consumer: what fits is kept, the rest counted. */
static void test_discard(void)
{
	const uint32_t size = 4096, count = 2, id = 40;
	const uint64_t per_packet = (size - UST_PKT_HEADER_SIZE - 1) /
		(UST_EVENT_HEADER_EXTENDED_SIZE + PAYLOAD_LEN);
	const uint64_t fit = per_packet * count, total = 1000;
	struct ust_rb rb;
	struct ustcomm_cbuf cb;
	struct checker chk;
	const char *pkt;
	size_t len;
	uint64_t seq, first_drop = total, written = 0, discarded;
	uint32_t i;
	int ret;

	if (!tap_ok(rb_setup(&rb, &cb, size, count, 0) == 0, "discard: buffer created and mapped"))
		return;
	checker_init(&chk, 0, 3);
	chk.fixed_id = id;
	chk.strict_headers = 1;
	for (seq = 0; seq < total; seq++) {
		if (emit(&rb, id, 2, seq, NULL)) {
			if (first_drop == total)
				first_drop = seq;
		} else {
			written++;
		}
	}
	tap_ok(written == fit && first_drop == fit,
	       "discard: exactly the first %lu events kept (%lu, first drop %lu)",
	       (unsigned long)fit, (unsigned long)written, (unsigned long)first_drop);
	tap_ok(rb.ctl->events_discarded == total - fit, "discard: %lu counted in shm",
	       (unsigned long)rb.ctl->events_discarded);
	ust_rb_flush(&rb);
	/* The first packet closed before any drop, the flush closed the second. */
	for (i = 0; i < count; i++) {
		ret = ustcomm_cbuf_get(&cb, &pkt, &len);
		discarded = ret == 1 ? ust_get_u64(pkt + UST_PKT_EVENTS_DISCARDED) : UINT64_MAX;
		tap_ok(discarded == (i ? total - fit : 0),
		       "discard: packet %u has events_discarded %lu", i, (unsigned long)discarded);
		if (ret != 1)
			goto end;
		check_packet(&chk, pkt, len);
		ustcomm_cbuf_put(&cb);
	}
	tap_ok(emit(&rb, id, 2, total, NULL) == 0, "discard: writing resumes once consumed");
	ust_rb_flush(&rb);
	drain(&cb, &chk);
	tap_ok(!chk.error[0] && chk.packets == 3 && chk.count[2] == fit + 1 &&
	       chk.last_seq[2] == total && chk.last_discarded == total - fit,
	       "discard: packets well-formed, seq_num continues, count kept%s%s",
	       chk.error[0] ? ": " : "", chk.error);
end:
	rb_teardown(&rb, &cb);
}

/* (d) A signal handler writing into the buffer the interrupted thread writes. */
static struct ust_rb *sig_rb;
static volatile sig_atomic_t sig_window;
static uint64_t sig_seq, sig_written, sig_dropped, sig_in_window;

static void on_alarm(int signo)
{
	int saved = errno;

	if (sig_window)
		sig_in_window++;
	if (emit(sig_rb, event_id_of(HANDLER_WRITER, sig_seq), HANDLER_WRITER, sig_seq, NULL))
		sig_dropped++;
	else
		sig_written++;
	sig_seq++;
	errno = saved;
}

static void test_signal_storm(void)
{
	struct ust_rb rb;
	struct ustcomm_cbuf cb;
	struct checker chk;
	struct consumer c = { 0 };
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval it = { { 0, 100 }, { 0, 100 } }, off = { { 0, 0 }, { 0, 0 } };
	sigset_t alrm;
	uint64_t seq, written = 0, dropped = 0, now, deadline, hard_deadline;

	if (!tap_ok(rb_setup(&rb, &cb, 4096, 4, 2) == 0, "signal: buffer created and mapped"))
		return;
	checker_init(&chk, 2, 3);
	c.cb = &cb;
	c.chk = &chk;
	c.wakeup_fd = rb.wakeup_fd;
	sig_rb = &rb;
	sig_seq = sig_written = sig_dropped = sig_in_window = 0;
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	/* Only the writing thread takes the signal. */
	pthread_sigmask(SIG_BLOCK, &alrm, NULL);
	pthread_create(&c.thread, NULL, consumer_main, &c);
	pthread_sigmask(SIG_UNBLOCK, &alrm, NULL);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	now = now_ns();
	deadline = now + 300 * 1000000ull;
	/* Longer when slow (valgrind) until the handler has hit both windows. */
	hard_deadline = now + 5000 * 1000000ull;
	for (seq = 0; now < hard_deadline &&
	     (now < deadline || sig_seq < 200 || !sig_in_window); seq++) {
		if (emit(&rb, event_id_of(0, seq), 0, seq, &sig_window))
			dropped++;
		else
			written++;
		now = now_ns();
	}
	setitimer(ITIMER_REAL, &off, NULL);
	signal(SIGALRM, SIG_IGN);
	ust_rb_flush(&rb);
	consumer_stop(&c);

	tap_diag("signal: main %lu written %lu dropped; handler ran %lu times, "
		 "%lu between reserve and commit", (unsigned long)written,
		 (unsigned long)dropped, (unsigned long)sig_seq, (unsigned long)sig_in_window);
	tap_ok(sig_seq >= 200, "signal: handler traced %lu times", (unsigned long)sig_seq);
	tap_ok(sig_in_window > 0, "signal: handler interrupted a reserved, uncommitted event");
	tap_ok(!chk.error[0], "signal: packets and events well-formed%s%s",
	       chk.error[0] ? ": " : "", chk.error);
	tap_ok(chk.count[0] == written && chk.count[HANDLER_WRITER] == sig_written,
	       "signal: every recorded event read (main %lu/%lu, handler %lu/%lu)",
	       (unsigned long)chk.count[0], (unsigned long)written,
	       (unsigned long)chk.count[HANDLER_WRITER], (unsigned long)sig_written);
	tap_ok(chk.last_discarded == dropped + sig_dropped &&
	       chk.events + chk.last_discarded == seq + sig_seq,
	       "signal: read + discarded == attempted (%lu discarded)",
	       (unsigned long)chk.last_discarded);
	rb_teardown(&rb, &cb);
}

static uint64_t wakeups_pending(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint64_t v = 0;

	if (poll(&pfd, 1, 0) != 1 || read(fd, &v, sizeof(v)) != sizeof(v))
		return 0;
	return v;
}

/* (e) The wakeup: once per completed packet, never per event. */
static void test_wakeup(void)
{
	struct ust_rb rb;
	struct ustcomm_cbuf cb;
	uint64_t seq = 0;

	if (!tap_ok(rb_setup(&rb, &cb, 4096, 4, 0) == 0, "wakeup: buffer created and mapped"))
		return;
	emit(&rb, 1, 0, seq++, NULL);
	tap_ok(wakeups_pending(rb.wakeup_fd) == 0, "wakeup: none after one uncompleted event");
	while (rb.ctl->write_offset < 4096)
		emit(&rb, 1, 0, seq++, NULL);
	tap_ok(wakeups_pending(rb.wakeup_fd) == 1, "wakeup: one when the first packet completes");
	while (rb.ctl->write_offset < 3 * 4096)
		emit(&rb, 1, 0, seq++, NULL);
	tap_ok(wakeups_pending(rb.wakeup_fd) == 2, "wakeup: one per packet for two more (%lu events)",
	       (unsigned long)seq);
	ust_rb_flush(&rb);
	tap_ok(wakeups_pending(rb.wakeup_fd) == 1, "wakeup: one when flush completes a packet");
	ust_rb_flush(&rb);
	tap_ok(wakeups_pending(rb.wakeup_fd) == 0, "wakeup: none from a flush at a boundary");
	rb_teardown(&rb, &cb);
}

/*
 * The largest event: header and payload within UST_EVENT_SIZE_MAX, which
 * leaves room in ctx.len for the deferred first byte. One byte more is
 * dropped and counted, even in sub-buffers that could hold it.
 */
static void test_size_limit(void)
{
	const uint32_t size = 32u << 20;
	const size_t largest = UST_EVENT_SIZE_MAX - UST_EVENT_HEADER_EXTENDED_SIZE;
	struct ust_rb rb;
	struct ustcomm_cbuf cb;
	struct ust_event_ctx ctx;
	const char *pkt;
	size_t len;
	int ret;

	if (!tap_ok(rb_setup(&rb, &cb, size, 2, 0) == 0, "size limit: 32 MiB sub-buffers"))
		return;
	tap_ok(ust_rb_reserve(&rb, 40, largest + 1, &ctx) == -ENOBUFS &&
	       rb.ctl->events_discarded == 1,
	       "size limit: an event of UST_EVENT_SIZE_MAX + 1 bytes is dropped and counted");
	ret = ust_rb_reserve(&rb, 40, largest, &ctx);
	if (tap_ok(ret == 0, "size limit: an event of exactly UST_EVENT_SIZE_MAX bytes is reserved")) {
		memset(ctx.payload, 0x5a, largest);
		ust_rb_commit(&rb, &ctx);
		ust_rb_flush(&rb);
		ret = ustcomm_cbuf_get(&cb, &pkt, &len);
		tap_ok(ret == 1 && (uint8_t)pkt[UST_PKT_HEADER_SIZE] == UST_EVENT_ID_EXTENDED &&
		       ust_get_u32(pkt + UST_PKT_HEADER_SIZE + 1) == 40 &&
		       len == UST_PKT_HEADER_SIZE + UST_EVENT_SIZE_MAX,
		       "size limit: committed whole, its header's first byte in place");
	}
	rb_teardown(&rb, &cb);
}

int main(void)
{
	struct ustcomm_clock_desc clock;

	test_create_and_map();
	test_getcpu();
	test_single_writer(1000000000u);
	test_boundaries();
	test_concurrent();
	test_discard();
	test_signal_storm();
	test_wakeup();
	test_cross_cpu();
	test_clamp();
	test_size_limit();
	if (ustcomm_clock_describe(&clock) == 0 && ustcomm_clock_use_tsc) {
		tap_diag("again with the TSC clock");
		test_single_writer(clock.freq);
		test_boundaries();
		test_discard();
		test_size_limit();
		test_concurrent();
		test_signal_storm();
		test_cross_cpu();
		test_clamp();
	} else {
		tap_ok(1, "TSC clock # SKIP not usable here");
	}
	tap_plan(tap_count);
	return tap_done();
}
