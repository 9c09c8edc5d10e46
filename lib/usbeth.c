// SPDX-License-Identifier: GPL-2.0
/*
 * libusbeth: the socket side. A handle owns one NETLINK_GENERIC socket;
 * every request is sent with a fresh sequence number and answered by
 * NLMSG_ERROR (do requests carry NLM_F_ACK) or NLMSG_DONE (dumps), which
 * also carries the extended ACK. The monitor is a handle of its own whose
 * socket only listens to the "monitor" group.
 */
#include <errno.h>
#include <limits.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include "priv.h"

/* Receive buffer: dumps come in datagrams of at most 32 KiB; a larger
 * datagram (a do reply with very many queues) grows it, up to RECV_MAX.
 */
#define RECV_INITIAL	(64 * 1024)
#define RECV_MAX	(4 * 1024 * 1024)
#define DUMP_TRIES	5

/* A netlink socket of any protocol, with its growing receive buffer: the
 * transport of the family's handle, and of the daemon's rtnetlink and
 * ethtool-netlink requests (usbeth_nl_talk()).
 */
struct usbeth_nl {
	struct mnl_socket *nl;
	int fd;
	uint32_t seq;
	unsigned char *buf;
	size_t buflen;
};

struct usbeth {
	struct usbeth_nl s;
	struct usbeth_family fam;
	union {
		struct nlmsghdr nlh;
		alignas(8) unsigned char b[USBETH_REQ_MAX];
	} req;
	struct usbeth_ack ack;
	unsigned int dump_redone;	/* by the last usbeth_dump() */
	uint32_t left_changed;		/* by the last usbeth_set() */
};

struct usbeth_mon {
	struct usbeth *u;
};

static void reset_ack(struct usbeth *u)
{
	memset(&u->ack, 0, sizeof(u->ack));
	u->ack.attr = -1;
	u->ack.miss_attr = -1;
	u->ack.offset = -1;
}

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

/* Sends req (len bytes; its nlmsg_seq is set here) and runs the exchange:
 * messages of type go to cb, until the closing ACK (into *ack).
 */
static int talk(struct usbeth_nl *s, struct nlmsghdr *nlh, size_t len,
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

/* Sends the request built in u->req (len bytes) and runs the exchange. */
static int transact(struct usbeth *u, int len, bool echo, usbeth_msg_cb cb,
		    void *arg, bool *intr)
{
	if (len < 0)
		return len;
	reset_ack(u);
	return talk(&u->s, &u->req.nlh, (size_t)len, u->req.nlh.nlmsg_type,
		    echo, cb, arg, &u->ack, intr);
}

/* Opens s on bus, with extended ACKs, capped ACKs, its buffer. */
static int nl_setup(struct usbeth_nl *s, int bus)
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

static void nl_teardown(struct usbeth_nl *s)
{
	if (s->nl)
		mnl_socket_close(s->nl);
	s->nl = NULL;
	free(s->buf);
	s->buf = NULL;
}

/* A new object of size bytes whose first member is a struct usbeth_nl,
 * opened on bus.
 */
static int nl_new(void **out, size_t size, int bus)
{
	struct usbeth_nl *s = calloc(1, size);
	int ret;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	ret = nl_setup(s, bus);
	if (ret) {
		nl_teardown(s);
		free(s);
		return ret;
	}
	*out = s;
	return 0;
}

static void nl_free(void *p)
{
	if (!p)
		return;
	nl_teardown(p);
	free(p);
}

int usbeth_nl_open(struct usbeth_nl **out, int bus)
{
	return nl_new((void **)out, sizeof(**out), bus);
}

void usbeth_nl_close(struct usbeth_nl *s)
{
	nl_free(s);
}

int usbeth_nl_talk(struct usbeth_nl *s, struct nlmsghdr *req, uint16_t type,
		   usbeth_msg_cb cb, void *arg, struct usbeth_ack *ack)
{
	struct usbeth_ack scratch;

	if (!ack)
		ack = &scratch;
	memset(ack, 0, sizeof(*ack));
	ack->attr = -1;
	ack->miss_attr = -1;
	ack->offset = -1;
	if (req->nlmsg_len < sizeof(*req))
		return -EINVAL;
	return talk(s, req, req->nlmsg_len, type, false, cb, arg, ack, NULL);
}

/* ------------------------------------------------------------ handle --- */

struct fam_result {
	struct usbeth_family fam;
	bool got;
};

static int family_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct fam_result *r = arg;
	int ret = usbeth_parse_family(nlh, &r->fam);

	if (ret == -EPROTO)
		return 0;	/* about another family: not our answer */
	if (ret)
		return ret;
	r->got = true;
	return 0;
}

