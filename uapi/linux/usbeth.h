/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * usbeth: per-device tuning of USB and embedded Ethernet links over generic
 * netlink. uapi/usbeth.yaml is the source of truth for this contract; the
 * host test uapi_spec checks that this header matches it.
 *
 * Family USBETH_GENL_NAME ("usbeth"), version USBETH_GENL_VERSION; one
 * multicast group, USBETH_MCGRP_MONITOR ("monitor").
 *
 * Devices are netdevs of the caller's network namespace, named by exactly one
 * of USBETH_A_IFINDEX or USBETH_A_IFNAME.
 *
 * USBETH_CMD_GET (do: one device; dump: every netdev of the netns, no
 * attributes allowed in the request). Reply: USBETH_CMD_GET with
 *   USBETH_A_IFINDEX        u32     always
 *   USBETH_A_IFNAME         string  always
 *   USBETH_A_DRIVER         string  always (ethtool's driver name, else the
 *                                   parent device's driver, else "")
 *   USBETH_A_ROLE           u32     enum usbeth_role, always
 *   USBETH_A_CAPS           u32     USBETH_CAP_* this device supports, always
 *   USBETH_A_USB_SPEED      u32     enum usbeth_usb_speed; host and gadget
 *                                   roles (the gadget's current speed)
 *   USBETH_A_USB_VID        u16     host role: idVendor
 *   USBETH_A_USB_PID        u16     host role: idProduct
 *   USBETH_A_USB_BUSNUM     u32     host role
 *   USBETH_A_USB_PATH       string  host role: the USB device's name, e.g.
 *                                   "2-1.4" (bus-port.port...)
 *   USBETH_A_GADGET_UDC     string  gadget role: the UDC it is bound to
 *   USBETH_A_GADGET_MAX_SPEED u32   gadget role: enum usbeth_usb_speed
 *   USBETH_A_QMULT          u32     CAP_QMULT: configured TX/RX queue
 *                                   multiplier (takes effect at the next
 *                                   connect)
 *   USBETH_A_QMULT_ACTIVE   u32     CAP_QMULT: the multiplier in effect since
 *                                   the last connect; absent when not known
 *                                   (not connected, connected before the
 *                                   module was loaded, or a connect that
 *                                   overlapped a qmult change)
 *   USBETH_A_NTB_RX_MAX     u32     CAP_NTB: bytes, the NTB size the device
 *                                   may send us (cdc_ncm rx_max)
 *   USBETH_A_NTB_TX_MAX     u32     CAP_NTB: bytes, the NTB size we send
 *                                   (cdc_ncm tx_max; the driver adds one pad
 *                                   byte to a multiple of the USB packet)
 *   USBETH_A_NTB_DEV_RX_MAX u32     CAP_NTB: bytes, the device's advertised
 *                                   dwNtbInMaxSize
 *   USBETH_A_NTB_DEV_TX_MAX u32     CAP_NTB: bytes, dwNtbOutMaxSize
 *   USBETH_A_TX_TIMER_USECS u32     CAP_TX_TIMER: usecs, cdc_ncm's TX
 *                                   coalescing hrtimer; 0 = off
 *   USBETH_A_COAL_TX_USECS  u32     CAP_COAL_TX_USECS: ethtool tx-usecs
 *   USBETH_A_COAL_TX_FRAMES u32     CAP_COAL_TX_FRAMES: ethtool tx-frames
 *   USBETH_A_COAL_RX_USECS  u32     CAP_COAL_RX_USECS: ethtool rx-usecs
 *   USBETH_A_COAL_RX_FRAMES u32     CAP_COAL_RX_FRAMES: ethtool rx-frames
 *   USBETH_A_BQL_ACCOUNTING u32     CAP_BQL: enum usbeth_bql_accounting
 *   USBETH_A_BQL_QUEUES     nest    CAP_BQL: one USBETH_A_BQL_QUEUE nest per
 *                                   TX queue, with USBETH_A_BQLQ_*:
 *     USBETH_A_BQLQ_INDEX     u32   TX queue index
 *     USBETH_A_BQLQ_LIMIT     u32   bytes, the current dynamic limit
 *     USBETH_A_BQLQ_INFLIGHT  u32   bytes queued to the driver, not completed
 *     USBETH_A_BQLQ_LIMIT_MIN u32   bytes
 *     USBETH_A_BQLQ_LIMIT_MAX u32   bytes
 *     USBETH_A_BQLQ_HOLD_TIME u32   msecs
 * Every knob value is read from the driver at the time of the request.
 *
 * USBETH_CMD_SET (do; needs CAP_NET_ADMIN over the device's netns). The
 * device, and any of:
 *   USBETH_A_QMULT            1..100 (u_ether gadgets)
 *   USBETH_A_NTB_RX_MAX       2048..dwNtbInMaxSize (cdc_ncm)
 *   USBETH_A_NTB_TX_MAX       2048..dwNtbOutMaxSize (cdc_ncm; the driver
 *                             may require more: one datagram and headers)
 *   USBETH_A_TX_TIMER_USECS   0, or 5..4000000 (cdc_ncm)
 *   USBETH_A_COAL_*           within the driver's supported_coalesce_params
 *   USBETH_A_BQL_LIMIT_MIN, USBETH_A_BQL_LIMIT_MAX (bytes, up to
 *                             USBETH_BQL_LIMIT_MAX), USBETH_A_BQL_HOLD_TIME
 *                             (msecs): on every TX queue, or only on
 *                             USBETH_A_BQL_QUEUE_INDEX (0..4095) when given
 * The set is atomic: all attributes are validated before any is applied, and
 * if applying one fails the ones already applied are put back. A knob the
 * device does not support is refused with EOPNOTSUPP, a value out of range
 * with ERANGE or EINVAL; the extack names the attribute and the reason (and
 * the device's maximum where one applies). A set that changed anything sends
 * USBETH_CMD_CHANGE_NTF (a full GET reply) to the monitor group and, with
 * NLM_F_ECHO, to the caller.
 *
 * Notifications on USBETH_MCGRP_MONITOR, in the device's netns:
 *   USBETH_CMD_NEW_NTF     a USB host- or gadget-role netdev appeared (a GET
 *                          reply: identity, capabilities, values)
 *   USBETH_CMD_DEL_NTF     it disappeared (IFINDEX, IFNAME, ROLE)
 *   USBETH_CMD_CHANGE_NTF  its knobs were changed through usbeth
 * A netdev moving between namespaces disappears from one and appears in the
 * other.
 */
#ifndef _UAPI_LINUX_USBETH_H
#define _UAPI_LINUX_USBETH_H

#define USBETH_GENL_NAME	"usbeth"
#define USBETH_GENL_VERSION	1
#define USBETH_MCGRP_MONITOR	"monitor"

enum usbeth_cmd {
	USBETH_CMD_UNSPEC,
	USBETH_CMD_GET,
	USBETH_CMD_SET,
	USBETH_CMD_NEW_NTF,
	USBETH_CMD_DEL_NTF,
	USBETH_CMD_CHANGE_NTF,

	__USBETH_CMD_MAX
};

#define USBETH_CMD_MAX (__USBETH_CMD_MAX - 1)

enum usbeth_role {
	USBETH_ROLE_OTHER,
	USBETH_ROLE_USB_HOST,
	USBETH_ROLE_USB_GADGET,

	__USBETH_ROLE_MAX
};

#define USBETH_ROLE_MAX (__USBETH_ROLE_MAX - 1)

enum usbeth_usb_speed {
	USBETH_USB_SPEED_UNKNOWN,
	USBETH_USB_SPEED_LOW,
	USBETH_USB_SPEED_FULL,
	USBETH_USB_SPEED_HIGH,
	USBETH_USB_SPEED_WIRELESS,
	USBETH_USB_SPEED_SUPER,
	USBETH_USB_SPEED_SUPER_PLUS,

	__USBETH_USB_SPEED_MAX
};

#define USBETH_USB_SPEED_MAX (__USBETH_USB_SPEED_MAX - 1)

enum usbeth_bql_accounting {
	USBETH_BQL_ACCOUNTING_UNKNOWN,	/* nothing sent yet: cannot tell */
	USBETH_BQL_ACCOUNTING_ACTIVE,	/* the driver reports bytes to BQL */
	USBETH_BQL_ACCOUNTING_NONE,	/* it sent packets, none reached BQL */

	__USBETH_BQL_ACCOUNTING_MAX
};

#define USBETH_BQL_ACCOUNTING_MAX (__USBETH_BQL_ACCOUNTING_MAX - 1)

/* USBETH_A_CAPS bits */
enum usbeth_cap {
	USBETH_CAP_QMULT		= 1U << 0,
	USBETH_CAP_NTB			= 1U << 1,
	USBETH_CAP_TX_TIMER		= 1U << 2,
	USBETH_CAP_COAL_TX_USECS	= 1U << 3,
	USBETH_CAP_COAL_TX_FRAMES	= 1U << 4,
	USBETH_CAP_COAL_RX_USECS	= 1U << 5,
	USBETH_CAP_COAL_RX_FRAMES	= 1U << 6,
	USBETH_CAP_BQL			= 1U << 7,

	__USBETH_CAP_ALL		= (1U << 8) - 1
};

/* Ranges the family accepts (drivers may narrow them further). */
#define USBETH_QMULT_MIN		1
#define USBETH_QMULT_MAX		100
#define USBETH_NTB_MIN			2048
#define USBETH_NTB_MAX			(64 * 1024 * 1024)
#define USBETH_TX_TIMER_MIN_USECS	5
#define USBETH_TX_TIMER_MAX_USECS	4000000
#define USBETH_BQL_LIMIT_MAX		1879048192	/* DQL_MAX_LIMIT, the default */
#define USBETH_BQL_HOLD_TIME_MAX	60000		/* msecs */
#define USBETH_BQL_QUEUE_MAX		4095

enum usbeth_attr {
	USBETH_A_UNSPEC,
	USBETH_A_IFINDEX,		/* u32 */
	USBETH_A_IFNAME,		/* string */
	USBETH_A_DRIVER,		/* string */
	USBETH_A_ROLE,			/* u32, enum usbeth_role */
	USBETH_A_CAPS,			/* u32, USBETH_CAP_* */
	USBETH_A_USB_SPEED,		/* u32, enum usbeth_usb_speed */
	USBETH_A_USB_VID,		/* u16 */
	USBETH_A_USB_PID,		/* u16 */
	USBETH_A_USB_BUSNUM,		/* u32 */
	USBETH_A_USB_PATH,		/* string */
	USBETH_A_GADGET_UDC,		/* string */
	USBETH_A_GADGET_MAX_SPEED,	/* u32, enum usbeth_usb_speed */
	USBETH_A_QMULT,			/* u32 */
	USBETH_A_QMULT_ACTIVE,		/* u32 */
	USBETH_A_NTB_RX_MAX,		/* u32, bytes */
	USBETH_A_NTB_TX_MAX,		/* u32, bytes */
	USBETH_A_NTB_DEV_RX_MAX,	/* u32, bytes */
	USBETH_A_NTB_DEV_TX_MAX,	/* u32, bytes */
	USBETH_A_TX_TIMER_USECS,	/* u32, usecs */
	USBETH_A_COAL_TX_USECS,		/* u32, usecs */
	USBETH_A_COAL_TX_FRAMES,	/* u32 */
	USBETH_A_COAL_RX_USECS,		/* u32, usecs */
	USBETH_A_COAL_RX_FRAMES,	/* u32 */
	USBETH_A_BQL_ACCOUNTING,	/* u32, enum usbeth_bql_accounting */
	USBETH_A_BQL_QUEUES,		/* nest of USBETH_A_BQL_QUEUE */
	USBETH_A_BQL_QUEUE_INDEX,	/* u32, SET: only this TX queue */
	USBETH_A_BQL_LIMIT_MIN,		/* u32, bytes, SET */
	USBETH_A_BQL_LIMIT_MAX,		/* u32, bytes, SET */
	USBETH_A_BQL_HOLD_TIME,		/* u32, msecs, SET */

	__USBETH_A_MAX
};

#define USBETH_A_MAX (__USBETH_A_MAX - 1)

/* Inside USBETH_A_BQL_QUEUES */
enum usbeth_bql_queues_attr {
	USBETH_A_BQLQS_UNSPEC,
	USBETH_A_BQL_QUEUE,		/* nest of USBETH_A_BQLQ_* */

	__USBETH_A_BQLQS_MAX
};

#define USBETH_A_BQLQS_MAX (__USBETH_A_BQLQS_MAX - 1)

/* Inside USBETH_A_BQL_QUEUE */
enum usbeth_bql_queue_attr {
	USBETH_A_BQLQ_UNSPEC,
	USBETH_A_BQLQ_INDEX,		/* u32 */
	USBETH_A_BQLQ_LIMIT,		/* u32, bytes */
	USBETH_A_BQLQ_INFLIGHT,		/* u32, bytes */
	USBETH_A_BQLQ_LIMIT_MIN,	/* u32, bytes */
	USBETH_A_BQLQ_LIMIT_MAX,	/* u32, bytes */
	USBETH_A_BQLQ_HOLD_TIME,	/* u32, msecs */

	__USBETH_A_BQLQ_MAX
};

#define USBETH_A_BQLQ_MAX (__USBETH_A_BQLQ_MAX - 1)

#endif /* _UAPI_LINUX_USBETH_H */
