// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of libusbeth on canned netlink messages, built with ASan and
 * UBSan: parsing of replies and notifications (and of hostile ones),
 * request building, extack decoding, the receive state machine, the name
 * tables. Prints KTAP; exits 0 when every test passed, else 1.
 *
 * Messages under test are copied into heap blocks of exactly their length,
 * so any read past the end is caught by ASan.
 */
#include <errno.h>
#include <limits.h>
#include <stdalign.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include "priv.h"

#define FAMILY		0x1c
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define BUFSZ		(128 * 1024)

static alignas(8) unsigned char buf[BUFSZ];
static alignas(8) unsigned char buf2[BUFSZ];

#include "unit_check.h"

/* ------------------------------------------------------------ helpers -- */

static struct nlmsghdr *msg_start(void *b, uint16_t type, uint8_t cmd)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(b);
	struct genlmsghdr *g;

	nlh->nlmsg_type = type;
	nlh->nlmsg_seq = 7;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = USBETH_GENL_VERSION;
	return nlh;
}

/* An attribute with arbitrary payload bytes. */
static void put_raw(struct nlmsghdr *nlh, uint16_t type, const void *data,
		    size_t len)
{
	mnl_attr_put(nlh, type, len, data);
}

/* A heap copy of exactly nlmsg_len bytes (at least a header's worth). */
static struct nlmsghdr *exact(const struct nlmsghdr *nlh)
{
	size_t len = nlh->nlmsg_len;
	struct nlmsghdr *c = malloc(len < sizeof(*c) ? sizeof(*c) : len);

	if (!c)
		abort();
	memcpy(c, nlh, len < sizeof(*c) ? sizeof(*c) : len);
	return c;
}

static int parse(const struct nlmsghdr *nlh, struct usbeth_dev *d)
{
	struct nlmsghdr *c = exact(nlh);
	int ret = usbeth_parse_dev(c, d);

	free(c);
	return ret;
}

static void put_queue(struct nlmsghdr *nlh, uint32_t idx, uint32_t base)
{
	struct nlattr *q = mnl_attr_nest_start(nlh, USBETH_A_BQL_QUEUE);

	mnl_attr_put_u32(nlh, USBETH_A_BQLQ_INDEX, idx);
	mnl_attr_put_u32(nlh, USBETH_A_BQLQ_LIMIT, base + 1);
	mnl_attr_put_u32(nlh, USBETH_A_BQLQ_INFLIGHT, base + 2);
	mnl_attr_put_u32(nlh, USBETH_A_BQLQ_LIMIT_MIN, base + 3);
	mnl_attr_put_u32(nlh, USBETH_A_BQLQ_LIMIT_MAX, base + 4);
	mnl_attr_put_u32(nlh, USBETH_A_BQLQ_HOLD_TIME, base + 5);
	mnl_attr_nest_end(nlh, q);
}

/* A GET reply with every attribute, values 100 + attr type. */
static struct nlmsghdr *full_reply(void *b)
{
	struct nlmsghdr *nlh = msg_start(b, FAMILY, USBETH_CMD_GET);
	struct nlattr *qs;
	int a;

	mnl_attr_put_u32(nlh, USBETH_A_IFINDEX, 3);
	mnl_attr_put_strz(nlh, USBETH_A_IFNAME, "usb0");
	mnl_attr_put_strz(nlh, USBETH_A_DRIVER, "cdc_ncm");
	mnl_attr_put_u32(nlh, USBETH_A_ROLE, USBETH_ROLE_USB_HOST);
	mnl_attr_put_u32(nlh, USBETH_A_CAPS, 0x86);
	mnl_attr_put_u32(nlh, USBETH_A_USB_SPEED, USBETH_USB_SPEED_SUPER);
	mnl_attr_put_u16(nlh, USBETH_A_USB_VID, 0x17e9);
	mnl_attr_put_u16(nlh, USBETH_A_USB_PID, 0x6006);
	mnl_attr_put_u32(nlh, USBETH_A_USB_BUSNUM, 2);
	mnl_attr_put_strz(nlh, USBETH_A_USB_PATH, "2-1.4");
	mnl_attr_put_strz(nlh, USBETH_A_GADGET_UDC, "dummy_udc.0");
	for (a = USBETH_A_GADGET_MAX_SPEED; a <= USBETH_A_BQL_ACCOUNTING; a++)
		mnl_attr_put_u32(nlh, (uint16_t)a, 100 + (uint32_t)a);
	qs = mnl_attr_nest_start(nlh, USBETH_A_BQL_QUEUES);
	put_queue(nlh, 0, 1000);
	put_queue(nlh, 1, 2000);
	mnl_attr_nest_end(nlh, qs);
	return nlh;
}

/* every attribute up to BQL_QUEUES; attribute types start at 1 */
#define REPLY_BITS (((USBETH_BIT(USBETH_A_BQL_QUEUES) << 1) - 1) & \
		    ~USBETH_BIT(0))

/* --------------------------------------------------------------- parse -- */

static void t_parse_full_reply(void)
{
	struct usbeth_dev d;
	int ret = parse(full_reply(buf), &d);

	CHECK_EQ(ret, USBETH_CMD_GET);
	CHECK_EQ(d.present, REPLY_BITS);
	CHECK_EQ(d.ifindex, 3);
	CHECK_STR(d.ifname, "usb0");
	CHECK_STR(d.driver, "cdc_ncm");
	CHECK_EQ(d.role, USBETH_ROLE_USB_HOST);
	CHECK_EQ(d.caps, 0x86);
	CHECK_EQ(d.usb_speed, USBETH_USB_SPEED_SUPER);
	CHECK_EQ(d.usb_vid, 0x17e9);
	CHECK_EQ(d.usb_pid, 0x6006);
	CHECK_EQ(d.usb_busnum, 2);
	CHECK_STR(d.usb_path, "2-1.4");
	CHECK_STR(d.gadget_udc, "dummy_udc.0");
	CHECK_EQ(d.gadget_max_speed, 100 + USBETH_A_GADGET_MAX_SPEED);
	CHECK_EQ(d.qmult, 100 + USBETH_A_QMULT);
	CHECK_EQ(d.qmult_active, 100 + USBETH_A_QMULT_ACTIVE);
	CHECK_EQ(d.ntb_rx_max, 100 + USBETH_A_NTB_RX_MAX);
	CHECK_EQ(d.ntb_tx_max, 100 + USBETH_A_NTB_TX_MAX);
	CHECK_EQ(d.ntb_dev_rx_max, 100 + USBETH_A_NTB_DEV_RX_MAX);
	CHECK_EQ(d.ntb_dev_tx_max, 100 + USBETH_A_NTB_DEV_TX_MAX);
	CHECK_EQ(d.tx_timer_usecs, 100 + USBETH_A_TX_TIMER_USECS);
	CHECK_EQ(d.coal_tx_usecs, 100 + USBETH_A_COAL_TX_USECS);
	CHECK_EQ(d.coal_tx_frames, 100 + USBETH_A_COAL_TX_FRAMES);
	CHECK_EQ(d.coal_rx_usecs, 100 + USBETH_A_COAL_RX_USECS);
	CHECK_EQ(d.coal_rx_frames, 100 + USBETH_A_COAL_RX_FRAMES);
	CHECK_EQ(d.bql_accounting, 100 + USBETH_A_BQL_ACCOUNTING);
	CHECK_EQ(d.n_bql_queues, 2);
	CHECK(usbeth_dev_has(&d, USBETH_A_QMULT));
	CHECK(!usbeth_dev_has(&d, USBETH_A_BQL_LIMIT_MIN));
	CHECK(!usbeth_dev_has(&d, 0) && !usbeth_dev_has(&d, 64) &&
	      !usbeth_dev_has(&d, -1));
	usbeth_dev_free(&d);
	CHECK(d.bql_queues == NULL && d.present == 0);
}

static void t_parse_minimal_presence(void)
{
	struct nlmsghdr *nlh = msg_start(buf, FAMILY, USBETH_CMD_DEL_NTF);
	struct usbeth_dev d;

	mnl_attr_put_u32(nlh, USBETH_A_IFINDEX, 9);
	mnl_attr_put_strz(nlh, USBETH_A_IFNAME, "eth1");
	mnl_attr_put_u32(nlh, USBETH_A_ROLE, USBETH_ROLE_USB_GADGET);
	CHECK_EQ(parse(nlh, &d), USBETH_CMD_DEL_NTF);
	CHECK_EQ(d.present, USBETH_BIT(USBETH_A_IFINDEX) |
		 USBETH_BIT(USBETH_A_IFNAME) | USBETH_BIT(USBETH_A_ROLE));
	CHECK_EQ(d.ifindex, 9);
	CHECK_STR(d.ifname, "eth1");
	CHECK_EQ(d.role, USBETH_ROLE_USB_GADGET);
	CHECK_EQ(d.qmult, 0);
	CHECK_STR(d.driver, "");
	CHECK(d.bql_queues == NULL && d.n_bql_queues == 0);
	usbeth_dev_free(&d);

	/* No ifindex: not a device. */
	nlh = msg_start(buf, FAMILY, USBETH_CMD_GET);
	mnl_attr_put_strz(nlh, USBETH_A_IFNAME, "eth1");
	CHECK_EQ(parse(nlh, &d), -EBADMSG);
	CHECK_EQ(d.present, 0);

	/* Only the device-carrying commands. */
	nlh = msg_start(buf, FAMILY, USBETH_CMD_SET);
	mnl_attr_put_u32(nlh, USBETH_A_IFINDEX, 1);
	CHECK_EQ(parse(nlh, &d), -EPROTO);
	nlh = msg_start(buf, FAMILY, 77);
	mnl_attr_put_u32(nlh, USBETH_A_IFINDEX, 1);
	CHECK_EQ(parse(nlh, &d), -EPROTO);
	nlh = msg_start(buf, FAMILY, USBETH_CMD_CHANGE_NTF);
	mnl_attr_put_u32(nlh, USBETH_A_IFINDEX, 1);
	CHECK_EQ(parse(nlh, &d), USBETH_CMD_CHANGE_NTF);
	usbeth_dev_free(&d);
	nlh = msg_start(buf, FAMILY, USBETH_CMD_NEW_NTF);
	mnl_attr_put_u32(nlh, USBETH_A_IFINDEX, 1);
	CHECK_EQ(parse(nlh, &d), USBETH_CMD_NEW_NTF);
	usbeth_dev_free(&d);
}

