// SPDX-License-Identifier: GPL-2.0
/*
 * usbethd's engine: see apply.h.
 */
#include <errno.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <libmnl/libmnl.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "apply.h"
#include "state.h"

#define BIT(k) (1U << (k))

int ulog_level = LOG_P_INFO;

uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* usbeth_set(), timed. */
static int timed_set(struct engine *e, const struct usbeth_set *s,
		     struct usbeth_dev *echo)
{
	uint64_t t0 = now_us();
	int err;

	if (!e->set_first)
		e->set_first = t0;
	err = usbeth_set(e->u, s, echo);
	e->set_us += now_us() - t0;
	return err;
}

void ulog(int prio, const char *fmt, ...)
{
	static int journal = -1;
	char msg[1024], buf[1100];
	va_list ap;
	int n = 0;
	size_t m;

	if (prio > ulog_level)
		return;
	if (journal < 0)
		journal = getenv("JOURNAL_STREAM") != NULL;
	if (journal)
		n = snprintf(buf, sizeof(buf), "<%d>", prio);
	va_start(ap, fmt);
	if (vsnprintf(msg, sizeof(msg), fmt, ap) < 0)
		msg[0] = 0;
	va_end(ap);
	/* profile keys, file and device names are anyone's bytes: a newline
	 * and "<0>" in one would forge a journal line of its own
	 */
	m = usbeth_escape(buf + n, sizeof(buf) - (size_t)n - 1, msg);
	m += (size_t)n;
	buf[m++] = '\n';
	/* one write per line: readers of a pipe see whole lines */
	while (write(STDERR_FILENO, buf, m) < 0 && errno == EINTR)
		;
}

void engine_init(struct engine *e, struct usbeth *u, const struct profset *s)
{
	memset(e, 0, sizeof(*e));
	e->u = u;
	e->set = s;
	e->out = stdout;
}

static void rec_free(struct rec *r)
{
	free(r->bql);
	free(r);
}

void engine_fini(struct engine *e)
{
	struct rec *r, *n;

	for (r = e->recs; r; r = n) {
		n = r->next;
		rec_free(r);
	}
	e->recs = NULL;
	if (e->rtnl)
		mnl_socket_close(e->rtnl);
	e->rtnl = NULL;
	if (e->genl)
		mnl_socket_close(e->genl);
	e->genl = NULL;
	e->ethnl_id = 0;
}

size_t engine_nrecs(const struct engine *e)
{
	const struct rec *r;
	size_t n = 0;

	for (r = e->recs; r; r = r->next)
		n++;
	return n;
}

struct rec *engine_find(struct engine *e, uint32_t ifindex)
{
	struct rec *r;

	for (r = e->recs; r; r = r->next)
		if (r->ifindex == ifindex)
			return r;
	return NULL;
}

void engine_drop(struct engine *e, uint32_t ifindex)
{
	struct rec **pp, *r;

	for (pp = &e->recs; (r = *pp); pp = &r->next)
		if (r->ifindex == ifindex) {
			*pp = r->next;
			ulog(LOG_P_INFO, "%s: gone, record dropped (profile "
			     "%s)", r->ifname, r->profile[0] ? r->profile :
			     "none");
			if (e->state_dir)
				state_remove(e->state_dir, ifindex);
			rec_free(r);
			return;
		}
}

void engine_prune(struct engine *e, const struct usbeth_dev *devs, size_t n)
{
	struct rec *r, *next;
	size_t i;

	for (r = e->recs; r; r = next) {
		next = r->next;
		/* by ifindex alone: udev renames a USB NIC (enx<MAC>) right
		 * after its NEW, and a record must survive that
		 */
		for (i = 0; i < n; i++)
			if (devs[i].ifindex == r->ifindex)
				break;
		if (i == n)
			engine_drop(e, r->ifindex);
	}
}

/* ------------------------------------------------------ netlink ---- */

/*
 * rtnetlink (MTU, txqueuelen) and ethtool netlink (offloads) requests: one
 * request, its replies through a callback, until the ACK. Errors keep the
 * kernel's extended ACK message in e->nlerr, for the log.
 */
