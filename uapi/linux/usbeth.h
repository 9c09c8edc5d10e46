/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	uapi/usbeth.yaml */
/* YNL-GEN uapi header */

#ifndef _UAPI_LINUX_USBETH_H
#define _UAPI_LINUX_USBETH_H

#define USBETH_GENL_NAME	"usbeth"
#define USBETH_GENL_VERSION	1

/**
 * enum usbeth_role - What kind of netdev a device is, as far as usbeth is
 *   concerned.
 * @USBETH_ROLE_OTHER: Neither side of a USB link (e.g. a PCI NIC such as
 *   e1000e). Only the ethtool coalescing and BQL knobs can apply.
 * @USBETH_ROLE_USB_HOST: The host side of a USB link: a usbnet netdev (e.g.
 *   cdc_ncm) whose parent is a USB interface. Has the usb-vid, usb-pid,
 *   usb-busnum and usb-path attributes.
 * @USBETH_ROLE_USB_GADGET: The device side of a USB link: a u_ether netdev of
 *   a USB gadget function (e.g. usb_f_ncm). Has the gadget-udc and
 *   gadget-max-speed attributes.
 */
enum usbeth_role {
	USBETH_ROLE_OTHER,
	USBETH_ROLE_USB_HOST,
	USBETH_ROLE_USB_GADGET,

	/* private: */
	__USBETH_ROLE_MAX,
	USBETH_ROLE_MAX = (__USBETH_ROLE_MAX - 1)
};

/**
 * enum usbeth_usb_speed - USB signalling speed, in the order of the kernel's
 *   enum usb_device_speed.
 * @USBETH_USB_SPEED_UNKNOWN: Not known, or not connected.
 * @USBETH_USB_SPEED_LOW: Low speed, 1.5 Mbit/s (USB 1.x).
 * @USBETH_USB_SPEED_FULL: Full speed, 12 Mbit/s (USB 1.x).
 * @USBETH_USB_SPEED_HIGH: High speed, 480 Mbit/s (USB 2.0).
 * @USBETH_USB_SPEED_WIRELESS: Wireless USB (USB 2.5).
 * @USBETH_USB_SPEED_SUPER: SuperSpeed, 5 Gbit/s (USB 3.0).
 * @USBETH_USB_SPEED_SUPER_PLUS: SuperSpeed Plus, 10 Gbit/s or more (USB 3.1
 *   and later).
 */
enum usbeth_usb_speed {
	USBETH_USB_SPEED_UNKNOWN,
	USBETH_USB_SPEED_LOW,
	USBETH_USB_SPEED_FULL,
	USBETH_USB_SPEED_HIGH,
	USBETH_USB_SPEED_WIRELESS,
	USBETH_USB_SPEED_SUPER,
	USBETH_USB_SPEED_SUPER_PLUS,

	/* private: */
	__USBETH_USB_SPEED_MAX,
	USBETH_USB_SPEED_MAX = (__USBETH_USB_SPEED_MAX - 1)
};

/**
 * enum usbeth_bql_accounting - Whether the driver reports the bytes it queues
 *   and completes to BQL (netdev_tx_sent_queue / netdev_tx_completed_queue).
 *   BQL limits only have an effect when it does.
 * @USBETH_BQL_ACCOUNTING_UNKNOWN: Nothing has been sent on the device yet, so
 *   it cannot be told.
 * @USBETH_BQL_ACCOUNTING_ACTIVE: The driver reports bytes to BQL.
 * @USBETH_BQL_ACCOUNTING_NONE: The device sent packets but none of them
 *   reached BQL.
 */
enum usbeth_bql_accounting {
	USBETH_BQL_ACCOUNTING_UNKNOWN,
	USBETH_BQL_ACCOUNTING_ACTIVE,
	USBETH_BQL_ACCOUNTING_NONE,

	/* private: */
	__USBETH_BQL_ACCOUNTING_MAX,
	USBETH_BQL_ACCOUNTING_MAX = (__USBETH_BQL_ACCOUNTING_MAX - 1)
};

