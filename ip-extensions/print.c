// SPDX-License-Identifier: GPL-2.0
/*
 * usbeth CLI: devices and events through the one text/JSON path. Text:
 *
 *   5: enx020000b101: driver cdc_ncm role usb-host
 *       usb-vid 17e9 usb-pid 4301 usb-speed super usb-busnum 2 usb-path 2-1
 *       caps ntb,tx-timer
 *       ntb-rx-max 16384 ntb-tx-max 16384 ... tx-timer-usecs 400
 *       queue 0 limit 1514 inflight 0 limit-min 0 ...        (-d, -s)
 *
 * JSON: the same keys in an object per device; caps as an array of names,
 * the queues as the array "bql-queues".
 */
#include <stdio.h>

#include "print.h"

static void put_enum(struct out *o, const char *key, const char *name,
		     uint32_t v)
{
	char num[16];

	if (!name) {
		snprintf(num, sizeof(num), "%u", (unsigned int)v);
		name = num;
	}
	out_str(o, key, NULL, name);
}

static void put_hex16(struct out *o, const char *key, uint16_t v)
{
	char hex[8];

	snprintf(hex, sizeof(hex), "%04x", (unsigned int)v);
	out_str(o, key, NULL, hex);
}

static void put_caps(struct out *o, uint32_t caps)
{
	char names[256];
	int bit;

	if (!out_is_json(o)) {
		if (caps) {
			usbeth_caps_format(caps, names, sizeof(names));
			out_str(o, "caps", NULL, names);
		}
		return;
	}
	out_arr_open(o, "caps");
	for (bit = 0; bit < 32; bit++) {
		uint32_t cap = 1U << bit;
		const char *name = usbeth_cap_name(cap);
		char hex[16];

		if (!(caps & cap))
			continue;
		if (!name) {
			snprintf(hex, sizeof(hex), "0x%x", (unsigned int)cap);
			name = hex;
		}
		out_str_elem(o, name);
	}
	out_arr_close(o);
}

/* Values the kernel reports beside a knob (read only), shown after it. */
static const struct {
	int knob;			/* USBETH_KNOB_*: after this one */
	int attr;
	size_t off;
} beside[] = {
#define B(k, a, f) { USBETH_KNOB_##k, a, offsetof(struct usbeth_dev, f) }
	B(QMULT, USBETH_A_QMULT_ACTIVE, qmult_active),
	B(NTB_TX_MAX, USBETH_A_NTB_DEV_RX_MAX, ntb_dev_rx_max),
	B(NTB_TX_MAX, USBETH_A_NTB_DEV_TX_MAX, ntb_dev_tx_max),
#undef B
};

/* The BQL field of each TX queue a per-queue knob sets. */
static int queue_attr(int knob)
{
	switch (knob) {
	case USBETH_KNOB_BQL_LIMIT_MIN: return USBETH_A_BQLQ_LIMIT_MIN;
	case USBETH_KNOB_BQL_LIMIT_MAX: return USBETH_A_BQLQ_LIMIT_MAX;
	default: return USBETH_A_BQLQ_HOLD_TIME;
	}
}

/* The value every TX queue holds for one BQL field, if they all hold the
 * same; false when they differ, one lacks it, or there are none.
 */
static bool bql_uniform(const struct usbeth_dev *d, int qattr, uint32_t *v)
{
	uint32_t first = 0;
	size_t i;

	for (i = 0; i < d->n_bql_queues; i++) {
		const struct usbeth_bql_queue *q = &d->bql_queues[i];
		uint32_t x;

		if (!(q->present & (1U << qattr)))
			return false;
		switch (qattr) {
		case USBETH_A_BQLQ_LIMIT_MIN: x = q->limit_min; break;
		case USBETH_A_BQLQ_LIMIT_MAX: x = q->limit_max; break;
		default: x = q->hold_time_ms; break;
		}
		if (!i)
			first = x;
		else if (x != first)
			return false;
	}
	*v = first;
	return d->n_bql_queues > 0;
}

static void put_queue(struct out *o, const struct usbeth_bql_queue *q,
		      unsigned int flags)
{
	bool all = flags & CLI_SHOW_DETAILS;

	out_obj_open(o, NULL);
	out_u32(o, "queue", NULL, q->index);
	if (q->present & (1U << USBETH_A_BQLQ_LIMIT))
		out_u32(o, "limit", NULL, q->limit);
	if (q->present & (1U << USBETH_A_BQLQ_INFLIGHT))
		out_u32(o, "inflight", NULL, q->inflight);
	if (all && (q->present & (1U << USBETH_A_BQLQ_LIMIT_MIN)))
		out_u32(o, "limit-min", NULL, q->limit_min);
	if (all && (q->present & (1U << USBETH_A_BQLQ_LIMIT_MAX)))
		out_u32(o, "limit-max", NULL, q->limit_max);
	if (all && (q->present & (1U << USBETH_A_BQLQ_HOLD_TIME)))
		out_u32(o, "hold-time", "hold-time %ums", q->hold_time_ms);
	out_obj_close(o);
	out_nl(o, 4);
}