static int nl_open(struct mnl_socket **s, int bus)
{
	int one = 1;

	if (*s)
		return 0;
	*s = mnl_socket_open2(bus, SOCK_CLOEXEC);
	if (!*s)
		return -errno;
	/* best effort: an older kernel just gives no message */
	mnl_socket_setsockopt(*s, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(*s, NETLINK_CAP_ACK, &one, sizeof(one));
	if (mnl_socket_bind(*s, 0, MNL_SOCKET_AUTOPID) < 0) {
		int err = -errno;

		mnl_socket_close(*s);
		*s = NULL;
		return err;
	}
	return 0;
}

struct talk {
	struct engine *e;
	mnl_cb_t cb;
	void *data;
};

static int ack_attr_cb(const struct nlattr *a, void *data)
{
	struct engine *e = data;

	if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG &&
	    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0)
		snprintf(e->nlerr, sizeof(e->nlerr), "%s", mnl_attr_get_str(a));
	return MNL_CB_OK;
}

static int error_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct talk *t = data;
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	size_t off = sizeof(*err);

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*err))) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += err->msg.nlmsg_len - sizeof(struct nlmsghdr);
	if ((nlh->nlmsg_flags & NLM_F_ACK_TLVS) &&
	    NLMSG_LENGTH(off) < nlh->nlmsg_len)
		mnl_attr_parse(nlh, (unsigned int)off, ack_attr_cb, t->e);
	if (err->error) {
		errno = -err->error;
		return MNL_CB_ERROR;
	}
	return MNL_CB_STOP;
}

static int data_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct talk *t = data;

	return t->cb ? t->cb(nlh, t->data) : MNL_CB_OK;
}

static int nl_talk(struct engine *e, struct mnl_socket *s,
		   struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	static char buf[16384];	/* the largest reply: verbose features */
	static mnl_cb_t ctl[NLMSG_MIN_TYPE] = {
		[NLMSG_ERROR] = error_cb,
	};
	struct talk t = { e, cb, data };
	unsigned int portid = mnl_socket_get_portid(s);
	ssize_t n;
	int r;

	e->nlerr[0] = 0;
	nlh->nlmsg_seq = ++e->seq;
	if (mnl_socket_sendto(s, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		n = mnl_socket_recvfrom(s, buf, sizeof(buf));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		r = mnl_cb_run2(buf, (size_t)n, e->seq, portid, data_cb, &t,
				ctl, NLMSG_MIN_TYPE);
		if (r <= MNL_CB_STOP)
			return r < 0 ? -errno : 0;
	}
}

/* ---------------------------------------------------- rtnetlink ---- */

struct link_vals {
	bool has_mtu, has_txqlen;
	uint32_t mtu, txqlen, min_mtu, max_mtu;
};

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

static int link_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	if (nlh->nlmsg_type != RTM_NEWLINK)
		return MNL_CB_OK;
	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(struct ifinfomsg)))
		return MNL_CB_ERROR;
	return mnl_attr_parse(nlh, sizeof(struct ifinfomsg), link_attr_cb,
			      data);
}

static int link_get(struct engine *e, uint32_t ifindex,
		    struct link_vals *lv)
{
	char buf[256];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;
	int err = nl_open(&e->rtnl, NETLINK_ROUTE);

	memset(lv, 0, sizeof(*lv));
	if (err)
		return err;
	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = (int)ifindex;
	mnl_attr_put_u32(nlh, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
	return nl_talk(e, e->rtnl, nlh, link_msg_cb, lv);
}

static int link_set(struct engine *e, uint32_t ifindex, int k, uint32_t v)
{
	char buf[256];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;
	int err = nl_open(&e->rtnl, NETLINK_ROUTE);

	if (err)
		return err;
	nlh->nlmsg_type = RTM_NEWLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = (int)ifindex;
	mnl_attr_put_u32(nlh, k == K_MTU ? IFLA_MTU : IFLA_TXQLEN, v);
	return nl_talk(e, e->rtnl, nlh, NULL, NULL);
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
static const struct {
	int knob;
	const char *name;
} feats[] = {
	{ K_SG, "tx-scatter-gather" },		/* first of each knob: */
	{ K_GSO, "tx-generic-segmentation" },	/* its value */
	{ K_TSO, "tx-tcp-segmentation" },
	{ K_TSO, "tx-tcp-ecn-segmentation" },
	{ K_TSO, "tx-tcp-mangleid-segmentation" },
	{ K_TSO, "tx-tcp6-segmentation" },
};
#define NFEATS (sizeof(feats) / sizeof(feats[0]))

static int feat_index(const char *name)
{
	size_t i;

	for (i = 0; i < NFEATS; i++)
		if (!strcmp(feats[i].name, name))
			return (int)i;
	return -1;
}

/* The features of knob k. */
static uint32_t feat_mask(int k)
{
	uint32_t m = 0;
	size_t i;

	for (i = 0; i < NFEATS; i++)
		if (feats[i].knob == k)
			m |= BIT(i);
	return m;
}

/* The feature whose state is knob k's value. */
static int feat_primary(int k)
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
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), family_attr_cb,
			      data);
}

