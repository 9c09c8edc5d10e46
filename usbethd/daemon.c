// SPDX-License-Identifier: GPL-2.0
/*
 * usbethd's daemon: applies profiles to USB network devices as they appear
 * (the family's NEW notifications), and to those present at start;
 * restores what it changed when a profile stops applying (SIGHUP reload)
 * and on stop. This file: the loop, its state (struct daemon) and what it
 * does for the events its sources hand it. See daemon.h.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include <libmnl/libmnl.h>

#include "daemon.h"
#include "testhooks.h"

struct daemon {
	struct usbeth *u;
	struct monitor mon;
	struct links links;
	struct gets gets;
	struct profset set;
	struct engine e;
	uint64_t woken;			/* when poll() last returned, us */
	uint64_t retry_at;		/* a resync failed: try again then,
					 * us; 0 none */
	bool ready;			/* the first resync succeeded */
	bool reopen;			/* retry_at retries family_back */
	bool reopen_said;		/* its failure was logged */
};

/* Whether a profile of s may match a netdev not on USB (role "other"):
 * only then are those looked at when they appear.
 */
static bool set_wants_other(const struct profset *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->p[i]->match.roles & (1U << USBETH_ROLE_OTHER))
			return true;
	return false;
}

/* Every device of the netns, (re)applied; records of vanished ones go.
 * 0, or -errno (retried in 100 ms).
 */
static int resync(struct daemon *dm, const char *why)
{
	struct usbeth_dev *devs;
	size_t n, i;
	int err;

	err = usbeth_dump(dm->u, &devs, &n);
	if (!err && test_dump_fails()) {
		/* USBETHD_TEST_DUMP_FAIL (testhooks.h): as a dump interrupted
		 * again and again
		 */
		usbeth_devs_free(devs, n);
		err = -EAGAIN;
	}
	if (err) {
		/* -EAGAIN: interrupted again and again (the library redoes
		 * an interrupted dump 5 times) by a storm of changes; a
		 * device may have been missed, so it is tried again later
		 */
		if (!dm->retry_at) {	/* said once, retried quietly */
			ulog(LOG_P_ERR, "resync (%s): dump failed: %s: "
			     "retrying every 100 ms", why, strerror(-err));
			dm->e.errors++;
		}
		dm->retry_at = now_us() + 100000;
		return err;
	}
	if (dm->retry_at)
		ulog(LOG_P_NOTICE, "resync (%s): the dump succeeded", why);
	dm->retry_at = 0;
	engine_prune(&dm->e, devs, n);
	links_names_clear(&dm->links);
	for (i = 0; i < n; i++) {
		links_name_note(&dm->links, devs[i].ifindex, devs[i].ifname);
		engine_apply(&dm->e, &devs[i]);
	}
	usbeth_devs_free(devs, n);
	ulog(LOG_P_INFO, "resync (%s): %zu netdevs, %zu devices recorded",
	     why, n, engine_nrecs(&dm->e));
	if (!dm->ready) {
		dm->ready = true;
		ulog(LOG_P_INFO, "ready: %zu profiles, %zu devices recorded",
		     dm->set.n, engine_nrecs(&dm->e));
		sd_notify_msg("READY=1\nSTATUS=applying profiles");
	}
	return 0;
}

/*
 * --rcvbuf: the size of a notification socket's receive queue. Beyond the
 * system's rmem_max only with CAP_NET_ADMIN (SO_RCVBUFFORCE); the kernel
 * doubles the value and has a floor (SOCK_MIN_RCVBUF). A small one makes
 * overruns (ENOBUFS) easy to provoke, which is how the resync is tested.
 * 0, or -1 (logged).
 */
static int set_rcvbuf(int fd, const char *what)
{
	if (!rcvbuf)
		return 0;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
		       sizeof(rcvbuf)) &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf))) {
		ulog(LOG_P_ERR, "%s: SO_RCVBUF %d: %s", what, rcvbuf,
		     strerror(errno));
		return -1;
	}
	return 0;
}

/* SIGHUP: the profiles loaded again (kept when they do not load), then a
 * resync.
 */