/**
 * enum usbeth_cap - The knobs a device supports (the caps attribute). A set of
 *   a knob whose capability bit is clear is refused with EOPNOTSUPP. The
 *   header also carries USBETH_CAP_MASK, the mask of every bit.
 * @USBETH_CAP_QMULT: The USB gadget queue multiplier: the qmult and
 *   qmult-active attributes (u_ether gadgets).
 * @USBETH_CAP_NTB: The CDC-NCM NTB sizes: ntb-rx-max, ntb-tx-max,
 *   ntb-dev-rx-max and ntb-dev-tx-max (cdc_ncm hosts).
 * @USBETH_CAP_TX_TIMER: The CDC-NCM TX coalescing timer, tx-timer-usecs
 *   (cdc_ncm hosts).
 * @USBETH_CAP_COAL_TX_USECS: ethtool's tx-usecs coalescing parameter,
 *   coal-tx-usecs (drivers whose supported_coalesce_params include it).
 * @USBETH_CAP_COAL_TX_FRAMES: ethtool's tx-frames coalescing parameter,
 *   coal-tx-frames (drivers whose supported_coalesce_params include it).
 * @USBETH_CAP_COAL_RX_USECS: ethtool's rx-usecs coalescing parameter,
 *   coal-rx-usecs (drivers whose supported_coalesce_params include it).
 * @USBETH_CAP_COAL_RX_FRAMES: ethtool's rx-frames coalescing parameter,
 *   coal-rx-frames (drivers whose supported_coalesce_params include it).
 * @USBETH_CAP_BQL: BQL on the device's TX queues: bql-accounting, bql-queues,
 *   and the bql-limit-min, bql-limit-max and bql-hold-time knobs.
 */
enum usbeth_cap {
	USBETH_CAP_QMULT = 1,
	USBETH_CAP_NTB = 2,
	USBETH_CAP_TX_TIMER = 4,
	USBETH_CAP_COAL_TX_USECS = 8,
	USBETH_CAP_COAL_TX_FRAMES = 16,
	USBETH_CAP_COAL_RX_USECS = 32,
	USBETH_CAP_COAL_RX_FRAMES = 64,
	USBETH_CAP_BQL = 128,

	/* private: */
	USBETH_CAP_MASK = 255,
};

/**
 * enum usbeth_knob_bits - Settable knobs, one bit each, in the left-changed
 *   attribute.
 * @USBETH_KNOB_BIT_QMULT: The qmult attribute.
 * @USBETH_KNOB_BIT_NTB_RX_MAX: The ntb-rx-max attribute.
 * @USBETH_KNOB_BIT_NTB_TX_MAX: The ntb-tx-max attribute.
 * @USBETH_KNOB_BIT_TX_TIMER_USECS: The tx-timer-usecs attribute.
 * @USBETH_KNOB_BIT_COAL_TX_USECS: The coal-tx-usecs attribute.
 * @USBETH_KNOB_BIT_COAL_TX_FRAMES: The coal-tx-frames attribute.
 * @USBETH_KNOB_BIT_COAL_RX_USECS: The coal-rx-usecs attribute.
 * @USBETH_KNOB_BIT_COAL_RX_FRAMES: The coal-rx-frames attribute.
 * @USBETH_KNOB_BIT_BQL_LIMIT_MIN: The bql-limit-min attribute.
 * @USBETH_KNOB_BIT_BQL_LIMIT_MAX: The bql-limit-max attribute.
 * @USBETH_KNOB_BIT_BQL_HOLD_TIME: The bql-hold-time attribute.
 */
enum usbeth_knob_bits {
	USBETH_KNOB_BIT_QMULT = 1,
	USBETH_KNOB_BIT_NTB_RX_MAX = 2,
	USBETH_KNOB_BIT_NTB_TX_MAX = 4,
	USBETH_KNOB_BIT_TX_TIMER_USECS = 8,
	USBETH_KNOB_BIT_COAL_TX_USECS = 16,
	USBETH_KNOB_BIT_COAL_TX_FRAMES = 32,
	USBETH_KNOB_BIT_COAL_RX_USECS = 64,
	USBETH_KNOB_BIT_COAL_RX_FRAMES = 128,
	USBETH_KNOB_BIT_BQL_LIMIT_MIN = 256,
	USBETH_KNOB_BIT_BQL_LIMIT_MAX = 512,
	USBETH_KNOB_BIT_BQL_HOLD_TIME = 1024,