int usbeth_open(struct usbeth **out)
{
	struct fam_result fr = { 0 };
	struct usbeth *u;
	int ret;

	*out = NULL;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	reset_ack(u);
	ret = nl_setup(&u->s, NETLINK_GENERIC);
	if (ret)
		goto fail;
	ret = transact(u, usbeth_build_family_req(u->req.b, sizeof(u->req.b)),
		       false, family_cb, &fr, NULL);
	if (!ret && !fr.got)
		ret = -EPROTO;
	if (ret)
		goto fail;
	u->fam = fr.fam;
	*out = u;
	return 0;
fail:
	usbeth_close(u);
	return ret;
}

void usbeth_close(struct usbeth *u)
{
	if (!u)
		return;
	nl_teardown(&u->s);
	free(u);
}

uint16_t usbeth_family_id(const struct usbeth *u)
{
	return u->fam.id;
}

uint32_t usbeth_family_version(const struct usbeth *u)
{
	return u->fam.version;
}

uint32_t usbeth_monitor_group(const struct usbeth *u)
{
	return u->fam.mcgrp;
}

const char *usbeth_errmsg(const struct usbeth *u)
{
	return u->ack.msg;
}

int usbeth_err_attr(const struct usbeth *u)
{
	return u->ack.attr;
}

int usbeth_err_miss_attr(const struct usbeth *u)
{
	return u->ack.miss_attr;
}

uint32_t usbeth_err_left_changed(const struct usbeth *u)
{
	return u->left_changed;
}

/* ----------------------------------------------------------- requests -- */

struct get_ctx {
	struct usbeth_dev *out;
	bool got;
};

/* Parses a GET reply into *d: 1 if it is one, 0 to skip the message,
 * -errno on a malformed one.
 */
static int parse_get_reply(const struct nlmsghdr *nlh, struct usbeth_dev *d)
{
	int cmd = usbeth_parse_dev(nlh, d);

	if (cmd == -EPROTO)
		return 0;
	if (cmd < 0)
		return cmd;
	if (cmd != USBETH_CMD_GET) {
		usbeth_dev_free(d);
		return 0;
	}
	return 1;
}

static int get_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct get_ctx *c = arg;
	struct usbeth_dev d;
	int ret = parse_get_reply(nlh, &d);

	if (ret <= 0)
		return ret;
	usbeth_dev_free(c->out);
	*c->out = d;
	c->got = true;
	return 0;
}

int usbeth_get(struct usbeth *u, uint32_t ifindex, const char *ifname,
	       struct usbeth_dev *out)
{
	struct get_ctx c;
	int ret;

	memset(out, 0, sizeof(*out));
	c.out = out;
	c.got = false;
	reset_ack(u);
	ret = transact(u, usbeth_build_get(u->req.b, sizeof(u->req.b),
					   u->fam.id, ifindex, ifname),
		       false, get_cb, &c, NULL);
	if (!ret && !c.got)
		ret = -EPROTO;
	if (ret)
		usbeth_dev_free(out);
	return ret;
}

struct dump_ctx {
	struct usbeth_dev *v;
	size_t n, cap;
};