static void t_parse_bql_queues(void)
{
	struct nlmsghdr *nlh = msg_start(buf, FAMILY, USBETH_CMD_GET);
	struct nlattr *qs, *q;
	struct usbeth_dev d;
	size_t i;

	mnl_attr_put_u32(nlh, USBETH_A_IFINDEX, 4);
	mnl_attr_put_u32(nlh, USBETH_A_BQL_ACCOUNTING,
			 USBETH_BQL_ACCOUNTING_ACTIVE);
	qs = mnl_attr_nest_start(nlh, USBETH_A_BQL_QUEUES);
	put_queue(nlh, 0, 10);
	put_queue(nlh, 1, 20);
	/* a sparse queue, an unknown attribute in it */
	q = mnl_attr_nest_start(nlh, USBETH_A_BQL_QUEUE);
	mnl_attr_put_u32(nlh, 99, 0xdead);
	mnl_attr_put_u32(nlh, USBETH_A_BQLQ_INDEX, 7);
	mnl_attr_put_u32(nlh, USBETH_A_BQLQ_LIMIT, 4242);
	mnl_attr_nest_end(nlh, q);
	/* something else in the queues nest: ignored */
	mnl_attr_put_u32(nlh, 5, 1);
	mnl_attr_nest_end(nlh, qs);
	CHECK(qs->nla_type & NLA_F_NESTED);

	CHECK_EQ(parse(nlh, &d), USBETH_CMD_GET);
	CHECK(usbeth_dev_has(&d, USBETH_A_BQL_QUEUES));
	CHECK_EQ(d.bql_accounting, USBETH_BQL_ACCOUNTING_ACTIVE);
	CHECK_EQ(d.n_bql_queues, 3);
	for (i = 0; d.bql_queues && i < 2; i++) {
		const struct usbeth_bql_queue *bq = &d.bql_queues[i];
		uint32_t base = 10 * ((uint32_t)i + 1);

		CHECK_EQ(bq->present, 0x7e);
		CHECK_EQ(bq->index, i);
		CHECK_EQ(bq->limit, base + 1);
		CHECK_EQ(bq->inflight, base + 2);
		CHECK_EQ(bq->limit_min, base + 3);
		CHECK_EQ(bq->limit_max, base + 4);
		CHECK_EQ(bq->hold_time_ms, base + 5);
	}
	if (d.bql_queues && d.n_bql_queues == 3) {
		CHECK_EQ(d.bql_queues[2].index, 7);
		CHECK_EQ(d.bql_queues[2].limit, 4242);
		CHECK_EQ(d.bql_queues[2].present,
			 (1U << USBETH_A_BQLQ_INDEX) |
			 (1U << USBETH_A_BQLQ_LIMIT));
		CHECK_EQ(d.bql_queues[2].inflight, 0);
	}
	usbeth_dev_free(&d);

	/* An empty nest: present, no queues. */
	nlh = msg_start(buf, FAMILY, USBETH_CMD_GET);
	mnl_attr_put_u32(nlh, USBETH_A_IFINDEX, 4);
	qs = mnl_attr_nest_start(nlh, USBETH_A_BQL_QUEUES);
	mnl_attr_nest_end(nlh, qs);
	CHECK_EQ(parse(nlh, &d), USBETH_CMD_GET);
	CHECK(usbeth_dev_has(&d, USBETH_A_BQL_QUEUES));
	CHECK(d.n_bql_queues == 0 && d.bql_queues == NULL);
	usbeth_dev_free(&d);

	/* A queue without its index is refused. */
	nlh = msg_start(buf, FAMILY, USBETH_CMD_GET);
	mnl_attr_put_u32(nlh, USBETH_A_IFINDEX, 4);
	qs = mnl_attr_nest_start(nlh, USBETH_A_BQL_QUEUES);
	put_queue(nlh, 0, 10);
	q = mnl_attr_nest_start(nlh, USBETH_A_BQL_QUEUE);
	mnl_attr_put_u32(nlh, USBETH_A_BQLQ_LIMIT, 1);
	mnl_attr_nest_end(nlh, q);
	mnl_attr_nest_end(nlh, qs);
	CHECK_EQ(parse(nlh, &d), -EBADMSG);
	CHECK(d.bql_queues == NULL && d.present == 0);

	/*
	 * Repeated queues nests (a device with more TX queues than one nest
	 * holds) add up, in order.
	 */
	nlh = msg_start(buf, FAMILY, USBETH_CMD_GET);
	mnl_attr_put_u32(nlh, USBETH_A_IFINDEX, 4);
	qs = mnl_attr_nest_start(nlh, USBETH_A_BQL_QUEUES);
	put_queue(nlh, 0, 10);
	put_queue(nlh, 1, 10);
	mnl_attr_nest_end(nlh, qs);
	qs = mnl_attr_nest_start(nlh, USBETH_A_BQL_QUEUES);
	put_queue(nlh, 5, 50);
	mnl_attr_nest_end(nlh, qs);
	CHECK_EQ(parse(nlh, &d), USBETH_CMD_GET);
	CHECK_EQ(d.n_bql_queues, 3);
	if (d.n_bql_queues == 3)
		CHECK(d.bql_queues[0].index == 0 && d.bql_queues[1].index == 1 &&
		      d.bql_queues[2].index == 5 &&
		      d.bql_queues[2].limit == 51);
	usbeth_dev_free(&d);

	/* A queue attribute of the wrong size fails the message. */
	nlh = msg_start(buf, FAMILY, USBETH_CMD_GET);
	mnl_attr_put_u32(nlh, USBETH_A_IFINDEX, 4);
	qs = mnl_attr_nest_start(nlh, USBETH_A_BQL_QUEUES);
	q = mnl_attr_nest_start(nlh, USBETH_A_BQL_QUEUE);
	mnl_attr_put_u32(nlh, USBETH_A_BQLQ_INDEX, 0);
	mnl_attr_put_u16(nlh, USBETH_A_BQLQ_LIMIT, 1);
	mnl_attr_nest_end(nlh, q);
	mnl_attr_nest_end(nlh, qs);
	CHECK_EQ(parse(nlh, &d), -EBADMSG);
}

/* n queues, split over nests of per_nest as the kernel splits them */
static struct nlmsghdr *n_queues(void *b, unsigned int n, unsigned int per_nest)
{
	struct nlmsghdr *nlh = msg_start(b, FAMILY, USBETH_CMD_GET);
	struct nlattr *qs = NULL, *q;
	unsigned int i;

	mnl_attr_put_u32(nlh, USBETH_A_IFINDEX, 4);
	for (i = 0; i < n; i++) {
		if (!(i % per_nest)) {
			if (qs)
				mnl_attr_nest_end(nlh, qs);
			qs = mnl_attr_nest_start(nlh, USBETH_A_BQL_QUEUES);
		}
		q = mnl_attr_nest_start(nlh, USBETH_A_BQL_QUEUE);
		mnl_attr_put_u32(nlh, USBETH_A_BQLQ_INDEX, i);
		mnl_attr_nest_end(nlh, q);
	}
	if (qs)
		mnl_attr_nest_end(nlh, qs);
	return nlh;
}

static void t_parse_too_many_queues(void)
{
	struct usbeth_dev d;
	unsigned int per_nest[] = { USBETH_BQL_QUEUES_MAX,
				    USBETH_BQL_QUEUES_PER_NEST };
	unsigned int i;

	for (i = 0; i < 2; i++) {
		CHECK_EQ(parse(n_queues(buf, USBETH_BQL_QUEUES_MAX, per_nest[i]),
			       &d),
			 USBETH_CMD_GET);
		CHECK_EQ(d.n_bql_queues, USBETH_BQL_QUEUES_MAX);
		if (d.n_bql_queues == USBETH_BQL_QUEUES_MAX)
			CHECK_EQ(d.bql_queues[USBETH_BQL_QUEUES_MAX - 1].index,
				 USBETH_BQL_QUEUES_MAX - 1);
		usbeth_dev_free(&d);
		CHECK_EQ(parse(n_queues(buf, USBETH_BQL_QUEUES_MAX + 1,
					per_nest[i]), &d),
			 -EBADMSG);
		CHECK(d.bql_queues == NULL);
	}
}

