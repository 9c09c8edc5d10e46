// SPDX-License-Identifier: GPL-2.0
/*
 * usbethd's rtnetlink event source: RTM_NEWLINK and RTM_DELLINK of the
 * netns, for what the usbeth family does not announce: a gadget's carrier
 * coming up (a connect), renames (udev's), netdevs not on USB coming and
 * going. What a message tells of a device with a record goes to the engine
 * (renamed, a gadget's carrier, dropped); a device to evaluate goes to the
 * loop as a GET to send (EV_GET). See daemon.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>
#include <net/if.h>

#include "daemon.h"

#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP 0x10000	/* linux/if.h: the carrier */
#endif

/* What link_cb works on: the source, and the queue of what a message asks
 * of the loop.
 */
struct link_ctx {
	struct links *l;
	struct evq *q;
	bool rest;		/* link_cb: link_rest to follow */
};

static void ask_get(struct evq *q, uint32_t ifindex)
{
	evq_push(q, EV_GET)->ifindex = ifindex;	/* see gets_read */
}

enum { NAME_SAME, NAME_NEW, NAME_RENAMED };

/* Notes ifindex's name: NAME_NEW (not known before), NAME_RENAMED (known
 * by another name), NAME_SAME; -1 when there is no memory for it.
 */
static int name_note(struct links *l, uint32_t ifindex, const char *name)
{
	struct name_ent *n;
	size_t i;

	for (i = 0; i < l->nnames; i++) {
		n = &l->names[i];
		if (n->ifindex != ifindex)
			continue;
		if (!strcmp(n->name, name))
			return NAME_SAME;
		snprintf(n->name, sizeof(n->name), "%s", name);
		return NAME_RENAMED;
	}
	if (l->nnames == l->cap_names) {
		size_t cap = l->cap_names ? l->cap_names * 2 : 64;

		n = realloc(l->names, cap * sizeof(*n));
		if (!n)
			return -1;
		l->names = n;
		l->cap_names = cap;
	}
	n = &l->names[l->nnames++];
	n->ifindex = ifindex;
	snprintf(n->name, sizeof(n->name), "%s", name);
	return NAME_NEW;
}

static void name_forget(struct links *l, uint32_t ifindex)
{
	size_t i;

	for (i = 0; i < l->nnames; i++)
		if (l->names[i].ifindex == ifindex) {
			l->names[i] = l->names[--l->nnames];
			return;
		}
}

int links_name_note(struct links *l, uint32_t ifindex, const char *name)
{
	return name_note(l, ifindex, name) < 0 ? -1 : 0;
}

void links_names_clear(struct links *l)
{
	l->nnames = 0;
}

/*
 * The usbeth family announces only USB netdevs. One not on USB (matched by
 * a role "other" profile) is looked at when it appears in the netns
 * (registered or moved in: RTM_NEWLINK with every change bit set), and its
 * record dropped when it goes (RTM_DELLINK).
 */
static void other_link(struct link_ctx *c, const struct nlmsghdr *nlh,
		       const struct ifinfomsg *ifi, struct rec *r)
{
	if (nlh->nlmsg_type == RTM_DELLINK) {
		if (r && !usbeth_role_is_usb(r->role))
			engine_drop(c->l->e, r->ifindex);
		return;
	}
	if (r || !c->l->other || ifi->ifi_change != ~0U)
		return;
	ask_get(c->q, (uint32_t)ifi->ifi_index);
}

/* The IFLA_IFNAME of a link message (a name a netdev can have), or NULL. */
static const char *link_name(const struct nlmsghdr *nlh)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct ifinfomsg)) {
		const char *name;

		if (mnl_attr_get_type(a) != IFLA_IFNAME ||
		    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
			continue;
		name = mnl_attr_get_str(a);
		return name[0] && strlen(name) < IF_NAMESIZE ? name : NULL;
	}
	return NULL;
}

/*
 * udev renames a USB NIC (Debian: enx<MAC>, 73-usb-net-by-mac.link) right
 * after the NEW that named it usb0: the record follows, and the device is
 * evaluated again, as a profile may match the new name ("ifname" globs).
 */
static bool renamed(struct link_ctx *c, const char *name, struct rec *r)
{
	if (!name || !strcmp(name, r->ifname))
		return false;
	engine_rename(c->l->e, r->ifindex, name);
	ask_get(c->q, r->ifindex);
	return true;
}

/*
 * A netdev without a record renamed (udev's eth0 -> enp0s3): a role
 * "other" profile may match the new name ("ifname" globs), so it is
 * evaluated again. A USB one too: its NEW named it before the rename.
 * The names are known from the last dump and rtnetlink since.
 */
static void other_renamed(struct link_ctx *c, const char *name,
			  const struct ifinfomsg *ifi, const struct rec *r)
{
	int how;

	if (!name)
		return;
	how = name_note(c->l, (uint32_t)ifi->ifi_index, name);
	if (how < 0) {
		ulog(LOG_P_WARNING, "%s: out of memory: resync", name);
		evq_push(c->q, EV_RESYNC_SOON);
		return;
	}
	if (how == NAME_RENAMED && !r && ifi->ifi_change != ~0U) {
		ulog(LOG_P_DEBUG, "%s: renamed (ifindex %u, no record): "
		     "evaluating it", name, ifi->ifi_index);
		ask_get(c->q, (uint32_t)ifi->ifi_index);
	}
}

/*
 * A link message, first part: a netdev not on USB coming or going. An
 * RTM_NEWLINK goes on to link_rest, once the loop has done what this part
 * asked for (a GET: its failure is logged before what link_rest logs).
 */
