// SPDX-License-Identifier: GPL-2.0
/*
 * usbethd's daemon: applies profiles to USB network devices as they appear
 * (the family's NEW notifications), and to those present at start;
 * restores what it changed when a profile stops applying (SIGHUP reload)
 * and on stop. See daemon.h.
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

int reload(struct daemon *dm)
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
	/* subscribe first, then dump: nothing falls between the two */
	if (monitor_open(&dm))
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
		if (pfd[0].revents && monitor_read(&dm))
			goto out;
		if (pfd[2].revents)
			links_read(&dm);
		/* after the notifications: a GET's reply is no hurry */
		if (pfd[3].revents)
			gets_read(&dm);
		if (signals_read(&dm, sfd)) {
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
