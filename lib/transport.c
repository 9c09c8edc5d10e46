// SPDX-License-Identifier: GPL-2.0
/*
 * libusbeth: the transport. A struct usbeth_nl owns one netlink socket of
 * any protocol and its growing receive buffer; every request is sent with
 * a fresh sequence number and answered by NLMSG_ERROR (do requests carry
 * NLM_F_ACK) or NLMSG_DONE (dumps), which also carries the extended ACK.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <libmnl/libmnl.h>

#include "priv.h"

/* Receive buffer: dumps come in datagrams of at most 32 KiB; a larger
 * datagram (a do reply with very many queues) grows it, up to RECV_MAX.
 */
#define RECV_INITIAL	(64 * 1024)
#define RECV_MAX	(4 * 1024 * 1024)

/*
 * Receives one datagram into the buffer, growing it to fit. Datagrams not sent
 * by the kernel (another process writing to our port id) are dropped.
 * Returns its length or -errno (-EAGAIN with MSG_DONTWAIT and nothing
 * queued, -ENOBUFS after an overflow, -EMSGSIZE for an oversize datagram,
 * which is consumed).
 */
static ssize_t nl_recv(struct usbeth_nl *u, int flags)
{
	for (;;) {
		struct sockaddr_nl sa;
		struct iovec iov;
		struct msghdr mh;
		ssize_t n;

		n = recv(u->fd, NULL, 0, MSG_PEEK | MSG_TRUNC | flags);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if ((size_t)n > u->buflen) {
			unsigned char *nb;

			if (n > RECV_MAX) {
				(void)recv(u->fd, NULL, 0, MSG_DONTWAIT);
				return -EMSGSIZE;
			}
			nb = realloc(u->buf, (size_t)n);
			if (!nb)
				return -ENOMEM;
			u->buf = nb;
			u->buflen = (size_t)n;
		}
		memset(&sa, 0, sizeof(sa));
		iov.iov_base = u->buf;
		iov.iov_len = u->buflen;
		memset(&mh, 0, sizeof(mh));
		mh.msg_name = &sa;
		mh.msg_namelen = sizeof(sa);
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		n = recvmsg(u->fd, &mh, flags);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (mh.msg_flags & MSG_TRUNC)
			return -EMSGSIZE;
		if (mh.msg_namelen != sizeof(sa) || sa.nl_family != AF_NETLINK ||
		    sa.nl_pid != 0)
			continue;
		return n;
	}
}

int usbeth_txn_feed(struct usbeth_txn *t, const void *buf, size_t len)
{
	const struct nlmsghdr *nlh = buf;
	int rem = len > INT_MAX ? INT_MAX : (int)len;

	for (; mnl_nlmsg_ok(nlh, rem); nlh = mnl_nlmsg_next(nlh, &rem)) {
		bool ours = nlh->nlmsg_seq == t->seq;
		struct usbeth_ack scratch;
		int ret;

		if (!ours && !(t->echo && nlh->nlmsg_seq == 0 &&
			       nlh->nlmsg_type == t->type))
			continue;
		if (ours && (nlh->nlmsg_flags & NLM_F_DUMP_INTR))
			t->intr = true;
		switch (nlh->nlmsg_type) {
		case NLMSG_NOOP:
		case NLMSG_OVERRUN:
			break;
		case NLMSG_ERROR:
		case NLMSG_DONE:
			ret = usbeth_parse_ack(nlh, t->req, t->reqlen,
					       t->ack ? t->ack : &scratch);
			t->result = ret ? ret : t->cberr;
			return 1;
		default:
			if (nlh->nlmsg_type != t->type || t->cberr || !t->cb)
				break;
			ret = t->cb(nlh, t->arg);
			if (ret < 0)
				t->cberr = ret;
			break;
		}
	}
	return 0;
}

int usbeth_talk(struct usbeth_nl *s, struct nlmsghdr *nlh, size_t len,
		uint16_t type, bool echo, usbeth_msg_cb cb, void *arg,
		struct usbeth_ack *ack, bool *intr)
{
	struct usbeth_txn t = { 0 };

