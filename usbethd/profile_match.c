// SPDX-License-Identifier: GPL-2.0
/*
 * usbethd profiles, matching: whether a profile matches a device, how
 * specific it is, which one wins, and the values it wants of a device.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "profile.h"

bool knob_supported(int k, const struct usbeth_dev *dev)
{
	if (k < 0 || k >= K_COUNT)
		return false;
	if (knob_table[k].kind != KIND_USBETH)
		return true;
	return (dev->caps & knob_table[k].cap) != 0;
}

/* --------------------------------------------------------- matching -- */

static int speed_rank(int s)
{
	switch (s) {
	case USBETH_USB_SPEED_LOW: return 1;
	case USBETH_USB_SPEED_FULL: return 2;
	case USBETH_USB_SPEED_HIGH: return 3;
	case USBETH_USB_SPEED_WIRELESS: return 3;
	case USBETH_USB_SPEED_SUPER: return 4;
	case USBETH_USB_SPEED_SUPER_PLUS: return 5;
	default: return 0;
	}
}

static bool ids_constrain(const struct id_match *ids, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ids[i].any)
			return false;
	return n > 0;
}

int profile_specificity(const struct profile *p)
{
	const struct profile_match *m = &p->match;
	int n = 0;
	size_t i;

	n += ids_constrain(m->vid, m->n_vid);
	n += ids_constrain(m->pid, m->n_pid);
	n += m->n_driver > 0;
	n += m->roles != 0;
	n += m->speed >= 0 || m->speed_min >= 0;
	for (i = 0; i < m->n_ifname; i++)
		if (!strcmp(m->ifname[i], "*"))
			break;
	n += m->n_ifname > 0 && i == m->n_ifname;
	return n;
}

/* The speed a device is matched on: the connected speed, or for a gadget
 * not connected, the most it can do (qmult must be set before the connect
 * it is meant for).
 */
static int dev_speed(const struct usbeth_dev *d)
{
	if (usbeth_dev_has(d, USBETH_A_USB_SPEED) &&
	    d->usb_speed != USBETH_USB_SPEED_UNKNOWN)
		return (int)d->usb_speed;
	if (d->role == USBETH_ROLE_USB_GADGET &&
	    usbeth_dev_has(d, USBETH_A_GADGET_MAX_SPEED))
		return (int)d->gadget_max_speed;
	return USBETH_USB_SPEED_UNKNOWN;
}

static bool id_in(const struct id_match *ids, size_t n, uint16_t v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ids[i].any || ids[i].id == v)
			return true;
	return false;
}

/* The device's vendor or product id against a list of the profile's (an
 * empty list matches anything); why says what failed.
 */
static bool id_matches(const struct id_match *ids, size_t n, bool has,
		       uint16_t v, const char *what, const char *key,
		       char *why, size_t whylen)
{
	if (!n)
		return true;
	if (!has) {
		snprintf(why, whylen, "no USB %s id", what);
		return false;
	}
	if (!id_in(ids, n, v)) {
		snprintf(why, whylen, "%s %04x not matched", key, v);
		return false;
	}
	return true;
}

static const char *speed_str(int s)
{
	const char *n = usbeth_speed_name((uint32_t)s);

	return n ? n : "unknown";
}

