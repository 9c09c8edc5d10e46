// SPDX-License-Identifier: GPL-2.0
/*
 * usbethd's clients of the other families: see netlink.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <libmnl/libmnl.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "netlink.h"

#define BIT(k) (1U << (k))

/*
 * One request on the socket of bus (opened on first use), through
 * libusbeth's transport: answer messages of type to cb, until the ACK,
 * whose extack text is kept in c->err for the log.
 */
static int talk(struct nlc *c, struct usbeth_nl **s, int bus,
		struct nlmsghdr *nlh, uint16_t type, usbeth_msg_cb cb,
		void *arg)
{
	struct usbeth_ack ack;
	int err;

	c->err[0] = 0;
	if (!*s) {
		err = usbeth_nl_open(s, bus);
		if (err)
			return err;
	}
	err = usbeth_nl_talk(*s, nlh, type, cb, arg, &ack);
	snprintf(c->err, sizeof(c->err), "%s", ack.msg);
	return err;
}

void nlc_close(struct nlc *c)
{
	usbeth_nl_close(c->rtnl);
	usbeth_nl_close(c->genl);
	memset(c, 0, sizeof(*c));
}

/* ---------------------------------------------------- rtnetlink ---- */

static int link_attr_cb(const struct nlattr *a, void *data)
{
	struct link_vals *lv = data;
	int t = mnl_attr_get_type(a);

	if (t != IFLA_MTU && t != IFLA_TXQLEN && t != IFLA_MIN_MTU &&
	    t != IFLA_MAX_MTU)
		return MNL_CB_OK;
	if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
		return MNL_CB_ERROR;
	switch (t) {
	case IFLA_MTU:
		lv->mtu = mnl_attr_get_u32(a);
		lv->has_mtu = true;
		break;
	case IFLA_TXQLEN:
		lv->txqlen = mnl_attr_get_u32(a);
		lv->has_txqlen = true;
		break;
	case IFLA_MIN_MTU:
		lv->min_mtu = mnl_attr_get_u32(a);
		break;
	case IFLA_MAX_MTU:
		lv->max_mtu = mnl_attr_get_u32(a);
		break;
	}
	return MNL_CB_OK;
}

/* The attributes of a message after its fixed header of hdr bytes. */
static int parse_msg(const struct nlmsghdr *nlh, size_t hdr,
		     mnl_attr_cb_t cb, void *data)
{
	if (nlh->nlmsg_len < NLMSG_LENGTH(hdr) ||
	    mnl_attr_parse(nlh, (unsigned int)hdr, cb, data) < 0)
		return -EBADMSG;
	return 0;
}

static int link_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	return parse_msg(nlh, sizeof(struct ifinfomsg), link_attr_cb, data);
}

int link_get(struct nlc *c, uint32_t ifindex, struct link_vals *lv)
{
	char buf[256];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;

	memset(lv, 0, sizeof(*lv));
	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = (int)ifindex;
	mnl_attr_put_u32(nlh, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
	return talk(c, &c->rtnl, NETLINK_ROUTE, nlh, RTM_NEWLINK, link_msg_cb,
		    lv);
}

int link_set(struct nlc *c, uint32_t ifindex, bool mtu, uint32_t v)
{
	char buf[256];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;

	nlh->nlmsg_type = RTM_NEWLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = (int)ifindex;
	mnl_attr_put_u32(nlh, mtu ? IFLA_MTU : IFLA_TXQLEN, v);
	return talk(c, &c->rtnl, NETLINK_ROUTE, nlh, RTM_NEWLINK, NULL, NULL);
}

/* ---------------------------------------------- ethtool netlink ---- */

/*
 * The offloads are netdev features, set through the "ethtool" generic
 * netlink family (ETHTOOL_MSG_FEATURES_GET / _SET). Bitsets are verbose,
 * i.e. the features are named: the names (netdev_features_strings) are
 * the stable interface, their bit numbers are not, and a verbose set needs
 * no string-set lookup first. The messages are a few KiB, and only a
 * profile that sets an offload costs them.
 *
 * A knob is the "wanted" state of its features (what `ethtool -K` sets);
 * its value is the "active" state of the first one (what `ethtool -k`
 * shows). "tso" is every TCP segmentation feature, as for `ethtool -K`.
 * The originals are each feature's wanted state, put back one by one.
 */
const struct feat feats[NFEATS] = {
	{ K_SG, "tx-scatter-gather" },		/* first of each knob: */
	{ K_GSO, "tx-generic-segmentation" },	/* its value */
	{ K_TSO, "tx-tcp-segmentation" },
	{ K_TSO, "tx-tcp-ecn-segmentation" },
	{ K_TSO, "tx-tcp-mangleid-segmentation" },
	{ K_TSO, "tx-tcp6-segmentation" },
};
static int feat_index(const char *name)
{
	size_t i;

	for (i = 0; i < NFEATS; i++)
		if (!strcmp(feats[i].name, name))
			return (int)i;
	return -1;
}

uint32_t feat_mask(int k)
{
	uint32_t m = 0;
	size_t i;

	for (i = 0; i < NFEATS; i++)
		if (feats[i].knob == k)
			m |= BIT(i);
	return m;
}

int feat_primary(int k)
{
	size_t i;

	for (i = 0; i < NFEATS; i++)
		if (feats[i].knob == k)
			return (int)i;
	return -1;
}

static int family_attr_cb(const struct nlattr *a, void *data)
{
	int *id = data;

	if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID &&
	    mnl_attr_validate(a, MNL_TYPE_U16) >= 0)
		*id = mnl_attr_get_u16(a);
	return MNL_CB_OK;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	return parse_msg(nlh, sizeof(struct genlmsghdr), family_attr_cb, data);
}

