// SPDX-License-Identifier: GPL-2.0
/*
 * libusbeth: building requests and parsing answers in memory. Nothing here
 * touches a socket, so all of it is unit-tested on canned messages.
 *
 * Every received byte is treated as hostile: attribute lengths are checked
 * against what is left of their container before anything is read, typed
 * attributes must have exactly their type's size, strings must be
 * NUL-terminated and fit their field, arrays are counted and bounded before
 * they are allocated.
 */
#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include "priv.h"

static_assert(USBETH_A_MAX < 64, "presence masks are 64 bits wide");
static_assert(USBETH_A_BQLQ_MAX < 32, "queue presence masks are 32 bits");
static_assert(USBETH_IFNAMSIZ == IFNAMSIZ, "USBETH_IFNAMSIZ is IFNAMSIZ");

#define GENL_HDR_ALIGNED	MNL_ALIGN(sizeof(struct genlmsghdr))
/* Offset of the first attribute of a genl message. */
#define ATTR_START		(MNL_NLMSG_HDRLEN + GENL_HDR_ALIGNED)

#define MEMBER_SIZE(type, m)	sizeof(((type *)0)->m)

int usbeth_attr_walk(const void *data, size_t len,
		     int (*fn)(const struct nlattr *a, void *arg), void *arg)
{
	const unsigned char *p = data;

	while (len >= MNL_ATTR_HDRLEN) {
		const struct nlattr *a = (const struct nlattr *)p;
		size_t step;
		int ret;

		if (a->nla_len < MNL_ATTR_HDRLEN || a->nla_len > len)
			return -EBADMSG;
		ret = fn(a, arg);
		if (ret)
			return ret;
		step = MNL_ALIGN((size_t)a->nla_len);
		if (step >= len)
			return 0;
		p += step;
		len -= step;
	}
	return len ? -EBADMSG : 0;
}

static const void *genl_attrs(const struct nlmsghdr *nlh, size_t *len)
{
	if (nlh->nlmsg_len < ATTR_START)
		return NULL;
	*len = nlh->nlmsg_len - ATTR_START;
	return (const unsigned char *)nlh + ATTR_START;
}

/* ------------------------------------------------------------ device -- */

void usbeth_dev_free(struct usbeth_dev *dev)
{
	if (!dev)
		return;
	free(dev->bql_queues);
	memset(dev, 0, sizeof(*dev));
}

void usbeth_devs_free(struct usbeth_dev *devs, size_t n)
{
	size_t i;

	if (!devs)
		return;
	for (i = 0; i < n; i++)
		usbeth_dev_free(&devs[i]);
	free(devs);
}

/* Copies a NUL-terminated string attribute into dst (size bytes). */
static int get_str(const struct nlattr *a, char *dst, size_t size)
{
	const char *s;
	size_t n;

	if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
		return -EBADMSG;
	s = mnl_attr_get_str(a);
	/* Validation guarantees a NUL within the payload. */
	n = strnlen(s, mnl_attr_get_payload_len(a));
	if (n >= size)
		return -EBADMSG;
	memset(dst, 0, size);
	memcpy(dst, s, n);
	return 0;
}

enum field_kind { F_IGNORE, F_U32, F_U16, F_STR, F_QUEUES };

struct field {
	unsigned char kind;
	unsigned short off;
	unsigned short size;
};

#define DEV_U32(a, m) [a] = { F_U32, offsetof(struct usbeth_dev, m), 4 }
#define DEV_U16(a, m) [a] = { F_U16, offsetof(struct usbeth_dev, m), 2 }
#define DEV_STR(a, m) [a] = { F_STR, offsetof(struct usbeth_dev, m), \
			      MEMBER_SIZE(struct usbeth_dev, m) }

/* How each attribute of a reply lands in struct usbeth_dev; the SET-only
 * attributes are F_IGNORE.
 */