static int dump_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct dump_ctx *c = arg;
	struct usbeth_dev d;
	int ret = parse_get_reply(nlh, &d);

	if (ret <= 0)
		return ret;
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		struct usbeth_dev *v;

		if (cap > SIZE_MAX / sizeof(*v) ||
		    !(v = realloc(c->v, cap * sizeof(*v)))) {
			usbeth_dev_free(&d);
			return -ENOMEM;
		}
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n++] = d;
	return 0;
}

int usbeth_dump(struct usbeth *u, struct usbeth_dev **devs, size_t *n)
{
	int tries;

	*devs = NULL;
	*n = 0;
	reset_ack(u);
	u->dump_redone = 0;
	for (tries = 0; tries < DUMP_TRIES; tries++) {
		struct dump_ctx c = { 0 };
		bool intr = false;
		int ret;

		ret = transact(u, usbeth_build_dump(u->req.b, sizeof(u->req.b),
						    u->fam.id),
			       false, dump_cb, &c, &intr);
		if (!ret && !intr) {
			*devs = c.v;
			*n = c.n;
			return 0;
		}
		usbeth_devs_free(c.v, c.n);
		if (ret)
			return ret;
		u->dump_redone++;
	}
	return -EAGAIN;
}

unsigned int usbeth_dump_redone(const struct usbeth *u)
{
	return u->dump_redone;
}

struct set_ctx {
	struct usbeth *u;
	struct usbeth_dev *echo;
};

/* The CHANGE a refused set sends its requester when it left knobs changed. */
static int left_attr(const struct nlattr *a, void *arg)
{
	uint32_t *left = arg;

	if (mnl_attr_get_type(a) == USBETH_A_LEFT_CHANGED &&
	    mnl_attr_validate(a, MNL_TYPE_U32) == 0)
		*left = mnl_attr_get_u32(a);
	return MNL_CB_OK;
}

static int set_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct set_ctx *c = arg;
	struct usbeth_dev *echo = c->echo;
	struct usbeth_dev d;
	int cmd;

	if (nlh->nlmsg_len >= MNL_NLMSG_HDRLEN + GENL_HDRLEN)
		mnl_attr_parse(nlh, GENL_HDRLEN, left_attr, &c->u->left_changed);
	if (!echo)
		return 0;
	cmd = usbeth_parse_dev(nlh, &d);
	if (cmd == -EPROTO)
		return 0;
	if (cmd < 0)
		return cmd;
	if (cmd != USBETH_CMD_CHANGE_NTF) {
		usbeth_dev_free(&d);
		return 0;
	}
	usbeth_dev_free(echo);
	*echo = d;
	return 0;
}

int usbeth_set(struct usbeth *u, const struct usbeth_set *req,
	       struct usbeth_dev *echo)
{
	struct set_ctx c = { u, echo };
	int ret;

	if (echo)
		memset(echo, 0, sizeof(*echo));
	reset_ack(u);
	u->left_changed = 0;
	ret = transact(u, usbeth_build_set(u->req.b, sizeof(u->req.b),
					   u->fam.id, req),
		       echo != NULL, set_cb, &c, NULL);
	if (ret && echo)
		usbeth_dev_free(echo);
	return ret;
}

/*
 * Reads every datagram queued on s without blocking and gives each message
 * to each(), then each(NULL) at the end of the datagram. 0 once drained,
 * a receive error (-ENOBUFS: the socket overflowed), or each()'s first
 * non-zero return, which stops the reading.
 */
static int drain(struct usbeth_nl *s,
		 int (*each)(const struct nlmsghdr *nlh, void *arg), void *arg)
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

/* ----------------------------------------------------- async GETs ---- */

/* GETs in flight: the list grows with them (a burst of netdevs appearing
 * at once is evaluated whole); a reply the socket could not hold ends in
 * -ENOBUFS from usbeth_async_read(), never in a GET silently forgotten.
 */