	if (++s->seq == 0)
		s->seq = 1;
	nlh->nlmsg_seq = s->seq;
	if (echo)
		nlh->nlmsg_flags |= NLM_F_ECHO;
	t.req = nlh;
	t.reqlen = len;
	t.seq = s->seq;
	t.type = type;
	t.echo = echo;
	t.cb = cb;
	t.arg = arg;
	t.ack = ack;
	if (mnl_socket_sendto(s->nl, nlh, len) < 0)
		return -errno;
	for (;;) {
		ssize_t n = nl_recv(s, 0);

		if (n < 0)
			return (int)n;
		if (usbeth_txn_feed(&t, s->buf, (size_t)n))
			break;
	}
	if (intr)
		*intr = t.intr;
	return t.result;
}

/* Opens s on bus, with extended ACKs, capped ACKs, its buffer. */
int usbeth_nl_setup(struct usbeth_nl *s, int bus)
{
	int one = 1, rcvbuf = 1024 * 1024;

	s->fd = -1;
	s->buf = malloc(RECV_INITIAL);
	if (!s->buf)
		return -ENOMEM;
	s->buflen = RECV_INITIAL;
	s->nl = mnl_socket_open2(bus, SOCK_CLOEXEC);
	if (!s->nl)
		return -errno;
	s->fd = mnl_socket_get_fd(s->nl);
	if (mnl_socket_setsockopt(s->nl, NETLINK_EXT_ACK, &one,
				  sizeof(one)) < 0 ||
	    mnl_socket_setsockopt(s->nl, NETLINK_CAP_ACK, &one,
				  sizeof(one)) < 0 ||
	    mnl_socket_bind(s->nl, 0, MNL_SOCKET_AUTOPID) < 0)
		return -errno;
	/*
	 * One message can outgrow the default socket buffer (a device with
	 * 4096 TX queues: a 213 KB message, in a 256 KiB skb; 7.3 drops it
	 * with ENOBUFS against the default 208 KiB): ask for more, which the
	 * kernel caps at net.core.rmem_max (and doubles). Best effort.
	 */
	(void)setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	s->seq = (uint32_t)time(NULL);
	return 0;
}

void usbeth_nl_teardown(struct usbeth_nl *s)
{
	if (s->nl)
		mnl_socket_close(s->nl);
	s->nl = NULL;
	free(s->buf);
	s->buf = NULL;
}

int usbeth_nl_new(void **out, size_t size, int bus)
{
	struct usbeth_nl *s = calloc(1, size);
	int ret;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	ret = usbeth_nl_setup(s, bus);
	if (ret) {
		usbeth_nl_teardown(s);
		free(s);
		return ret;
	}
	*out = s;
	return 0;
}

void usbeth_nl_free(void *p)
{
	if (!p)
		return;
	usbeth_nl_teardown(p);
	free(p);
}

int usbeth_nl_open(struct usbeth_nl **out, int bus)
{
	return usbeth_nl_new((void **)out, sizeof(**out), bus);
}

void usbeth_nl_close(struct usbeth_nl *s)
{
	usbeth_nl_free(s);
}

int usbeth_nl_talk(struct usbeth_nl *s, struct nlmsghdr *req, uint16_t type,
		   usbeth_msg_cb cb, void *arg, struct usbeth_ack *ack)
{
	struct usbeth_ack scratch;

	if (!ack)
		ack = &scratch;
	usbeth_ack_clear(ack);
	if (req->nlmsg_len < sizeof(*req))
		return -EINVAL;
	return usbeth_talk(s, req, req->nlmsg_len, type, false, cb, arg, ack,
			   NULL);
}

int usbeth_nl_drain(struct usbeth_nl *s,
		    int (*each)(const struct nlmsghdr *nlh, void *arg),
		    void *arg)
{
	for (;;) {
		const struct nlmsghdr *nlh;
		ssize_t n = nl_recv(s, MSG_DONTWAIT);
		int rem, ret;

		if (n == -EAGAIN || n == -EWOULDBLOCK)
			return 0;
		if (n < 0)
			return (int)n;
		rem = (int)n;
		for (nlh = (const struct nlmsghdr *)s->buf;
		     mnl_nlmsg_ok(nlh, rem); nlh = mnl_nlmsg_next(nlh, &rem)) {
			ret = each(nlh, arg);
			if (ret)
				return ret;
		}
		ret = each(NULL, arg);
		if (ret)
			return ret;
	}
}