static const struct field dev_fields[USBETH_A_MAX + 1] = {
	DEV_U32(USBETH_A_IFINDEX, ifindex),
	DEV_STR(USBETH_A_IFNAME, ifname),
	DEV_STR(USBETH_A_DRIVER, driver),
	DEV_U32(USBETH_A_ROLE, role),
	DEV_U32(USBETH_A_CAPS, caps),
	DEV_U32(USBETH_A_USB_SPEED, usb_speed),
	DEV_U16(USBETH_A_USB_VID, usb_vid),
	DEV_U16(USBETH_A_USB_PID, usb_pid),
	DEV_U32(USBETH_A_USB_BUSNUM, usb_busnum),
	DEV_STR(USBETH_A_USB_PATH, usb_path),
	DEV_STR(USBETH_A_GADGET_UDC, gadget_udc),
	DEV_U32(USBETH_A_GADGET_MAX_SPEED, gadget_max_speed),
	DEV_U32(USBETH_A_QMULT, qmult),
	DEV_U32(USBETH_A_QMULT_ACTIVE, qmult_active),
	DEV_U32(USBETH_A_NTB_RX_MAX, ntb_rx_max),
	DEV_U32(USBETH_A_NTB_TX_MAX, ntb_tx_max),
	DEV_U32(USBETH_A_NTB_DEV_RX_MAX, ntb_dev_rx_max),
	DEV_U32(USBETH_A_NTB_DEV_TX_MAX, ntb_dev_tx_max),
	DEV_U32(USBETH_A_TX_TIMER_USECS, tx_timer_usecs),
	DEV_U32(USBETH_A_COAL_TX_USECS, coal_tx_usecs),
	DEV_U32(USBETH_A_COAL_TX_FRAMES, coal_tx_frames),
	DEV_U32(USBETH_A_COAL_RX_USECS, coal_rx_usecs),
	DEV_U32(USBETH_A_COAL_RX_FRAMES, coal_rx_frames),
	DEV_U32(USBETH_A_BQL_ACCOUNTING, bql_accounting),
	[USBETH_A_BQL_QUEUES] = { F_QUEUES, 0, 0 },
};

static int queue_attr(const struct nlattr *a, void *arg)
{
	struct usbeth_bql_queue *q = arg;
	int type = mnl_attr_get_type(a);
	uint32_t *dst;

	switch (type) {
	case USBETH_A_BQLQ_INDEX:
		dst = &q->index;
		break;
	case USBETH_A_BQLQ_LIMIT:
		dst = &q->limit;
		break;
	case USBETH_A_BQLQ_INFLIGHT:
		dst = &q->inflight;
		break;
	case USBETH_A_BQLQ_LIMIT_MIN:
		dst = &q->limit_min;
		break;
	case USBETH_A_BQLQ_LIMIT_MAX:
		dst = &q->limit_max;
		break;
	case USBETH_A_BQLQ_HOLD_TIME:
		dst = &q->hold_time_ms;
		break;
	default:
		return 0;
	}
	if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
		return -EBADMSG;
	*dst = mnl_attr_get_u32(a);
	q->present |= 1U << type;
	return 0;
}

static int count_queue(const struct nlattr *a, void *arg)
{
	size_t *n = arg;

	if (mnl_attr_get_type(a) != USBETH_A_BQL_QUEUE)
		return 0;
	if (++*n > USBETH_BQL_QUEUES_MAX)
		return -EBADMSG;
	return 0;
}

struct queues_ctx {
	struct usbeth_bql_queue *q;
	size_t used, n;
};

static int fill_queue(const struct nlattr *a, void *arg)
{
	struct queues_ctx *c = arg;
	struct usbeth_bql_queue *q;
	int ret;

	if (mnl_attr_get_type(a) != USBETH_A_BQL_QUEUE)
		return 0;
	if (mnl_attr_validate(a, MNL_TYPE_NESTED) < 0 || c->used >= c->n)
		return -EBADMSG;
	q = &c->q[c->used++];
	ret = usbeth_attr_walk(mnl_attr_get_payload(a),
			       mnl_attr_get_payload_len(a), queue_attr, q);
	if (ret)
		return ret;
	if (!(q->present & (1U << USBETH_A_BQLQ_INDEX)))
		return -EBADMSG;
	return 0;
}

/*
 * A device with more than USBETH_BQL_QUEUES_PER_NEST TX queues has its
 * queues split over consecutive USBETH_A_BQL_QUEUES attributes (a nest's
 * length is 16 bits): each one's queues are appended to the earlier ones'.
 */
