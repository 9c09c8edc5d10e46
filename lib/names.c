// SPDX-License-Identifier: GPL-2.0
/* libusbeth: names of the family's values, for printing and parsing. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "usbeth.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const char *const role_names[] = {
	[USBETH_ROLE_OTHER]		= "other",
	[USBETH_ROLE_USB_HOST]		= "usb-host",
	[USBETH_ROLE_USB_GADGET]	= "usb-gadget",
};

static const char *const speed_names[] = {
	[USBETH_USB_SPEED_UNKNOWN]	= "unknown",
	[USBETH_USB_SPEED_LOW]		= "low",
	[USBETH_USB_SPEED_FULL]		= "full",
	[USBETH_USB_SPEED_HIGH]		= "high",
	[USBETH_USB_SPEED_WIRELESS]	= "wireless",
	[USBETH_USB_SPEED_SUPER]	= "super",
	[USBETH_USB_SPEED_SUPER_PLUS]	= "super-plus",
};

static const char *const bql_acct_names[] = {
	[USBETH_BQL_ACCOUNTING_UNKNOWN]	= "unknown",
	[USBETH_BQL_ACCOUNTING_ACTIVE]	= "active",
	[USBETH_BQL_ACCOUNTING_NONE]	= "none",
};

/* Indexed by bit number. */
static const char *const cap_names[] = {
	"qmult", "ntb", "tx-timer", "tx-usecs", "tx-frames", "rx-usecs",
	"rx-frames", "bql",
};

static const char *const cmd_names[] = {
	[USBETH_CMD_GET]	= "get",
	[USBETH_CMD_SET]	= "set",
	[USBETH_CMD_NEW_NTF]	= "new",
	[USBETH_CMD_DEL_NTF]	= "del",
	[USBETH_CMD_CHANGE_NTF]	= "change",
};

/* The knobs' attributes are named by the knob table (USBETH_KNOBS). */
#define KNOB_ATTR_NAME(ID, NAME, ATTR, ...)	[ATTR] = NAME,
static const char *const attr_names[] = {
	USBETH_KNOBS(KNOB_ATTR_NAME)
	[USBETH_A_IFINDEX]		= "ifindex",
	[USBETH_A_IFNAME]		= "ifname",
	[USBETH_A_DRIVER]		= "driver",
	[USBETH_A_ROLE]			= "role",
	[USBETH_A_CAPS]			= "caps",
	[USBETH_A_USB_SPEED]		= "usb-speed",
	[USBETH_A_USB_VID]		= "usb-vid",
	[USBETH_A_USB_PID]		= "usb-pid",
	[USBETH_A_USB_BUSNUM]		= "usb-busnum",
	[USBETH_A_USB_PATH]		= "usb-path",
	[USBETH_A_GADGET_UDC]		= "gadget-udc",
	[USBETH_A_GADGET_MAX_SPEED]	= "gadget-max-speed",
	[USBETH_A_QMULT_ACTIVE]		= "qmult-active",
	[USBETH_A_NTB_DEV_RX_MAX]	= "ntb-dev-rx-max",
	[USBETH_A_NTB_DEV_TX_MAX]	= "ntb-dev-tx-max",
	[USBETH_A_BQL_ACCOUNTING]	= "bql-accounting",
	[USBETH_A_BQL_QUEUES]		= "bql-queues",
	[USBETH_A_BQL_QUEUE_INDEX]	= "bql-queue",
	[USBETH_A_LEFT_CHANGED]		= "left-changed",
};
#undef KNOB_ATTR_NAME

static const char *const bqlq_names[] = {
	[USBETH_A_BQLQ_INDEX]		= "index",
	[USBETH_A_BQLQ_LIMIT]		= "limit",
	[USBETH_A_BQLQ_INFLIGHT]	= "inflight",
	[USBETH_A_BQLQ_LIMIT_MIN]	= "limit-min",
	[USBETH_A_BQLQ_LIMIT_MAX]	= "limit-max",
	[USBETH_A_BQLQ_HOLD_TIME]	= "hold-time",
};

static const char *lookup(const char *const *tab, size_t n, long long v)
{
	return v >= 0 && (unsigned long long)v < n ? tab[v] : NULL;
}

static int rlookup(const char *const *tab, size_t n, const char *name)
{
	size_t i;

	if (!name)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (tab[i] && !strcmp(tab[i], name))
			return (int)i;
	return -EINVAL;
}

#define LOOKUP(tab, v)		lookup(tab, ARRAY_SIZE(tab), v)
#define RLOOKUP(tab, name)	rlookup(tab, ARRAY_SIZE(tab), name)

const char *usbeth_role_name(uint32_t role)
{
	return LOOKUP(role_names, role);
}

const char *usbeth_speed_name(uint32_t speed)
{
	return LOOKUP(speed_names, speed);
}

const char *usbeth_bql_accounting_name(uint32_t v)
{
	return LOOKUP(bql_acct_names, v);
}

const char *usbeth_cap_name(uint32_t cap)
{
	int bit;

	if (!cap || (cap & (cap - 1)))
		return NULL;	/* not exactly one bit */
	bit = __builtin_ctz(cap);
	return LOOKUP(cap_names, bit);
}

const char *usbeth_cmd_name(int cmd)
{
	return LOOKUP(cmd_names, cmd);
}

const char *usbeth_attr_name(int attr)
{
	return LOOKUP(attr_names, attr);
}

const char *usbeth_bqlq_attr_name(int attr)
{
	return LOOKUP(bqlq_names, attr);
}

int usbeth_role_parse(const char *name)
{
	return RLOOKUP(role_names, name);
}

int usbeth_speed_parse(const char *name)
{
	return RLOOKUP(speed_names, name);
}

int usbeth_bql_accounting_parse(const char *name)
{
	return RLOOKUP(bql_acct_names, name);
}

int usbeth_cap_parse(const char *name)
{
	int bit = RLOOKUP(cap_names, name);

	return bit < 0 ? bit : (int)(1U << bit);
}

int usbeth_attr_parse(const char *name)
{
	char buf[32];
	size_t i, n;

	if (!name)
		return -EINVAL;
	n = strnlen(name, sizeof(buf));
	if (n == 0 || n >= sizeof(buf))
		return -EINVAL;
	for (i = 0; i < n; i++)
		buf[i] = name[i] == '_' ? '-' : name[i];
	buf[n] = '\0';
	return RLOOKUP(attr_names, buf);
}

bool usbeth_attr_settable(int attr)
{
	return attr > 0 && attr < 64 && (USBETH_SET_ATTRS & USBETH_BIT(attr));
}

int usbeth_caps_format(uint32_t caps, char *buf, size_t len)
{
	size_t used = 0;
	int bit;

	if (len)
		buf[0] = '\0';
	for (bit = 0; bit < 32; bit++) {
		uint32_t cap = 1U << bit;
		const char *name;
		char hex[16];
		int w;

		if (!(caps & cap))
			continue;
		name = usbeth_cap_name(cap);
		if (!name) {
			snprintf(hex, sizeof(hex), "0x%x", (unsigned int)cap);
			name = hex;
		}
		w = snprintf(used < len ? buf + used : NULL,
			     used < len ? len - used : 0, "%s%s",
			     used ? "," : "", name);
		if (w < 0)
			return w;
		used += (size_t)w;
	}
	return (int)used;
}
