// SPDX-License-Identifier: GPL-2.0
/*
 * nlwait: wait for a network device condition without sleeping blindly.
 *
 * Subscribes to rtnetlink link events first, then checks the current state,
 * then re-checks on every event until the condition holds or the time runs
 * out, so no change can slip between the check and the wait.
 *
 *   nlwait [-N NETNS] [-t SECONDS] driver DRIVER   a netdev bound to DRIVER
 *                                                  exists; prints its name
 *   nlwait [-N NETNS] [-t SECONDS] -c COUNT driver DRIVER
 *                                 exactly COUNT netdevs bound to DRIVER
 *                                 exist (0: none); prints their names
 *   nlwait [-N NETNS] [-t SECONDS] usbserial SERIAL  a netdev of a USB device
 *                                 whose serial number is SERIAL exists; prints
 *                                 its name (sysfs as mounted: the initial netns)
 *   nlwait [-N NETNS] [-t SECONDS] exists IFNAME
 *   nlwait [-N NETNS] [-t SECONDS] gone IFNAME
 *   nlwait [-N NETNS] [-t SECONDS] carrier IFNAME  IFF_LOWER_UP is set
 *
 * Exit: 0 condition met, 1 timed out, 2 usage or system error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/ethtool.h>
#include <linux/if.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <libmnl/libmnl.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum cond { C_DRIVER, C_SERIAL, C_EXISTS, C_GONE, C_CARRIER };

#define COUNT_MAX 1024

struct state {
	enum cond cond;
	const char *arg;
	int ioctl_fd;
	bool met;
	char found[IFNAMSIZ];
	long count;			/* -c: -1 when not given */
	long nfound;
	char (*names)[IFNAMSIZ];	/* -c: the netdevs bound to arg */
};

static int link_driver(int fd, const char *ifname, char *drv, size_t len)
{
	struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };
	struct ifreq ifr = { 0 };

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)&info;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
		return -1;
	snprintf(drv, len, "%s", info.driver);
	return 0;
}

/* whether IFNAME's USB device (its interface's parent) has SERIAL */
static bool link_serial(const char *ifname, const char *serial)
{
	char path[PATH_MAX], buf[256];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "/sys/class/net/%s/device/../serial", ifname);
	f = fopen(path, "r");
	if (!f)
		return false;
	ok = fgets(buf, sizeof(buf), f) && (buf[strcspn(buf, "\n")] = 0, !strcmp(buf, serial));
	fclose(f);
	return ok;
}

static int link_cb(const struct nlmsghdr *nlh, void *data)
{
	struct ifinfomsg *ifm = mnl_nlmsg_get_payload(nlh);
	struct state *st = data;
	const struct nlattr *a;
	const char *name = NULL;
	char drv[32];

	if (nlh->nlmsg_type != RTM_NEWLINK)
		return MNL_CB_OK;
	mnl_attr_for_each(a, nlh, sizeof(*ifm)) {
		if (mnl_attr_get_type(a) == IFLA_IFNAME &&
		    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0)
			name = mnl_attr_get_str(a);
	}
	if (!name)
		return MNL_CB_OK;

	switch (st->cond) {
	case C_DRIVER:
		if (st->met)
			break;
		if (link_driver(st->ioctl_fd, name, drv, sizeof(drv)) ||
		    strcmp(drv, st->arg))
			break;
		if (st->count < 0) {
			st->met = true;
			snprintf(st->found, sizeof(st->found), "%s", name);
		} else if (st->nfound < COUNT_MAX) {
			snprintf(st->names[st->nfound], IFNAMSIZ, "%s", name);
			st->nfound++;
		}
		break;
	case C_SERIAL:
		if (!st->met && link_serial(name, st->arg)) {
			st->met = true;
			snprintf(st->found, sizeof(st->found), "%s", name);
		}
		break;
	case C_EXISTS:
	case C_GONE:
		if (!strcmp(name, st->arg))
			st->met = true;	/* "present"; inverted for C_GONE */
		break;
	case C_CARRIER:
		if (!strcmp(name, st->arg) && (ifm->ifi_flags & IFF_LOWER_UP))
			st->met = true;
		break;
	}
	return MNL_CB_OK;
}

/*
 * Dump all links and evaluate the condition over them. A dump the kernel
 * flags as interrupted (NLM_F_DUMP_INTR: links changed meanwhile, libmnl
 * says EINTR) is redone.
 */
static int check_once(struct state *st);

static int check(struct state *st)
{
	int tries, ret = -1;

	for (tries = 0; tries < 100; tries++) {
		ret = check_once(st);
		if (ret == 0 || errno != EINTR)
			break;
	}
	if (ret < 0)
		perror("nlwait: dump");
	return ret;
}