/* One message: ifindex, then an attribute of type with len raw bytes. */
static int parse_with(uint16_t type, const void *data, size_t len)
{
	struct nlmsghdr *nlh = msg_start(buf, FAMILY, USBETH_CMD_GET);
	struct usbeth_dev d;
	int ret;

	mnl_attr_put_u32(nlh, USBETH_A_IFINDEX, 4);
	put_raw(nlh, type, data, len);
	ret = parse(nlh, &d);
	if (ret >= 0)
		usbeth_dev_free(&d);
	return ret;
}

static void t_parse_wrong_lengths(void)
{
	static const unsigned char z[16];
	int a;

	for (a = 1; a <= USBETH_A_MAX; a++) {
		if (a == USBETH_A_IFNAME || a == USBETH_A_DRIVER ||
		    a == USBETH_A_USB_PATH || a == USBETH_A_GADGET_UDC ||
		    a == USBETH_A_BQL_QUEUES || a >= USBETH_A_BQL_QUEUE_INDEX)
			continue;
		if (a == USBETH_A_USB_VID || a == USBETH_A_USB_PID) {
			CHECK_EQ(parse_with((uint16_t)a, z, 2), USBETH_CMD_GET);
			CHECK_EQ(parse_with((uint16_t)a, z, 4), -EBADMSG);
		} else {
			CHECK_EQ(parse_with((uint16_t)a, z, 4), USBETH_CMD_GET);
			CHECK_EQ(parse_with((uint16_t)a, z, 2), -EBADMSG);
			CHECK_EQ(parse_with((uint16_t)a, z, 8), -EBADMSG);
			CHECK_EQ(parse_with((uint16_t)a, z, 3), -EBADMSG);
		}
		CHECK_EQ(parse_with((uint16_t)a, z, 0), -EBADMSG);
	}
	/* A nest too short to hold an attribute. */
	CHECK_EQ(parse_with(USBETH_A_BQL_QUEUES, z, 2), -EBADMSG);
	/* SET-only attributes are not part of a reply: ignored whatever
	 * their size.
	 */
	CHECK_EQ(parse_with(USBETH_A_BQL_LIMIT_MIN, z, 1), USBETH_CMD_GET);
}

