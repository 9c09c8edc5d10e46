// SPDX-License-Identifier: GPL-2.0
/*
 * libusbeth: asynchronous GETs, sent on a socket of their own and answered
 * whenever the caller reads (usbeth_async_read from its poll loop).
 */
#include <errno.h>
#include <stdalign.h>
#include <stdlib.h>
#include <libmnl/libmnl.h>

#include "priv.h"

/* GETs in flight, one per ifindex: the list grows with them (a burst of
 * netdevs appearing at once is evaluated whole); a reply the socket could
 * not hold ends in -ENOBUFS from usbeth_async_read(), never in a GET
 * silently forgotten.
 */
struct usbeth_async {
	struct usbeth_nl s;		/* first: see usbeth_nl_new() */
	size_t npend, cap;
	struct async_pend {
		uint32_t seq, ifindex;
	} *pend;
};

int usbeth_async_open(struct usbeth_async **out)
{
	return usbeth_nl_new((void **)out, sizeof(**out), NETLINK_GENERIC);
}

void usbeth_async_close(struct usbeth_async *a)
{
	if (a)
		free(a->pend);
	usbeth_nl_free(a);
}

int usbeth_async_fd(const struct usbeth_async *a)
{
	return a->s.fd;
}

int usbeth_async_get(struct usbeth_async *a, const struct usbeth *u,
		     uint32_t ifindex)
{
	union {
		struct nlmsghdr nlh;
		alignas(8) unsigned char b[256];
	} req;
	int len = usbeth_build_get(req.b, sizeof(req.b), u->fam.id, ifindex,
				   NULL);

	struct async_pend *p = NULL;
	size_t i;

	if (len < 0)
		return len;
	if (!u->fam.id)
		return -ENOENT;
	/*
	 * The kernel answers a GET as it is sent: a reply still unread for
	 * ifindex is older than what asks again. It is superseded (dropped
	 * when read): a device is evaluated once, from the latest state.
	 */
	for (i = 0; i < a->npend; i++)
		if (a->pend[i].ifindex == ifindex)
			p = &a->pend[i];
	if (!p && a->npend == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 32;

		p = realloc(a->pend, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		a->pend = p;
		a->cap = cap;
		p = NULL;
	}
	if (++a->s.seq == 0)
		a->s.seq = 1;
	req.nlh.nlmsg_seq = a->s.seq;
	if (mnl_socket_sendto(a->s.nl, req.b, (size_t)len) < 0)
		return -errno;
	if (!p) {
		p = &a->pend[a->npend++];
		p->ifindex = ifindex;
	}
	p->seq = a->s.seq;
	return 0;
}

/* Takes the pending GET of seq off the list; false if there was none. */
static bool async_done(struct usbeth_async *a, uint32_t seq)
{
	size_t i;

	for (i = 0; i < a->npend; i++)
		if (a->pend[i].seq == seq) {
			a->pend[i] = a->pend[--a->npend];
			return true;
		}
	return false;
}

struct async_ctx {
	struct usbeth_async *a;
	const struct usbeth *u;
	usbeth_async_cb cb;
	void *arg;
};

static int async_msg(const struct nlmsghdr *nlh, void *arg)
{
	struct async_ctx *c = arg;
	struct usbeth_dev d;
	int ret;

	if (!nlh)
		return 0;
	if (nlh->nlmsg_type == NLMSG_ERROR) {
		async_done(c->a, nlh->nlmsg_seq);	/* the device went */
		return 0;
	}
	/* taken off the list first: a reply under a family id that is gone
	 * (the module was loaded again) is dropped, not left pending
	 */
	if (!async_done(c->a, nlh->nlmsg_seq) || !c->u->fam.id ||
	    nlh->nlmsg_type != c->u->fam.id)
		return 0;
	ret = usbeth_parse_dev(nlh, &d);
	if (ret == -ENOMEM)
		return ret;
	if (ret != USBETH_CMD_GET) {
		if (ret >= 0)
			usbeth_dev_free(&d);
		return 0;
	}
	ret = c->cb(c->arg, &d);
	usbeth_dev_free(&d);
	return ret;
}

int usbeth_async_read(struct usbeth_async *a, const struct usbeth *u,
		      usbeth_async_cb cb, void *arg)
{
	struct async_ctx c = { a, u, cb, arg };
	int ret = usbeth_nl_drain(&a->s, async_msg, &c);

	if (ret == -ENOBUFS)
		a->npend = 0;	/* replies lost: all forgotten */
	return ret;
}
