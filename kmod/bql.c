// SPDX-License-Identifier: GPL-2.0
/*
 * BQL backend: limit_min, limit_max and hold_time of the TX queues' dynamic
 * queue limits, written the way the core's byte_queue_limits sysfs files
 * write them (net/core/net-sysfs.c), plus what the counters show: whether
 * the driver reports its bytes to BQL at all. On 6.1 usbnet, cdc_ncm and
 * u_ether do not (their limits exist but nothing moves them); e1000e does.
 */
#include <linux/dynamic_queue_limits.h>
#include <linux/jiffies.h>
#include <linux/slab.h>
#include "usbeth.h"

bool usbeth_bql_capable(struct net_device *dev)
{
	/*
	 * Lockless and queueless devices never have BQL stop a queue; newer
	 * kernels create no byte_queue_limits/ for them (6.1 still does:
	 * veth, dummy, bond, ... have the files, and nothing moves them).
	 */
	return IS_ENABLED(CONFIG_BQL) && dev->num_tx_queues &&
	       !usbeth_dev_lltx(dev) &&
	       !(dev->priv_flags & IFF_NO_QUEUE);
}

/*
 * One TX queue's nest, and how many of them one BQL_QUEUES nest carries: a
 * nest's length is a u16 (nla_len), so the queues of a device with more
 * TX queues than that are split over consecutive BQL_QUEUES nests, in
 * queue order (uapi/usbeth.yaml: bql-queues is multi-attr).
 */
#define BQL_QUEUE_NEST_SIZE \
	(NLA_HDRLEN + 6 * (NLA_HDRLEN + NLA_ALIGN(sizeof(u32))))
static_assert(NLA_HDRLEN + USBETH_BQL_QUEUES_PER_NEST * BQL_QUEUE_NEST_SIZE <=
	      U16_MAX);

/*
 * What usbeth_bql_fill() adds for nqueues TX queues: a nest per queue, in
 * as many BQL_QUEUES nests as they need, at least one (empty).
 */
size_t usbeth_bql_size(unsigned int nqueues)
{
	if (!IS_ENABLED(CONFIG_BQL))
		return 0;
	return max(1U, DIV_ROUND_UP(nqueues, USBETH_BQL_QUEUES_PER_NEST)) *
	       nla_total_size(0) + (size_t)nqueues * BQL_QUEUE_NEST_SIZE;
}

#ifdef CONFIG_BQL
static struct dql *queue_dql(struct net_device *dev, unsigned int q)
{
	return &netdev_get_tx_queue(dev, q)->dql;
}

u32 usbeth_bql_accounting(struct net_device *dev)
{
	struct rtnl_link_stats64 stats;
	unsigned int q;

	for (q = 0; q < dev->real_num_tx_queues; q++)
		if (READ_ONCE(queue_dql(dev, q)->num_queued))
			return USBETH_BQL_ACCOUNTING_ACTIVE;
	dev_get_stats(dev, &stats);
	return stats.tx_packets ? USBETH_BQL_ACCOUNTING_NONE :
				  USBETH_BQL_ACCOUNTING_UNKNOWN;
}

/*
 * The TX queues' BQL state, into st (under the caller's hold on dev, which
 * keeps real_num_tx_queues from changing: rtnl, or the host side's hold,
 * where usbnet has one queue).
 */
int usbeth_bql_prepare(struct net_device *dev, struct usbeth_state *st)
{
	unsigned int q, n = dev->real_num_tx_queues;

	st->bql_accounting = usbeth_bql_accounting(dev);
	st->queues = n ? kvcalloc(n, sizeof(*st->queues), GFP_KERNEL) : NULL;
	if (n && !st->queues)
		return -ENOMEM;
	for (q = 0; q < n; q++) {
		struct dql *dql = queue_dql(dev, q);
		struct usbeth_bql_queue *bq = &st->queues[q];

		bq->limit = READ_ONCE(dql->limit);
		bq->inflight = READ_ONCE(dql->num_queued) -
			       READ_ONCE(dql->num_completed);
		bq->limit_min = READ_ONCE(dql->min_limit);
		bq->limit_max = READ_ONCE(dql->max_limit);
		bq->hold_time = jiffies_to_msecs(READ_ONCE(dql->slack_hold_time));
	}
	st->nqueues = n;
	st->bql = true;
	return 0;
}