static int reload(struct daemon *dm)
{
	struct profset s;

	ulog(LOG_P_INFO, "reloading profiles");
	if (load_mode(&s, PROFSET_SKIP_ODD)) {
		ulog(LOG_P_ERR, "reload failed: keeping the previous "
		     "configuration (%zu profiles)", dm->set.n);
		return -1;
	}
	profset_free(&dm->set);
	dm->set = s;
	dm->e.set = &dm->set;
	dm->links.other = set_wants_other(&dm->set);
	ulog(LOG_P_INFO, "reloaded: %zu profiles", dm->set.n);
	return resync(dm, "reload");
}

/* The usbeth module was unloaded (or is not loaded, after an overrun):
 * nothing to retry until its NEWFAMILY, which the monitor follows.
 */
static void family_gone(struct daemon *dm)
{
	dm->retry_at = 0;
	dm->reopen = false;
}

/*
 * The module was loaded again (the monitor saw nlctrl's NEWFAMILY and
 * joined the new group), or an overrun may have hidden that: the request
 * handle may have the old family id, and the devices were not announced
 * meanwhile. Records stay (by ifindex): a device that went meanwhile is
 * pruned by the resync. A handle that cannot be opened is tried again
 * every 100 ms (said once). 0, or -1 then.
 */
static int family_back(struct daemon *dm, const char *why)
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
	int err = monitor_refresh(&dm->mon);

	if (err == -ENOENT) {
		ulog(LOG_P_WARNING, "%s: the usbeth module is not loaded: "
		     "waiting for it to come back", why);
		family_gone(dm);
		return;
	}
	if (err)
		ulog(LOG_P_ERR, "%s: cannot resolve the usbeth family again: "
		     "%s", why, strerror(-err));
	family_back(dm, why);
}

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
static void recover(struct daemon *dm, const char *why)
{
	monitor_drain(&dm->mon);
	links_drain(&dm->links);
	gets_drain(&dm->gets);
	overrun(dm, why);
}

/* A resync is due (something was missed): from the loop, now, unless one
 * is due already.
 */
static void resync_soon(struct daemon *dm)
{
	if (!dm->retry_at)
		dm->retry_at = now_us();
}

/* What the loop does for each event (daemon.h): false to go on, true to
 * stop with *rc.
 */
static bool handle(struct daemon *dm, const struct ev *ev, int *rc)
{
	switch (ev->type) {
	case EV_GET:
		if (gets_send(&dm->gets, ev->ifindex))
			resync_soon(dm);	/* not lost: see gets_send */
		break;
	case EV_RESYNC_SOON:
		resync_soon(dm);
		break;
	case EV_RECOVER:
		recover(dm, ev->why);
		break;
	case EV_FAMILY_GONE:
		family_gone(dm);
		break;
	case EV_FAMILY_BACK:
		family_back(dm, ev->why);
		break;
	case EV_RESYNC:
		resync(dm, ev->why);
		break;
	case EV_RELOAD:
		sd_notify_reloading();
		reload(dm);
		sd_notify_msg("READY=1");
		break;
	case EV_STOP:
		sd_notify_msg("STOPPING=1");
		ulog(LOG_P_INFO, "stopping (%s): %s", strsignal(ev->signo),
		     restore_on_stop ? "restoring original values" :
		     "keeping values");
		if (restore_on_stop)
			engine_restore_all(&dm->e);
		*rc = 0;
		return true;
	case EV_FAIL:
		*rc = 1;
		return true;
	}
	return false;
}

/* Handles q's events in order, and empties it; true: stop with *rc. */
static bool handle_all(struct daemon *dm, struct evq *q, int *rc)
{
	unsigned int i, n = q->n;

	q->n = 0;
	for (i = 0; i < n; i++)
		if (handle(dm, &q->ev[i], rc))
			return true;
	return false;
}