static void t_parse_strings(void)
{
	static const char pad[32] = "eth0";
	static const char embedded[] = "ab\0cd";
	struct nlmsghdr *nlh;
	struct usbeth_dev d;

	/* not terminated */
	CHECK_EQ(parse_with(USBETH_A_IFNAME, "eth0", 4), -EBADMSG);
	CHECK_EQ(parse_with(USBETH_A_DRIVER, "x", 1), -EBADMSG);
	/* empty payload */
	CHECK_EQ(parse_with(USBETH_A_USB_PATH, "", 0), -EBADMSG);
	/* "" is a valid (empty) string */
	CHECK_EQ(parse_with(USBETH_A_DRIVER, "", 1), USBETH_CMD_GET);
	/* 15 characters fit IFNAMSIZ, 16 do not */
	CHECK_EQ(parse_with(USBETH_A_IFNAME, "abcdefghijklmno", 16),
		 USBETH_CMD_GET);
	CHECK_EQ(parse_with(USBETH_A_IFNAME, "abcdefghijklmnop", 17),
		 -EBADMSG);
	CHECK_EQ(parse_with(USBETH_A_DRIVER,
			    "0123456789012345678901234567890", 32),
		 USBETH_CMD_GET);
	CHECK_EQ(parse_with(USBETH_A_DRIVER,
			    "01234567890123456789012345678901", 33),
		 -EBADMSG);
	{
		char big[300];

		memset(big, 'u', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		CHECK_EQ(parse_with(USBETH_A_GADGET_UDC, big, sizeof(big)),
			 -EBADMSG);
		/* 64 characters do not fit USBETH_USB_PATH_LEN, 63 do */
		CHECK_EQ(parse_with(USBETH_A_USB_PATH, big + 300 - 65, 65),
			 -EBADMSG);
		CHECK_EQ(parse_with(USBETH_A_USB_PATH, big + 300 - 64, 64),
			 USBETH_CMD_GET);
	}

	/* Padded with NULs past IFNAMSIZ: the string still fits. */
	nlh = msg_start(buf, FAMILY, USBETH_CMD_GET);
	mnl_attr_put_u32(nlh, USBETH_A_IFINDEX, 4);
	put_raw(nlh, USBETH_A_IFNAME, pad, sizeof(pad));
	put_raw(nlh, USBETH_A_DRIVER, embedded, sizeof(embedded));
	CHECK_EQ(parse(nlh, &d), USBETH_CMD_GET);
	CHECK_STR(d.ifname, "eth0");
	CHECK_STR(d.driver, "ab");
	usbeth_dev_free(&d);

	/* A repeated string replaces the earlier one completely. */
	nlh = msg_start(buf, FAMILY, USBETH_CMD_GET);
	mnl_attr_put_u32(nlh, USBETH_A_IFINDEX, 4);
	mnl_attr_put_strz(nlh, USBETH_A_DRIVER, "longer_driver");
	mnl_attr_put_strz(nlh, USBETH_A_DRIVER, "r8152");
	CHECK_EQ(parse(nlh, &d), USBETH_CMD_GET);
	CHECK_STR(d.driver, "r8152");
	CHECK(d.driver[6] == '\0' && d.driver[12] == '\0');
	usbeth_dev_free(&d);
}

static void t_parse_truncated(void)
{
	struct nlmsghdr *nlh;
	struct nlattr *a;
	struct usbeth_dev d;

	/* attribute longer than what is left of the message */
	nlh = msg_start(buf, FAMILY, USBETH_CMD_GET);
	mnl_attr_put_u32(nlh, USBETH_A_IFINDEX, 4);
	a = (struct nlattr *)mnl_nlmsg_get_payload_tail(nlh);
	mnl_attr_put_u32(nlh, USBETH_A_QMULT, 4);
	a->nla_len = 200;
	CHECK_EQ(parse(nlh, &d), -EBADMSG);

	/* attribute length below its own header */
	a->nla_len = 2;
	CHECK_EQ(parse(nlh, &d), -EBADMSG);
	a->nla_len = 0;
	CHECK_EQ(parse(nlh, &d), -EBADMSG);

	/* 2 stray bytes after the last attribute */
	a->nla_len = 8;
	nlh->nlmsg_len += 2;
	CHECK_EQ(parse(nlh, &d), -EBADMSG);
	nlh->nlmsg_len -= 2;
	CHECK_EQ(parse(nlh, &d), USBETH_CMD_GET);
	usbeth_dev_free(&d);

	/* the last attribute's padding may be left out */
	nlh = msg_start(buf, FAMILY, USBETH_CMD_GET);
	mnl_attr_put_u32(nlh, USBETH_A_IFINDEX, 4);
	mnl_attr_put_strz(nlh, USBETH_A_IFNAME, "ab");
	nlh->nlmsg_len -= 1;
	CHECK_EQ(parse(nlh, &d), USBETH_CMD_GET);
	CHECK_STR(d.ifname, "ab");
	usbeth_dev_free(&d);

	/* no room for the genl header */
	nlh = msg_start(buf, FAMILY, USBETH_CMD_GET);
	nlh->nlmsg_len = MNL_NLMSG_HDRLEN + 2;
	CHECK_EQ(parse(nlh, &d), -EBADMSG);
	nlh->nlmsg_len = 0;
	CHECK_EQ(parse(nlh, &d), -EBADMSG);

	/* a queue nest overrunning the queues nest */
	nlh = msg_start(buf, FAMILY, USBETH_CMD_GET);
	mnl_attr_put_u32(nlh, USBETH_A_IFINDEX, 4);
	{
		struct nlattr *qs = mnl_attr_nest_start(nlh,
							USBETH_A_BQL_QUEUES);

		a = mnl_attr_nest_start(nlh, USBETH_A_BQL_QUEUE);
		mnl_attr_put_u32(nlh, USBETH_A_BQLQ_INDEX, 0);
		mnl_attr_nest_end(nlh, a);
		mnl_attr_nest_end(nlh, qs);
		a->nla_len += 8;
	}
	mnl_attr_put_u32(nlh, USBETH_A_QMULT, 4);
	CHECK_EQ(parse(nlh, &d), -EBADMSG);
}

/* Every prefix of a valid message parses or fails cleanly. */
static void t_parse_truncation_sweep(void)
{
	struct nlmsghdr *full = full_reply(buf);
	uint32_t len = full->nlmsg_len, l;
	unsigned int ok = 0;

	for (l = 0; l <= len; l++) {
		struct nlmsghdr *c = malloc(l < 16 ? 16 : l);
		struct usbeth_dev d;
		int ret;

		memcpy(c, full, l < 16 ? 16 : l);
		c->nlmsg_len = l;
		ret = usbeth_parse_dev(c, &d);
		if (ret >= 0) {
			CHECK_EQ(ret, USBETH_CMD_GET);
			CHECK(d.ifindex == 3);
			ok++;
			usbeth_dev_free(&d);
		} else {
			CHECK(ret == -EBADMSG);
			CHECK(d.present == 0 && d.bql_queues == NULL);
		}
		free(c);
	}
	/* at least each cut on an attribute boundary after the ifindex */
	CHECK(ok >= 10);
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

/* Random attribute soup, nested at random. */
static void soup(struct nlmsghdr *nlh, int depth, size_t room)
{
	int n = (int)(rnd() % 8), i;

	for (i = 0; i < n && nlh->nlmsg_len + 64 < room; i++) {
		uint16_t type = (uint16_t)(rnd() % 34);
		unsigned char data[40];
		size_t len = rnd() % sizeof(data), k;

		if (depth < 3 && rnd() % 3 == 0) {
			struct nlattr *nest = mnl_attr_nest_start(nlh, type);

			soup(nlh, depth + 1, room);
			mnl_attr_nest_end(nlh, nest);
			continue;
		}
		for (k = 0; k < len; k++)
			data[k] = (unsigned char)(rnd() % 4 ? rnd() : 0);
		if (rnd() % 2)
			len = (rnd() % 3) * 2 + 2;	/* u16/u32-sized */
		put_raw(nlh, type, data, len);
	}
}

static void t_parse_fuzz(void)
{
	unsigned int iter, accepted = 0;

	for (iter = 0; iter < 20000; iter++) {
		struct nlmsghdr *nlh = msg_start(buf, FAMILY,
						 (uint8_t)(rnd() % 6));
		struct usbeth_dev d;
		int ret;

		if (rnd() % 2)
			mnl_attr_put_u32(nlh, USBETH_A_IFINDEX, rnd());
		soup(nlh, 0, 4096);
		ret = parse(nlh, &d);
		if (ret >= 0) {
			accepted++;
			CHECK(d.present & USBETH_BIT(USBETH_A_IFINDEX));
			CHECK(strlen(d.ifname) < sizeof(d.ifname));
			CHECK(d.n_bql_queues <= USBETH_BQL_QUEUES_MAX);
			usbeth_dev_free(&d);
		} else {
			CHECK(ret == -EBADMSG || ret == -EPROTO);
		}
	}
	/* byte flips on a valid message */
	for (iter = 0; iter < 20000; iter++) {
		struct nlmsghdr *nlh = full_reply(buf);
		uint32_t flips = 1 + rnd() % 4, k;
		struct usbeth_dev d;

		for (k = 0; k < flips; k++) {
			uint32_t at = 20 + rnd() % (nlh->nlmsg_len - 20);

			buf[at] ^= (unsigned char)(1 + rnd() % 255);
		}
		if (parse(nlh, &d) >= 0) {
			accepted++;
			usbeth_dev_free(&d);
		}
	}
	printf("# fuzz: %u of 40000 accepted\n", accepted);
	CHECK(accepted > 0);
}

static void t_parse_unknown_ignored(void)
{
	struct nlmsghdr *nlh = msg_start(buf, FAMILY, USBETH_CMD_GET);
	static const unsigned char junk[7] = { 1, 2, 3 };
	struct usbeth_dev d;

	put_raw(nlh, 0, junk, sizeof(junk));
	put_raw(nlh, USBETH_A_MAX + 1, junk, sizeof(junk));
	put_raw(nlh, 200, junk, 3);
	mnl_attr_put_u32(nlh, USBETH_A_IFINDEX, 12);
	mnl_attr_put_u32(nlh, USBETH_A_BQL_QUEUE_INDEX, 1);
	mnl_attr_put_u32(nlh, USBETH_A_BQL_HOLD_TIME, 1);
	put_raw(nlh, USBETH_A_QMULT | NLA_F_NET_BYTEORDER, "\5\0\0\0", 4);
	CHECK_EQ(parse(nlh, &d), USBETH_CMD_GET);
	CHECK_EQ(d.present, USBETH_BIT(USBETH_A_IFINDEX) |
		 USBETH_BIT(USBETH_A_QMULT));
	CHECK_EQ(d.ifindex, 12);
	usbeth_dev_free(&d);
}

/* ------------------------------------------------------------ requests -- */

struct seen {
	int n;
	uint16_t type[64];
	uint32_t val[64];
	char str[64][20];
};

static int seen_attr(const struct nlattr *a, void *arg)
{
	struct seen *s = arg;

	if (s->n >= 64)
		return -E2BIG;
	s->type[s->n] = mnl_attr_get_type(a);
	if (mnl_attr_get_payload_len(a) == 4)
		s->val[s->n] = mnl_attr_get_u32(a);
	if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
		snprintf(s->str[s->n], sizeof(s->str[0]), "%s",
			 mnl_attr_get_str(a));
	s->n++;
	return 0;
}

/* Decodes a built request: header checks, then its attributes. */
static bool inspect(const void *b, int len, uint8_t cmd, uint16_t flags,
		    struct seen *s)
{
	const struct nlmsghdr *nlh = b;
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
	size_t off = MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(*g));
	bool ok = true;

	memset(s, 0, sizeof(*s));
	if (len <= 0 || (uint32_t)len != nlh->nlmsg_len ||
	    nlh->nlmsg_type != FAMILY || nlh->nlmsg_flags != flags ||
	    g->cmd != cmd || g->version != USBETH_GENL_VERSION) {
		printf("# bad header: len %d/%u type %u flags %#x cmd %u\n",
		       len, nlh->nlmsg_len, nlh->nlmsg_type,
		       nlh->nlmsg_flags, g->cmd);
		ok = false;
	}
	if (usbeth_attr_walk((const unsigned char *)b + off,
			     nlh->nlmsg_len - off, seen_attr, s)) {
		printf("# request attributes do not walk\n");
		ok = false;
	}
	return ok;
}

static const int settable[] = {
	USBETH_A_QMULT, USBETH_A_NTB_RX_MAX, USBETH_A_NTB_TX_MAX,
	USBETH_A_TX_TIMER_USECS, USBETH_A_COAL_TX_USECS,
	USBETH_A_COAL_TX_FRAMES, USBETH_A_COAL_RX_USECS,
	USBETH_A_COAL_RX_FRAMES, USBETH_A_BQL_QUEUE_INDEX,
	USBETH_A_BQL_LIMIT_MIN, USBETH_A_BQL_LIMIT_MAX,
	USBETH_A_BQL_HOLD_TIME,
};

/* Every subset of the settable attributes, by ifindex: the request holds
 * the device and exactly the attributes in has, with their values.
 */
static void t_build_set_exact(void)
{
	uint32_t mask;

	for (mask = 0; mask < (1U << ARRAY_SIZE(settable)); mask += 7) {
		struct usbeth_set req = { .ifindex = 42 };
		struct seen s;
		size_t i;
		int len, j = 1;

		for (i = 0; i < ARRAY_SIZE(settable); i++)
			if (mask & (1U << i))
				CHECK_EQ(usbeth_set_value(&req, settable[i],
							  1000 + settable[i]),
					 0);
		len = usbeth_build_set(buf, sizeof(buf), FAMILY, &req);
		CHECK(inspect(buf, len, USBETH_CMD_SET,
			      NLM_F_REQUEST | NLM_F_ACK, &s));
		CHECK_EQ(s.n, 1 + __builtin_popcount(mask));
		CHECK_EQ(s.type[0], USBETH_A_IFINDEX);
		CHECK_EQ(s.val[0], 42);
		for (i = 0; i < ARRAY_SIZE(settable); i++) {
			if (!(mask & (1U << i)))
				continue;
			CHECK_EQ(s.type[j], settable[i]);
			CHECK_EQ(s.val[j], 1000 + settable[i]);
			j++;
		}
		if (!cur_ok) {
			printf("# mask %#x\n", mask);
			return;
		}
	}
}

static void t_build_set_fields(void)
{
	struct usbeth_set req = {
		.ifname = "usb0",
		.has = USBETH_SET_ATTRS,
		.qmult = 1, .ntb_rx_max = 2, .ntb_tx_max = 3,
		.tx_timer_usecs = 4, .coal_tx_usecs = 5, .coal_tx_frames = 6,
		.coal_rx_usecs = 7, .coal_rx_frames = 8,
		.bql_queue_index = 9, .bql_limit_min = 10,
		.bql_limit_max = 11, .bql_hold_time = UINT32_MAX,
	};
	struct seen s;
	int len, i;

	len = usbeth_build_set(buf, sizeof(buf), FAMILY, &req);
	CHECK(inspect(buf, len, USBETH_CMD_SET, NLM_F_REQUEST | NLM_F_ACK,
		      &s));
	CHECK_EQ(s.n, 13);
	CHECK_EQ(s.type[0], USBETH_A_IFNAME);
	CHECK_STR(s.str[0], "usb0");
	for (i = 1; i < 13 && i < s.n; i++) {
		CHECK_EQ(s.type[i], settable[i - 1]);
		CHECK_EQ(s.val[i], i == 12 ? UINT32_MAX : (uint32_t)i);
	}
	CHECK(len <= USBETH_REQ_MAX);

	/* ifname of 15 characters is the longest */
	req.ifname = "abcdefghijklmno";
	req.has = 0;
	len = usbeth_build_set(buf, sizeof(buf), FAMILY, &req);
	CHECK(inspect(buf, len, USBETH_CMD_SET, NLM_F_REQUEST | NLM_F_ACK,
		      &s));
	CHECK_EQ(s.n, 1);
	CHECK_STR(s.str[0], "abcdefghijklmno");
}

static void t_build_errors(void)
{
	struct usbeth_set req = { .ifindex = 1 };
	int min, len;

	CHECK_EQ(usbeth_set_value(&req, USBETH_A_IFINDEX, 1), -EINVAL);
	CHECK_EQ(usbeth_set_value(&req, USBETH_A_QMULT_ACTIVE, 1), -EINVAL);
	CHECK_EQ(usbeth_set_value(&req, 0, 1), -EINVAL);
	CHECK_EQ(usbeth_set_value(&req, 999, 1), -EINVAL);
	CHECK_EQ(req.has, 0);

	req.has = USBETH_BIT(USBETH_A_CAPS);
	CHECK_EQ(usbeth_build_set(buf, sizeof(buf), FAMILY, &req), -EINVAL);
	req.has = USBETH_BIT(63);
	CHECK_EQ(usbeth_build_set(buf, sizeof(buf), FAMILY, &req), -EINVAL);
	req.has = USBETH_BIT(USBETH_A_QMULT);
	req.ifname = "usb0";
	CHECK_EQ(usbeth_build_set(buf, sizeof(buf), FAMILY, &req), -EINVAL);
	req.ifindex = 0;
	req.ifname = NULL;
	CHECK_EQ(usbeth_build_set(buf, sizeof(buf), FAMILY, &req), -EINVAL);
	req.ifname = "";
	CHECK_EQ(usbeth_build_set(buf, sizeof(buf), FAMILY, &req), -EINVAL);
	req.ifname = "abcdefghijklmnop";
	CHECK_EQ(usbeth_build_set(buf, sizeof(buf), FAMILY, &req),
		 -ENAMETOOLONG);
	CHECK_EQ(usbeth_build_get(buf, sizeof(buf), FAMILY, 0,
				  "abcdefghijklmnopqrstuvwxyz"), -ENAMETOOLONG);
	CHECK_EQ(usbeth_build_get(buf, sizeof(buf), FAMILY, 1, "x"), -EINVAL);
	CHECK_EQ(usbeth_build_get(buf, sizeof(buf), FAMILY, 0, NULL), -EINVAL);

	/* too small buffers: each size short of the need */
	req.ifname = "usb0";
	len = usbeth_build_set(buf, sizeof(buf), FAMILY, &req);
	CHECK(len > 0);
	for (min = 0; min < len; min++) {
		unsigned char *small = malloc(min ? (size_t)min : 1);

		CHECK_EQ(usbeth_build_set(small, (size_t)min, FAMILY, &req),
			 -ENOSPC);
		free(small);
	}
	{
		unsigned char *fit = malloc((size_t)len);

		CHECK_EQ(usbeth_build_set(fit, (size_t)len, FAMILY, &req),
			 len);
		free(fit);
	}
	CHECK_EQ(usbeth_build_dump(buf, 10, FAMILY), -ENOSPC);
	CHECK_EQ(usbeth_build_dump(NULL, 0, FAMILY), -ENOSPC);
}

static void t_build_get_dump(void)
{
	struct seen s;
	int len;

	len = usbeth_build_get(buf, sizeof(buf), FAMILY, 77, NULL);
	CHECK(inspect(buf, len, USBETH_CMD_GET, NLM_F_REQUEST | NLM_F_ACK,
		      &s));
	CHECK(s.n == 1 && s.type[0] == USBETH_A_IFINDEX && s.val[0] == 77);
	len = usbeth_build_get(buf, sizeof(buf), FAMILY, 0, "enx0");
	CHECK(inspect(buf, len, USBETH_CMD_GET, NLM_F_REQUEST | NLM_F_ACK,
		      &s));
	CHECK(s.n == 1 && s.type[0] == USBETH_A_IFNAME);
	CHECK_STR(s.str[0], "enx0");
	len = usbeth_build_dump(buf, sizeof(buf), FAMILY);
	CHECK(inspect(buf, len, USBETH_CMD_GET, NLM_F_REQUEST | NLM_F_DUMP,
		      &s));
	CHECK_EQ(s.n, 0);
}

/* ---------------------------------------------------------------- acks -- */

/* The request most error tests answer: ifname, qmult, ntb-rx-max,
 * bql-limit-max.
 */
static int sample_req(void *b, size_t *off_qmult, size_t *off_bql)
{
	struct usbeth_set req = { .ifname = "usb0" };
	const struct nlmsghdr *nlh = b;
	const struct nlattr *a;
	int len;

	usbeth_set_value(&req, USBETH_A_QMULT, 5);
	usbeth_set_value(&req, USBETH_A_NTB_RX_MAX, 16384);
	usbeth_set_value(&req, USBETH_A_BQL_LIMIT_MAX, 3000);
	len = usbeth_build_set(b, BUFSZ, FAMILY, &req);
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		size_t off = (size_t)((const unsigned char *)a -
				      (const unsigned char *)b);

		if (mnl_attr_get_type(a) == USBETH_A_QMULT)
			*off_qmult = off;
		if (mnl_attr_get_type(a) == USBETH_A_BQL_LIMIT_MAX)
			*off_bql = off;
	}
	return len;
}

