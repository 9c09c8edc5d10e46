// SPDX-License-Identifier: GPL-2.0
/*
 * usbethd's usbeth event source: the family's notifications (the monitor,
 * which follows the module being unloaded and loaded again), and the
 * replies of the GETs sent for what rtnetlink told (links.c). See
 * daemon.h.
 */
#include <errno.h>
#include <string.h>

#include "daemon.h"

static int mon_cb(void *arg, int cmd, const struct usbeth_dev *dev)
{
	struct daemon *dm = arg;

	switch (cmd) {
	case USBETH_CMD_NEW_NTF: {
		uint64_t t0 = now_us(), set0 = dm->e.set_us, t1;

		dm->e.set_first = dm->e.read_done = dm->e.recorded = 0;
		/* a record for it may be there already: loaded from disk,
		 * what --apply recorded before we started
		 */
		engine_apply(&dm->e, dev);
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
		     (unsigned long long)dm->woken,
		     (unsigned long long)(t0 - dm->woken),
		     (unsigned long long)(dm->e.read_done ?
					  dm->e.read_done - t0 : 0),
		     (unsigned long long)(dm->e.recorded ?
					  dm->e.recorded - t0 : 0),
		     (unsigned long long)(dm->e.set_first ?
					  dm->e.set_first - t0 : 0),
		     (unsigned long long)(t1 - t0),
		     (unsigned long long)(dm->e.set_us - set0));
		break;
	}
	case USBETH_CMD_DEL_NTF:
		engine_drop(&dm->e, dev->ifindex);
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
int gets_open(struct daemon *dm)
{
	int err = usbeth_async_open(&dm->gets);

	if (err)
		ulog(LOG_P_ERR, "generic netlink: %s", strerror(-err));
	return err;
}

void get_async(struct daemon *dm, uint32_t ifindex)
{
	int err = usbeth_async_get(dm->gets, dm->u, ifindex);

	if (err) {
		/* not lost: a resync evaluates every netdev */
		ulog(LOG_P_WARNING, "ifindex %u: usbeth get: %s: resync",
		     ifindex, strerror(-err));
		if (!dm->retry_at)
			dm->retry_at = now_us();
	}
}

static int get_reply(void *arg, const struct usbeth_dev *d)
{
	struct daemon *dm = arg;

	if (engine_find(&dm->e, d->ifindex)) {
		/* a gadget connected, or a device renamed */
		ulog(LOG_P_DEBUG, "%s: evaluating again", d->ifname);
		engine_apply(&dm->e, d);
	} else if (!usbeth_role_is_usb(d->role)) {
		/* a USB one has its NEW */
		ulog(LOG_P_DEBUG, "%s: new (ifindex %u, not on USB)",
		     d->ifname, d->ifindex);
		engine_apply(&dm->e, d);
	}
	return 0;
}

void gets_read(struct daemon *dm)
{
	int err = usbeth_async_read(dm->gets, dm->u, get_reply, dm);

	if (err == -ENOBUFS) {
		ulog(LOG_P_WARNING, "usbeth get replies lost (ENOBUFS): "
		     "resync");
		recover(dm, "get overrun");
	} else if (err && err != -EINTR) {
		ulog(LOG_P_WARNING, "usbeth get replies: %s", strerror(-err));
	}
}

/*
 * The module was loaded again (the monitor saw nlctrl's NEWFAMILY and
 * joined the new group), or an overrun may have hidden that: the request
 * handle may have the old family id, and the devices were not announced
 * meanwhile. Records stay (by ifindex): a device that went meanwhile is
 * pruned by the resync. A handle that cannot be opened is tried again
 * every 100 ms (said once).
 */
int family_back(struct daemon *dm, const char *why)
{
	struct usbeth *u;
	int err = usbeth_open(&u);

	if (err) {
		if (!dm->reopen_said)
			ulog(LOG_P_ERR, "cannot open the usbeth family again: "
			     "%s: retrying every 100 ms", strerror(-err));
		dm->reopen_said = true;
		dm->reopen = true;
		dm->retry_at = now_us() + 100000;
		return -1;
	}
	if (dm->reopen_said)
		ulog(LOG_P_NOTICE, "the usbeth family is open again");
	dm->reopen = dm->reopen_said = false;
	dm->retry_at = 0;
	usbeth_close(dm->u);
	dm->u = u;
	dm->e.u = u;
	resync(dm, why);
	return 0;
}

/*
 * Notifications were lost (ENOBUFS). Among them may be nlctrl's DELFAMILY
 * and NEWFAMILY of a module reload, which would leave the monitor in a
 * group that is gone and the handle with a stale family id, deaf for
 * good: so the family is resolved again and its group joined (the monitor
 * first: nothing falls between it and the dump), the handle opened again,
 * then the resync.
 */
static void overrun(struct daemon *dm, const char *why)
{
	int err = usbeth_monitor_refresh(dm->m);

	if (err == -ENOENT) {
		ulog(LOG_P_WARNING, "%s: the usbeth module is not loaded: "
		     "waiting for it to come back", why);
		dm->retry_at = 0;
		dm->reopen = false;
		return;
	}
	if (err)
		ulog(LOG_P_ERR, "%s: cannot resolve the usbeth family again: "
		     "%s", why, strerror(-err));
	family_back(dm, why);
}

/* A GET reply read to be dropped (see recover()). */
static int get_dropped(void *arg, const struct usbeth_dev *d)
{
	(void)arg;
	(void)d;
	return 0;
}

/* Bounds each drain of recover(): a storm that refills a socket as fast
 * as it is read does not hold the resync back for ever.
 */
#define DRAIN_ROUNDS 64

/*
 * The one recovery from an overrun, whichever socket overflowed (ENOBUFS
 * on the notifications, the link events or the GET replies; a link event
 * too large to read). The kernel reports ENOBUFS ahead of the datagrams
 * still queued, and those are older than the dump to come: a NEW's
 * snapshot of the device as it registered, an RTM_NEWLINK's name or
 * carrier, a GET's reply. Handled after the resync, each would evaluate a
 * device from a state older than the one the resync saw. So first every
 * socket is drained and what it held dropped (an nlctrl message among it
 * is still followed by the monitor), then the family is resolved again
 * and one resync evaluates every device from the dump.
 */
void recover(struct daemon *dm, const char *why)
{
	int i, err;

	for (i = 0; i < DRAIN_ROUNDS; i++) {
		err = usbeth_monitor_read(dm->m, NULL, NULL);
		if (err == -EAGAIN || !err)
			break;
	}
	links_drain(dm);
	for (i = 0; i < DRAIN_ROUNDS; i++)
		if (usbeth_async_read(dm->gets, dm->u, get_dropped, NULL) !=
		    -ENOBUFS)
			break;
	overrun(dm, why);
}

/* Subscribes to the family's notifications; 0, or -1 (logged). */
int monitor_open(struct daemon *dm)
{
	int err = usbeth_monitor_open(&dm->m);

	if (err) {
		ulog(LOG_P_ERR, "cannot subscribe to usbeth notifications: %s",
		     strerror(-err));
		return -1;
	}
	return set_rcvbuf(usbeth_monitor_fd(dm->m), "usbeth notifications");
}

/* Handles every notification queued; -1 on an error the daemon cannot
 * go on after (logged).
 */
int monitor_read(struct daemon *dm)
{
	int err = usbeth_monitor_read(dm->m, mon_cb, dm);

	if (err == -ENOBUFS) {
		ulog(LOG_P_WARNING, "notifications lost (ENOBUFS): resync");
		recover(dm, "overrun");
	} else if (err == -ENOLINK) {
		ulog(LOG_P_WARNING, "the usbeth module was unloaded: "
		     "waiting for it to come back");
		dm->retry_at = 0;
		dm->reopen = false;
	} else if (err == -ERESTART) {
		ulog(LOG_P_NOTICE, "the usbeth module is back: resync");
		family_back(dm, "module loaded");
	} else if (err == -EBADMSG) {
		ulog(LOG_P_WARNING, "a malformed notification was "
		     "skipped: resync");
		resync(dm, "bad message");
	} else if (err < 0 && err != -EAGAIN && err != -EINTR) {
		ulog(LOG_P_ERR, "notifications: %s", strerror(-err));
		return -1;
	}
	return 0;
}
