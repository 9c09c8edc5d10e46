// SPDX-License-Identifier: GPL-2.0
/*
 * usbethd's daemon: applies profiles to USB network devices as they appear
 * (the family's NEW notifications), and to those present at start;
 * restores what it changed when a profile stops applying (SIGHUP reload)
 * and on stop. See daemon.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>
#include <net/if.h>

#include "daemon.h"

void sd_notify_msg(const char *msg)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len;
	int fd;

	if (!path || (path[0] != '/' && path[0] != '@'))
		return;
	len = strlen(path);
	if (len >= sizeof(sa.sun_path))
		return;
	memcpy(sa.sun_path, path, len);
	if (path[0] == '@')
		sa.sun_path[0] = 0;	/* abstract namespace */
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (sendto(fd, msg, strlen(msg), MSG_NOSIGNAL, (struct sockaddr *)&sa,
		   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) < 0)
		ulog(LOG_P_WARNING, "sd_notify: %s", strerror(errno));
	close(fd);
}

/* Notes ifindex's name: NAME_NEW (not known before), NAME_RENAMED (known
 * by another name), NAME_SAME; -1 when there is no memory for it.
 */
int name_note(struct daemon *dm, uint32_t ifindex, const char *name)
{
	struct name_ent *n;
	size_t i;

	for (i = 0; i < dm->nnames; i++) {
		n = &dm->names[i];
		if (n->ifindex != ifindex)
			continue;
		if (!strcmp(n->name, name))
			return NAME_SAME;
		snprintf(n->name, sizeof(n->name), "%s", name);
		return NAME_RENAMED;
	}
	if (dm->nnames == dm->cap_names) {
		size_t cap = dm->cap_names ? dm->cap_names * 2 : 64;

		n = realloc(dm->names, cap * sizeof(*n));
		if (!n)
			return -1;
		dm->names = n;
		dm->cap_names = cap;
	}
	n = &dm->names[dm->nnames++];
	n->ifindex = ifindex;
	snprintf(n->name, sizeof(n->name), "%s", name);
	return NAME_NEW;
}

void name_forget(struct daemon *dm, uint32_t ifindex)
{
	size_t i;

	for (i = 0; i < dm->nnames; i++)
		if (dm->names[i].ifindex == ifindex) {
			dm->names[i] = dm->names[--dm->nnames];
			return;
		}
}

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