static void dev_members(struct out *o, const struct usbeth_dev *d,
			unsigned int flags)
{
	uint32_t v = 0;
	size_t i;
	int id;

	out_u32(o, "ifindex", "%u:", d->ifindex);
	if (usbeth_dev_has(d, USBETH_A_IFNAME))
		out_str(o, "ifname", "%s:", d->ifname);
	if (usbeth_dev_has(d, USBETH_A_DRIVER) && d->driver[0])
		out_str(o, "driver", NULL, d->driver);
	if (usbeth_dev_has(d, USBETH_A_ROLE))
		put_enum(o, "role", usbeth_role_name(d->role), d->role);
	out_nl(o, 4);

	if (usbeth_dev_has(d, USBETH_A_USB_VID))
		put_hex16(o, "usb-vid", d->usb_vid);
	if (usbeth_dev_has(d, USBETH_A_USB_PID))
		put_hex16(o, "usb-pid", d->usb_pid);
	if (usbeth_dev_has(d, USBETH_A_USB_SPEED))
		put_enum(o, "usb-speed", usbeth_speed_name(d->usb_speed),
			 d->usb_speed);
	if (usbeth_dev_has(d, USBETH_A_USB_BUSNUM))
		out_u32(o, "usb-busnum", NULL, d->usb_busnum);
	if (usbeth_dev_has(d, USBETH_A_USB_PATH))
		out_str(o, "usb-path", NULL, d->usb_path);
	if (usbeth_dev_has(d, USBETH_A_GADGET_UDC))
		out_str(o, "gadget-udc", NULL, d->gadget_udc);
	if (usbeth_dev_has(d, USBETH_A_GADGET_MAX_SPEED))
		put_enum(o, "gadget-max-speed",
			 usbeth_speed_name(d->gadget_max_speed),
			 d->gadget_max_speed);
	out_nl(o, 4);

	if (usbeth_dev_has(d, USBETH_A_CAPS))
		put_caps(o, d->caps);
	out_nl(o, 4);

	/* the knobs of the device, in the table's order (USBETH_KNOBS) */
	for (id = 0; id < USBETH_KNOB_COUNT; id++) {
		if (usbeth_knobs[id].per_queue)
			continue;
		if (usbeth_knob_value(d, id, &v, NULL))
			out_u32(o, usbeth_knobs[id].name, NULL, v);
		for (i = 0; i < sizeof(beside) / sizeof(beside[0]); i++) {
			if (beside[i].knob != id ||
			    !usbeth_dev_has(d, beside[i].attr))
				continue;
			v = *(const uint32_t *)((const char *)d + beside[i].off);
			out_u32(o, usbeth_attr_name(beside[i].attr), NULL, v);
		}
	}
	if (usbeth_dev_has(d, USBETH_A_BQL_ACCOUNTING))
		put_enum(o, "bql-accounting",
			 usbeth_bql_accounting_name(d->bql_accounting),
			 d->bql_accounting);
	/* the BQL knobs: the value every TX queue holds */
	for (id = 0; id < USBETH_KNOB_COUNT; id++) {
		const struct usbeth_knob *k = &usbeth_knobs[id];
		char ms[48];

		if (!k->per_queue || !bql_uniform(d, queue_attr(id), &v))
			continue;
		/* text: "bql-hold-time 1000ms" */
		snprintf(ms, sizeof(ms), "%s %%ums", k->name);
		out_u32(o, k->name, k->unit == USBETH_UNIT_MSECS ? ms : NULL,
			v);
	}
	out_nl(o, 4);

	if ((flags & (CLI_SHOW_DETAILS | CLI_SHOW_STATS)) && d->n_bql_queues) {
		out_arr_open(o, "bql-queues");
		for (i = 0; i < d->n_bql_queues; i++)
			put_queue(o, &d->bql_queues[i], flags);
		out_arr_close(o);
	}
	out_nl(o, 0);
}

void cli_print_dev(struct out *o, const struct usbeth_dev *d, unsigned int flags)
{
	out_obj_open(o, NULL);
	dev_members(o, d, flags);
	out_obj_close(o);
}

void cli_print_devs(struct out *o, const struct usbeth_dev *d, size_t n,
		    unsigned int flags)
{
	size_t i;

	out_arr_open(o, NULL);
	for (i = 0; i < n; i++)
		cli_print_dev(o, &d[i], flags);
	out_arr_close(o);
	out_end(o);
}

void cli_print_event(struct out *o, const char *event,
		     const struct usbeth_dev *d, unsigned int flags)
{
	char tag[32];

	out_obj_open(o, NULL);
	if (out_is_json(o)) {
		out_str(o, "event", NULL, event);
	} else {
		snprintf(tag, sizeof(tag), "[%s]", event);
		out_text(o, tag);
	}
	if (d)
		dev_members(o, d, flags);
	out_obj_close(o);
	out_end(o);
}