/* An NLMSG_ERROR for req, capped or carrying the request, with TLVs. */
static struct nlmsghdr *error_msg(void *b, const struct nlmsghdr *req,
				  int error, bool capped, const char *text,
				  int64_t offs, int64_t miss)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(b);
	struct nlmsgerr *e;
	size_t plen = sizeof(*e);

	if (!capped)
		plen += req->nlmsg_len - sizeof(*req);
	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_seq = req->nlmsg_seq;
	e = mnl_nlmsg_put_extra_header(nlh, plen);
	e->error = error;
	memcpy(&e->msg, req, capped ? sizeof(*req) : req->nlmsg_len);
	if (capped)
		nlh->nlmsg_flags |= NLM_F_CAPPED;
	if (text || offs >= 0 || miss >= 0)
		nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
	if (text)
		mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, text);
	if (offs >= 0)
		mnl_attr_put_u32(nlh, NLMSGERR_ATTR_OFFS, (uint32_t)offs);
	if (miss >= 0)
		mnl_attr_put_u32(nlh, NLMSGERR_ATTR_MISS_TYPE, (uint32_t)miss);
	return nlh;
}

static int ack_of(const struct nlmsghdr *nlh, const void *req, size_t reqlen,
		  struct usbeth_ack *ack)
{
	struct nlmsghdr *c = exact(nlh);
	int ret = usbeth_parse_ack(c, req, reqlen, ack);

	free(c);
	return ret;
}

static void t_ack_offset(void)
{
	size_t oq = 0, ob = 0;
	int len = sample_req(buf2, &oq, &ob);
	const struct nlmsghdr *req = (const struct nlmsghdr *)buf2;
	struct usbeth_ack ack = { 0 };
	int capped;

	CHECK(len > 0 && oq && ob);
	for (capped = 0; capped < 2; capped++) {
		error_msg(buf, req, -ERANGE, capped, "qmult out of range",
			  (int64_t)oq, -1);
		CHECK_EQ(ack_of((struct nlmsghdr *)buf, req, (size_t)len,
				&ack), -ERANGE);
		CHECK_EQ(ack.error, -ERANGE);
		CHECK_STR(ack.msg, "qmult out of range");
		CHECK_EQ(ack.attr, USBETH_A_QMULT);
		CHECK_EQ(ack.offset, (int64_t)oq);
		CHECK_EQ(ack.miss_attr, -1);

		/* pointing into the payload of an attribute */
		error_msg(buf, req, -EOPNOTSUPP, capped, NULL,
			  (int64_t)ob + 5, -1);
		CHECK_EQ(ack_of((struct nlmsghdr *)buf, req, (size_t)len,
				&ack), -EOPNOTSUPP);
		CHECK_EQ(ack.attr, USBETH_A_BQL_LIMIT_MAX);
		CHECK_STR(ack.msg, "");
	}

	/* Every byte of the request maps to the attribute holding it. */
	{
		const struct nlattr *a;
		uint32_t off = 0;

		for (off = 0; off < MNL_NLMSG_HDRLEN + 4; off++)
			CHECK_EQ(usbeth_attr_at_offset(req, (size_t)len, off),
				 -1);
		mnl_attr_for_each(a, req, sizeof(struct genlmsghdr)) {
			uint32_t s = (uint32_t)((const unsigned char *)a -
						buf2);

			for (off = s; off < s + MNL_ALIGN(a->nla_len); off++)
				CHECK_EQ(usbeth_attr_at_offset(req,
							       (size_t)len,
							       off),
					 mnl_attr_get_type(a));
		}
		CHECK_EQ(usbeth_attr_at_offset(req, (size_t)len, (uint32_t)len),
			 -1);
		CHECK_EQ(usbeth_attr_at_offset(req, (size_t)len, UINT32_MAX),
			 -1);
		CHECK_EQ(usbeth_attr_at_offset(NULL, 0, 20), -1);
		CHECK_EQ(usbeth_attr_at_offset(req, 10, 20), -1);
	}

	/* an offset outside the request */
	error_msg(buf, req, -EINVAL, true, "x", len + 40, -1);
	CHECK_EQ(ack_of((struct nlmsghdr *)buf, req, (size_t)len, &ack),
		 -EINVAL);
	CHECK_EQ(ack.attr, -1);
	CHECK_EQ(ack.offset, len + 40);
	/* no request to map against */
	error_msg(buf, req, -EINVAL, true, "x", (int64_t)oq, -1);
	CHECK_EQ(ack_of((struct nlmsghdr *)buf, NULL, 0, &ack), -EINVAL);
	CHECK_EQ(ack.attr, -1);
}