/* The ethtool family's id, resolved once; negative errno if it has none. */
static int ethnl_family(struct nlc *c)
{
	char buf[256];
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;
	int id = 0, err;

	if (c->ethnl_id)
		return c->ethnl_id;
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = GENL_ID_CTRL;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, ETHTOOL_GENL_NAME);
	err = talk(c, &c->genl, NETLINK_GENERIC, nlh, GENL_ID_CTRL, family_cb,
		   &id);
	if (!err && !id)
		err = -EPROTO;
	if (err == -ENOENT)	/* a kernel without ethtool netlink: for good */
		c->ethnl_id = -EOPNOTSUPP;
	if (err)
		return err == -ENOENT ? -EOPNOTSUPP : err;
	c->ethnl_id = id;
	return id;
}

static struct nlmsghdr *ethnl_req(struct nlc *c, char *buf, uint8_t cmd,
				  uint32_t ifindex)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;
	struct nlattr *hdr;

	nlh->nlmsg_type = (uint16_t)c->ethnl_id;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = ETHTOOL_GENL_VERSION;
	hdr = mnl_attr_nest_start(nlh, ETHTOOL_A_FEATURES_HEADER);
	mnl_attr_put_u32(nlh, ETHTOOL_A_HEADER_DEV_INDEX, ifindex);
	mnl_attr_nest_end(nlh, hdr);
	return nlh;
}

/* Our features in a verbose bitset: *on gets the set ones, *listed those
 * listed (in a bitset with a mask: those in the mask).
 */
struct bitset_parse {
	bool nomask;
	uint32_t listed, on;
};

static int bit_attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	int t = mnl_attr_get_type(a);

	if (t == ETHTOOL_A_BITSET_BIT_NAME &&
	    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
		return MNL_CB_ERROR;
	if (t == ETHTOOL_A_BITSET_BIT_NAME || t == ETHTOOL_A_BITSET_BIT_VALUE)
		tb[t] = a;
	return MNL_CB_OK;
}

static int bits_cb(const struct nlattr *a, void *data)
{
	struct bitset_parse *bp = data;
	const struct nlattr *tb[ETHTOOL_A_BITSET_BIT_MAX + 1] = { 0 };
	int i;

	if (mnl_attr_get_type(a) != ETHTOOL_A_BITSET_BITS_BIT)
		return MNL_CB_OK;
	if (mnl_attr_parse_nested(a, bit_attr_cb, tb) < 0)
		return MNL_CB_ERROR;
	if (!tb[ETHTOOL_A_BITSET_BIT_NAME])
		return MNL_CB_OK;
	i = feat_index(mnl_attr_get_str(tb[ETHTOOL_A_BITSET_BIT_NAME]));
	if (i < 0)
		return MNL_CB_OK;
	bp->listed |= BIT(i);
	if (bp->nomask || tb[ETHTOOL_A_BITSET_BIT_VALUE])
		bp->on |= BIT(i);
	return MNL_CB_OK;
}

static int bitset_cb(const struct nlattr *a, void *data)
{
	struct bitset_parse *bp = data;

	switch (mnl_attr_get_type(a)) {
	case ETHTOOL_A_BITSET_NOMASK:
		bp->nomask = true;
		break;
	case ETHTOOL_A_BITSET_BITS:
		/* after NOMASK, which the kernel puts first */
		if (mnl_attr_parse_nested(a, bits_cb, bp) < 0)
			return MNL_CB_ERROR;
		break;
	}
	return MNL_CB_OK;
}