static int get_queues(const struct nlattr *a, struct usbeth_dev *d)
{
	struct queues_ctx c = { 0 };
	struct usbeth_bql_queue *q;
	const void *data;
	size_t len;
	int ret;

	if (mnl_attr_validate(a, MNL_TYPE_NESTED) < 0)
		return -EBADMSG;
	data = mnl_attr_get_payload(a);
	len = mnl_attr_get_payload_len(a);
	/* Count first (and bound, with those before), then allocate, then fill. */
	c.n = d->n_bql_queues;
	ret = usbeth_attr_walk(data, len, count_queue, &c.n);
	if (ret)
		return ret;
	if (c.n == d->n_bql_queues)
		return 0;
	q = realloc(d->bql_queues, c.n * sizeof(*q));
	if (!q)
		return -ENOMEM;
	memset(q + d->n_bql_queues, 0,
	       (c.n - d->n_bql_queues) * sizeof(*q));
	d->bql_queues = q;
	c.q = q;
	c.used = d->n_bql_queues;
	ret = usbeth_attr_walk(data, len, fill_queue, &c);
	/* what was filled is kept; the caller drops the device on error */
	d->n_bql_queues = ret ? c.used : c.n;
	return ret;
}

static int dev_attr(const struct nlattr *a, void *arg)
{
	struct usbeth_dev *d = arg;
	unsigned char *base = (unsigned char *)d;
	int type = mnl_attr_get_type(a);
	const struct field *f;
	uint32_t v32;
	uint16_t v16;
	int ret = 0;

	if (type <= 0 || type > USBETH_A_MAX)
		return 0;	/* unknown: a newer kernel's */
	f = &dev_fields[type];
	switch (f->kind) {
	case F_U32:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -EBADMSG;
		v32 = mnl_attr_get_u32(a);
		memcpy(base + f->off, &v32, sizeof(v32));
		break;
	case F_U16:
		if (mnl_attr_validate(a, MNL_TYPE_U16) < 0)
			return -EBADMSG;
		v16 = mnl_attr_get_u16(a);
		memcpy(base + f->off, &v16, sizeof(v16));
		break;
	case F_STR:
		ret = get_str(a, (char *)base + f->off, f->size);
		break;
	case F_QUEUES:
		ret = get_queues(a, d);
		break;
	default:
		return 0;
	}
	if (ret)
		return ret;
	d->present |= USBETH_BIT(type);
	return 0;
}

int usbeth_parse_dev(const struct nlmsghdr *nlh, struct usbeth_dev *out)
{
	const struct genlmsghdr *g;
	const void *attrs;
	size_t len;
	int ret;

	memset(out, 0, sizeof(*out));
	attrs = genl_attrs(nlh, &len);
	if (!attrs)
		return -EBADMSG;
	g = mnl_nlmsg_get_payload(nlh);
	switch (g->cmd) {
	case USBETH_CMD_GET:
	case USBETH_CMD_NEW_NTF:
	case USBETH_CMD_DEL_NTF:
	case USBETH_CMD_CHANGE_NTF:
		break;
	default:
		return -EPROTO;
	}
	ret = usbeth_attr_walk(attrs, len, dev_attr, out);
	if (!ret && !(out->present & USBETH_BIT(USBETH_A_IFINDEX)))
		ret = -EBADMSG;
	if (ret) {
		usbeth_dev_free(out);
		return ret;
	}
	return g->cmd;
}

/* ---------------------------------------------------------- requests --- */

static struct nlmsghdr *put_genl(void *buf, size_t len, uint16_t type,
				 uint16_t flags, uint8_t cmd, uint8_t version)
{
	struct genlmsghdr *g;
	struct nlmsghdr *nlh;

	if (!buf || len < ATTR_START)
		return NULL;
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = version;
	return nlh;
}

static int check_dev(uint32_t ifindex, const char *ifname)
{
	size_t n;

	if (!ifindex == !ifname)
		return -EINVAL;
	if (!ifname)
		return 0;
	n = strnlen(ifname, USBETH_IFNAMSIZ);
	if (n == 0)
		return -EINVAL;
	return n >= USBETH_IFNAMSIZ ? -ENAMETOOLONG : 0;
}