int usbeth_bql_fill(struct sk_buff *skb, const struct usbeth_state *st)
{
	unsigned char *start = skb_tail_pointer(skb);
	struct nlattr *queues = NULL, *queue;
	unsigned int q;

	for (q = 0; q < st->nqueues; q++) {
		const struct usbeth_bql_queue *bq = &st->queues[q];

		if (!(q % USBETH_BQL_QUEUES_PER_NEST)) {
			if (queues)
				nla_nest_end(skb, queues);
			queues = nla_nest_start(skb, USBETH_A_BQL_QUEUES);
			if (!queues)
				goto cancel;
		}
		queue = nla_nest_start(skb, USBETH_A_BQL_QUEUE);
		if (!queue ||
		    nla_put_u32(skb, USBETH_A_BQLQ_INDEX, q) ||
		    nla_put_u32(skb, USBETH_A_BQLQ_LIMIT, bq->limit) ||
		    nla_put_u32(skb, USBETH_A_BQLQ_INFLIGHT, bq->inflight) ||
		    nla_put_u32(skb, USBETH_A_BQLQ_LIMIT_MIN, bq->limit_min) ||
		    nla_put_u32(skb, USBETH_A_BQLQ_LIMIT_MAX, bq->limit_max) ||
		    nla_put_u32(skb, USBETH_A_BQLQ_HOLD_TIME, bq->hold_time))
			goto cancel;
		nla_nest_end(skb, queue);
	}
	/* a device with no TX queue yet still says so: an empty nest */
	if (!queues)
		queues = nla_nest_start(skb, USBETH_A_BQL_QUEUES);
	if (!queues)
		goto cancel;
	nla_nest_end(skb, queues);
	return 0;
cancel:
	nlmsg_trim(skb, start);
	return -EMSGSIZE;
}

static int bql_get(struct net_device *dev, int attr, unsigned int q,
		   u32 *val)
{
	struct dql *dql = queue_dql(dev, q);

	switch (attr) {
	case USBETH_A_BQL_LIMIT_MIN:
		*val = READ_ONCE(dql->min_limit);
		break;
	case USBETH_A_BQL_LIMIT_MAX:
		*val = READ_ONCE(dql->max_limit);
		break;
	default:
		*val = jiffies_to_msecs(READ_ONCE(dql->slack_hold_time));
	}
	return 0;
}

static int bql_set(const struct usbeth_req *req, int attr, unsigned int q,
		   u32 val, const struct nlattr *nla)
{
	struct dql *dql = queue_dql(req->dev, q);

	switch (attr) {
	case USBETH_A_BQL_LIMIT_MIN:
		WRITE_ONCE(dql->min_limit, val);
		break;
	case USBETH_A_BQL_LIMIT_MAX:
		WRITE_ONCE(dql->max_limit, val);
		break;
	default:
		WRITE_ONCE(dql->slack_hold_time, msecs_to_jiffies(val));
	}
	return 0;
}

/*
 * Checks that need the whole request: the queue index, and that limit_min
 * stays at or below limit_max on every queue the request touches.
 */
int usbeth_bql_check_request(const struct usbeth_req *req)
{
	struct nlattr *qattr = req->tb[USBETH_A_BQL_QUEUE_INDEX];
	struct nlattr *amin = req->tb[USBETH_A_BQL_LIMIT_MIN];
	struct nlattr *amax = req->tb[USBETH_A_BQL_LIMIT_MAX];
	unsigned int q, first = 0, last = req->dev->real_num_tx_queues;

	if (qattr) {
		if (!amin && !amax && !req->tb[USBETH_A_BQL_HOLD_TIME]) {
			NL_SET_ERR_MSG_ATTR(req->extack, qattr,
					    "bql-queue needs bql-limit-min, bql-limit-max or bql-hold-time");
			return -EINVAL;
		}
		if (req->bql_queue >= (int)req->dev->real_num_tx_queues) {
			usbeth_extack_msg(req->extack, qattr,
					  "bql-queue: no such TX queue",
					  "bql-queue %d: %s has %u TX queues",
					  req->bql_queue, req->name,
					  req->dev->real_num_tx_queues);
			return -ERANGE;
		}
		first = req->bql_queue;
		last = first + 1;
	}
	if (!amin && !amax)
		return 0;
	for (q = first; q < last; q++) {
		struct dql *dql = queue_dql(req->dev, q);
		u32 min = amin ? nla_get_u32(amin) : READ_ONCE(dql->min_limit);
		u32 max = amax ? nla_get_u32(amax) : READ_ONCE(dql->max_limit);

		if (min <= max)
			continue;
		/* both given: the queue's own values do not matter */
		if (amin && amax)
			usbeth_extack_msg(req->extack, amin,
					  "bql-limit-min is above bql-limit-max",
					  "bql-limit-min %u is above bql-limit-max %u on %s",
					  min, max, req->name);
		else if (amin)
			usbeth_extack_msg(req->extack, amin,
					  "bql-limit-min is above bql-limit-max",
					  "%s tx-%u: bql-limit-min %u > limit_max %u",
					  req->name, q, min, max);
		else
			usbeth_extack_msg(req->extack, amax,
					  "bql-limit-min is above bql-limit-max",
					  "%s tx-%u: bql-limit-max %u < limit_min %u",
					  req->name, q, max, min);
		return -EINVAL;
	}
	return 0;
}
#else
u32 usbeth_bql_accounting(struct net_device *dev)
{
	return USBETH_BQL_ACCOUNTING_UNKNOWN;
}

