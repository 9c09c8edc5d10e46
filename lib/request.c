// SPDX-License-Identifier: GPL-2.0
/*
 * libusbeth: the handle and its requests. A handle owns one
 * NETLINK_GENERIC socket (priv.h: the transport), resolves the family
 * when it opens, and runs one request at a time: GET, DUMP, SET.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include "priv.h"

#define DUMP_TRIES	5

/* Sends the request built in u->req (len bytes) and runs the exchange. */
static int transact(struct usbeth *u, int len, bool echo, usbeth_msg_cb cb,
		    void *arg, bool *intr)
{
	if (len < 0)
		return len;
	usbeth_ack_clear(&u->ack);
	return usbeth_talk(&u->s, &u->req.nlh, (size_t)len,
			   u->req.nlh.nlmsg_type, echo, cb, arg, &u->ack, intr);
}

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
	usbeth_ack_clear(&u->ack);
	ret = usbeth_nl_setup(&u->s, NETLINK_GENERIC);
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
	usbeth_nl_teardown(&u->s);
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
	usbeth_ack_clear(&u->ack);
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
	usbeth_ack_clear(&u->ack);
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
	usbeth_ack_clear(&u->ack);
	u->left_changed = 0;
	ret = transact(u, usbeth_build_set(u->req.b, sizeof(u->req.b),
					   u->fam.id, req),
		       echo != NULL, set_cb, &c, NULL);
	if (ret && echo)
		usbeth_dev_free(echo);
	return ret;
}