static int parse_bitset(const struct nlattr *a, struct bitset_parse *bp)
{
	memset(bp, 0, sizeof(*bp));
	return mnl_attr_parse_nested(a, bitset_cb, bp) < 0 ? -EBADMSG : 0;
}

/* What FEATURES_GET / _SET replies say of our features. */
struct feat_reply {
	uint32_t cmd;		/* the reply's genl command */
	bool has[ETHTOOL_A_FEATURES_MAX + 1];
	struct bitset_parse bs[ETHTOOL_A_FEATURES_MAX + 1];
};

static int feat_attr_cb(const struct nlattr *a, void *data)
{
	struct feat_reply *fr = data;
	int t = mnl_attr_get_type(a);

	if (t < ETHTOOL_A_FEATURES_HW || t > ETHTOOL_A_FEATURES_MAX)
		return MNL_CB_OK;
	if (parse_bitset(a, &fr->bs[t]))
		return MNL_CB_ERROR;
	fr->has[t] = true;
	return MNL_CB_OK;
}

static int feat_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	struct feat_reply *fr = data;
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*g)))
		return -EBADMSG;
	fr->cmd = g->cmd;
	return parse_msg(nlh, sizeof(*g), feat_attr_cb, fr);
}

/* The state of our features: known to the kernel (listed in the hw
 * bitset, whose mask is every feature), changeable (hw), wanted, active.
 */
int features_get(struct nlc *c, uint32_t ifindex, uint32_t *known,
		 uint32_t *hw, uint32_t *wanted, uint32_t *active)
{
	char buf[256];
	struct feat_reply fr;
	int err = ethnl_family(c);

	if (err < 0)
		return err;
	memset(&fr, 0, sizeof(fr));
	err = talk(c, &c->genl, NETLINK_GENERIC,
		   ethnl_req(c, buf, ETHTOOL_MSG_FEATURES_GET, ifindex),
		   (uint16_t)c->ethnl_id, feat_msg_cb, &fr);
	if (err)
		return err;
	if (fr.cmd != ETHTOOL_MSG_FEATURES_GET_REPLY ||
	    !fr.has[ETHTOOL_A_FEATURES_HW] ||
	    !fr.has[ETHTOOL_A_FEATURES_WANTED] ||
	    !fr.has[ETHTOOL_A_FEATURES_ACTIVE])
		return -EBADMSG;
	*known = fr.bs[ETHTOOL_A_FEATURES_HW].listed;
	*hw = fr.bs[ETHTOOL_A_FEATURES_HW].on;
	*wanted = fr.bs[ETHTOOL_A_FEATURES_WANTED].on;
	*active = fr.bs[ETHTOOL_A_FEATURES_ACTIVE].on;
	return 0;
}

/* Sets the wanted state of the features in mask to those in val. Returns
 * in *refused the ones whose active state did not follow (the reply's
 * WANTED: requested bits that differ from the result).
 */
int features_set(struct nlc *c, uint32_t ifindex, uint32_t mask,
		 uint32_t val, uint32_t *refused)
{
	char buf[1024];
	struct nlmsghdr *nlh;
	struct nlattr *bs, *bits, *bit;
	struct feat_reply fr;
	size_t i;
	int err = ethnl_family(c);

	*refused = 0;
	if (err < 0)
		return err;
	nlh = ethnl_req(c, buf, ETHTOOL_MSG_FEATURES_SET, ifindex);
	bs = mnl_attr_nest_start(nlh, ETHTOOL_A_FEATURES_WANTED);
	bits = mnl_attr_nest_start(nlh, ETHTOOL_A_BITSET_BITS);
	for (i = 0; i < NFEATS; i++) {
		if (!(mask & BIT(i)))
			continue;
		bit = mnl_attr_nest_start(nlh, ETHTOOL_A_BITSET_BITS_BIT);
		mnl_attr_put_strz(nlh, ETHTOOL_A_BITSET_BIT_NAME,
				  feats[i].name);
		if (val & BIT(i))
			mnl_attr_put(nlh, ETHTOOL_A_BITSET_BIT_VALUE, 0, NULL);
		mnl_attr_nest_end(nlh, bit);
	}
	mnl_attr_nest_end(nlh, bits);
	mnl_attr_nest_end(nlh, bs);
	memset(&fr, 0, sizeof(fr));
	err = talk(c, &c->genl, NETLINK_GENERIC, nlh, (uint16_t)c->ethnl_id,
		   feat_msg_cb, &fr);
	if (err)
		return err;
	if (fr.has[ETHTOOL_A_FEATURES_WANTED])
		*refused = fr.bs[ETHTOOL_A_FEATURES_WANTED].listed & mask;
	return 0;
}

