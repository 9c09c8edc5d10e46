// SPDX-License-Identifier: GPL-2.0
/*
 * genl_fuzz: random and mutated-valid requests to every op of the usbeth
 * family, for the kernel to survive (the VM harness checks its log).
 *
 *   genl_fuzz [-s SEED] [-n COUNT] [-d DEV]...
 *
 * Each request is a GET, dump or SET built from scratch, with device names
 * from -d, small ifindexes and values at and around the policies' limits;
 * a third of them then get random bytes flipped or their attributes cut
 * short, and some get attributes of random types and sizes, random flags
 * (dump, echo) or a random command and version. Libusbeth cannot build
 * these, which is why this is a raw client (test-only, as genl_raw.py).
 *
 * Every request must be answered within 10 s: an ack (error or not) or a
 * dump's end, in well-formed messages. The run fails on a socket error, a
 * malformed reply or a missing answer. Prints
 * "sent=N ok=N refused=N [ERRNO=N]...".
 * Exit: 0 all answered, 1 a request went unanswered or a reply was
 * malformed, 2 usage or system error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/usbeth.h>

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif
#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK 10
#endif

#define MAX_DEVS 16
#define REQ_MAX 1024
#define RECV_LEN (1 << 20)

static uint64_t rng_state;

static uint32_t rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 2685821657736338717ULL) >> 32);
}

static uint32_t below(uint32_t n)
{
	return n ? rnd() % n : 0;
}

struct req {
	unsigned char b[REQ_MAX];
	size_t len;
};

static void put_attr(struct req *r, uint16_t type, const void *data,
		     size_t len)
{
	struct nlattr *a = (struct nlattr *)(r->b + r->len);
	size_t total = NLA_ALIGN(NLA_HDRLEN + len);

	if (r->len + total > sizeof(r->b))
		return;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	a->nla_type = type;
	memcpy(r->b + r->len + NLA_HDRLEN, data, len);
	memset(r->b + r->len + NLA_HDRLEN + len, 0, total - NLA_HDRLEN - len);
	r->len += total;
}

static void put_u32(struct req *r, uint16_t type, uint32_t v)
{
	put_attr(r, type, &v, sizeof(v));
}

/* Values at and around the limits the family's policies and drivers set. */
static uint32_t interesting(void)
{
	static const uint32_t v[] = {
		0, 1, 2, 3, 5, 50, 100, 255, 256, 400, 1000, 1001, 2047, 2048,
		4096, 4097, 8192, 16383, 16384, 16385, 32768, 65535, 65536,
		65537, 4000000, 4000001, 1879048191, 1879048192, 1879048193,
		0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff,
	};

	return below(4) ? v[below(sizeof(v) / sizeof(v[0]))] : rnd();
}

static const uint16_t set_attrs[] = {
	USBETH_A_QMULT, USBETH_A_NTB_RX_MAX, USBETH_A_NTB_TX_MAX,
	USBETH_A_TX_TIMER_USECS, USBETH_A_COAL_TX_USECS,
	USBETH_A_COAL_TX_FRAMES, USBETH_A_COAL_RX_USECS,
	USBETH_A_COAL_RX_FRAMES, USBETH_A_BQL_QUEUE_INDEX,
	USBETH_A_BQL_LIMIT_MIN, USBETH_A_BQL_LIMIT_MAX, USBETH_A_BQL_HOLD_TIME,
};

static const char *devs[MAX_DEVS];
static unsigned int ndevs;

static void put_device(struct req *r)
{
	char name[24];

	switch (below(8)) {
	case 0:
		break;			/* none */
	case 1:				/* both */
		put_u32(r, USBETH_A_IFINDEX, below(12));
		/* fall through */
	case 2:
	case 3:
	case 4:
		if (ndevs && below(4)) {
			put_attr(r, USBETH_A_IFNAME, devs[below(ndevs)],
				 strlen(devs[below(ndevs)]) + 1);
		} else {
			size_t n = below(sizeof(name));
			size_t i;

			for (i = 0; i < n; i++)
				name[i] = (char)(below(4) ? 'a' + below(26) : rnd());
			/* sometimes unterminated, sometimes too long */
			put_attr(r, USBETH_A_IFNAME, name, n);
		}
		break;
	default:
		put_u32(r, USBETH_A_IFINDEX, below(4) ? interesting() : below(12));
	}
}

