// SPDX-License-Identifier: GPL-2.0
/*
 * usbethd's one-shot commands: --check (validate the profiles), --explain
 * (for each device present, named or all, or described: which profiles
 * match, the winner and why, the disabled ones that match, the diff),
 * --apply DEV (the udev path: apply and record under state.lock, unless
 * the daemon runs).
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "usbethd.h"

int cmd_check(void)
{
	struct profset s;
	size_t i;

	if (load_mode(&s, PROFSET_STRICT))
		return 1;
	for (i = 0; i < s.n; i++)
		printf("%s: ok (%s)\n", s.p[i]->name, s.p[i]->file);
	printf("%zu profiles ok\n", s.n);
	profset_free(&s);
	return 0;
}

static void print_dev(const struct usbeth_dev *d, bool described)
{
	const char *role = usbeth_role_name(d->role);

	if (described)
		printf("device described: role %s, driver %s", role ? role : "?",
		       d->driver[0] ? d->driver : "-");
	else
		printf("device %s (ifindex %u): role %s, driver %s", d->ifname,
		       d->ifindex, role ? role : "?",
		       d->driver[0] ? d->driver : "-");
	if (described && d->ifname[0])
		printf(", ifname %s", d->ifname);
	if (described) {
		if (usbeth_dev_has(d, USBETH_A_USB_VID))
			printf(", vid %04x", d->usb_vid);
		if (usbeth_dev_has(d, USBETH_A_USB_PID))
			printf(", pid %04x", d->usb_pid);
	} else if (usbeth_dev_has(d, USBETH_A_USB_VID)) {
		printf(", usb %04x:%04x", d->usb_vid, d->usb_pid);
	}
	if (usbeth_dev_has(d, USBETH_A_USB_SPEED))
		printf(", speed %s", usbeth_speed_name(d->usb_speed) ?
		       usbeth_speed_name(d->usb_speed) : "?");
	if (usbeth_dev_has(d, USBETH_A_GADGET_MAX_SPEED))
		printf(", max speed %s",
		       usbeth_speed_name(d->gadget_max_speed) ?
		       usbeth_speed_name(d->gadget_max_speed) : "?");
	printf("\n");
}

/*
 * The profiles for d: each enabled one, whether it matches (and if not,
 * why); the winner and why it beat the runner-up; the disabled ones of
 * avail that match, and whether one would win once enabled. The winner.
 */
static const struct profile *explain_profiles(const struct profset *s,
					      const struct profset *avail,
					      const struct usbeth_dev *d)
{
	const struct profile *win = profset_select(s, d), *second = NULL;
	bool header = false;
	char why[200];
	size_t i;

	if (!usbeth_role_is_usb(d->role) && !win)
		printf("not on USB, and no profile with role \"other\" "
		       "matches it: usbethd leaves it alone\n");
	printf("profiles:\n");
	for (i = 0; i < s->n; i++) {
		const struct profile *p = s->p[i];

		if (!profile_matches(p, d, why, sizeof(why))) {
			printf("  %-24s no: %s\n", p->name, why);
			continue;
		}
		printf("  %-24s matches (specificity %d, priority %d)%s\n",
		       p->name, profile_specificity(p), p->priority,
		       p == win ? "  <- winner" : "");
		if (p != win && (!second || profile_rank_cmp(p, second) < 0))
			second = p;
	}
	if (!win) {
		printf("winner: none\n");
	} else if (!second) {
		printf("winner: %s (%s): the only match\n", win->name,
		       win->file);
	} else {
		profset_why(win, second, why, sizeof(why));
		printf("winner: %s (%s): %s\n", win->name, win->file, why);
	}
	for (i = 0; i < avail->n; i++) {
		const struct profile *p = avail->p[i];

		if (profset_find(s, p->name) || !profile_matches(p, d, NULL, 0))
			continue;
		if (!header)
			printf("disabled, in %s (enabled by a copy into "
			       "%s):\n", available_dir, dirs[ndirs - 1]);
		header = true;
		printf("  %-24s matches (specificity %d, priority %d)%s\n",
		       p->name, profile_specificity(p), p->priority,
		       !win || profile_rank_cmp(p, win) < 0 ?
		       "  <- would win if enabled" : "");
	}
	return win;
}