/* Every device of the netns, (re)applied; records of vanished ones go. */
int resync(struct daemon *dm, const char *why)
{
	struct usbeth_dev *devs;
	size_t n, i;
	int err;

	err = usbeth_dump(dm->u, &devs, &n);
	if (!err && test_dump_fail > 0) {
		/* USBETHD_TEST_DUMP_FAIL (usbethd(8)): as a dump interrupted
		 * again and again
		 */
		test_dump_fail--;
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
	dm->nnames = 0;
	for (i = 0; i < n; i++) {
		name_note(dm, devs[i].ifindex, devs[i].ifname);
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

static int mon_cb(void *arg, int cmd, const struct usbeth_dev *dev)
{
	struct daemon *dm = arg;

	switch (cmd) {
	case USBETH_CMD_NEW_NTF: {
		uint64_t t0 = now_us(), set0 = dm->e.set_us, t1;

		dm->e.set_first = 0;
		/* a record for it may be there already: loaded from disk,
		 * what --apply recorded before we started
		 */
		engine_apply(&dm->e, dev);
		t1 = now_us();
		/* where the time went (usbethd_bench.sh reads it); logged
		 * after the work, not to delay it. Times in us: poll()
		 * returned, the NEW parsed, the first usbeth set began (or
		 * none), its work done; time in usbeth sets.
		 */
		ulog(LOG_P_DEBUG, "%s: new (ifindex %u): timing: woken %llu, "
		     "parsed +%llu, set +%llu, done +%llu, in sets %llu",
		     dev->ifname, dev->ifindex,
		     (unsigned long long)dm->woken,
		     (unsigned long long)(t0 - dm->woken),
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
static int gets_open(struct daemon *dm)
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

static void gets_read(struct daemon *dm)
{
	int err = usbeth_async_read(dm->gets, dm->u, get_reply, dm);

	if (err == -ENOBUFS) {
		ulog(LOG_P_WARNING, "usbeth get replies lost (ENOBUFS): "
		     "resync");
		overrun(dm, "get overrun");
	} else if (err && err != -EINTR) {
		ulog(LOG_P_WARNING, "usbeth get replies: %s", strerror(-err));
	}
}

/*
 * --rcvbuf: the size of a notification socket's receive queue. Beyond the
 * system's rmem_max only with CAP_NET_ADMIN (SO_RCVBUFFORCE); the kernel
 * doubles the value and has a floor (SOCK_MIN_RCVBUF). A small one makes
 * overruns (ENOBUFS) easy to provoke, which is how the resync is tested.
 */
int set_rcvbuf(int fd, const char *what)
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

/*
 * The module was loaded again (the monitor saw nlctrl's NEWFAMILY and
 * joined the new group), or an overrun may have hidden that: the request
 * handle may have the old family id, and the devices were not announced
 * meanwhile. Records stay (by ifindex): a device that went meanwhile is
 * pruned by the resync. A handle that cannot be opened is tried again
 * every 100 ms (said once).
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
void overrun(struct daemon *dm, const char *why)
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
	dm->other = set_wants_other(&dm->set);
	ulog(LOG_P_INFO, "reloaded: %zu profiles", dm->set.n);
	return resync(dm, "reload");
}

int run_daemon(void)
{
	struct daemon dm = { 0 };
	sigset_t mask;
	int sfd = -1, lockfd = -1, statefd = -1, rc = 1, err, loaded;

	/* signals blocked before anything else: a SIGHUP or SIGTERM that
	 * comes while the daemon waits for state.lock or loads its profiles
	 * is handled once it runs, never its death
	 */
	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		ulog(LOG_P_ERR, "signalfd: %s", strerror(errno));
		return 1;
	}
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
	/* subscribe first, then dump: nothing falls between the two */
	err = usbeth_monitor_open(&dm.m);
	if (err) {
		ulog(LOG_P_ERR, "cannot subscribe to usbeth notifications: %s",
		     strerror(-err));
		goto out;
	}
	if (set_rcvbuf(usbeth_monitor_fd(dm.m), "usbeth notifications"))
		goto out;
	if (links_open(&dm) || gets_open(&dm))
		goto out;
	dm.other = set_wants_other(&dm.set);
	/* ready (sd_notify) once a dump succeeded: a failed one is retried
	 * every 100 ms, as any resync is
	 */
	resync(&dm, "start");

	for (;;) {
		struct pollfd pfd[4] = {
			{ usbeth_monitor_fd(dm.m), POLLIN, 0 },
			{ sfd, POLLIN, 0 },
			{ mnl_socket_get_fd(dm.links), POLLIN, 0 },
			{ usbeth_async_fd(dm.gets), POLLIN, 0 },
		};
		struct signalfd_siginfo si;

		int timeout = -1;	/* none: no wakeups while idle */

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
			err = usbeth_monitor_read(dm.m, mon_cb, &dm);
			if (err == -ENOBUFS) {
				ulog(LOG_P_WARNING, "notifications lost "
				     "(ENOBUFS): resync");
				overrun(&dm, "overrun");
			} else if (err == -ENOLINK) {
				ulog(LOG_P_WARNING, "the usbeth module was "
				     "unloaded: waiting for it to come back");
				dm.retry_at = 0;
				dm.reopen = false;
			} else if (err == -ERESTART) {
				ulog(LOG_P_NOTICE, "the usbeth module is back: "
				     "resync");
				family_back(&dm, "module loaded");
			} else if (err == -EBADMSG) {
				ulog(LOG_P_WARNING, "a malformed notification "
				     "was skipped: resync");
				resync(&dm, "bad message");
			} else if (err < 0 && err != -EAGAIN && err != -EINTR) {
				ulog(LOG_P_ERR, "notifications: %s",
				     strerror(-err));
				goto out;
			}
		}
		if (pfd[2].revents)
			links_read(&dm);
		/* after the notifications: a GET's reply is no hurry */
		if (pfd[3].revents)
			gets_read(&dm);
		while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
			if (si.ssi_signo == SIGHUP) {
				char msg[64];

				/* MONOTONIC_USEC: what Type=notify-reload
				 * wants to tell this reload from an older one
				 */
				snprintf(msg, sizeof(msg), "RELOADING=1\n"
					 "MONOTONIC_USEC=%llu",
					 (unsigned long long)now_us());
				sd_notify_msg(msg);
				reload(&dm);
				sd_notify_msg("READY=1");
				continue;
			}
			sd_notify_msg("STOPPING=1");
			ulog(LOG_P_INFO, "stopping (%s): %s",
			     strsignal((int)si.ssi_signo), restore_on_stop ?
			     "restoring original values" : "keeping values");
			if (restore_on_stop)
				engine_restore_all(&dm.e);
			rc = 0;
			goto out;
		}
	}
out:
	ulog(LOG_P_DEBUG, "exit: %lu errors, %lu changes", dm.e.errors,
	     dm.e.changes);
	engine_fini(&dm.e);
	if (dm.m)
		usbeth_monitor_close(dm.m);
	if (dm.links)
		mnl_socket_close(dm.links);
	usbeth_async_close(dm.gets);
	free(dm.names);
	free(dm.lbuf);
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