struct usbeth_async {
	struct usbeth_nl s;		/* first: see nl_new() */
	size_t npend, cap;
	uint32_t *pend;			/* their sequence numbers */
};

int usbeth_async_open(struct usbeth_async **out)
{
	return nl_new((void **)out, sizeof(**out), NETLINK_GENERIC);
}

void usbeth_async_close(struct usbeth_async *a)
{
	if (a)
		free(a->pend);
	nl_free(a);
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

	if (len < 0)
		return len;
	if (!u->fam.id)
		return -ENOENT;
	if (a->npend == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 32;
		uint32_t *p = realloc(a->pend, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		a->pend = p;
		a->cap = cap;
	}
	if (++a->s.seq == 0)
		a->s.seq = 1;
	req.nlh.nlmsg_seq = a->s.seq;
	if (mnl_socket_sendto(a->s.nl, req.b, (size_t)len) < 0)
		return -errno;
	a->pend[a->npend++] = a->s.seq;
	return 0;
}

/* Takes the pending GET of seq off the list; false if there was none. */
static bool async_done(struct usbeth_async *a, uint32_t seq)
{
	size_t i;

	for (i = 0; i < a->npend; i++)
		if (a->pend[i] == seq) {
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
	if (!c->u->fam.id || nlh->nlmsg_type != c->u->fam.id ||
	    !async_done(c->a, nlh->nlmsg_seq))
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
	int ret = drain(&a->s, async_msg, &c);

	if (ret == -ENOBUFS)
		a->npend = 0;	/* replies lost: all forgotten */
	return ret;
}

/* ------------------------------------------------------------ monitor -- */

int usbeth_monitor_open(struct usbeth_mon **out)
{
	struct usbeth_mon *m;
	struct usbeth *u;
	unsigned int grp;
	int ret;

	*out = NULL;
	ret = usbeth_open(&u);
	if (ret)
		return ret;
	grp = u->fam.mcgrp;
	if (!grp) {
		ret = -EPROTO;
		goto fail;
	}
	if (mnl_socket_setsockopt(u->s.nl, NETLINK_ADD_MEMBERSHIP, &grp,
				  sizeof(grp)) < 0) {
		ret = -errno;
		goto fail;
	}
	/* nlctrl's "notify" group: families coming and going (the module
	 * unloaded, loaded again). Its id is nlctrl's own family id, fixed
	 * by the kernel (genl_ctrl's mcgrp_offset).
	 */
	grp = GENL_ID_CTRL;
	if (mnl_socket_setsockopt(u->s.nl, NETLINK_ADD_MEMBERSHIP, &grp,
				  sizeof(grp)) < 0) {
		ret = -errno;
		goto fail;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		ret = -ENOMEM;
		goto fail;
	}
	m->u = u;
	*out = m;
	return 0;
fail:
	usbeth_close(u);
	return ret;
}

void usbeth_monitor_close(struct usbeth_mon *m)
{
	if (!m)
		return;
	usbeth_close(m->u);
	free(m);
}

int usbeth_monitor_fd(const struct usbeth_mon *m)
{
	return m->u->s.fd;
}

int usbeth_monitor_refresh(struct usbeth_mon *m)
{
	struct usbeth_family old = m->u->fam;
	struct usbeth *u;
	unsigned int grp;
	int ret = usbeth_open(&u);	/* resolves the family as it is now */

	if (ret && ret != -ENOENT)
		return ret;
	if (!ret && !u->fam.mcgrp) {
		usbeth_close(u);
		ret = -EPROTO;
	}
	if (old.mcgrp && (ret || old.mcgrp != u->fam.mcgrp)) {
		grp = old.mcgrp;
		mnl_socket_setsockopt(m->u->s.nl, NETLINK_DROP_MEMBERSHIP,
				      &grp, sizeof(grp));
	}
	memset(&m->u->fam, 0, sizeof(m->u->fam));
	if (ret)
		return ret;	/* -ENOENT: its NEWFAMILY will be followed */
	grp = u->fam.mcgrp;
	/* joining a group it is in already changes nothing */
	if (mnl_socket_setsockopt(m->u->s.nl, NETLINK_ADD_MEMBERSHIP, &grp,
				  sizeof(grp)) < 0) {
		ret = -errno;
		usbeth_close(u);
		return ret;
	}
	m->u->fam = u->fam;
	usbeth_close(u);
	return 0;
}

/*
 * An nlctrl notification. About usbeth: DELFAMILY (the module unloaded)
 * forgets the family, NEWFAMILY (loaded again) takes its new id and joins
 * its new "monitor" group; either is returned (-ENOLINK, -ERESTART) for
 * the caller to act on. Other families: 0.
 */
static int family_event(struct usbeth *u, const struct nlmsghdr *nlh)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
	struct usbeth_family f;
	unsigned int grp;

	if (nlh->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN) ||
	    (g->cmd != CTRL_CMD_NEWFAMILY && g->cmd != CTRL_CMD_DELFAMILY) ||
	    usbeth_parse_family(nlh, &f))
		return 0;
	if (g->cmd == CTRL_CMD_DELFAMILY) {
		if (u->fam.id && f.id != u->fam.id)
			return 0;
		if (u->fam.mcgrp) {
			grp = u->fam.mcgrp;
			mnl_socket_setsockopt(u->s.nl, NETLINK_DROP_MEMBERSHIP,
					      &grp, sizeof(grp));
		}
		memset(&u->fam, 0, sizeof(u->fam));
		return -ENOLINK;
	}
	if (!f.mcgrp)
		return -EPROTO;
	if (u->fam.id == f.id && u->fam.mcgrp == f.mcgrp)
		return 0;	/* the one we joined at open */
	if (u->fam.mcgrp) {
		grp = u->fam.mcgrp;
		mnl_socket_setsockopt(u->s.nl, NETLINK_DROP_MEMBERSHIP, &grp,
				      sizeof(grp));
	}
	grp = f.mcgrp;
	if (mnl_socket_setsockopt(u->s.nl, NETLINK_ADD_MEMBERSHIP, &grp,
				  sizeof(grp)) < 0)
		return -errno;
	u->fam = f;
	return -ERESTART;
}