/* What p sets, as written ("device-max" stays): a described device has
 * no values to diff against.
 */
static void print_settings(const struct profile *p)
{
	bool any = false;
	int k;

	printf("settings (what it sets where the device has the knob):\n");
	for (k = 0; p && k < K_COUNT; k++) {
		const struct knob_val *v = &p->eff[k];

		if (v->kind == V_DEVICE_MAX)
			printf("  %-24s device-max\n", knob_table[k].name);
		else if (v->kind == V_VALUE && knob_table[k].boolean)
			printf("  %-24s %s\n", knob_table[k].name,
			       v->value ? "true" : "false");
		else if (v->kind == V_VALUE)
			printf("  %-24s %u\n", knob_table[k].name, v->value);
		else
			continue;
		any = true;
	}
	if (!any)
		printf("  (none)\n");
}

/* A device present: its profiles, then the diff --apply would make. */
static void explain_present(struct usbeth *u, const struct profset *s,
			    const struct profset *avail,
			    const struct usbeth_dev *d)
{
	struct engine e;

	print_dev(d, false);
	explain_profiles(s, avail, d);
	printf("diff (what --apply would change now):\n");
	engine_init(&e, u, s);
	e.dry_run = true;
	/* with the records --apply would use: what a profile no longer
	 * wants goes back to its recorded original. Read only: nothing is
	 * removed, and no lock is taken (a snapshot)
	 */
	e.state_dir = runtime_dir;
	if (engine_load_state(&e) < 0)
		printf("  (the records in %s could not be read: the diff "
		       "leaves out what they would restore)\n", runtime_dir);
	else if (engine_find(&e, d->ifindex))
		printf("  (with its record in %s)\n", runtime_dir);
	engine_apply(&e, d);
	engine_fini(&e);
}

/* Every device the family reports that usbethd manages: on USB, or not
 * on USB and matched by a profile. 0, or 2.
 */
static int explain_all(struct usbeth *u, const struct profset *s,
		       const struct profset *avail)
{
	struct usbeth_dev *devs = NULL;
	size_t n = 0, i, shown = 0;
	int err = usbeth_dump(u, &devs, &n);

	if (err) {
		ulog(LOG_P_ERR, "the dump of the devices: %s%s%s",
		     strerror(-err), *usbeth_errmsg(u) ? ": " : "",
		     usbeth_errmsg(u));
		return 2;
	}
	for (i = 0; i < n; i++) {
		if (!usbeth_role_is_usb(devs[i].role) &&
		    !profset_select(s, &devs[i]))
			continue;
		if (shown++)
			printf("\n");
		explain_present(u, s, avail, &devs[i]);
	}
	if (!shown)
		printf("no USB network device, and no other netdev a profile "
		       "opts in\n");
	usbeth_devs_free(devs, n);
	return 0;
}