static void build(struct req *r, uint16_t family, uint32_t seq)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)r->b;
	struct genlmsghdr *g = (struct genlmsghdr *)(r->b + NLMSG_HDRLEN);
	unsigned int i, n;

	memset(r->b, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	r->len = NLMSG_HDRLEN + GENL_HDRLEN;
	nlh->nlmsg_type = family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	g->version = below(16) ? USBETH_GENL_VERSION : (uint8_t)rnd();

	switch (below(10)) {
	case 0:				/* a dump */
		g->cmd = USBETH_CMD_GET;
		nlh->nlmsg_flags |= NLM_F_DUMP;
		if (below(4) == 0)
			put_device(r);
		break;
	case 1:
	case 2:
		g->cmd = USBETH_CMD_GET;
		put_device(r);
		break;
	case 3:				/* anything at all */
		g->cmd = (uint8_t)rnd();
		if (below(2))
			nlh->nlmsg_flags |= NLM_F_DUMP;
		put_device(r);
		break;
	default:
		g->cmd = USBETH_CMD_SET;
		if (below(3) == 0)
			nlh->nlmsg_flags |= NLM_F_ECHO;
		put_device(r);
		n = below(5);
		for (i = 0; i < n; i++)
			put_u32(r, set_attrs[below(sizeof(set_attrs) /
						   sizeof(set_attrs[0]))],
				interesting());
	}
	/* attributes of random types, sizes and flag bits */
	n = below(4) == 0 ? below(5) : 0;
	for (i = 0; i < n; i++) {
		unsigned char junk[40];
		size_t len = below(sizeof(junk));
		size_t k;

		for (k = 0; k < len; k++)
			junk[k] = (unsigned char)rnd();
		put_attr(r, (uint16_t)(below(USBETH_A_MAX + 4) |
				       (below(8) ? 0 : NLA_F_NESTED)), junk, len);
	}
	/* a third: bytes flipped past the headers, or the tail cut */
	if (below(3) == 0 && r->len > NLMSG_HDRLEN + GENL_HDRLEN) {
		size_t body = r->len - NLMSG_HDRLEN - GENL_HDRLEN;

		if (below(2)) {
			n = 1 + below(4);
			for (i = 0; i < n; i++)
				r->b[NLMSG_HDRLEN + GENL_HDRLEN + below((uint32_t)body)] ^=
					(unsigned char)(1 + below(255));
		} else {
			r->len -= 1 + below((uint32_t)body);
		}
	}
	nlh->nlmsg_len = (uint32_t)r->len;
}

static int resolve_family(int fd, uint16_t *id)
{
	struct req r = { .len = NLMSG_HDRLEN + GENL_HDRLEN };
	struct nlmsghdr *nlh = (struct nlmsghdr *)r.b;
	struct genlmsghdr *g = (struct genlmsghdr *)(r.b + NLMSG_HDRLEN);
	static unsigned char buf[8192];
	ssize_t n;

	nlh->nlmsg_type = GENL_ID_CTRL;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = 1;
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	put_attr(&r, CTRL_ATTR_FAMILY_NAME, USBETH_GENL_NAME,
		 sizeof(USBETH_GENL_NAME));
	nlh->nlmsg_len = (uint32_t)r.len;
	if (send(fd, r.b, r.len, 0) < 0)
		return -errno;
	n = recv(fd, buf, sizeof(buf), 0);
	if (n < 0)
		return -errno;
	nlh = (struct nlmsghdr *)buf;
	if (n < NLMSG_HDRLEN || nlh->nlmsg_type != GENL_ID_CTRL)
		return -ENOENT;
	{
		unsigned char *p = buf + NLMSG_HDRLEN + GENL_HDRLEN;
		unsigned char *end = buf + (nlh->nlmsg_len < (size_t)n ?
					    nlh->nlmsg_len : (size_t)n);

		while (p + NLA_HDRLEN <= end) {
			struct nlattr *a = (struct nlattr *)p;

			if (a->nla_len < NLA_HDRLEN || p + a->nla_len > end)
				break;
			if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID &&
			    a->nla_len >= NLA_HDRLEN + 2) {
				memcpy(id, p + NLA_HDRLEN, sizeof(*id));
				return 0;
			}
			p += NLA_ALIGN(a->nla_len);
		}
	}
	return -ENOENT;
}