static int check_once(struct state *st)
{
	char buf[MNL_SOCKET_BUFFER_SIZE * 4];
	struct mnl_socket *nl;
	struct nlmsghdr *nlh;
	struct rtgenmsg *rt;
	unsigned int seq = time(NULL), portid;
	int ret;

	nl = mnl_socket_open(NETLINK_ROUTE);
	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		perror("nlwait: netlink");
		return -1;
	}
	portid = mnl_socket_get_portid(nl);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq;
	rt = mnl_nlmsg_put_extra_header(nlh, sizeof(*rt));
	rt->rtgen_family = AF_UNSPEC;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		perror("nlwait: send");
		mnl_socket_close(nl);
		return -1;
	}
	st->met = false;
	st->nfound = 0;
	while ((ret = mnl_socket_recvfrom(nl, buf, sizeof(buf))) > 0) {
		ret = mnl_cb_run(buf, ret, seq, portid, link_cb, st);
		if (ret <= MNL_CB_STOP)
			break;
	}
	if (ret < 0) {
		int err = errno;

		mnl_socket_close(nl);
		errno = err;
		return -1;
	}
	mnl_socket_close(nl);
	if (st->cond == C_GONE)
		st->met = !st->met;
	if (st->count >= 0)
		st->met = st->nfound == st->count;
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: nlwait [-N NETNS] [-t SECONDS] { [-c COUNT] driver DRIVER | usbserial SERIAL | exists IFNAME | gone IFNAME | carrier IFNAME }\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct state st = { .count = -1 };
	const char *netns = NULL;
	double timeout = 10, deadline;
	struct mnl_socket *ev;
	char buf[MNL_SOCKET_BUFFER_SIZE];
	int opt;

	while ((opt = getopt(argc, argv, "N:t:c:h")) != -1) {
		char *end;

		switch (opt) {
		case 'c':
			errno = 0;
			st.count = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || st.count < 0 ||
			    st.count > COUNT_MAX) {
				fprintf(stderr, "nlwait: bad count '%s'\n", optarg);
				return 2;
			}
			break;
		case 'N':
			netns = optarg;
			break;
		case 't':
			errno = 0;
			timeout = strtod(optarg, &end);
			if (errno || *end || timeout <= 0 || timeout > 86400) {
				fprintf(stderr, "nlwait: bad timeout '%s'\n", optarg);
				return 2;
			}
			break;
		default:
			usage();
		}
	}
	if (argc - optind != 2)
		usage();
	if (!strcmp(argv[optind], "driver"))
		st.cond = C_DRIVER;
	else if (!strcmp(argv[optind], "usbserial"))
		st.cond = C_SERIAL;
	else if (!strcmp(argv[optind], "exists"))
		st.cond = C_EXISTS;
	else if (!strcmp(argv[optind], "gone"))
		st.cond = C_GONE;
	else if (!strcmp(argv[optind], "carrier"))
		st.cond = C_CARRIER;
	else
		usage();
	st.arg = argv[optind + 1];
	if (!*st.arg || strlen(st.arg) >= IFNAMSIZ ||
	    (st.count >= 0 && st.cond != C_DRIVER))
		usage();
	if (st.count >= 0) {
		st.names = calloc(COUNT_MAX, IFNAMSIZ);
		if (!st.names) {
			perror("nlwait");
			return 2;
		}
	}

	if (netns) {
		char path[PATH_MAX];
		int fd;

		if (strchr(netns, '/'))
			snprintf(path, sizeof(path), "%s", netns);
		else
			snprintf(path, sizeof(path), "/run/netns/%s", netns);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || setns(fd, CLONE_NEWNET) < 0) {
			fprintf(stderr, "nlwait: netns '%s': %s\n", netns, strerror(errno));
			return 2;
		}
		close(fd);
	}
	st.ioctl_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (st.ioctl_fd < 0) {
		perror("nlwait: socket");
		return 2;
	}

	/* Subscribe before the first check: nothing can be missed. */
	ev = mnl_socket_open(NETLINK_ROUTE);
	if (!ev || mnl_socket_bind(ev, RTMGRP_LINK, MNL_SOCKET_AUTOPID) < 0) {
		perror("nlwait: netlink");
		return 2;
	}
	deadline = now() + timeout;
	for (;;) {
		struct pollfd pfd = { .fd = mnl_socket_get_fd(ev), .events = POLLIN };
		double left;
		int n;

		if (check(&st) < 0)
			return 2;
		if (st.met) {
			long i;

			if (st.count >= 0)
				for (i = 0; i < st.nfound; i++)
					printf("%s\n", st.names[i]);
			else if (st.cond == C_DRIVER || st.cond == C_SERIAL)
				printf("%s\n", st.found);
			return 0;
		}
		left = deadline - now();
		if (left <= 0)
			break;
		n = poll(&pfd, 1, (int)(left * 1000) + 1);
		if (n < 0 && errno != EINTR) {
			perror("nlwait: poll");
			return 2;
		}
		if (n > 0) {
			/* Drain; an overrun (ENOBUFS) only means "re-check". */
			while (recv(pfd.fd, buf, sizeof(buf), MSG_DONTWAIT) > 0 || errno == ENOBUFS)
				;
		}
	}
	if (st.count >= 0)
		fprintf(stderr, "nlwait: timed out after %gs waiting for %ld netdevs of driver %s (%ld there)%s%s\n",
			timeout, st.count, st.arg, st.nfound, netns ? " in netns " : "", netns ? netns : "");
	else
		fprintf(stderr, "nlwait: timed out after %gs waiting for %s %s%s%s\n", timeout,
			argv[optind], st.arg, netns ? " in netns " : "", netns ? netns : "");
	return 1;
}