static bool put_dev(struct nlmsghdr *nlh, size_t len, uint32_t ifindex,
		    const char *ifname)
{
	if (ifname)
		return mnl_attr_put_strz_check(nlh, len, USBETH_A_IFNAME,
					       ifname);
	return mnl_attr_put_u32_check(nlh, len, USBETH_A_IFINDEX, ifindex);
}

int usbeth_build_get(void *buf, size_t len, uint16_t family,
		     uint32_t ifindex, const char *ifname)
{
	struct nlmsghdr *nlh;
	int ret = check_dev(ifindex, ifname);

	if (ret)
		return ret;
	nlh = put_genl(buf, len, family, NLM_F_REQUEST | NLM_F_ACK,
		       USBETH_CMD_GET, USBETH_GENL_VERSION);
	if (!nlh || !put_dev(nlh, len, ifindex, ifname))
		return -ENOSPC;
	return (int)nlh->nlmsg_len;
}

int usbeth_build_dump(void *buf, size_t len, uint16_t family)
{
	struct nlmsghdr *nlh;

	nlh = put_genl(buf, len, family, NLM_F_REQUEST | NLM_F_DUMP,
		       USBETH_CMD_GET, USBETH_GENL_VERSION);
	if (!nlh)
		return -ENOSPC;
	return (int)nlh->nlmsg_len;
}

/* The settable attributes, in the order a request carries them. */
static const struct {
	int attr;
	unsigned short off;
} set_fields[] = {
#define SET_FIELD(a, m) { a, offsetof(struct usbeth_set, m) }
	SET_FIELD(USBETH_A_QMULT, qmult),
	SET_FIELD(USBETH_A_NTB_RX_MAX, ntb_rx_max),
	SET_FIELD(USBETH_A_NTB_TX_MAX, ntb_tx_max),
	SET_FIELD(USBETH_A_TX_TIMER_USECS, tx_timer_usecs),
	SET_FIELD(USBETH_A_COAL_TX_USECS, coal_tx_usecs),
	SET_FIELD(USBETH_A_COAL_TX_FRAMES, coal_tx_frames),
	SET_FIELD(USBETH_A_COAL_RX_USECS, coal_rx_usecs),
	SET_FIELD(USBETH_A_COAL_RX_FRAMES, coal_rx_frames),
	SET_FIELD(USBETH_A_BQL_QUEUE_INDEX, bql_queue_index),
	SET_FIELD(USBETH_A_BQL_LIMIT_MIN, bql_limit_min),
	SET_FIELD(USBETH_A_BQL_LIMIT_MAX, bql_limit_max),
	SET_FIELD(USBETH_A_BQL_HOLD_TIME, bql_hold_time),
#undef SET_FIELD
};

#define N_SET_FIELDS (sizeof(set_fields) / sizeof(set_fields[0]))

int usbeth_set_value(struct usbeth_set *req, int attr, uint32_t val)
{
	size_t i;

	for (i = 0; i < N_SET_FIELDS; i++) {
		if (set_fields[i].attr != attr)
			continue;
		memcpy((unsigned char *)req + set_fields[i].off, &val,
		       sizeof(val));
		req->has |= USBETH_BIT(attr);
		return 0;
	}
	return -EINVAL;
}

int usbeth_build_set(void *buf, size_t len, uint16_t family,
		     const struct usbeth_set *req)
{
	const unsigned char *base = (const unsigned char *)req;
	struct nlmsghdr *nlh;
	size_t i;
	uint32_t v;
	int ret;

	ret = check_dev(req->ifindex, req->ifname);
	if (ret)
		return ret;
	if (req->has & ~USBETH_SET_ATTRS)
		return -EINVAL;
	nlh = put_genl(buf, len, family, NLM_F_REQUEST | NLM_F_ACK,
		       USBETH_CMD_SET, USBETH_GENL_VERSION);
	if (!nlh || !put_dev(nlh, len, req->ifindex, req->ifname))
		return -ENOSPC;
	for (i = 0; i < N_SET_FIELDS; i++) {
		if (!(req->has & USBETH_BIT(set_fields[i].attr)))
			continue;
		memcpy(&v, base + set_fields[i].off, sizeof(v));
		if (!mnl_attr_put_u32_check(nlh, len,
					    (uint16_t)set_fields[i].attr, v))
			return -ENOSPC;
	}
	return (int)nlh->nlmsg_len;
}

