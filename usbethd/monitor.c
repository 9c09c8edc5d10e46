// SPDX-License-Identifier: GPL-2.0
/*
 * usbethd's usbeth event source: the family's notifications (the monitor,
 * which follows the module being unloaded and loaded again), and the
 * replies of the GETs the loop sends for what rtnetlink told (links.c).
 * NEWs, DELs and replies go to the engine; what the daemon is to do about
 * the rest (an overrun, the module gone or back, a notification skipped)
 * goes to the loop as an event. See daemon.h.
 */
#include <errno.h>
#include <string.h>

#include "daemon.h"

static int mon_cb(void *arg, int cmd, const struct usbeth_dev *dev)
{
	struct monitor *mon = arg;
	struct engine *e = mon->e;

	switch (cmd) {
	case USBETH_CMD_NEW_NTF: {
		uint64_t t0 = now_us(), set0 = e->set_us, t1;

		e->set_first = e->read_done = e->recorded = 0;
		/* a record for it may be there already: loaded from disk,
		 * what --apply recorded before we started
		 */
		engine_apply(e, dev);
		t1 = now_us();
		/* where the time went (usbethd_bench.sh reads it); logged
		 * after the work, not to delay it. Times in us: poll()
		 * returned; from then, the NEW parsed; from then, the
		 * current values read (rtnetlink, ethtool), the originals
		 * written ahead, the first usbeth set begun (0: none of
		 * these), its work done; the time in usbeth sets.
		 */
		ulog(LOG_P_DEBUG, "%s: new (ifindex %u): timing: woken %llu, "
		     "parsed +%llu, read +%llu, recorded +%llu, set +%llu, "
		     "done +%llu, in sets %llu",
		     dev->ifname, dev->ifindex,
		     (unsigned long long)mon->woken,
		     (unsigned long long)(t0 - mon->woken),
		     (unsigned long long)(e->read_done ?
					  e->read_done - t0 : 0),
		     (unsigned long long)(e->recorded ?
					  e->recorded - t0 : 0),
		     (unsigned long long)(e->set_first ?
					  e->set_first - t0 : 0),
		     (unsigned long long)(t1 - t0),
		     (unsigned long long)(e->set_us - set0));
		break;
	}
	case USBETH_CMD_DEL_NTF:
		engine_drop(e, dev->ifindex);
		break;
	default:	/* CHANGE: ours, or someone else's; not fought */
		break;
	}
	return 0;
}

/*
 * A device learnt of from rtnetlink (a gadget connecting, a netdev not on
 * USB appearing) needs a usbeth GET to be evaluated. The GET waits for the
 * rtnl lock in the kernel, which a USB netdev being registered holds for
 * milliseconds (under TCG) -- the very moment the gadget connects, just
 * before the host side's NEW. Waiting for the reply there would hold back
 * that NEW, so the GET is sent and its reply handled from the poll loop
 * (gets_read), after any notification that came meanwhile.
 */
int gets_open(struct gets *g)
{
	int err = usbeth_async_open(&g->a);

	if (err)
		ulog(LOG_P_ERR, "generic netlink: %s", strerror(-err));
	return err;
}

void gets_close(struct gets *g)
{
	usbeth_async_close(g->a);
}

int gets_send(struct gets *g, uint32_t ifindex)
{
	int err = usbeth_async_get(g->a, g->e->u, ifindex);

	if (err)
		/* not lost: a resync evaluates every netdev */
		ulog(LOG_P_WARNING, "ifindex %u: usbeth get: %s: resync",
		     ifindex, strerror(-err));
	return err;
}

static int get_reply(void *arg, const struct usbeth_dev *d)
{
	struct gets *g = arg;

	if (engine_find(g->e, d->ifindex)) {
		/* a gadget connected, or a device renamed */
		ulog(LOG_P_DEBUG, "%s: evaluating again", d->ifname);
		engine_apply(g->e, d);
	} else if (!usbeth_role_is_usb(d->role)) {
		/* a USB one has its NEW */
		ulog(LOG_P_DEBUG, "%s: new (ifindex %u, not on USB)",
		     d->ifname, d->ifindex);
		engine_apply(g->e, d);
	}
	return 0;
}

void gets_read(struct gets *g, struct evq *q)
{
	int err = usbeth_async_read(g->a, g->e->u, get_reply, g);

	if (err == -ENOBUFS) {
		ulog(LOG_P_WARNING, "usbeth get replies lost (ENOBUFS): "
		     "resync");
		evq_push(q, EV_RECOVER)->why = "get overrun";
	} else if (err && err != -EINTR) {
		ulog(LOG_P_WARNING, "usbeth get replies: %s", strerror(-err));
	}
}

/* A GET reply read to be dropped (see gets_drain()). */
static int get_dropped(void *arg, const struct usbeth_dev *d)
{
	(void)arg;
	(void)d;
	return 0;
}

/* Bounds each drain: a storm that refills a socket as fast as it is read
 * does not hold the resync back for ever.
 */
#define DRAIN_ROUNDS 64

void gets_drain(struct gets *g)
{
	int i;

	for (i = 0; i < DRAIN_ROUNDS; i++)
		if (usbeth_async_read(g->a, g->e->u, get_dropped, NULL) !=
		    -ENOBUFS)
			break;
}

/* Subscribes to the family's notifications; 0, or -1 (logged). */
int monitor_open(struct monitor *mon)
{
	int err = usbeth_monitor_open(&mon->m);

	if (err) {
		ulog(LOG_P_ERR, "cannot subscribe to usbeth notifications: %s",
		     strerror(-err));
		return -1;
	}
	return 0;
}

void monitor_close(struct monitor *mon)
{
	if (mon->m)
		usbeth_monitor_close(mon->m);
}

void monitor_drain(struct monitor *mon)
{
	int i, err;

	for (i = 0; i < DRAIN_ROUNDS; i++) {
		err = usbeth_monitor_read(mon->m, NULL, NULL);
		if (err == -EAGAIN || !err)
			break;
	}
}

int monitor_refresh(struct monitor *mon)
{
	return usbeth_monitor_refresh(mon->m);
}

/* Handles every notification queued; what the end of the read asks for
 * in q.
 */
void monitor_read(struct monitor *mon, uint64_t woken, struct evq *q)
{
	int err;

	mon->woken = woken;
	err = usbeth_monitor_read(mon->m, mon_cb, mon);
	if (err == -ENOBUFS) {
		ulog(LOG_P_WARNING, "notifications lost (ENOBUFS): resync");
		evq_push(q, EV_RECOVER)->why = "overrun";
	} else if (err == -ENOLINK) {
		ulog(LOG_P_WARNING, "the usbeth module was unloaded: "
		     "waiting for it to come back");
		evq_push(q, EV_FAMILY_GONE);
	} else if (err == -ERESTART) {
		ulog(LOG_P_NOTICE, "the usbeth module is back: resync");
		evq_push(q, EV_FAMILY_BACK)->why = "module loaded";
	} else if (err == -EBADMSG) {
		ulog(LOG_P_WARNING, "a malformed notification was "
		     "skipped: resync");
		evq_push(q, EV_RESYNC)->why = "bad message";
	} else if (err < 0 && err != -EAGAIN && err != -EINTR) {
		ulog(LOG_P_ERR, "notifications: %s", strerror(-err));
		evq_push(q, EV_FAIL);
	}
}