static int link_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct link_ctx *c = arg;
	const struct ifinfomsg *ifi;
	struct rec *r;

	if ((nlh->nlmsg_type != RTM_NEWLINK &&
	     nlh->nlmsg_type != RTM_DELLINK) ||
	    nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
		return MNL_CB_OK;
	ifi = mnl_nlmsg_get_payload(nlh);
	r = engine_find(c->l->e, (uint32_t)ifi->ifi_index);
	other_link(c, nlh, ifi, r);
	if (nlh->nlmsg_type != RTM_NEWLINK) {
		name_forget(c->l, (uint32_t)ifi->ifi_index);
		return MNL_CB_OK;
	}
	c->rest = true;
	return MNL_CB_OK;
}

/*
 * An RTM_NEWLINK, second part: renames, and a gadget's carrier. A gadget
 * netdev outlives its UDC binding: no NEW comes when the cable goes in
 * again, yet the speed it will run at is known only while bound. So a
 * gadget is evaluated again when its carrier comes up (the connect); what
 * it sets (qmult) takes effect from the next connect.
 */
static void link_rest(const struct nlmsghdr *nlh, struct link_ctx *c)
{
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	const char *name;
	struct rec *r;
	int up;

	r = engine_find(c->l->e, (uint32_t)ifi->ifi_index);
	name = link_name(nlh);
	other_renamed(c, name, ifi, r);
	if (r && renamed(c, name, r))
		return;
	if (!r || r->role != USBETH_ROLE_USB_GADGET)
		return;
	up = !!(ifi->ifi_flags & IFF_LOWER_UP);
	if (up == r->carrier)
		return;
	r->carrier = up;
	if (!up)
		return;
	ask_get(c->q, r->ifindex);
}

int links_open(struct links *l)
{
	l->sock = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC |
				   SOCK_NONBLOCK);
	if (!l->sock ||
	    mnl_socket_bind(l->sock, RTMGRP_LINK, MNL_SOCKET_AUTOPID) < 0) {
		ulog(LOG_P_ERR, "rtnetlink: %s", strerror(errno));
		return -1;
	}
	return 0;
}

void links_close(struct links *l)
{
	if (l->sock)
		mnl_socket_close(l->sock);
	free(l->names);
	free(l->lbuf);
}

/*
 * Reads the link events queued. A datagram is as large as the kernel
 * made it (a netdev with many altnames or VFs makes RTM_NEWLINKs of
 * several pages): its size is peeked first and the buffer grows to it,
 * so none is truncated and taken for the end of the queue. Only the
 * kernel's are read (another process may send to our port). Its messages
 * are handled one at a time, as mnl_cb_run would (stopping at a control
 * message that ends it), and what one asks of the loop is handed over
 * before the next is looked at (before an RTM_NEWLINK's link_rest too):
 * the loop acts where the source would have.
 */
int links_read(struct links *l, struct evq *q)
{
	struct link_ctx c = { l, q, false };
	int fd = mnl_socket_get_fd(l->sock);

	for (;;) {
		struct sockaddr_nl sa;
		socklen_t salen = sizeof(sa);
		ssize_t n;

		if (l->left) {
			const struct nlmsghdr *nlh =
				(const void *)(l->lbuf + l->pos);

			if (!l->rest) {
				int ret;

				if (!mnl_nlmsg_ok(nlh, l->left)) {
					l->left = 0;
					continue;
				}
				c.rest = false;
				ret = mnl_cb_run(nlh, nlh->nlmsg_len, 0, 0,
						 link_cb, &c);
				if (ret <= MNL_CB_STOP) {	/* it ends */
					l->left = 0;
					continue;
				}
				l->rest = c.rest;
				if (l->rest && q->n)
					return 1;	/* then link_rest */
			}
			if (l->rest) {
				l->rest = false;
				link_rest(nlh, &c);
			}
			l->pos += NLMSG_ALIGN(nlh->nlmsg_len);
			l->left -= (int)NLMSG_ALIGN(nlh->nlmsg_len);
			if (l->left < 0)
				l->left = 0;
			if (q->n)
				return 1;
			continue;
		}
		n = recv(fd, NULL, 0, MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT);
		if (n >= 0 && (size_t)n > l->lbuf_len) {
			size_t len = ((size_t)n + 4095) & ~(size_t)4095;
			char *b = realloc(l->lbuf, len);

			if (b) {
				l->lbuf = b;
				l->lbuf_len = len;
			}
		}
		if (n >= 0)
			n = recvfrom(fd, l->lbuf, l->lbuf_len,
				     MSG_DONTWAIT | MSG_TRUNC,
				     (struct sockaddr *)&sa, &salen);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				ulog(LOG_P_WARNING, "link events lost "
				     "(ENOBUFS): resync");
				evq_push(q, EV_RECOVER)->why = "link overrun";
			}
			return 0;	/* EAGAIN: drained */
		}
		if ((size_t)n > l->lbuf_len) {	/* no memory to grow */
			ulog(LOG_P_WARNING, "a link event of %zd bytes could "
			     "not be read whole: resync", n);
			evq_push(q, EV_RECOVER)->why = "link event too large";
			return 0;
		}
		if (salen != sizeof(sa) || sa.nl_family != AF_NETLINK ||
		    sa.nl_pid != 0)
			continue;	/* not the kernel's */
		l->pos = 0;
		l->left = (int)n;
	}
}

/* Reads and drops every link event queued (see recover()). */
void links_drain(struct links *l)
{
	int fd = mnl_socket_get_fd(l->sock);
	char buf[64];
	int i;

	l->left = 0;	/* what was left of a datagram read */
	l->rest = false;
	/* (bounded: a storm refilling the queue does not hold it for ever) */
	for (i = 0; i < 65536; i++) {
		ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC);

		if (n < 0 && errno != EINTR && errno != ENOBUFS)
			return;	/* EAGAIN: drained */
	}
}