int cmd_explain(const char *const *devs, size_t ndevs,
		const char *const *descs, size_t ndescs)
{
	struct profset s, avail;
	struct usbeth *u = NULL;
	struct usbeth_dev d;
	int ret = 0, err;
	size_t i;

	if (load(&s))
		return 1;
	if (load_available(&avail)) {
		profset_free(&s);
		return 1;
	}
	for (i = 0; i < ndescs; i++) {
		char msg[256];

		if (dev_describe(descs[i], &d, msg, sizeof(msg))) {
			ulog(LOG_P_ERR, "--device %s: %s", descs[i], msg);
			ret = 1;
			goto out;
		}
		if (i)
			printf("\n");
		print_dev(&d, true);
		print_settings(explain_profiles(&s, &avail, &d));
	}
	if (ndescs)
		goto out;
	if (open_usbeth(&u)) {
		ret = 2;
		goto out;
	}
	if (!ndevs) {
		ret = explain_all(u, &s, &avail);
		goto out;
	}
	for (i = 0; i < ndevs; i++) {
		err = usbeth_get(u, 0, devs[i], &d);
		if (err) {
			ulog(LOG_P_ERR, "%s: %s%s%s", devs[i], strerror(-err),
			     *usbeth_errmsg(u) ? ": " : "", usbeth_errmsg(u));
			ret = 2;
			continue;
		}
		if (i)
			printf("\n");
		explain_present(u, &s, &avail, &d);
		usbeth_dev_free(&d);
	}
out:
	if (u)
		usbeth_close(u);
	profset_free(&avail);
	profset_free(&s);
	return ret;
}

/*
 * The one-shot commands' start: load the profiles, open the family, read
 * DEV. 0, or the exit status (1 bad profiles, 2 no family or no device)
 * with nothing left to free.
 */
static int load_and_get(const char *dev, struct profset *s, struct usbeth **u,
			struct usbeth_dev *d)
{
	int err;

	if (load(s))
		return 1;
	if (open_usbeth(u)) {
		profset_free(s);
		return 2;
	}
	err = usbeth_get(*u, 0, dev, d);
	if (err) {
		ulog(LOG_P_ERR, "%s: %s%s%s", dev, strerror(-err),
		     *usbeth_errmsg(*u) ? ": " : "", usbeth_errmsg(*u));
		usbeth_close(*u);
		profset_free(s);
		return 2;
	}
	return 0;
}

/* Records of devices no longer in this netns (unplugged while no daemon
 * ran) are dropped.
 */
static void drop_gone(struct engine *e)
{
	struct rec *r, *next;
	char name[IF_NAMESIZE];

	for (r = e->recs; r; r = next) {
		next = r->next;
		if (!if_indextoname(r->ifindex, name) && errno == ENXIO)
			engine_drop(e, r->ifindex);
	}
}

int cmd_apply(const char *dev, bool force)
{
	struct usbeth *u;
	struct usbeth_dev d;
	struct engine e;
	struct profset s;
	int err, r, sfd, dfd;

	/* under state.lock: no daemon starts loading the records before
	 * what this applies is recorded
	 */
	sfd = lock_open("state.lock");
	if (sfd < 0)
		return 2;
	if (lock_wait(sfd, LOCK_EX)) {
		ulog(LOG_P_ERR, "%s/state.lock: %s", runtime_dir,
		     strerror(errno));
		close(sfd);
		return 2;
	}
	dfd = lock_open("daemon.lock");
	if (dfd < 0) {
		close(sfd);
		return 2;
	}
	if (flock(dfd, LOCK_SH | LOCK_NB) && errno == EWOULDBLOCK && !force) {
		ulog(LOG_P_INFO, "%s: usbethd is running and applies profiles "
		     "itself: nothing to do (--force to apply anyway)", dev);
		close(dfd);
		close(sfd);
		return 0;
	}
	close(dfd);
	err = load_and_get(dev, &s, &u, &d);
	if (err) {
		close(sfd);
		return err;
	}
	engine_init(&e, u, &s);
	e.keep_records = true;
	e.state_dir = runtime_dir;
	engine_load_state(&e);
	drop_gone(&e);
	r = engine_apply(&e, &d);
	if (!usbeth_role_is_usb(d.role) && !profset_select(&s, &d))
		ulog(LOG_P_INFO, "%s: not on USB, and no profile with role "
		     "\"other\" matches it: left alone", dev);
	err = r < 0 || e.errors ? 2 : 0;
	engine_fini(&e);
	usbeth_dev_free(&d);
	usbeth_close(u);
	profset_free(&s);
	close(sfd);
	return err;
}
