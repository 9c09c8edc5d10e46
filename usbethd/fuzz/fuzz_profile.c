// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the profile parser: any bytes as a profile file,
 * then, when it parses, the rest of the profile code on it (a set with the
 * built-in-like parent "base", extends resolution, matching and the wanted
 * values against a few canned devices, the error text formatting). The
 * same bytes are also a device description (usbethd --explain --device),
 * which must be refused or give a device that matching takes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"

static void canned(struct usbeth_dev *d, int which)
{
	memset(d, 0, sizeof(*d));
	d->ifindex = 5;
	d->present = USBETH_BIT(USBETH_A_IFINDEX) | USBETH_BIT(USBETH_A_ROLE);
	if (which == 0) {
		strcpy(d->ifname, "usb0");
		strcpy(d->driver, "cdc_ncm");
		d->role = USBETH_ROLE_USB_HOST;
		d->caps = USBETH_CAP_NTB | USBETH_CAP_TX_TIMER | USBETH_CAP_BQL;
		d->usb_vid = 0x17e9;
		d->usb_pid = 0x4301;
		d->usb_speed = USBETH_USB_SPEED_SUPER;
		d->ntb_dev_rx_max = 65536;
		d->ntb_dev_tx_max = 32768;
		d->present |= USBETH_BIT(USBETH_A_USB_VID) |
			      USBETH_BIT(USBETH_A_USB_PID) |
			      USBETH_BIT(USBETH_A_USB_SPEED) |
			      USBETH_BIT(USBETH_A_NTB_DEV_RX_MAX) |
			      USBETH_BIT(USBETH_A_NTB_DEV_TX_MAX);
	} else {
		strcpy(d->ifname, "usb1");
		strcpy(d->driver, "g_ether");
		d->role = which == 1 ? USBETH_ROLE_USB_GADGET : 7;
		d->caps = USBETH_CAP_QMULT;
		d->gadget_max_speed = USBETH_USB_SPEED_SUPER_PLUS;
		d->present |= USBETH_BIT(USBETH_A_GADGET_MAX_SPEED);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char base[] = "{\"settings\":{\"qmult\":3,"
		"\"ntb-rx-max\":\"device-max\",\"bql-limit-max\":100}}";
	struct profile *p = NULL, *b = NULL;
	struct profset s = { 0 };
	struct perr err;
	char buf[8192], derr[256];
	struct usbeth_dev desc;
	int i, k;

	memcpy(buf, data, size < sizeof(buf) ? size : sizeof(buf) - 1);
	buf[size < sizeof(buf) ? size : sizeof(buf) - 1] = 0;
	if (!dev_describe(buf, &desc, derr, sizeof(derr)) &&
	    (desc.role > USBETH_ROLE_USB_GADGET ||
	     desc.driver[sizeof(desc.driver) - 1] ||
	     desc.ifname[sizeof(desc.ifname) - 1]))
		abort();	/* a description let a bad value by */
	if (profile_parse("fuzz.json", "fuzz", (const char *)data, size, &p,
			  &err)) {
		perr_format(&err, buf, sizeof(buf));
		return 0;
	}
	if (profile_parse("base.json", "base", base, sizeof(base) - 1, &b,
			  &err))
		abort();	/* the canned parent must parse */
	profset_add(&s, b);
	profset_add(&s, p);
	if (!profset_resolve(&s, &err)) {
		for (i = 0; i < 3; i++) {
			struct usbeth_dev d;
			const struct profile *w;
			char why[128];

			canned(&d, i);
			profile_matches(p, &d, why, sizeof(why));
			profile_matches(p, &desc, why, sizeof(why));
			profile_specificity(p);
			w = profset_select(&s, &d);
			if (w && w != p && profile_matches(p, &d, NULL, 0))
				profset_why(w, p, why, sizeof(why));
			for (k = 0; k < K_COUNT; k++) {
				uint32_t v;

				if (profile_want(p, k, &d, &v) &&
				    p->eff[k].kind == V_VALUE &&
				    (v < knob_table[k].min ||
				     v > knob_table[k].max))
					abort();	/* validation let it by */
				knob_supported(k, &d);
			}
		}
	} else {
		perr_format(&err, buf, sizeof(buf));
	}
	profset_free(&s);
	return 0;
}