bool profile_matches(const struct profile *p, const struct usbeth_dev *dev,
		     char *why, size_t whylen)
{
	const struct profile_match *m = &p->match;
	char dummy[8];
	size_t i;
	int sp;

	if (!why) {
		why = dummy;
		whylen = sizeof(dummy);
	}
	why[0] = 0;
	if (!m->present) {
		snprintf(why, whylen, "no \"match\" (a base for \"extends\")");
		return false;
	}
	if (!id_matches(m->vid, m->n_vid, usbeth_dev_has(dev, USBETH_A_USB_VID),
			dev->usb_vid, "vendor", "vid", why, whylen) ||
	    !id_matches(m->pid, m->n_pid, usbeth_dev_has(dev, USBETH_A_USB_PID),
			dev->usb_pid, "product", "pid", why, whylen))
		return false;
	if (m->n_driver) {
		for (i = 0; i < m->n_driver; i++)
			if (!strcmp(m->driver[i], dev->driver))
				break;
		if (i == m->n_driver) {
			if (!dev->driver[0])
				snprintf(why, whylen, "no driver known");
			else
				snprintf(why, whylen, "driver \"%s\" not "
					 "matched", dev->driver);
			return false;
		}
	}
	if (!usbeth_role_is_usb(dev->role) &&
	    !(m->roles & (1U << USBETH_ROLE_OTHER))) {
		snprintf(why, whylen, "not on USB (and \"role\" does not "
			 "list \"other\")");
		return false;
	}
	if (m->roles && (dev->role >= 32 || !(m->roles & (1U << dev->role)))) {
		const char *r = usbeth_role_name(dev->role);

		snprintf(why, whylen, "role %s not matched", r ? r : "?");
		return false;
	}
	sp = dev_speed(dev);
	if (m->speed >= 0 && sp != m->speed) {
		snprintf(why, whylen, "speed %s is not %s", speed_str(sp),
			 speed_str(m->speed));
		return false;
	}
	if (m->speed_min >= 0 &&
	    (sp == USBETH_USB_SPEED_UNKNOWN ||
	     speed_rank(sp) < speed_rank(m->speed_min))) {
		snprintf(why, whylen, "speed %s is below %s", speed_str(sp),
			 speed_str(m->speed_min));
		return false;
	}
	if (m->n_ifname) {
		for (i = 0; i < m->n_ifname; i++)
			if (!fnmatch(m->ifname[i], dev->ifname, 0))
				break;
		if (i == m->n_ifname) {
			if (!dev->ifname[0])
				snprintf(why, whylen, "no ifname known");
			else
				snprintf(why, whylen, "ifname %s not matched",
					 dev->ifname);
			return false;
		}
	}
	return true;
}

int profile_rank_cmp(const struct profile *a, const struct profile *b)
{
	int sa = profile_specificity(a), sb = profile_specificity(b);

	if (sa != sb)
		return sa > sb ? -1 : 1;
	if (a->priority != b->priority)
		return a->priority > b->priority ? -1 : 1;
	if (a->dir != b->dir)
		return a->dir > b->dir ? -1 : 1;
	return strcmp(a->name, b->name);
}

void profset_why(const struct profile *a, const struct profile *b,
		 char *buf, size_t len)
{
	int sa = profile_specificity(a), sb = profile_specificity(b);

	if (sa != sb)
		snprintf(buf, len, "more specific than %s (%d > %d criteria)",
			 b->name, sa, sb);
	else if (a->priority != b->priority)
		snprintf(buf, len, "as specific as %s (%d), higher priority "
			 "(%d > %d)", b->name, sa, a->priority, b->priority);
	else if (a->dir != b->dir && b->available)
		snprintf(buf, len, "as specific as %s (%d), same priority "
			 "(%d), and %s is shipped (enabled from "
			 "profiles.available): your own wins the tie", b->name,
			 sa, a->priority, b->name);
	else if (a->dir != b->dir)
		snprintf(buf, len, "as specific as %s (%d), same priority "
			 "(%d), from a later directory", b->name, sa,
			 a->priority);
	else
		snprintf(buf, len, "as specific as %s (%d), same priority "
			 "(%d), same directory: name sorts first", b->name, sa,
			 a->priority);
}

const struct profile *profset_select(const struct profset *s,
				     const struct usbeth_dev *dev)
{
	const struct profile *best = NULL;
	size_t i;

	for (i = 0; i < s->n; i++) {
		if (!profile_matches(s->p[i], dev, NULL, 0))
			continue;
		if (!best || profile_rank_cmp(s->p[i], best) < 0)
			best = s->p[i];
	}
	return best;
}

void profset_mark_available(struct profset *s, const struct profset *avail)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (profset_find(avail, s->p[i]->name)) {
			s->p[i]->available = true;
			s->p[i]->dir = 0;
		}
}

/* ---------------------------------------------- described devices -- */

/* One "KEY=VALUE" of a description into d; -1 with err set. */
static int describe_one(const char *key, const char *val,
			struct usbeth_dev *d, char *err, size_t errlen)
{
	uint16_t id;
	int v;

