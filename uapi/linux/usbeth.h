/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * usbeth: per-device tuning of USB and embedded Ethernet links over generic
 * netlink.
 *
 * Family name: USBETH_GENL_NAME ("usbeth"), version USBETH_GENL_VERSION.
 * Multicast group: USBETH_MCGRP_MONITOR ("monitor").
 *
 * The commands and attributes are defined in uapi/usbeth.yaml, which is the
 * source of truth; this header must match it.
 */
#ifndef _UAPI_LINUX_USBETH_H
#define _UAPI_LINUX_USBETH_H

#define USBETH_GENL_NAME	"usbeth"
#define USBETH_GENL_VERSION	1
#define USBETH_MCGRP_MONITOR	"monitor"

#endif /* _UAPI_LINUX_USBETH_H */