struct mon_ctx {
	struct usbeth *u;
	usbeth_monitor_cb cb;
	void *arg;
	bool bad;		/* this datagram broke the contract */
};

static int mon_msg(const struct nlmsghdr *nlh, void *arg)
{
	struct mon_ctx *c = arg;
	struct usbeth_dev d;
	int cmd, ret;

	if (!nlh) {		/* the datagram's end */
		ret = c->bad ? -EBADMSG : 0;
		c->bad = false;
		return ret;
	}
	if (nlh->nlmsg_type == GENL_ID_CTRL)
		return family_event(c->u, nlh);
	if (!c->u->fam.id || nlh->nlmsg_type != c->u->fam.id)
		return 0;
	cmd = usbeth_parse_dev(nlh, &d);
	if (cmd == -ENOMEM)
		return cmd;
	if (cmd == -EPROTO)
		return 0;	/* a command we do not know */
	if (cmd < 0) {
		c->bad = true;
		return 0;
	}
	if (cmd != USBETH_CMD_NEW_NTF && cmd != USBETH_CMD_DEL_NTF &&
	    cmd != USBETH_CMD_CHANGE_NTF) {
		usbeth_dev_free(&d);
		return 0;
	}
	ret = c->cb ? c->cb(c->arg, cmd, &d) : 0;
	usbeth_dev_free(&d);
	return ret;
}

int usbeth_monitor_read(struct usbeth_mon *m, usbeth_monitor_cb cb, void *arg)
{
	struct mon_ctx c = { m->u, cb, arg, false };

	return drain(&m->u->s, mon_msg, &c);
}