static void t_ack_nested_offset(void)
{
	struct nlmsghdr *nlh = msg_start(buf2, FAMILY, USBETH_CMD_SET);
	struct nlattr *nest, *inner;
	uint32_t off;

	mnl_attr_put_u32(nlh, USBETH_A_IFINDEX, 1);
	nest = mnl_attr_nest_start(nlh, USBETH_A_BQL_QUEUES);
	mnl_attr_put_u32(nlh, USBETH_A_BQLQ_LIMIT, 1);
	inner = (struct nlattr *)mnl_nlmsg_get_payload_tail(nlh);
	mnl_attr_put_u32(nlh, USBETH_A_BQLQ_HOLD_TIME, 1);
	mnl_attr_nest_end(nlh, nest);
	mnl_attr_put_u32(nlh, USBETH_A_QMULT, 1);
	off = (uint32_t)((unsigned char *)inner - buf2);
	CHECK_EQ(usbeth_attr_at_offset(nlh, nlh->nlmsg_len, off),
		 USBETH_A_BQL_QUEUES);
	CHECK_EQ(usbeth_attr_at_offset(nlh, nlh->nlmsg_len,
				       (uint32_t)((unsigned char *)nest - buf2)),
		 USBETH_A_BQL_QUEUES);
	CHECK_EQ(usbeth_attr_at_offset(nlh, nlh->nlmsg_len,
				       nlh->nlmsg_len - 8), USBETH_A_QMULT);
	/* a broken request maps nothing past the break */
	nest->nla_len = 2;
	CHECK_EQ(usbeth_attr_at_offset(nlh, nlh->nlmsg_len, off), -1);
}

static void t_ack_plain_and_miss(void)
{
	size_t oq = 0, ob = 0;
	int len = sample_req(buf2, &oq, &ob);
	const struct nlmsghdr *req = (const struct nlmsghdr *)buf2;
	struct usbeth_ack ack = { 0 };

	error_msg(buf, req, 0, true, NULL, -1, -1);
	CHECK_EQ(ack_of((struct nlmsghdr *)buf, req, (size_t)len, &ack), 0);
	CHECK(ack.error == 0 && ack.attr == -1 && !ack.msg[0] &&
	      ack.offset == -1 && ack.miss_attr == -1);
	/* a warning on success */
	error_msg(buf, req, 0, true, "nothing changed", -1, -1);
	CHECK_EQ(ack_of((struct nlmsghdr *)buf, req, (size_t)len, &ack), 0);
	CHECK_STR(ack.msg, "nothing changed");
	/* uncapped, no TLVs */
	error_msg(buf, req, -EPERM, false, NULL, -1, -1);
	CHECK_EQ(ack_of((struct nlmsghdr *)buf, req, (size_t)len, &ack),
		 -EPERM);
	CHECK_STR(ack.msg, "");
	/* missing attribute */
	error_msg(buf, req, -EINVAL, true, "Missing attribute", -1,
		  USBETH_A_IFINDEX);
	CHECK_EQ(ack_of((struct nlmsghdr *)buf, req, (size_t)len, &ack),
		 -EINVAL);
	CHECK_EQ(ack.miss_attr, USBETH_A_IFINDEX);
	CHECK_EQ(ack.attr, -1);
}

static void t_ack_done(void)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct usbeth_ack ack = { 0 };
	int *err;

	nlh->nlmsg_type = NLMSG_DONE;
	nlh->nlmsg_flags = NLM_F_MULTI;
	err = mnl_nlmsg_put_extra_header(nlh, sizeof(int));
	*err = 0;
	CHECK_EQ(ack_of(nlh, NULL, 0, &ack), 0);
	*err = -EMSGSIZE;
	nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
	mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, "dump failed");
	CHECK_EQ(ack_of(nlh, NULL, 0, &ack), -EMSGSIZE);
	CHECK_STR(ack.msg, "dump failed");
	/* an old-style DONE without the error int */
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = NLMSG_DONE;
	CHECK_EQ(ack_of(nlh, NULL, 0, &ack), 0);
}

static void t_ack_garbage(void)
{
	size_t oq = 0, ob = 0;
	int len = sample_req(buf2, &oq, &ob);
	const struct nlmsghdr *req = (const struct nlmsghdr *)buf2;
	struct nlmsghdr *nlh;
	struct nlmsgerr *e;
	struct nlattr *a;
	struct usbeth_ack ack = { 0 };

	/* too short for struct nlmsgerr */
	nlh = error_msg(buf, req, -EINVAL, true, NULL, -1, -1);
	nlh->nlmsg_len = MNL_NLMSG_HDRLEN + 8;
	CHECK_EQ(ack_of(nlh, req, (size_t)len, &ack), -EBADMSG);
	nlh->nlmsg_len = 4;
	CHECK_EQ(ack_of(nlh, req, (size_t)len, &ack), -EBADMSG);
	/* not an ack at all */
	nlh = msg_start(buf, FAMILY, USBETH_CMD_GET);
	CHECK_EQ(ack_of(nlh, req, (size_t)len, &ack), -EBADMSG);

	/* errors that are no errno */
	error_msg(buf, req, 5, true, NULL, -1, -1);
	CHECK_EQ(ack_of((struct nlmsghdr *)buf, req, (size_t)len, &ack),
		 -EPROTO);
	error_msg(buf, req, INT_MIN, true, NULL, -1, -1);
	CHECK_EQ(ack_of((struct nlmsghdr *)buf, req, (size_t)len, &ack),
		 -EPROTO);

	/* message without NUL and offset of the wrong size are ignored, the
	 * error stands
	 */
	nlh = error_msg(buf, req, -ERANGE, true, NULL, -1, -1);
	nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
	put_raw(nlh, NLMSGERR_ATTR_MSG, "abc", 3);
	put_raw(nlh, NLMSGERR_ATTR_OFFS, "\1\0", 2);
	put_raw(nlh, NLMSGERR_ATTR_MISS_TYPE, "\1\0\0\0\0\0\0\0", 8);
	CHECK_EQ(ack_of(nlh, req, (size_t)len, &ack), -ERANGE);
	CHECK(!ack.msg[0] && ack.attr == -1 && ack.offset == -1 &&
	      ack.miss_attr == -1);

	/* a TLV overrunning the message: what came before stays */
	nlh = error_msg(buf, req, -ERANGE, true, "first", -1, -1);
	a = (struct nlattr *)mnl_nlmsg_get_payload_tail(nlh);
	mnl_attr_put_u32(nlh, NLMSGERR_ATTR_OFFS, (uint32_t)oq);
	a->nla_len = 1000;
	CHECK_EQ(ack_of(nlh, req, (size_t)len, &ack), -ERANGE);
	CHECK_STR(ack.msg, "first");
	CHECK_EQ(ack.attr, -1);

	/* uncapped, with an embedded length that points past the end */
	nlh = error_msg(buf, req, -EINVAL, false, "m", (int64_t)oq, -1);
	e = mnl_nlmsg_get_payload(nlh);
	e->msg.nlmsg_len = 0xfffffff0;
	CHECK_EQ(ack_of(nlh, req, (size_t)len, &ack), -EINVAL);
	CHECK_STR(ack.msg, "");
	e->msg.nlmsg_len = 3;
	CHECK_EQ(ack_of(nlh, req, (size_t)len, &ack), -EINVAL);
	CHECK_STR(ack.msg, "");

	/* an overlong message is truncated, not overflowed */
	{
		char big[1000];

		memset(big, 'm', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		error_msg(buf, req, -EINVAL, true, big, -1, -1);
		CHECK_EQ(ack_of((struct nlmsghdr *)buf, req, (size_t)len,
				&ack), -EINVAL);
		CHECK_EQ(strlen(ack.msg), USBETH_ERRMSG_LEN - 1);
	}
}

/* -------------------------------------------------------------- family -- */

static struct nlmsghdr *family_reply(void *b, const char *name, bool id,
				     const char *const *grps, int ngrps)
{
	struct nlmsghdr *nlh = msg_start(b, GENL_ID_CTRL, CTRL_CMD_NEWFAMILY);
	struct nlattr *gs, *g;
	int i;

	if (name)
		mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, name);
	if (id)
		mnl_attr_put_u16(nlh, CTRL_ATTR_FAMILY_ID, 0x22);
	mnl_attr_put_u32(nlh, CTRL_ATTR_VERSION, 1);
	mnl_attr_put_u32(nlh, CTRL_ATTR_HDRSIZE, 0);
	if (!ngrps)
		return nlh;
	gs = mnl_attr_nest_start(nlh, CTRL_ATTR_MCAST_GROUPS);
	for (i = 0; i < ngrps; i++) {
		g = mnl_attr_nest_start(nlh, (uint16_t)(i + 1));
		mnl_attr_put_u32(nlh, CTRL_ATTR_MCAST_GRP_ID, 10 + (uint32_t)i);
		mnl_attr_put_strz(nlh, CTRL_ATTR_MCAST_GRP_NAME, grps[i]);
		mnl_attr_nest_end(nlh, g);
	}
	mnl_attr_nest_end(nlh, gs);
	return nlh;
}