/* The ethtool family's id, resolved once; negative errno if it has none. */
static int ethnl_family(struct engine *e)
{
	char buf[256];
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;
	int id = 0, err;

	if (e->ethnl_id)
		return e->ethnl_id;
	err = nl_open(&e->genl, NETLINK_GENERIC);
	if (err)
		return err;
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = GENL_ID_CTRL;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, ETHTOOL_GENL_NAME);
	err = nl_talk(e, e->genl, nlh, family_cb, &id);
	if (!err && !id)
		err = -EPROTO;
	if (err == -ENOENT)	/* a kernel without ethtool netlink: for good */
		e->ethnl_id = -EOPNOTSUPP;
	if (err)
		return err == -ENOENT ? -EOPNOTSUPP : err;
	e->ethnl_id = id;
	return id;
}

static struct nlmsghdr *ethnl_req(struct engine *e, char *buf, uint8_t cmd,
				  uint32_t ifindex)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;
	struct nlattr *hdr;

	nlh->nlmsg_type = (uint16_t)e->ethnl_id;
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
		return MNL_CB_ERROR;
	fr->cmd = g->cmd;
	return mnl_attr_parse(nlh, sizeof(*g), feat_attr_cb, fr);
}

/* The state of our features: known to the kernel (listed in the hw
 * bitset, whose mask is every feature), changeable (hw), wanted, active.
 */