/*
 * Reads until the answer to seq: 0 with *err the ack's error (0 for a
 * dump's end), -1 on a malformed or missing answer.
 */
static int answer(int fd, uint32_t seq, unsigned char *buf, int *err)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;
		size_t off = 0;

		if (poll(&p, 1, 10000) <= 0) {
			fprintf(stderr, "genl_fuzz: no answer to request %u in 10 s\n", seq);
			return -1;
		}
		n = recv(fd, buf, RECV_LEN, 0);
		if (n < 0) {
			fprintf(stderr, "genl_fuzz: recv: %s\n", strerror(errno));
			return -1;
		}
		while (off < (size_t)n) {
			struct nlmsghdr *nlh = (struct nlmsghdr *)(buf + off);

			if ((size_t)n - off < NLMSG_HDRLEN ||
			    nlh->nlmsg_len < NLMSG_HDRLEN ||
			    nlh->nlmsg_len > (size_t)n - off) {
				fprintf(stderr, "genl_fuzz: malformed reply to request %u\n", seq);
				return -1;
			}
			if (nlh->nlmsg_seq == seq &&
			    (nlh->nlmsg_type == NLMSG_ERROR ||
			     nlh->nlmsg_type == NLMSG_DONE)) {
				if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(int)) {
					fprintf(stderr, "genl_fuzz: short ack to request %u\n", seq);
					return -1;
				}
				memcpy(err, NLMSG_DATA(nlh), sizeof(*err));
				return 0;
			}
			off += NLMSG_ALIGN(nlh->nlmsg_len);
		}
	}
}

int main(int argc, char **argv)
{
	unsigned long count = 100000, i, ok = 0, refused = 0;
	unsigned long by_errno[256] = { 0 };
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	unsigned char *buf;
	uint64_t seed = (uint64_t)time(NULL);
	uint16_t family = 0;
	int fd, one = 1, opt, e;

	while ((opt = getopt(argc, argv, "s:n:d:")) != -1) {
		switch (opt) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			count = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			if (ndevs < MAX_DEVS && strlen(optarg) < 16)
				devs[ndevs++] = optarg;
			break;
		default:
			fprintf(stderr, "usage: genl_fuzz [-s SEED] [-n COUNT] [-d DEV]...\n");
			return 2;
		}
	}
	rng_state = seed ? seed : 1;
	printf("seed=%llu\n", (unsigned long long)seed);
	fflush(stdout);
	buf = malloc(RECV_LEN);
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (!buf || fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("genl_fuzz: socket");
		return 2;
	}
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	e = resolve_family(fd, &family);
	if (e) {
		fprintf(stderr, "genl_fuzz: family %s: %s\n", USBETH_GENL_NAME,
			strerror(-e));
		return 2;
	}
	for (i = 0; i < count; i++) {
		struct req r;
		uint32_t seq = (uint32_t)(i + 2);

		build(&r, family, seq);
		if (send(fd, r.b, r.len, 0) < 0) {
			fprintf(stderr, "genl_fuzz: send: %s\n", strerror(errno));
			return 2;
		}
		if (answer(fd, seq, buf, &e))
			return 1;
		if (e) {
			refused++;
			by_errno[-e & 0xff]++;
		} else {
			ok++;
		}
	}
	printf("sent=%lu ok=%lu refused=%lu", count, ok, refused);
	for (i = 0; i < 256; i++)
		if (by_errno[i])
			printf(" %s=%lu", strerrorname_np((int)i) ?
			       strerrorname_np((int)i) : "?", by_errno[i]);
	putchar('\n');
	free(buf);
	close(fd);
	return 0;
}