int run_daemon(void)
{
	struct daemon dm = { 0 };
	struct evq q = { .n = 0 };
	int sfd = -1, lockfd = -1, statefd = -1, rc = 1, loaded;

	sfd = signals_open();	/* first: see there */
	if (sfd < 0)
		return 1;
	/* the locks first, then the profiles: see state.h */
	lockfd = lock_open("daemon.lock");
	if (lockfd < 0)
		return 1;
	if (flock(lockfd, LOCK_EX | LOCK_NB)) {
		ulog(LOG_P_ERR, "another usbethd holds %s/daemon.lock",
		     runtime_dir);
		goto out;
	}
	statefd = lock_open("state.lock");
	if (statefd < 0 || lock_wait(statefd, LOCK_EX))
		goto out;
	if (load(&dm.set))
		goto out;
	engine_init(&dm.e, NULL, &dm.set);
	dm.e.keep_records = true;
	dm.e.state_dir = runtime_dir;
	loaded = engine_load_state(&dm.e);
	/* from here on, --apply sees daemon.lock held and stays away;
	 * --apply --force does not, and the records are written by both:
	 * the daemon takes state.lock again for each write (records.c)
	 */
	flock(statefd, LOCK_UN);
	dm.e.lock_fd = statefd;
	if (loaded > 0)
		ulog(LOG_P_INFO, "%d records of originals found in %s", loaded,
		     runtime_dir);
	if (open_usbeth(&dm.u)) {
		rc = 2;
		goto out;
	}
	dm.e.u = dm.u;
	dm.mon.e = dm.links.e = dm.gets.e = &dm.e;
	/* subscribe first, then dump: nothing falls between the two */
	if (monitor_open(&dm.mon) ||
	    set_rcvbuf(usbeth_monitor_fd(dm.mon.m), "usbeth notifications"))
		goto out;
	if (links_open(&dm.links) ||
	    set_rcvbuf(mnl_socket_get_fd(dm.links.sock), "rtnetlink") ||
	    gets_open(&dm.gets))
		goto out;
	dm.links.other = set_wants_other(&dm.set);
	/* ready (sd_notify) once a dump succeeded: a failed one is retried
	 * every 100 ms, as any resync is
	 */
	resync(&dm, "start");

	for (;;) {
		struct pollfd pfd[4] = {
			{ usbeth_monitor_fd(dm.mon.m), POLLIN, 0 },
			{ sfd, POLLIN, 0 },
			{ mnl_socket_get_fd(dm.links.sock), POLLIN, 0 },
			{ usbeth_async_fd(dm.gets.a), POLLIN, 0 },
		};
		int timeout = -1;	/* none: no wakeups while idle */
		int more;

		if (dm.retry_at) {	/* but to retry a failed resync */
			uint64_t t = now_us();

			if (t >= dm.retry_at) {
				if (dm.reopen)
					family_back(&dm, "retry");
				else
					resync(&dm, "retry");
				continue;
			}
			timeout = (int)((dm.retry_at - t + 999) / 1000);
		}
		if (poll(pfd, 4, timeout) < 0) {
			if (errno == EINTR)
				continue;
			ulog(LOG_P_ERR, "poll: %s", strerror(errno));
			goto out;
		}
		if (ulog_level >= LOG_P_DEBUG)
			dm.woken = now_us();
		if (pfd[0].revents) {
			monitor_read(&dm.mon, dm.woken, &q);
			if (handle_all(&dm, &q, &rc))
				goto out;
		}
		if (pfd[2].revents)
			do {
				more = links_read(&dm.links, &q);
				if (handle_all(&dm, &q, &rc))
					goto out;
			} while (more);
		/* after the notifications: a GET's reply is no hurry */
		if (pfd[3].revents) {
			gets_read(&dm.gets, &q);
			if (handle_all(&dm, &q, &rc))
				goto out;
		}
		while (signals_read(sfd, &q))
			if (handle_all(&dm, &q, &rc))
				goto out;
	}
out:
	ulog(LOG_P_DEBUG, "exit: %lu errors, %lu changes", dm.e.errors,
	     dm.e.changes);
	engine_fini(&dm.e);
	monitor_close(&dm.mon);
	links_close(&dm.links);
	gets_close(&dm.gets);
	if (dm.u)
		usbeth_close(dm.u);
	profset_free(&dm.set);
	if (sfd >= 0)
		close(sfd);
	if (statefd >= 0)
		close(statefd);
	if (lockfd >= 0)
		close(lockfd);
	return rc;
}