int usbeth_bql_prepare(struct net_device *dev, struct usbeth_state *st)
{
	return 0;
}

int usbeth_bql_fill(struct sk_buff *skb, const struct usbeth_state *st)
{
	return 0;
}

static int bql_get(struct net_device *dev, int attr, unsigned int q,
		   u32 *val)
{
	return -EOPNOTSUPP;
}

static int bql_set(const struct usbeth_req *req, int attr, unsigned int q,
		   u32 val, const struct nlattr *nla)
{
	return -EOPNOTSUPP;
}

int usbeth_bql_check_request(const struct usbeth_req *req)
{
	return 0;
}
#endif

/*
 * BQL keeps the hold time in jiffies: a value in ms that rounds to the
 * jiffies it holds changes nothing (1001 ms reads back as 1004 at HZ=250).
 */
static bool hold_same(struct net_device *dev, u32 now, u32 val)
{
	return msecs_to_jiffies(now) == msecs_to_jiffies(val);
}

const struct usbeth_knob usbeth_bql_knobs[3] = {
	{ .attr = USBETH_A_BQL_LIMIT_MIN, .name = "bql-limit-min",
	  .flag = USBETH_KNOB_BIT_BQL_LIMIT_MIN,
	  .cap = USBETH_CAP_BQL, .per_queue = true,
	  .get = bql_get, .set = bql_set },
	{ .attr = USBETH_A_BQL_LIMIT_MAX, .name = "bql-limit-max",
	  .flag = USBETH_KNOB_BIT_BQL_LIMIT_MAX,
	  .cap = USBETH_CAP_BQL, .per_queue = true,
	  .get = bql_get, .set = bql_set },
	{ .attr = USBETH_A_BQL_HOLD_TIME, .name = "bql-hold-time",
	  .flag = USBETH_KNOB_BIT_BQL_HOLD_TIME,
	  .cap = USBETH_CAP_BQL, .per_queue = true,
	  .get = bql_get, .set = bql_set, .same = hold_same },
};

/* The TX queues' state, for a device that has BQL */
static int bql_prepare(struct net_device *dev, struct usbeth_state *st)
{
	if (!(st->id.caps & USBETH_CAP_BQL))
		return 0;
	return usbeth_bql_prepare(dev, st);
}

/* What bql_fill() adds: the accounting, and a nest a queue */
static size_t bql_size(const struct usbeth_state *st)
{
	if (!st->bql)
		return 0;
	return nla_total_size(sizeof(u32)) + usbeth_bql_size(st->nqueues);
}

/* Every queue the device may have: what bql_size() comes to at most */
static size_t bql_max_size(const struct net_device *dev)
{
	return usbeth_bql_size(dev->num_tx_queues);
}

static int bql_fill(struct sk_buff *skb, const struct usbeth_state *st)
{
	if (st->bql &&
	    (nla_put_u32(skb, USBETH_A_BQL_ACCOUNTING, st->bql_accounting) ||
	     usbeth_bql_fill(skb, st)))
		return -EMSGSIZE;
	return 0;
}

/*
 * A SET as a whole: a queue index only for a device with BQL, and what
 * usbeth_bql_check_request() checks.
 */
static int bql_validate(const struct usbeth_req *req)
{
	char drv[32];

	if (req->tb[USBETH_A_BQL_QUEUE_INDEX] && !(req->caps & USBETH_CAP_BQL)) {
		usbeth_extack_msg(req->extack, req->tb[USBETH_A_BQL_QUEUE_INDEX],
				  "bql-queue is not supported by this device",
				  "bql-queue is not supported by %s (driver %.16s)",
				  req->name,
				  usbeth_driver_name(req->dev, drv, sizeof(drv),
						     false));
		return -EOPNOTSUPP;
	}
	if (!(req->caps & USBETH_CAP_BQL))
		return 0;
	return usbeth_bql_check_request(req);
}

const struct usbeth_backend usbeth_bql_backend = {
	.name = "bql", .knobs = usbeth_bql_knobs,
	.n = ARRAY_SIZE(usbeth_bql_knobs),
	.prepare = bql_prepare, .size = bql_size, .max_size = bql_max_size,
	.fill = bql_fill, .validate = bql_validate,
};

#ifdef CONFIG_BQL
static_assert(USBETH_BQL_LIMIT_MAX == DQL_MAX_LIMIT);
#endif
