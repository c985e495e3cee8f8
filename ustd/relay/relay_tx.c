/* SPDX-License-Identifier: GPL-2.0-only */
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include "ustd/relay/relay_tx.h"

/* The header relayd reads before each packet on the data connection. */
struct relay_tx_hdr {
	uint64_t circuit_id;
	uint64_t stream_id;
	uint64_t net_seq_num;
	uint32_t data_size;
	uint32_t padding_size;
} __attribute__((packed));

struct relay_tx_item {
	struct relay_tx_hdr hdr;
	const char *pkt;
	size_t len;
	uint64_t seq;
	uint64_t *done;
};

/*
 * A FIFO of items, head to tail (indexes that only grow; an item is at
 * index % cap). Everything here is under lock, which is never held across
 * a send: the drain waits on it only for as long as the thread takes to
 * pick an item or to record one sent.
 */
struct ustd_relay_tx {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t more;		/* an item was queued, or stop */
	pthread_cond_t done;		/* an item was sent, or sending ended */
	int fd;
	struct relay_tx_item *items;
	size_t cap;
	uint64_t head, tail;
	bool stop;
	int err;			/* why sending ended, or 0 */
};

int ustd_sendv_all(int fd, struct iovec *iov, int iovcnt)
{
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = (size_t)iovcnt };
	ssize_t n;

	while (mh.msg_iovlen) {
		n = sendmsg(fd, &mh, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		while (mh.msg_iovlen && (size_t)n >= mh.msg_iov->iov_len) {
			n -= (ssize_t)mh.msg_iov->iov_len;
			mh.msg_iov++;
			mh.msg_iovlen--;
		}
		if (mh.msg_iovlen) {
			mh.msg_iov->iov_base = (char *)mh.msg_iov->iov_base + n;
			mh.msg_iov->iov_len -= (size_t)n;
		}
	}
	return 0;
}

static int relay_tx_send(int fd, struct relay_tx_item *it)
{
	struct iovec iov[2] = { { &it->hdr, sizeof(it->hdr) }, { (void *)it->pkt, it->len } };

	return ustd_sendv_all(fd, iov, 2);
}

static void *relay_tx_thread(void *arg)
{
	struct ustd_relay_tx *tx = arg;
	struct relay_tx_item it;
	int ret;

	pthread_mutex_lock(&tx->lock);
	for (;;) {
		while (tx->head == tx->tail && !tx->stop)
			pthread_cond_wait(&tx->more, &tx->lock);
		if (tx->stop)
			break;
		it = tx->items[tx->head % tx->cap];
		pthread_mutex_unlock(&tx->lock);
		ret = relay_tx_send(tx->fd, &it);
		pthread_mutex_lock(&tx->lock);
		if (ret < 0) {
			tx->err = ret;
			break;
		}
		/* Pairs with the load-acquire of whoever frees the packet
		 * (ustd_relay_tx_queue()): the send is over before. */
		__atomic_store_n(it.done, it.seq + 1, __ATOMIC_RELEASE);
		tx->head++;
		pthread_cond_broadcast(&tx->done);
	}
	/* Whoever waits learns that nothing more will be sent. */
	pthread_cond_broadcast(&tx->done);
	pthread_mutex_unlock(&tx->lock);
	return NULL;
}

int ustd_relay_tx_start(struct ustd_relay_tx **txp, int fd)
{
	struct ustd_relay_tx *tx = calloc(1, sizeof(*tx));
	int ret;

	if (!tx)
		return -ENOMEM;
	tx->fd = fd;
	pthread_mutex_init(&tx->lock, NULL);
	pthread_cond_init(&tx->more, NULL);
	pthread_cond_init(&tx->done, NULL);
	ret = -pthread_create(&tx->thread, NULL, relay_tx_thread, tx);
	if (ret < 0) {
		pthread_cond_destroy(&tx->done);
		pthread_cond_destroy(&tx->more);
		pthread_mutex_destroy(&tx->lock);
		free(tx);
		return ret;
	}
	*txp = tx;
	return 0;
}

/* Called with the lock held. */
static int relay_tx_grow(struct ustd_relay_tx *tx)
{
	size_t cap = tx->cap ? tx->cap * 2 : 64;
	struct relay_tx_item *items = malloc(cap * sizeof(*items));
	uint64_t i;

	if (!items)
		return -ENOMEM;
	for (i = tx->head; i < tx->tail; i++)
		items[i % cap] = tx->items[i % tx->cap];
	free(tx->items);
	tx->items = items;
	tx->cap = cap;
	return 0;
}

int ustd_relay_tx_queue(struct ustd_relay_tx *tx, uint64_t handle, uint64_t seq,
			const char *pkt, size_t len, uint64_t *done)
{
	int ret = 0;

	pthread_mutex_lock(&tx->lock);
	if (tx->err || tx->stop) {
		ret = tx->err ? tx->err : -ENOTCONN;
		goto end;
	}
	if (tx->tail - tx->head == tx->cap) {
		ret = relay_tx_grow(tx);
		if (ret < 0)
			goto end;
	}
	tx->items[tx->tail % tx->cap] = (struct relay_tx_item) {
		.hdr = {
			.stream_id = htobe64(handle),
			.net_seq_num = htobe64(seq),
			.data_size = htobe32((uint32_t)len),
		},
		.pkt = pkt,
		.len = len,
		.seq = seq,
		.done = done,
	};
	tx->tail++;
	pthread_cond_signal(&tx->more);
end:
	pthread_mutex_unlock(&tx->lock);
	return ret;
}

int ustd_relay_tx_flush(struct ustd_relay_tx *tx)
{
	int ret;

	pthread_mutex_lock(&tx->lock);
	while (tx->head != tx->tail && !tx->err && !tx->stop)
		pthread_cond_wait(&tx->done, &tx->lock);
	ret = tx->err ? tx->err : tx->head != tx->tail ? -ENOTCONN : 0;
	pthread_mutex_unlock(&tx->lock);
	return ret;
}

void ustd_relay_tx_stop(struct ustd_relay_tx *tx)
{
	pthread_mutex_lock(&tx->lock);
	tx->stop = true;
	pthread_cond_signal(&tx->more);
	pthread_mutex_unlock(&tx->lock);
	/* A send blocked on a relayd that reads nothing returns at once. */
	shutdown(tx->fd, SHUT_RDWR);
	pthread_join(tx->thread, NULL);
	pthread_cond_destroy(&tx->done);
	pthread_cond_destroy(&tx->more);
	pthread_mutex_destroy(&tx->lock);
	free(tx->items);
	free(tx);
}