	/* private: */
	USBETH_KNOB_BIT_MASK = 2047,
};

#define USBETH_QMULT_MIN		1
#define USBETH_QMULT_MAX		100
#define USBETH_NTB_MIN			2048
#define USBETH_NTB_MAX			67108864
#define USBETH_TX_TIMER_MIN_USECS	5
#define USBETH_TX_TIMER_MAX_USECS	4000000
#define USBETH_BQL_LIMIT_MAX		1879048192
#define USBETH_BQL_HOLD_TIME_MAX	60000
#define USBETH_BQL_QUEUE_MAX		4095
#define USBETH_BQL_QUEUES_PER_NEST	1024

enum usbeth_attr {
	USBETH_A_IFINDEX = 1,
	USBETH_A_IFNAME,
	USBETH_A_DRIVER,
	USBETH_A_ROLE,
	USBETH_A_CAPS,
	USBETH_A_USB_SPEED,
	USBETH_A_USB_VID,
	USBETH_A_USB_PID,
	USBETH_A_USB_BUSNUM,
	USBETH_A_USB_PATH,
	USBETH_A_GADGET_UDC,
	USBETH_A_GADGET_MAX_SPEED,
	USBETH_A_QMULT,
	USBETH_A_QMULT_ACTIVE,
	USBETH_A_NTB_RX_MAX,
	USBETH_A_NTB_TX_MAX,
	USBETH_A_NTB_DEV_RX_MAX,
	USBETH_A_NTB_DEV_TX_MAX,
	USBETH_A_TX_TIMER_USECS,
	USBETH_A_COAL_TX_USECS,
	USBETH_A_COAL_TX_FRAMES,
	USBETH_A_COAL_RX_USECS,
	USBETH_A_COAL_RX_FRAMES,
	USBETH_A_BQL_ACCOUNTING,
	USBETH_A_BQL_QUEUES,
	USBETH_A_BQL_QUEUE_INDEX,
	USBETH_A_BQL_LIMIT_MIN,
	USBETH_A_BQL_LIMIT_MAX,
	USBETH_A_BQL_HOLD_TIME,
	USBETH_A_LEFT_CHANGED,

	__USBETH_A_MAX
};
#define USBETH_A_MAX (__USBETH_A_MAX - 1)

enum usbeth_bql_queues_attr {
	USBETH_A_BQL_QUEUE = 1,

	__USBETH_A_BQLQS_MAX
};
#define USBETH_A_BQLQS_MAX (__USBETH_A_BQLQS_MAX - 1)

enum usbeth_bql_queue_attr {
	USBETH_A_BQLQ_INDEX = 1,
	USBETH_A_BQLQ_LIMIT,
	USBETH_A_BQLQ_INFLIGHT,
	USBETH_A_BQLQ_LIMIT_MIN,
	USBETH_A_BQLQ_LIMIT_MAX,
	USBETH_A_BQLQ_HOLD_TIME,

	__USBETH_A_BQLQ_MAX
};
#define USBETH_A_BQLQ_MAX (__USBETH_A_BQLQ_MAX - 1)

enum usbeth_cmd {
	USBETH_CMD_GET = 1,
	USBETH_CMD_SET,
	USBETH_CMD_NEW_NTF,
	USBETH_CMD_DEL_NTF,
	USBETH_CMD_CHANGE_NTF,

	__USBETH_CMD_MAX
};
#define USBETH_CMD_MAX (__USBETH_CMD_MAX - 1)

#define USBETH_MCGRP_MONITOR	"monitor"

#endif /* _UAPI_LINUX_USBETH_H */
