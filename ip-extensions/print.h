/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usbeth CLI: devices and events, in text or JSON (the same keys; the JSON
 * schema is documented in usbeth(8), JSON OUTPUT).
 */
#ifndef USBETH_CLI_PRINT_H
#define USBETH_CLI_PRINT_H

#include "out.h"
#include "usbeth.h"

#define CLI_SHOW_DETAILS	0x1	/* -d: BQL per TX queue, all fields */
#define CLI_SHOW_STATS		0x2	/* -s: BQL limit and inflight per queue */

/* One device: an object in JSON (inside the caller's array), a block of
 * lines in text.
 */
void cli_print_dev(struct out *o, const struct usbeth_dev *d, unsigned int flags);

/* `link show`: a JSON array of devices (one line, or pretty), or the text
 * blocks one after the other.
 */
void cli_print_devs(struct out *o, const struct usbeth_dev *d, size_t n,
		    unsigned int flags);

/* One monitor event: event is "new", "del", "change", "existing"; a JSON
 * object per line {"event": ..., device keys}, or "[event] " and the text
 * block. d may be NULL for "overrun".
 */
void cli_print_event(struct out *o, const char *event,
		     const struct usbeth_dev *d, unsigned int flags);

#endif /* USBETH_CLI_PRINT_H */