/* ------------------------------------------------------------ family --- */

int usbeth_build_family_req(void *buf, size_t len)
{
	struct nlmsghdr *nlh;

	nlh = put_genl(buf, len, GENL_ID_CTRL, NLM_F_REQUEST | NLM_F_ACK,
		       CTRL_CMD_GETFAMILY, 1);
	if (!nlh || !mnl_attr_put_strz_check(nlh, len, CTRL_ATTR_FAMILY_NAME,
					     USBETH_GENL_NAME))
		return -ENOSPC;
	return (int)nlh->nlmsg_len;
}

struct grp_ctx {
	bool monitor;
	bool has_id;
	uint32_t id;
};

static int grp_attr(const struct nlattr *a, void *arg)
{
	struct grp_ctx *g = arg;

	switch (mnl_attr_get_type(a)) {
	case CTRL_ATTR_MCAST_GRP_NAME:
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
			return -EBADMSG;
		g->monitor = !strcmp(mnl_attr_get_str(a), USBETH_MCGRP_MONITOR);
		break;
	case CTRL_ATTR_MCAST_GRP_ID:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -EBADMSG;
		g->id = mnl_attr_get_u32(a);
		g->has_id = true;
		break;
	}
	return 0;
}

static int grps_attr(const struct nlattr *a, void *arg)
{
	struct usbeth_family *f = arg;
	struct grp_ctx g = { 0 };
	int ret;

	if (mnl_attr_validate(a, MNL_TYPE_NESTED) < 0)
		return -EBADMSG;
	ret = usbeth_attr_walk(mnl_attr_get_payload(a),
			       mnl_attr_get_payload_len(a), grp_attr, &g);
	if (ret)
		return ret;
	if (g.monitor && g.has_id)
		f->mcgrp = g.id;
	return 0;
}

struct fam_ctx {
	struct usbeth_family *f;
	bool has_id;
	bool other;
};

static int fam_attr(const struct nlattr *a, void *arg)
{
	struct fam_ctx *c = arg;

	switch (mnl_attr_get_type(a)) {
	case CTRL_ATTR_FAMILY_NAME:
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
			return -EBADMSG;
		c->other = strcmp(mnl_attr_get_str(a), USBETH_GENL_NAME) != 0;
		break;
	case CTRL_ATTR_FAMILY_ID:
		if (mnl_attr_validate(a, MNL_TYPE_U16) < 0)
			return -EBADMSG;
		c->f->id = mnl_attr_get_u16(a);
		c->has_id = true;
		break;
	case CTRL_ATTR_VERSION:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -EBADMSG;
		c->f->version = mnl_attr_get_u32(a);
		break;
	case CTRL_ATTR_MCAST_GROUPS:
		if (mnl_attr_validate(a, MNL_TYPE_NESTED) < 0)
			return -EBADMSG;
		return usbeth_attr_walk(mnl_attr_get_payload(a),
					mnl_attr_get_payload_len(a),
					grps_attr, c->f);
	}
	return 0;
}

int usbeth_parse_family(const struct nlmsghdr *nlh, struct usbeth_family *f)
{
	struct fam_ctx c = { .f = f };
	const void *attrs;
	size_t len;
	int ret;

	memset(f, 0, sizeof(*f));
	attrs = genl_attrs(nlh, &len);
	if (!attrs)
		return -EBADMSG;
	ret = usbeth_attr_walk(attrs, len, fam_attr, &c);
	if (!ret && c.other)
		ret = -EPROTO;
	if (!ret && (!c.has_id || !f->id))
		ret = -EBADMSG;
	if (ret)
		memset(f, 0, sizeof(*f));
	return ret;
}

/* --------------------------------------------------------------- acks --- */