static int fam_of(const struct nlmsghdr *nlh, struct usbeth_family *f)
{
	struct nlmsghdr *c = exact(nlh);
	int ret = usbeth_parse_family(c, f);

	free(c);
	return ret;
}

static void t_family(void)
{
	static const char *const grps[] = { "config", "monitor", "x" };
	struct usbeth_family f;
	struct seen s;
	int len;

	CHECK_EQ(fam_of(family_reply(buf, "usbeth", true, grps, 3), &f), 0);
	CHECK_EQ(f.id, 0x22);
	CHECK_EQ(f.version, 1);
	CHECK_EQ(f.mcgrp, 11);
	CHECK_EQ(fam_of(family_reply(buf, "usbeth", true, grps, 1), &f), 0);
	CHECK_EQ(f.mcgrp, 0);
	CHECK_EQ(fam_of(family_reply(buf, "usbeth", false, grps, 3), &f),
		 -EBADMSG);
	CHECK_EQ(fam_of(family_reply(buf, "nl80211", true, grps, 3), &f),
		 -EPROTO);
	CHECK_EQ(f.id, 0);

	len = usbeth_build_family_req(buf, sizeof(buf));
	CHECK(len > 0);
	memset(&s, 0, sizeof(s));
	CHECK_EQ(((struct nlmsghdr *)buf)->nlmsg_type, GENL_ID_CTRL);
	CHECK(usbeth_attr_walk(buf + 20, (size_t)len - 20, seen_attr, &s) == 0);
	CHECK(s.n == 1 && s.type[0] == CTRL_ATTR_FAMILY_NAME);
	CHECK_STR(s.str[0], "usbeth");
}

/* ----------------------------------------------------------------- txn -- */

struct cb_log {
	int n;
	int ifindex[8];
	int fail_at;
};

static int log_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct cb_log *l = arg;
	struct usbeth_dev d;
	int ret = usbeth_parse_dev(nlh, &d);

	if (ret < 0)
		return ret;
	if (l->n < 8)
		l->ifindex[l->n] = (int)d.ifindex;
	l->n++;
	usbeth_dev_free(&d);
	if (l->fail_at && l->n == l->fail_at)
		return -ENOMEM;
	return 0;
}

/* Appends a device message to a datagram under construction. */
static size_t add_dev(unsigned char *dg, size_t at, uint32_t seq,
		      uint16_t flags, uint8_t cmd, uint32_t ifindex)
{
	struct nlmsghdr *nlh = msg_start(dg + at, FAMILY, cmd);

	nlh->nlmsg_seq = seq;
	nlh->nlmsg_flags = flags;
	mnl_attr_put_u32(nlh, USBETH_A_IFINDEX, ifindex);
	mnl_attr_put_strz(nlh, USBETH_A_IFNAME, "x");
	return at + MNL_ALIGN(nlh->nlmsg_len);
}

static size_t add_done(unsigned char *dg, size_t at, uint32_t seq, int err)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(dg + at);
	int *e;

	nlh->nlmsg_type = NLMSG_DONE;
	nlh->nlmsg_flags = NLM_F_MULTI;
	nlh->nlmsg_seq = seq;
	e = mnl_nlmsg_put_extra_header(nlh, sizeof(int));
	*e = err;
	return at + nlh->nlmsg_len;
}

static int feed(struct usbeth_txn *t, const unsigned char *dg, size_t len)
{
	unsigned char *c = malloc(len ? len : 1);
	int ret;

	memcpy(c, dg, len);
	ret = usbeth_txn_feed(t, c, len);
	free(c);
	return ret;
}

static void t_txn_dump(void)
{
	struct cb_log log = { 0 };
	struct usbeth_ack ack = { 0 };
	struct usbeth_txn t = {
		.seq = 100, .type = FAMILY, .cb = log_cb, .arg = &log,
		.ack = &ack,
	};
	size_t n = 0;

	/* leftovers of an older request, then two replies */
	n = add_dev(buf, n, 99, NLM_F_MULTI, USBETH_CMD_GET, 1);
	n = add_done(buf, n, 99, 0);
	n = add_dev(buf, n, 100, NLM_F_MULTI, USBETH_CMD_GET, 2);
	n = add_dev(buf, n, 100, NLM_F_MULTI, USBETH_CMD_GET, 3);
	CHECK_EQ(feed(&t, buf, n), 0);
	CHECK(!t.intr);
	/* second datagram: interrupted dump, a message of another type, a
	 * notification of seq 0 (no echo: ignored), then DONE
	 */
	n = add_dev(buf, 0, 100, NLM_F_MULTI | NLM_F_DUMP_INTR,
		    USBETH_CMD_GET, 4);
	n = add_dev(buf, n, 0, 0, USBETH_CMD_CHANGE_NTF, 5);
	{
		struct nlmsghdr *o = msg_start(buf + n, FAMILY + 1, 1);

		o->nlmsg_seq = 100;
		n += o->nlmsg_len;
	}
	n = add_done(buf, n, 100, 0);
	n = add_dev(buf, n, 100, NLM_F_MULTI, USBETH_CMD_GET, 6);
	CHECK_EQ(feed(&t, buf, n), 1);
	CHECK_EQ(t.result, 0);
	CHECK(t.intr);
	CHECK_EQ(log.n, 3);
	CHECK(log.ifindex[0] == 2 && log.ifindex[1] == 3 &&
	      log.ifindex[2] == 4);

	/* a truncated datagram is not read past its end */
	memset(&t, 0, sizeof(t));
	t.seq = 100;
	t.type = FAMILY;
	n = add_dev(buf, 0, 100, 0, USBETH_CMD_GET, 2);
	CHECK_EQ(feed(&t, buf, n - 3), 0);
	CHECK_EQ(feed(&t, buf, 3), 0);
}

static void t_txn_errors(void)
{
	size_t oq = 0, ob = 0;
	int len = sample_req(buf2, &oq, &ob);
	struct nlmsghdr *req = (struct nlmsghdr *)buf2;
	struct cb_log log = { .fail_at = 1 };
	struct usbeth_ack ack = { 0 };
	struct usbeth_txn t = {
		.req = req, .reqlen = (size_t)len, .seq = 55, .type = FAMILY,
		.cb = log_cb, .arg = &log, .ack = &ack,
	};
	size_t n;

	req->nlmsg_seq = 55;
	/* cb fails on the first; the rest is drained; ACK ends it */
	n = add_dev(buf, 0, 55, 0, USBETH_CMD_GET, 1);
	n = add_dev(buf, n, 55, 0, USBETH_CMD_GET, 2);
	error_msg(buf + n, req, 0, true, NULL, -1, -1);
	n += ((struct nlmsghdr *)(buf + n))->nlmsg_len;
	CHECK_EQ(feed(&t, buf, n), 1);
	CHECK_EQ(t.result, -ENOMEM);
	CHECK_EQ(log.n, 1);

	/* the kernel's error wins over the callback's */
	memset(&log, 0, sizeof(log));
	log.fail_at = 1;
	t.cberr = 0;
	n = add_dev(buf, 0, 55, 0, USBETH_CMD_GET, 1);
	error_msg(buf + n, req, -ERANGE, true, "too big", (int64_t)ob, -1);
	n += ((struct nlmsghdr *)(buf + n))->nlmsg_len;
	CHECK_EQ(feed(&t, buf, n), 1);
	CHECK_EQ(t.result, -ERANGE);
	CHECK_STR(ack.msg, "too big");
	CHECK_EQ(ack.attr, USBETH_A_BQL_LIMIT_MAX);

	/* an error for another seq is not ours */
	memset(&log, 0, sizeof(log));
	t.cberr = 0;
	error_msg(buf, req, -EPERM, true, NULL, -1, -1);
	((struct nlmsghdr *)buf)->nlmsg_seq = 54;
	CHECK_EQ(feed(&t, buf, ((struct nlmsghdr *)buf)->nlmsg_len), 0);
	/* a malformed ack ends the exchange with -EBADMSG */
	((struct nlmsghdr *)buf)->nlmsg_seq = 55;
	((struct nlmsghdr *)buf)->nlmsg_len = 20;
	CHECK_EQ(feed(&t, buf, 20), 1);
	CHECK_EQ(t.result, -EBADMSG);
}

static int echo_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct usbeth_dev *echo = arg;
	int cmd = usbeth_parse_dev(nlh, echo);

	return cmd < 0 ? cmd : 0;
}

static void t_txn_echo(void)
{
	struct usbeth_dev echo = { 0 };
	struct usbeth_txn t = {
		.seq = 9, .type = FAMILY, .echo = true, .cb = echo_cb,
		.arg = &echo,
	};
	size_t oq, ob, n;
	int len = sample_req(buf2, &oq, &ob);
	struct nlmsghdr *req = (struct nlmsghdr *)buf2;

	req->nlmsg_seq = 9;
	t.req = req;
	t.reqlen = (size_t)len;
	/* an echoed notification built with seq 0 is taken */
	n = add_dev(buf, 0, 0, 0, USBETH_CMD_CHANGE_NTF, 31);
	error_msg(buf + n, req, 0, true, NULL, -1, -1);
	n += ((struct nlmsghdr *)(buf + n))->nlmsg_len;
	CHECK_EQ(feed(&t, buf, n), 1);
	CHECK_EQ(t.result, 0);
	CHECK_EQ(echo.ifindex, 31);
	usbeth_dev_free(&echo);
}

