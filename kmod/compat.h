/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One place for kernel API differences. Force-included into every kmod/
 * source file by Kbuild. Each entry names the kernel version it is for.
 */
#ifndef _USBETH_COMPAT_H
#define _USBETH_COMPAT_H

#include <linux/version.h>

#endif /* _USBETH_COMPAT_H */