static int features_get(struct engine *e, uint32_t ifindex, uint32_t *known,
			uint32_t *hw, uint32_t *wanted, uint32_t *active)
{
	char buf[256];
	struct feat_reply fr;
	int err = ethnl_family(e);

	if (err < 0)
		return err;
	memset(&fr, 0, sizeof(fr));
	err = nl_talk(e, e->genl, ethnl_req(e, buf, ETHTOOL_MSG_FEATURES_GET,
					    ifindex), feat_msg_cb, &fr);
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
static int features_set(struct engine *e, uint32_t ifindex, uint32_t mask,
			uint32_t val, uint32_t *refused)
{
	char buf[1024];
	struct nlmsghdr *nlh;
	struct nlattr *bs, *bits, *bit;
	struct feat_reply fr;
	size_t i;
	int err = ethnl_family(e);

	*refused = 0;
	if (err < 0)
		return err;
	nlh = ethnl_req(e, buf, ETHTOOL_MSG_FEATURES_SET, ifindex);
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
	err = nl_talk(e, e->genl, nlh, feat_msg_cb, &fr);
	if (err)
		return err;
	if (fr.has[ETHTOOL_A_FEATURES_WANTED])
		*refused = fr.bs[ETHTOOL_A_FEATURES_WANTED].listed & mask;
	return 0;
}

/* ------------------------------------------------------- values ---- */

struct cur {
	uint32_t has;		/* knobs read */
	uint32_t mixed;		/* BQL: the queues differ */
	uint32_t v[K_COUNT];
	/* offloads: feats[] bits the kernel knows, changeable, wanted, active */
	uint32_t f_known, f_hw, f_wanted, f_active;
	int f_err;		/* why they could not be read, or 0 */
};

static uint32_t bql_field(const struct usbeth_bql_queue *q, int k)
{
	switch (k) {
	case K_BQL_LIMIT_MIN: return q->limit_min;
	case K_BQL_LIMIT_MAX: return q->limit_max;
	default: return q->hold_time_ms;
	}
}

static const uint32_t *dev_field(const struct usbeth_dev *d, int k)
{
	switch (k) {
	case K_QMULT: return &d->qmult;
	case K_NTB_RX_MAX: return &d->ntb_rx_max;
	case K_NTB_TX_MAX: return &d->ntb_tx_max;
	case K_TX_TIMER_USECS: return &d->tx_timer_usecs;
	case K_TX_USECS: return &d->coal_tx_usecs;
	case K_TX_FRAMES: return &d->coal_tx_frames;
	case K_RX_USECS: return &d->coal_rx_usecs;
	case K_RX_FRAMES: return &d->coal_rx_frames;
	default: return NULL;
	}
}

static void read_cur(struct engine *e, const struct usbeth_dev *d,
		     uint32_t need, struct cur *c)
{
	struct link_vals lv;
	int k;

	memset(c, 0, sizeof(*c));
	for (k = 0; k < K_COUNT; k++) {
		const struct knob_info *ki = &knob_table[k];
		const uint32_t *f;
		size_t i;

		if (ki->kind != KIND_USBETH || !knob_supported(k, d))
			continue;
		if (k >= K_BQL_LIMIT_MIN && k <= K_BQL_HOLD_TIME) {
			if (!d->n_bql_queues || !d->bql_queues)
				continue;
			c->v[k] = bql_field(&d->bql_queues[0], k);
			for (i = 1; i < d->n_bql_queues; i++)
				if (bql_field(&d->bql_queues[i], k) != c->v[k])
					c->mixed |= BIT(k);
			c->has |= BIT(k);
			continue;
		}
		f = dev_field(d, k);
		if (f && usbeth_dev_has(d, ki->attr)) {
			c->v[k] = *f;
			c->has |= BIT(k);
		}
	}
	if ((need & (BIT(K_MTU) | BIT(K_TXQUEUELEN))) &&
	    !link_get(e, d->ifindex, &lv)) {
		if (lv.has_mtu) {
			c->v[K_MTU] = lv.mtu;
			c->has |= BIT(K_MTU);
		}
		if (lv.has_txqlen) {
			c->v[K_TXQUEUELEN] = lv.txqlen;
			c->has |= BIT(K_TXQUEUELEN);
		}
	}
	if (need & (BIT(K_SG) | BIT(K_GSO) | BIT(K_TSO))) {
		c->f_err = features_get(e, d->ifindex, &c->f_known, &c->f_hw,
					&c->f_wanted, &c->f_active);
		for (k = K_SG; k <= K_TSO && !c->f_err; k++) {
			int f = feat_primary(k);

			if (!(c->f_known & BIT(f)))
				continue;	/* a kernel without it */
			c->v[k] = !!(c->f_active & BIT(f));
			c->has |= BIT(k);
		}
	}
}

/* ------------------------------------------------------ applying --- */

struct step {
	uint32_t has;		/* knobs to change */
	uint32_t restore;	/* of which: back to the original */
	uint32_t v[K_COUNT];
};

static const char *fmt_val(int k, uint32_t v, char *buf, size_t len)
{
	if (knob_table[k].boolean)
		snprintf(buf, len, "%s", v ? "on" : "off");
	else
		snprintf(buf, len, "%u", v);
	return buf;
}

static void log_change(const struct rec *r, const char *what, int k,
		       uint32_t old, bool mixed, uint32_t new, uint32_t got)
{
	char a[16], b[16], g[16];

	if (mixed)
		snprintf(a, sizeof(a), "(per queue)");
	else
		fmt_val(k, old, a, sizeof(a));
	fmt_val(k, new, b, sizeof(b));
	if (got != new)
		ulog(LOG_P_NOTICE, "%s: %s: %s: %s -> %s (driver set %s)",
		     r->ifname, what, knob_table[k].name, a, b,
		     fmt_val(k, got, g, sizeof(g)));
	else
		ulog(LOG_P_NOTICE, "%s: %s: %s: %s -> %s", r->ifname, what,
		     knob_table[k].name, a, b);
}

static bool is_bql(int k)
{
	return k >= K_BQL_LIMIT_MIN && k <= K_BQL_HOLD_TIME;
}

static void set_failed(struct engine *e, const struct rec *r,
		       const char *what, int k, uint32_t v, int err)
{
	const char *msg = knob_table[k].kind == KIND_USBETH ?
			  usbeth_errmsg(e->u) : e->nlerr;
	char b[16];

	if (err == -ENODEV) {	/* it went away meanwhile: not an error */
		ulog(LOG_P_DEBUG, "%s: %s: %s: device gone", r->ifname, what,
		     knob_table[k].name);
		return;
	}
	e->errors++;
	ulog(LOG_P_ERR, "%s: %s: %s: cannot set %s: %s%s%s", r->ifname, what,
	     knob_table[k].name, fmt_val(k, v, b, sizeof(b)),
	     strerror(-err), msg && *msg ? ": " : "", msg ? msg : "");
}

static void fill_set(struct usbeth_set *s, const struct rec *r, int k,
		     uint32_t v)
{
	if (!s->ifindex) {
		s->ifindex = r->ifindex;
		s->ifname = NULL;
	}
	usbeth_set_value(s, knob_table[k].attr, v);
}

static uint32_t echo_val(const struct usbeth_dev *echo, int k, uint32_t req)
{
	const uint32_t *f;

	if (!echo->present || is_bql(k))
		return req;
	f = dev_field(echo, k);
	if (!f || !usbeth_dev_has(echo, knob_table[k].attr))
		return req;
	return *f;
}

/* Does the usbeth part of a step: all at once (atomic), else knob by knob
 * so that what the device takes is applied. Returns the mask done.
 */
static uint32_t do_usbeth(struct engine *e, struct rec *r,
			  const struct step *st, const struct cur *c,
			  const char *what_apply, const char *what_restore)
{
	struct usbeth_set s = { 0 };
	struct usbeth_dev echo;
	uint32_t mask = 0, done = 0;
	int k, err;

	for (k = 0; k < K_COUNT; k++)
		if ((st->has & BIT(k)) && knob_table[k].kind == KIND_USBETH &&
		    !(is_bql(k) && (st->restore & BIT(k)))) {
			fill_set(&s, r, k, st->v[k]);
			mask |= BIT(k);
		}
	if (!mask)
		return 0;
	err = timed_set(e, &s, &echo);
	if (!err) {
		for (k = 0; k < K_COUNT; k++) {
			uint32_t got;

			if (!(mask & BIT(k)))
				continue;
			got = echo_val(&echo, k, st->v[k]);
			r->req[k] = st->v[k];
			r->got[k] = got;
			r->got_has |= BIT(k);
			log_change(r, st->restore & BIT(k) ? what_restore :
				   what_apply, k, c->v[k], c->mixed & BIT(k),
				   st->v[k], got);
		}
		usbeth_dev_free(&echo);
		return mask;
	}
	if (err == -ENODEV) {
		ulog(LOG_P_DEBUG, "%s: gone before it could be set",
		     r->ifname);
		return 0;
	}
	/* one at a time: a refused knob does not hold back the others */
	for (k = 0; k < K_COUNT; k++) {
		uint32_t got;

		if (!(mask & BIT(k)))
			continue;
		memset(&s, 0, sizeof(s));
		fill_set(&s, r, k, st->v[k]);
		err = timed_set(e, &s, &echo);
		if (err) {
			set_failed(e, r, st->restore & BIT(k) ? what_restore :
				   what_apply, k, st->v[k], err);
			if (err == -ENODEV)
				return done;
			continue;
		}
		got = echo_val(&echo, k, st->v[k]);
		usbeth_dev_free(&echo);
		r->req[k] = st->v[k];
		r->got[k] = got;
		r->got_has |= BIT(k);
		log_change(r, st->restore & BIT(k) ? what_restore : what_apply,
			   k, c->v[k], c->mixed & BIT(k), st->v[k], got);
		done |= BIT(k);
	}
	return done;
}

/* Puts the per-queue BQL originals of the knobs in mask back. */
static uint32_t do_bql_restore(struct engine *e, struct rec *r,
			       uint32_t mask, const struct cur *c,
			       const char *what)
{
	uint32_t done = mask;
	size_t i;
	int k;

	for (i = 0; i < r->n_bql; i++) {
		struct usbeth_set s = { 0 };
		int err;

		s.ifindex = r->ifindex;
		usbeth_set_value(&s, USBETH_A_BQL_QUEUE_INDEX, r->bql[i].index);
		if (mask & BIT(K_BQL_LIMIT_MIN))
			usbeth_set_value(&s, USBETH_A_BQL_LIMIT_MIN,
					 r->bql[i].limit_min);
		if (mask & BIT(K_BQL_LIMIT_MAX))
			usbeth_set_value(&s, USBETH_A_BQL_LIMIT_MAX,
					 r->bql[i].limit_max);
		if (mask & BIT(K_BQL_HOLD_TIME))
			usbeth_set_value(&s, USBETH_A_BQL_HOLD_TIME,
					 r->bql[i].hold_time);
		err = timed_set(e, &s, NULL);
		if (err) {
			for (k = K_BQL_LIMIT_MIN; k <= K_BQL_HOLD_TIME; k++)
				if (mask & BIT(k)) {
					set_failed(e, r, what, k, r->orig[k],
						   err);
					break;
				}
			return 0;
		}
	}
	for (k = K_BQL_LIMIT_MIN; k <= K_BQL_HOLD_TIME; k++)
		if (done & BIT(k))
			log_change(r, what, k, c->v[k], c->mixed & BIT(k),
				   r->orig[k], r->orig[k]);
	return done;
}

/* The offloads of a step, in one FEATURES_SET (one feature update in the
 * kernel: sg and tso turned on together work in either order).
 */
static uint32_t do_ethtool(struct engine *e, struct rec *r,
			   const struct step *st, const struct cur *c,
			   const char *what_apply, const char *what_restore)
{
	uint32_t mask = 0, val = 0, refused = 0, back = 0, done = 0;
	size_t i;
	int k, err;

	for (i = 0; i < NFEATS; i++) {
		k = feats[i].knob;
		if (!(st->has & BIT(k)) || !(c->f_hw & BIT(i)))
			continue;
		mask |= BIT(i);
		/* a restore puts back each feature's own wanted state */
		if (st->restore & BIT(k) ? r->f_orig & BIT(i) : st->v[k])
			val |= BIT(i);
	}
	if (!mask)
		return 0;
	err = features_set(e, r->ifindex, mask, val, &refused);
	for (k = K_SG; k <= K_TSO; k++) {
		const char *what = st->restore & BIT(k) ? what_restore :
				   what_apply;

		if (!(st->has & BIT(k)))
			continue;
		if (err) {
			set_failed(e, r, what, k, st->v[k], err);
			continue;
		}
		if (refused & BIT(feat_primary(k))) {
			/* wanted, yet not active (a dependency, the
			 * driver): a skip; its wanted state goes back
			 */
			back |= feat_mask(k) & mask;
			if (!(r->skip_logged & BIT(k)))
				ulog(LOG_P_INFO, "%s: %s: %s: skipped (the "
				     "device keeps it %s)", r->ifname, what,
				     knob_table[k].name,
				     st->v[k] ? "off" : "on");
			r->skip_logged |= BIT(k);
			continue;
		}
		r->req[k] = st->v[k];
		r->got[k] = st->v[k];
		r->got_has |= BIT(k);
		log_change(r, what, k, c->v[k], false, st->v[k], st->v[k]);
		done |= BIT(k);
	}
	if (back) {
		err = features_set(e, r->ifindex, back, c->f_wanted & back,
				   &refused);
		if (err && err != -ENODEV)
			ulog(LOG_P_WARNING, "%s: cannot put the wanted "
			     "offloads back: %s%s%s", r->ifname,
			     strerror(-err), e->nlerr[0] ? ": " : "",
			     e->nlerr);
	}
	return done;
}

/* MTU, txqueuelen (rtnetlink), then the offloads (ethtool netlink). */
static uint32_t do_other(struct engine *e, struct rec *r,
			 const struct step *st, const struct cur *c,
			 const char *what_apply, const char *what_restore)
{
	uint32_t done = 0;
	int k;

	for (k = K_MTU; k <= K_TXQUEUELEN; k++) {
		const char *what = st->restore & BIT(k) ? what_restore :
				   what_apply;
		uint32_t v = st->v[k];
		int err;

		if (!(st->has & BIT(k)))
			continue;
		err = link_set(e, r->ifindex, k, v);
		if (err) {
			set_failed(e, r, what, k, v, err);
			continue;
		}
		r->req[k] = v;
		r->got[k] = v;
		r->got_has |= BIT(k);
		log_change(r, what, k, c->v[k], false, v, v);
		done |= BIT(k);
	}
	return done | do_ethtool(e, r, st, c, what_apply, what_restore);
}

/* The record on disk follows the one in memory (see state.h). */
static void rec_persist(struct engine *e, struct rec *r)
{
	int err;

	if (!e->state_dir || e->dry_run || (!r->orig_has && !r->on_disk))
		return;
	err = state_save(e->state_dir, r);
	if (err) {
		ulog(LOG_P_ERR, "%s: cannot record the originals in %s: %s "
		     "(a restarted daemon will not restore them)", r->ifname,
		     e->state_dir, strerror(-err));
		e->errors++;
		return;
	}
	r->on_disk = r->orig_has != 0;
}

void engine_rename(struct engine *e, uint32_t ifindex, const char *ifname)
{
	struct rec *r = engine_find(e, ifindex);

	if (!r || !strcmp(r->ifname, ifname))
		return;
	ulog(LOG_P_INFO, "%s: renamed (was %s)", ifname, r->ifname);
	snprintf(r->ifname, sizeof(r->ifname), "%s", ifname);
	rec_persist(e, r);
}

static void load_warn(const char *path, const char *why)
{
	ulog(LOG_P_WARNING, "%s: record dropped: %s", path, why);
}

int engine_load_state(struct engine *e)
{
	struct rec *list = NULL, *r, *next;
	int n;

	n = state_load_all(e->state_dir, &list, load_warn);
	if (n < 0) {
		ulog(LOG_P_ERR, "%s: cannot read the records: %s",
		     e->state_dir, strerror(-n));
		return n;
	}
	for (r = list; r; r = next) {
		next = r->next;
		if (engine_find(e, r->ifindex)) {
			rec_free(r);
			continue;
		}
		r->on_disk = true;
		r->next = e->recs;
		e->recs = r;
	}
	return n;
}

static void skip_once(struct engine *e, struct rec *r, const char *pname,
		      int k, const char *why)
{
	if (e->dry_run) {
		fprintf(e->out, "  %-15s skipped: %s\n", knob_table[k].name,
			why);
		return;
	}
	if (r->skip_logged & BIT(k))
		return;
	r->skip_logged |= BIT(k);
	ulog(LOG_P_INFO, "%s: profile %s: %s: skipped: %s", r->ifname, pname,
	     knob_table[k].name, why);
}

int engine_apply(struct engine *e, const struct usbeth_dev *d)
{
	const struct profile *p;
	struct rec tmp, *r;
	char what_apply[PROFILE_NAME_MAX + 16], what_restore[PROFILE_NAME_MAX + 64];
	struct step st = { 0 };
	struct cur c;
	uint32_t need = 0, done = 0, newly = 0;
	int k, changed = 0;
	bool fresh = false;

	r = engine_find(e, d->ifindex);
	/* not on USB: only what a role "other" profile matches */
	if (d->role != USBETH_ROLE_USB_HOST &&
	    d->role != USBETH_ROLE_USB_GADGET && !r &&
	    !profset_select(e->set, d)) {
		if (e->dry_run)
			fprintf(e->out, "  (nothing to change)\n");
		return 0;
	}
	if (r && strcmp(r->ifname, d->ifname))
		snprintf(r->ifname, sizeof(r->ifname), "%s", d->ifname);
	if (!r) {
		if (e->keep_records && !e->dry_run) {
			r = calloc(1, sizeof(*r));
			if (!r) {
				ulog(LOG_P_ERR, "%s: out of memory", d->ifname);
				e->errors++;
				return -1;
			}
			fresh = true;
		} else {
			memset(&tmp, 0, sizeof(tmp));
			r = &tmp;
		}
		r->ifindex = d->ifindex;
		r->carrier = -1;
		snprintf(r->ifname, sizeof(r->ifname), "%s", d->ifname);
	}
	r->role = d->role;
	p = profset_select(e->set, d);
	snprintf(what_apply, sizeof(what_apply), "profile %s",
		 p ? p->name : "(none)");
	if (e->stopping)
		snprintf(what_restore, sizeof(what_restore),
			 "restore (stopping)");
	else if (r->profile[0] && (!p || strcmp(r->profile, p->name)))
		snprintf(what_restore, sizeof(what_restore),
			 "restore (profile %s no longer applies)", r->profile);
	else
		snprintf(what_restore, sizeof(what_restore),
			 "restore (profile %s no longer sets it)",
			 r->profile[0] ? r->profile : "?");

	for (k = 0; k < K_COUNT; k++) {
		uint32_t w;

		if ((p && profile_want(p, k, d, &w)) ||
		    (r->orig_has & BIT(k)))
			need |= BIT(k);
	}
	read_cur(e, d, need, &c);

	for (k = 0; k < K_COUNT; k++) {
		uint32_t w;
		bool want = p && profile_want(p, k, d, &w);

		if (p && !want && p->eff[k].kind == V_DEVICE_MAX &&
		    knob_supported(k, d)) {
			skip_once(e, r, p->name, k, "the device reports no "
				  "maximum");
			continue;
		}
		if (want) {
			if (!knob_supported(k, d) || !(c.has & BIT(k))) {
				char why[96];
				const char *cap =
					usbeth_cap_name(knob_table[k].cap);

				if (knob_table[k].kind == KIND_ETHTOOL &&
				    c.f_err)
					snprintf(why, sizeof(why), "cannot read "
						 "the offloads (ethtool "
						 "netlink): %s",
						 strerror(-c.f_err));
				else
					snprintf(why, sizeof(why), "the device "
						 "does not support it%s%s%s",
						 cap ? " (no " : "",
						 cap ? cap : "",
						 cap ? " capability)" : "");
				skip_once(e, r, p->name, k, why);
				continue;
			}
			if (c.v[k] == w && !(c.mixed & BIT(k)))
				continue;
			if (knob_table[k].kind == KIND_ETHTOOL &&
			    !(c.f_hw & BIT(feat_primary(k)))) {
				skip_once(e, r, p->name, k, c.v[k] ?
					  "the device keeps it on (fixed)" :
					  "the device keeps it off (fixed)");
				continue;
			}
			/* the driver rounds some values (cdc_ncm tx_max) */
			if ((r->got_has & BIT(k)) && r->req[k] == w &&
			    r->got[k] == c.v[k] && !(c.mixed & BIT(k)))
				continue;
			st.has |= BIT(k);
			st.v[k] = w;
		} else if (r->orig_has & BIT(k)) {
			if (!(c.has & BIT(k)))
				continue;
			if (is_bql(k)) {
				st.has |= BIT(k);
				st.restore |= BIT(k);
				st.v[k] = r->orig[k];
				continue;
			}
			if (c.v[k] == r->orig[k] ||
			    ((r->got_has & BIT(k)) && r->req[k] == r->orig[k] &&
			     r->got[k] == c.v[k])) {
				r->orig_has &= ~BIT(k);
				continue;
			}
			st.has |= BIT(k);
			st.restore |= BIT(k);
			st.v[k] = r->orig[k];
		}
	}

	if (e->dry_run) {
		for (k = 0; k < K_COUNT; k++) {
			char a[16], b[16];

			if (!(st.has & BIT(k)))
				continue;
			fprintf(e->out, "  %-15s %s -> %s%s\n",
				knob_table[k].name,
				c.mixed & BIT(k) ? "(per queue)" :
				fmt_val(k, c.v[k], a, sizeof(a)),
				fmt_val(k, st.v[k], b, sizeof(b)),
				st.restore & BIT(k) ? " (restore)" : "");
		}
		if (!st.has)
			fprintf(e->out, "  (nothing to change)\n");
		return __builtin_popcount(st.has);
	}

	/* record originals before the first change of each knob */
	for (k = 0; k < K_COUNT; k++) {
		if (!(st.has & BIT(k)) || (st.restore & BIT(k)) ||
		    (r->orig_has & BIT(k)))
			continue;
		r->orig[k] = c.v[k];
		r->orig_has |= BIT(k);
		newly |= BIT(k);
		if (knob_table[k].kind == KIND_ETHTOOL) {
			uint32_t fm = feat_mask(k);

			r->f_orig = (r->f_orig & ~fm) | (c.f_wanted & fm);
		}
		if (is_bql(k) && !r->bql && d->n_bql_queues) {
			size_t i;

			r->bql = calloc(d->n_bql_queues, sizeof(*r->bql));
			if (r->bql) {
				r->n_bql = d->n_bql_queues;
				for (i = 0; i < r->n_bql; i++) {
					const struct usbeth_bql_queue *q =
						&d->bql_queues[i];

					r->bql[i].index = q->index;
					r->bql[i].limit_min = q->limit_min;
					r->bql[i].limit_max = q->limit_max;
					r->bql[i].hold_time = q->hold_time_ms;
				}
			}
		}
	}

	if (st.has) {
		uint32_t bqlr = st.restore & (BIT(K_BQL_LIMIT_MIN) |
					      BIT(K_BQL_LIMIT_MAX) |
					      BIT(K_BQL_HOLD_TIME));

		done |= do_usbeth(e, r, &st, &c, what_apply, what_restore);
		if (bqlr)
			done |= do_bql_restore(e, r, bqlr, &c, what_restore);
		done |= do_other(e, r, &st, &c, what_apply, what_restore);
	}
	/* forget originals that are back, or of changes that did not happen */
	r->orig_has &= ~(done & st.restore);
	r->orig_has &= ~(newly & ~done);
	if (!(r->orig_has & (BIT(K_BQL_LIMIT_MIN) | BIT(K_BQL_LIMIT_MAX) |
			     BIT(K_BQL_HOLD_TIME)))) {
		free(r->bql);
		r->bql = NULL;
		r->n_bql = 0;
	}
	changed = __builtin_popcount(done);
	e->changes += (unsigned long)changed;
	snprintf(r->profile, sizeof(r->profile), "%s", p ? p->name : "");
	rec_persist(e, r);
	if (p)
		ulog(LOG_P_INFO, "%s: profile %s applied (%d changed)",
		     r->ifname, p->name, changed);
	else
		ulog(LOG_P_INFO, "%s: no profile matches (%d restored)",
		     r->ifname, changed);

	if (fresh) {
		r->next = e->recs;
		e->recs = r;
	}
	return changed;
}

void engine_restore_all(struct engine *e)
{
	struct rec *r;

	for (r = e->recs; r; r = r->next) {
		struct usbeth_dev d;
		const struct profset *saved = e->set;
		struct profset none = { 0 };
		int err;

		if (!r->orig_has)
			continue;
		err = usbeth_get(e->u, r->ifindex, NULL, &d);
		if (err) {
			if (err != -ENODEV)
				ulog(LOG_P_ERR, "%s: cannot read it to "
				     "restore: %s", r->ifname, strerror(-err));
			continue;
		}
		/* with no profiles, evaluation restores every original */
		e->set = &none;
		e->stopping = true;
		engine_apply(e, &d);
		e->stopping = false;
		e->set = saved;
		usbeth_dev_free(&d);
	}
}