/* --------------------------------------------------------------- names -- */

static void t_names(void)
{
	char b[64];
	int a;

	for (a = 1; a <= USBETH_A_MAX; a++) {
		const char *name = usbeth_attr_name(a);
		char under[64];
		size_t i;

		CHECK(name != NULL);
		if (!name)
			continue;
		CHECK_EQ(usbeth_attr_parse(name), a);
		snprintf(under, sizeof(under), "%s", name);
		for (i = 0; under[i]; i++)
			if (under[i] == '-')
				under[i] = '_';
		CHECK_EQ(usbeth_attr_parse(under), a);
		CHECK_EQ(usbeth_attr_settable(a),
			 !!(USBETH_SET_ATTRS & USBETH_BIT(a)));
	}
	CHECK(!usbeth_attr_name(0) && !usbeth_attr_name(USBETH_A_MAX + 1) &&
	      !usbeth_attr_name(-1));
	CHECK_STR(usbeth_attr_name(USBETH_A_NTB_RX_MAX), "ntb-rx-max");
	CHECK_STR(usbeth_attr_name(USBETH_A_COAL_TX_USECS), "tx-usecs");
	CHECK_STR(usbeth_attr_name(USBETH_A_COAL_RX_FRAMES), "rx-frames");
	CHECK_STR(usbeth_attr_name(USBETH_A_BQL_QUEUE_INDEX), "bql-queue");
	CHECK_STR(usbeth_attr_name(USBETH_A_BQL_HOLD_TIME), "bql-hold-time");
	CHECK_STR(usbeth_attr_name(USBETH_A_TX_TIMER_USECS), "tx-timer-usecs");
	CHECK_EQ(usbeth_attr_parse("tx_timer_usecs"), USBETH_A_TX_TIMER_USECS);
	CHECK_EQ(usbeth_attr_parse("nope"), -EINVAL);
	CHECK_EQ(usbeth_attr_parse(""), -EINVAL);
	CHECK_EQ(usbeth_attr_parse(NULL), -EINVAL);
	CHECK_EQ(usbeth_attr_parse("qmult-active-and-a-very-long-tail-x"),
		 -EINVAL);
	CHECK(usbeth_attr_settable(USBETH_A_QMULT));
	CHECK(!usbeth_attr_settable(USBETH_A_QMULT_ACTIVE));
	CHECK(!usbeth_attr_settable(64) && !usbeth_attr_settable(-3));
	for (a = 1; a <= USBETH_A_BQLQ_MAX; a++)
		CHECK(usbeth_bqlq_attr_name(a) != NULL);
	CHECK_STR(usbeth_bqlq_attr_name(USBETH_A_BQLQ_HOLD_TIME), "hold-time");

	CHECK_STR(usbeth_role_name(USBETH_ROLE_OTHER), "other");
	CHECK_STR(usbeth_role_name(USBETH_ROLE_USB_HOST), "usb-host");
	CHECK_STR(usbeth_role_name(USBETH_ROLE_USB_GADGET), "usb-gadget");
	CHECK(!usbeth_role_name(USBETH_ROLE_MAX + 1) &&
	      !usbeth_role_name(UINT32_MAX));
	CHECK_EQ(usbeth_role_parse("usb-gadget"), USBETH_ROLE_USB_GADGET);
	CHECK_EQ(usbeth_role_parse("gadget"), -EINVAL);
	CHECK_STR(usbeth_speed_name(USBETH_USB_SPEED_UNKNOWN), "unknown");
	CHECK_STR(usbeth_speed_name(USBETH_USB_SPEED_WIRELESS), "wireless");
	CHECK_STR(usbeth_speed_name(USBETH_USB_SPEED_SUPER_PLUS),
		  "super-plus");
	CHECK(!usbeth_speed_name(USBETH_USB_SPEED_MAX + 1));
	CHECK_EQ(usbeth_speed_parse("high"), USBETH_USB_SPEED_HIGH);
	CHECK_STR(usbeth_bql_accounting_name(USBETH_BQL_ACCOUNTING_NONE),
		  "none");
	CHECK(!usbeth_bql_accounting_name(USBETH_BQL_ACCOUNTING_MAX + 1));
	CHECK_EQ(usbeth_bql_accounting_parse("active"),
		 USBETH_BQL_ACCOUNTING_ACTIVE);
	CHECK_STR(usbeth_cmd_name(USBETH_CMD_CHANGE_NTF), "change");
	CHECK(!usbeth_cmd_name(0) && !usbeth_cmd_name(USBETH_CMD_MAX + 1));

	CHECK_STR(usbeth_cap_name(USBETH_CAP_QMULT), "qmult");
	CHECK_STR(usbeth_cap_name(USBETH_CAP_COAL_RX_FRAMES), "rx-frames");
	CHECK_STR(usbeth_cap_name(USBETH_CAP_BQL), "bql");
	CHECK(!usbeth_cap_name(0) && !usbeth_cap_name(3) &&
	      !usbeth_cap_name(1U << 8) && !usbeth_cap_name(1U << 31));
	CHECK_EQ(usbeth_cap_parse("tx-timer"), USBETH_CAP_TX_TIMER);
	CHECK_EQ(usbeth_cap_parse("tx_timer"), -EINVAL);

	CHECK_EQ(usbeth_caps_format(0x06, b, sizeof(b)), 12);
	CHECK_STR(b, "ntb,tx-timer");
	CHECK_EQ(usbeth_caps_format(0, b, sizeof(b)), 0);
	CHECK_STR(b, "");
	usbeth_caps_format(USBETH_CAP_MASK, b, sizeof(b));
	CHECK_STR(b, "qmult,ntb,tx-timer,tx-usecs,tx-frames,rx-usecs,"
		  "rx-frames,bql");
	usbeth_caps_format(0x80000101, b, sizeof(b));
	CHECK_STR(b, "qmult,0x100,0x80000000");
	/* truncation: NUL-terminated, returns the full length */
	CHECK_EQ(usbeth_caps_format(0x06, b, 5), 12);
	CHECK_STR(b, "ntb,");
	CHECK_EQ(usbeth_caps_format(0x06, NULL, 0), 12);
}

/* ---------------------------------------------------------------- main -- */

/* usbeth_escape(): nothing that moves the cursor, forges a line or
 * reorders text gets through; valid UTF-8 does; never half an escape.
 */
static void t_escape(void)
{
	char out[64];

	usbeth_escape(out, sizeof(out), "usb0: ok \xc3\xa9\xe2\x82\xac");
	CHECK_STR(out, "usb0: ok \xc3\xa9\xe2\x82\xac");
	/* a forged journal line: newline and <0> */
	usbeth_escape(out, sizeof(out), "a\n<0>b\r\x1b[2J\x7f\\");
	CHECK_STR(out, "a\\x0a<0>b\\x0d\\x1b[2J\\x7f\\x5c");
	/* C1 (U+009B CSI), RLO U+202E, LRI U+2066, ALM U+061C */
	usbeth_escape(out, sizeof(out), "\xc2\x9b\xe2\x80\xae\xe2\x81\xa6\xd8\x9c");
	CHECK_STR(out, "\\xc2\\x9b\\xe2\\x80\\xae\\xe2\\x81\\xa6\\xd8\\x9c");
	/* invalid UTF-8, byte by byte: a lone 0xff, a cut sequence */
	usbeth_escape(out, sizeof(out), "\xff\xe2\x82x");
	CHECK_STR(out, "\\xff\\xe2\\x82x");
	/* truncation never splits an escape */
	CHECK_EQ(usbeth_escape(out, 6, "ab\ncd"), 2);
	CHECK_STR(out, "ab");
	CHECK_EQ(usbeth_escape(out, 7, "ab\ncd"), 6);
	CHECK_STR(out, "ab\\x0a");
	CHECK_EQ(usbeth_escape(out, 0, "x"), 0);
}

static const struct unit_test tests[] = {
	{ "parse_full_reply", t_parse_full_reply },
	{ "parse_minimal_presence", t_parse_minimal_presence },
	{ "parse_bql_queues", t_parse_bql_queues },
	{ "parse_too_many_queues", t_parse_too_many_queues },
	{ "parse_wrong_lengths", t_parse_wrong_lengths },
	{ "parse_strings", t_parse_strings },
	{ "parse_truncated", t_parse_truncated },
	{ "parse_truncation_sweep", t_parse_truncation_sweep },
	{ "parse_fuzz", t_parse_fuzz },
	{ "parse_unknown_ignored", t_parse_unknown_ignored },
	{ "build_set_exact", t_build_set_exact },
	{ "build_set_fields", t_build_set_fields },
	{ "build_errors", t_build_errors },
	{ "build_get_dump", t_build_get_dump },
	{ "ack_offset", t_ack_offset },
	{ "ack_nested_offset", t_ack_nested_offset },
	{ "ack_plain_and_miss", t_ack_plain_and_miss },
	{ "ack_done", t_ack_done },
	{ "ack_garbage", t_ack_garbage },
	{ "family", t_family },
	{ "txn_dump", t_txn_dump },
	{ "txn_errors", t_txn_errors },
	{ "txn_echo", t_txn_echo },
	{ "names", t_names },
	{ "escape", t_escape },
};

int main(void)
{
	return unit_run(tests, ARRAY_SIZE(tests));
}