int usbeth_attr_at_offset(const void *req, size_t reqlen, uint32_t off)
{
	const unsigned char *base = req;
	const struct nlmsghdr *nlh = req;
	size_t len, pos;

	if (!req || reqlen < ATTR_START)
		return -1;
	len = nlh->nlmsg_len < reqlen ? nlh->nlmsg_len : reqlen;
	for (pos = ATTR_START; pos < len && len - pos >= MNL_ATTR_HDRLEN;) {
		const struct nlattr *a = (const struct nlattr *)(base + pos);
		size_t end;

		if (a->nla_len < MNL_ATTR_HDRLEN || a->nla_len > len - pos)
			return -1;
		end = pos + MNL_ALIGN((size_t)a->nla_len);
		if (off >= pos && off < end)
			return mnl_attr_get_type(a);
		pos = end;
	}
	return -1;
}

struct ack_ctx {
	struct usbeth_ack *ack;
	const void *req;
	size_t reqlen;
};

static int ack_attr(const struct nlattr *a, void *arg)
{
	struct ack_ctx *c = arg;
	uint32_t v;

	switch (mnl_attr_get_type(a)) {
	case NLMSGERR_ATTR_MSG:
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
			break;
		/* Human text: truncating an overlong one is harmless. */
		snprintf(c->ack->msg, sizeof(c->ack->msg), "%s",
			 mnl_attr_get_str(a));
		break;
	case NLMSGERR_ATTR_OFFS:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			break;
		v = mnl_attr_get_u32(a);
		c->ack->offset = v;
		c->ack->attr = usbeth_attr_at_offset(c->req, c->reqlen, v);
		break;
	case NLMSGERR_ATTR_MISS_TYPE:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			break;
		v = mnl_attr_get_u32(a);
		if (v <= INT_MAX)
			c->ack->miss_attr = (int)v;
		break;
	}
	return 0;
}

void usbeth_ack_clear(struct usbeth_ack *ack)
{
	memset(ack, 0, sizeof(*ack));
	ack->attr = -1;
	ack->miss_attr = -1;
	ack->offset = -1;
}

int usbeth_parse_ack(const struct nlmsghdr *nlh, const void *req,
		     size_t reqlen, struct usbeth_ack *ack)
{
	size_t len = nlh->nlmsg_len, tlv;
	const unsigned char *payload;
	struct ack_ctx c;
	int err;

	usbeth_ack_clear(ack);
	c.ack = ack;
	c.req = req;
	c.reqlen = reqlen;
	if (len < MNL_NLMSG_HDRLEN)
		return ack->error = -EBADMSG;
	payload = mnl_nlmsg_get_payload(nlh);
	if (nlh->nlmsg_type == NLMSG_DONE) {
		/* Dump end: an int error, then the extack TLVs. */
		if (len < MNL_NLMSG_HDRLEN + sizeof(int))
			return ack->error = 0;
		memcpy(&err, payload, sizeof(err));
		tlv = MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(int));
	} else if (nlh->nlmsg_type == NLMSG_ERROR) {
		struct nlmsgerr e;
		size_t plen = sizeof(e);

		if (len < MNL_NLMSG_HDRLEN + sizeof(e))
			return ack->error = -EBADMSG;
		memcpy(&e, payload, sizeof(e));
		err = e.error;
		/* Uncapped: the whole request follows, TLVs after it. */
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
			if (e.msg.nlmsg_len >= sizeof(struct nlmsghdr))
				plen += e.msg.nlmsg_len -
					sizeof(struct nlmsghdr);
			else
				plen = SIZE_MAX / 2;	/* no usable TLVs */
		}
		tlv = MNL_NLMSG_HDRLEN + MNL_ALIGN(plen);
	} else {
		return ack->error = -EBADMSG;
	}
	/* Only a negative errno is an error; anything else is nonsense. */
	if (err > 0 || err < -4095)
		err = -EPROTO;
	ack->error = err;
	if ((nlh->nlmsg_flags & NLM_F_ACK_TLVS) && tlv < len)
		/* A malformed TLV area keeps what parsed before it. */
		(void)usbeth_attr_walk((const unsigned char *)nlh + tlv,
				       len - tlv, ack_attr, &c);
	return err;
}
