/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libusbeth internals shared by its source files and its unit tests; not
 * installed, not part of the API.
 */
#ifndef LIBUSBETH_PRIV_H
#define LIBUSBETH_PRIV_H

#include <stdalign.h>

#include "usbeth.h"

/* Largest request the library builds (a set with every attribute is
 * about 130 bytes).
 */
#define USBETH_REQ_MAX		512

/* The genl controller's answer about our family. */
struct usbeth_family {
	uint16_t id;
	uint32_t version;
	uint32_t mcgrp;		/* "monitor" group id, 0 if none */
};

/* CTRL_CMD_GETFAMILY for USBETH_GENL_NAME, NLM_F_REQUEST | NLM_F_ACK. */
int usbeth_build_family_req(void *buf, size_t len);
/* A CTRL_CMD_NEWFAMILY reply: 0, -EPROTO if it is about another family,
 * -EBADMSG if malformed or without a family id.
 */
int usbeth_parse_family(const struct nlmsghdr *nlh, struct usbeth_family *f);

/* msg.c: *ack as before any answer: no error, no message, no attribute
 * (-1 each).
 */
void usbeth_ack_clear(struct usbeth_ack *ack);

/* Walk the attributes in [data, data + len): calls fn for each; stops at
 * fn's first non-zero return and returns it. -EBADMSG for an attribute
 * whose length is impossible, or trailing bytes too short for one.
 */
int usbeth_attr_walk(const void *data, size_t len,
		     int (*fn)(const struct nlattr *a, void *arg), void *arg);

/*
 * One request/answer exchange, fed datagram by datagram, so the receive
 * logic can be tested without a socket. Messages of another sequence number
 * are left alone (leftovers of an abandoned request), except, with echo,
 * family messages of sequence 0 (an echoed notification). Family messages
 * (nlmsg_type == type) go to cb until NLMSG_ERROR or NLMSG_DONE ends the
 * exchange; cb's first error is kept and the rest of the answer is still
 * consumed, so the socket stays in step.
 */
/* usbeth_msg_cb: see usbeth.h */

struct usbeth_txn {
	/* in */
	const void *req;	/* the request as sent (for extack offsets) */
	size_t reqlen;
	uint32_t seq;
	uint16_t type;		/* netlink type of the answer's data messages */
	bool echo;
	usbeth_msg_cb cb;
	void *arg;
	struct usbeth_ack *ack;	/* filled from the closing ERROR/DONE */
	/* out */
	bool intr;		/* some message had NLM_F_DUMP_INTR */
	int cberr;		/* cb's first error */
	int result;		/* when ended: the kernel's error, else cberr */
};

/* 1: the exchange ended (t->result is set); 0: more datagrams expected. */
int usbeth_txn_feed(struct usbeth_txn *t, const void *buf, size_t len);

/* ------------------------------------------- between the library's files -- */

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

/* transport.c: opens s on bus (extended and capped ACKs, a 1 MiB receive
 * buffer asked for, its growing buffer); 0, or -errno (then teardown).
 */
int usbeth_nl_setup(struct usbeth_nl *s, int bus);
void usbeth_nl_teardown(struct usbeth_nl *s);
/* A new object of size bytes whose first member is a struct usbeth_nl,
 * opened on bus; freed with usbeth_nl_free().
 */
int usbeth_nl_new(void **out, size_t size, int bus);
void usbeth_nl_free(void *p);
/* Sends req (len bytes; its nlmsg_seq is set here) and runs the exchange:
 * messages of type go to cb, until the closing ACK (into *ack).
 */
int usbeth_talk(struct usbeth_nl *s, struct nlmsghdr *nlh, size_t len,
		uint16_t type, bool echo, usbeth_msg_cb cb, void *arg,
		struct usbeth_ack *ack, bool *intr);
/*
 * Reads every datagram queued on s without blocking and gives each message
 * to each(), then each(NULL) at the end of the datagram. 0 once drained,
 * a receive error (-ENOBUFS: the socket overflowed), or each()'s first
 * non-zero return, which stops the reading.
 */
int usbeth_nl_drain(struct usbeth_nl *s,
		    int (*each)(const struct nlmsghdr *nlh, void *arg),
		    void *arg);

#endif /* LIBUSBETH_PRIV_H */