	if (!strcmp(key, "vid") || !strcmp(key, "pid")) {
		if (usb_id_parse(val, &id)) {
			snprintf(err, errlen, "%s \"%s\": want 1 to 4 hex "
				 "digits (e.g. 17e9)", key, val);
			return -1;
		}
		if (key[0] == 'v') {
			d->usb_vid = id;
			d->present |= USBETH_BIT(USBETH_A_USB_VID);
		} else {
			d->usb_pid = id;
			d->present |= USBETH_BIT(USBETH_A_USB_PID);
		}
	} else if (!strcmp(key, "driver") || !strcmp(key, "ifname")) {
		size_t max = key[0] == 'd' ? sizeof(d->driver) :
			sizeof(d->ifname);

		if (!val[0] || strlen(val) >= max) {
			snprintf(err, errlen, "%s \"%s\": want 1 to %zu "
				 "bytes", key, val, max - 1);
			return -1;
		}
		snprintf(key[0] == 'd' ? d->driver : d->ifname, max, "%s",
			 val);
	} else if (!strcmp(key, "role")) {
		v = role_parse(val);
		if (v < 0) {
			snprintf(err, errlen, "role \"%s\": want host, gadget "
				 "or other", val);
			return -1;
		}
		d->role = (uint32_t)v;
	} else if (!strcmp(key, "speed") || !strcmp(key, "max-speed")) {
		v = usbeth_speed_parse(val);
		if (v <= USBETH_USB_SPEED_UNKNOWN) {
			snprintf(err, errlen, "%s \"%s\": want low, full, "
				 "high, wireless, super or super-plus", key,
				 val);
			return -1;
		}
		if (key[0] == 's') {
			d->usb_speed = (uint32_t)v;
			d->present |= USBETH_BIT(USBETH_A_USB_SPEED);
		} else {
			d->gadget_max_speed = (uint32_t)v;
			d->present |= USBETH_BIT(USBETH_A_GADGET_MAX_SPEED);
		}
	} else {
		snprintf(err, errlen, "unknown key \"%s\": want vid, pid, "
			 "driver, role, speed, max-speed or ifname", key);
		return -1;
	}
	return 0;
}

int dev_describe(const char *desc, struct usbeth_dev *d, char *err,
		 size_t errlen)
{
	char buf[512], *item, *save = NULL;
	bool any = false;

	memset(d, 0, sizeof(*d));
	d->role = USBETH_ROLE_USB_HOST;
	d->present = USBETH_BIT(USBETH_A_IFINDEX) | USBETH_BIT(USBETH_A_ROLE);
	if (strlen(desc) >= sizeof(buf)) {
		snprintf(err, errlen, "longer than %zu bytes", sizeof(buf) - 1);
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", desc);
	for (item = strtok_r(buf, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(item, '=');

		if (!eq) {
			snprintf(err, errlen, "\"%s\": want KEY=VALUE", item);
			return -1;
		}
		*eq = 0;
		if (describe_one(item, eq + 1, d, err, errlen))
			return -1;
		any = true;
	}
	if (!any) {
		snprintf(err, errlen, "empty: want KEY=VALUE[,KEY=VALUE...]");
		return -1;
	}
	if (d->role != USBETH_ROLE_USB_HOST &&
	    (usbeth_dev_has(d, USBETH_A_USB_VID) ||
	     usbeth_dev_has(d, USBETH_A_USB_PID))) {
		snprintf(err, errlen, "vid and pid: only the host side of a "
			 "USB link has them (role host)");
		return -1;
	}
	return 0;
}

bool profile_want(const struct profile *p, int k,
		  const struct usbeth_dev *dev, uint32_t *val)
{
	const struct knob_val *v;

	if (k < 0 || k >= K_COUNT)
		return false;
	v = &p->eff[k];
	switch (v->kind) {
	case V_VALUE:
		*val = v->value;
		return true;
	case V_DEVICE_MAX:
		if (k == K_NTB_RX_MAX &&
		    usbeth_dev_has(dev, USBETH_A_NTB_DEV_RX_MAX) &&
		    dev->ntb_dev_rx_max) {
			*val = dev->ntb_dev_rx_max;
			return true;
		}
		if (k == K_NTB_TX_MAX &&
		    usbeth_dev_has(dev, USBETH_A_NTB_DEV_TX_MAX) &&
		    dev->ntb_dev_tx_max) {
			*val = dev->ntb_dev_tx_max;
			return true;
		}
		return false;
	default:
		return false;
	}
}

void profile_resolve(const struct profile *p, const struct usbeth_dev *dev,
		     struct wanted *w)
{
	int k;

	memset(w, 0, sizeof(*w));
	if (!p)
		return;
	for (k = 0; k < K_COUNT; k++) {
		enum val_kind kind = p->eff[k].kind;
		uint32_t v;

		if (kind != V_VALUE && kind != V_DEVICE_MAX)
			continue;	/* not set */
		if (!knob_supported(k, dev)) {
			w->unsupported |= 1U << k;
			continue;
		}
		if (!profile_want(p, k, dev, &v)) {
			w->no_max |= 1U << k;	/* device-max, none known */
			continue;
		}
		w->has |= 1U << k;
		w->v[k] = v;
	}
}
