/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libusbeth: the client library of the "usbeth" generic netlink family.
 *
 * The contract is uapi/linux/usbeth.h; this library is its only userspace
 * implementation (the CLI, the daemon and the tests all use it). It is built
 * on libmnl and is not thread safe: use one handle per thread.
 *
 * Conventions
 *   - Functions returning int return 0 (or a documented non-negative value)
 *     on success and a negative errno on failure. A kernel error is returned
 *     as the kernel's negative errno; its extended ACK (message, offending
 *     attribute) is then available from usbeth_errmsg() / usbeth_err_attr().
 *   - Presence masks: bit (1ULL << USBETH_A_x) is set for each attribute the
 *     kernel sent (struct usbeth_dev.present) or the caller wants to send
 *     (struct usbeth_set.has). USBETH_BIT(a) builds one bit.
 *   - Everything received from the kernel is validated (attribute types and
 *     lengths, string termination and size, array counts); a message that
 *     breaks the contract is refused with -EBADMSG. Unknown attributes are
 *     ignored, so newer kernels stay compatible.
 *
 * Typical use:
 *
 *	struct usbeth *u;
 *	struct usbeth_dev d;
 *	int err = usbeth_open(&u);
 *	if (err == -ENOENT)
 *		puts("usbeth kernel module not loaded: modprobe usbeth");
 *	else if (!err && !usbeth_get(u, 0, "usb0", &d)) {
 *		if (usbeth_dev_has(&d, USBETH_A_QMULT))
 *			printf("qmult %u\n", d.qmult);
 *		usbeth_dev_free(&d);
 *	}
 *	usbeth_close(u);
 */
#ifndef LIBUSBETH_H
#define LIBUSBETH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/netlink.h>
#include <linux/usbeth.h>

#ifdef __cplusplus
extern "C" {
#endif

#define USBETH_BIT(attr)	(1ULL << (attr))

/* Sizes of the string fields, terminating NUL included. A kernel string
 * that does not fit is a contract violation (-EBADMSG), never truncated.
 */
#define USBETH_IFNAMSIZ		16	/* IFNAMSIZ */
#define USBETH_DRIVER_LEN	32	/* ethtool_drvinfo.driver */
#define USBETH_USB_PATH_LEN	64
#define USBETH_UDC_LEN		64
#define USBETH_ERRMSG_LEN	256	/* extack text, truncated if longer */

/* Most TX queues accepted in one USBETH_A_BQL_QUEUES nest. */
#define USBETH_BQL_QUEUES_MAX	4096

/* The attributes USBETH_CMD_SET carries besides the device. */
#define USBETH_SET_ATTRS (USBETH_BIT(USBETH_A_QMULT) |			\
			  USBETH_BIT(USBETH_A_NTB_RX_MAX) |		\
			  USBETH_BIT(USBETH_A_NTB_TX_MAX) |		\
			  USBETH_BIT(USBETH_A_TX_TIMER_USECS) |		\
			  USBETH_BIT(USBETH_A_COAL_TX_USECS) |		\
			  USBETH_BIT(USBETH_A_COAL_TX_FRAMES) |		\
			  USBETH_BIT(USBETH_A_COAL_RX_USECS) |		\
			  USBETH_BIT(USBETH_A_COAL_RX_FRAMES) |		\
			  USBETH_BIT(USBETH_A_BQL_QUEUE_INDEX) |	\
			  USBETH_BIT(USBETH_A_BQL_LIMIT_MIN) |		\
			  USBETH_BIT(USBETH_A_BQL_LIMIT_MAX) |		\
			  USBETH_BIT(USBETH_A_BQL_HOLD_TIME))

/* ------------------------------------------------------------ device -- */

/* One TX queue of USBETH_A_BQL_QUEUES. */
struct usbeth_bql_queue {
	uint32_t present;	/* 1U << USBETH_A_BQLQ_x for each one sent */
	uint32_t index;		/* always present */
	uint32_t limit;		/* bytes */
	uint32_t inflight;	/* bytes */
	uint32_t limit_min;	/* bytes */
	uint32_t limit_max;	/* bytes */
	uint32_t hold_time_ms;
};

/* A USBETH_CMD_GET reply or a notification. Fields whose bit is clear in
 * .present are zero. See uapi/usbeth.yaml for units and meanings.
 */
struct usbeth_dev {
	uint64_t present;
	uint32_t ifindex;			/* always present */
	char ifname[USBETH_IFNAMSIZ];
	char driver[USBETH_DRIVER_LEN];
	uint32_t role;				/* enum usbeth_role */
	uint32_t caps;				/* USBETH_CAP_* */
	uint32_t usb_speed;			/* enum usbeth_usb_speed */
	uint16_t usb_vid;
	uint16_t usb_pid;
	uint32_t usb_busnum;
	char usb_path[USBETH_USB_PATH_LEN];
	char gadget_udc[USBETH_UDC_LEN];
	uint32_t gadget_max_speed;		/* enum usbeth_usb_speed */
	uint32_t qmult;
	uint32_t qmult_active;
	uint32_t ntb_rx_max;
	uint32_t ntb_tx_max;
	uint32_t ntb_dev_rx_max;
	uint32_t ntb_dev_tx_max;
	uint32_t tx_timer_usecs;
	uint32_t coal_tx_usecs;
	uint32_t coal_tx_frames;
	uint32_t coal_rx_usecs;
	uint32_t coal_rx_frames;
	uint32_t bql_accounting;		/* enum usbeth_bql_accounting */
	size_t n_bql_queues;			/* entries in bql_queues */
	struct usbeth_bql_queue *bql_queues;	/* heap; usbeth_dev_free() */
};

static inline bool usbeth_dev_has(const struct usbeth_dev *dev, int attr)
{
	return attr > 0 && attr < 64 && (dev->present & USBETH_BIT(attr));
}

/* Frees dev's queue array and zeroes *dev (safe on a zeroed struct). */
void usbeth_dev_free(struct usbeth_dev *dev);
/* Frees an array from usbeth_dump(), its elements included. */
void usbeth_devs_free(struct usbeth_dev *devs, size_t n);

/* ------------------------------------------------------------ handle --- */

struct usbeth;

/* Opens a NETLINK_GENERIC socket (NETLINK_EXT_ACK, NETLINK_CAP_ACK) and
 * resolves the family and its "monitor" group. -ENOENT: the family is not
 * registered, i.e. the usbeth module is not loaded.
 */
int usbeth_open(struct usbeth **u);
void usbeth_close(struct usbeth *u);

uint16_t usbeth_family_id(const struct usbeth *u);
uint32_t usbeth_family_version(const struct usbeth *u);
/* The "monitor" multicast group id, 0 if the family has none. */
uint32_t usbeth_monitor_group(const struct usbeth *u);

/* Extended ACK of the last request: its message ("" if none), the request's
 * top-level attribute NLMSGERR_ATTR_OFFS pointed into (-1 if none), and the
 * type of a missing required attribute (NLMSGERR_ATTR_MISS_TYPE, -1 if
 * none). Reset by every request.
 */
const char *usbeth_errmsg(const struct usbeth *u);
int usbeth_err_attr(const struct usbeth *u);
int usbeth_err_miss_attr(const struct usbeth *u);
/* After a refused usbeth_set(): the knobs (USBETH_KNOB_BIT_* bits) the set
 * changed and could not put back, from the kernel's left-changed; 0 when
 * the device was left as it was.
 */
uint32_t usbeth_err_left_changed(const struct usbeth *u);

/* ----------------------------------------------------------- requests -- */

/* One device, named by ifindex (ifname NULL) or ifname (ifindex 0).
 * *out is always initialized: release it with usbeth_dev_free() on success;
 * on failure it is zeroed.
 */
int usbeth_get(struct usbeth *u, uint32_t ifindex, const char *ifname,
	       struct usbeth_dev *out);

/* Every netdev of the netns. Redone when the kernel flags the dump as
 * interrupted (NLM_F_DUMP_INTR); -EAGAIN after 5 interrupted attempts.
 * On success *devs (NULL when *n is 0) is freed with usbeth_devs_free().
 */
int usbeth_dump(struct usbeth *u, struct usbeth_dev **devs, size_t *n);

/* How many times the last usbeth_dump() was redone because the kernel
 * flagged it interrupted (devices came or went while it ran).
 */
unsigned int usbeth_dump_redone(const struct usbeth *u);

/* A USBETH_CMD_SET request: the device (exactly one of ifindex != 0 and
 * ifname != NULL), and a value for each attribute whose bit is in .has
 * (a subset of USBETH_SET_ATTRS).
 */
struct usbeth_set {
	uint32_t ifindex;
	const char *ifname;
	uint64_t has;
	uint32_t qmult;			/* USBETH_A_QMULT */
	uint32_t ntb_rx_max;		/* USBETH_A_NTB_RX_MAX */
	uint32_t ntb_tx_max;		/* USBETH_A_NTB_TX_MAX */
	uint32_t tx_timer_usecs;	/* USBETH_A_TX_TIMER_USECS */
	uint32_t coal_tx_usecs;		/* USBETH_A_COAL_TX_USECS */
	uint32_t coal_tx_frames;	/* USBETH_A_COAL_TX_FRAMES */
	uint32_t coal_rx_usecs;		/* USBETH_A_COAL_RX_USECS */
	uint32_t coal_rx_frames;	/* USBETH_A_COAL_RX_FRAMES */
	uint32_t bql_queue_index;	/* USBETH_A_BQL_QUEUE_INDEX */
	uint32_t bql_limit_min;		/* USBETH_A_BQL_LIMIT_MIN */
	uint32_t bql_limit_max;		/* USBETH_A_BQL_LIMIT_MAX */
	uint32_t bql_hold_time;		/* USBETH_A_BQL_HOLD_TIME, msecs */
};

/* Stores val for a settable attribute and sets its bit in req->has;
 * -EINVAL if attr is not settable.
 */
int usbeth_set_value(struct usbeth_set *req, int attr, uint32_t val);

/* Sends req. With echo non-NULL, asks for NLM_F_ECHO and parses the echoed
 * USBETH_CMD_CHANGE_NTF into *echo (always initialized; free it with
 * usbeth_dev_free(); echo->present is 0 when the kernel echoed nothing,
 * i.e. the set changed nothing). A refused set returns the kernel's
 * -errno (EOPNOTSUPP, ERANGE, EINVAL, EPERM, ENODEV, ...) with the extack
 * captured. -ENOBUFS is not a refusal: the kernel could not allocate its
 * answer (seen under injected allocation failures, after the handler had
 * applied the whole SET); the device is as before or wholly set, and must
 * be read back to tell which.
 */
int usbeth_set(struct usbeth *u, const struct usbeth_set *req,
	       struct usbeth_dev *echo);

/* ------------------------------------------------------- async GETs -- */

/*
 * GETs whose replies are read later, from a poll loop: for a caller that
 * must not wait (a GET waits for the rtnl lock, which a USB netdev being
 * registered holds for milliseconds, while the NEW notification that
 * follows must not queue behind it). Its own non-blocking socket; as many
 * in flight as the caller sends (-ENOMEM when no more can be tracked:
 * the GET is not sent); replies grow the buffer as a handle's do.
 */
struct usbeth_async;

int usbeth_async_open(struct usbeth_async **a);
void usbeth_async_close(struct usbeth_async *a);
int usbeth_async_fd(const struct usbeth_async *a);
/* Sends a GET of ifindex in the family of u (u's family id). */
int usbeth_async_get(struct usbeth_async *a, const struct usbeth *u,
		     uint32_t ifindex);
/* Called per device answered; a non-zero return stops the reading. */
typedef int (*usbeth_async_cb)(void *arg, const struct usbeth_dev *dev);
/* Reads the replies queued, without blocking: 0 once drained, -ENOBUFS if
 * replies were lost (every pending GET is forgotten: resync), the
 * callback's non-zero value, or another -errno. A GET of a device gone
 * meanwhile ends silently.
 */
int usbeth_async_read(struct usbeth_async *a, const struct usbeth *u,
		      usbeth_async_cb cb, void *arg);

/* ------------------------------------------------------------ monitor -- */

struct usbeth_mon;

/* Opens its own socket, resolves the family and joins the "monitor" group,
 * and nlctrl's, to see the family go and come back (module reload).
 * -ENOENT: no family; -EPROTO: the family has no "monitor" group.
 */
int usbeth_monitor_open(struct usbeth_mon **m);
void usbeth_monitor_close(struct usbeth_mon *m);
/* For poll()/epoll: readable when notifications are queued. */
int usbeth_monitor_fd(const struct usbeth_mon *m);

/* Called once per notification; cmd is USBETH_CMD_NEW_NTF, _DEL_NTF or
 * _CHANGE_NTF; dev is valid only during the call. Return 0 to go on, any
 * other value to stop reading (usbeth_monitor_read() returns it).
 */
typedef int (*usbeth_monitor_cb)(void *arg, int cmd,
				 const struct usbeth_dev *dev);

/* Reads, without blocking, every notification queued on the socket.
 * Returns 0 once the socket is drained, the callback's non-zero value if it
 * stopped, -ENOBUFS if notifications were lost (the socket overflowed:
 * resync with usbeth_dump(), then keep reading), -EBADMSG if one
 * notification broke the contract (it is skipped; keep reading), -ENOLINK
 * if the family went away (the module was unloaded: no notifications until
 * it is back; keep reading), -ERESTART if it came back (loaded again: the
 * monitor follows by itself, but every handle of usbeth_open() has the old
 * family id and must be opened again, and every device read again, as
 * what happened meanwhile was not announced), or another -errno.
 */
int usbeth_monitor_read(struct usbeth_mon *m, usbeth_monitor_cb cb,
			void *arg);
/* After -ENOBUFS: the overrun may have dropped nlctrl's DELFAMILY or
 * NEWFAMILY (a module reload meanwhile), so the family the monitor follows
 * may be stale. Resolves it again and joins its "monitor" group (leaving a
 * stale one). 0: followed (if its id changed, every handle of
 * usbeth_open() must be opened again, as after -ERESTART); -ENOENT: the
 * module is not loaded (its NEWFAMILY will be followed: -ERESTART); or
 * another -errno. Call it before the resync.
 */
int usbeth_monitor_refresh(struct usbeth_mon *m);

/* ------------------------------------------------------------- names --- */

/* Names for printing; NULL for a value the table does not know. */
const char *usbeth_role_name(uint32_t role);		/* "usb-host" */
const char *usbeth_speed_name(uint32_t speed);		/* "super-plus" */
const char *usbeth_bql_accounting_name(uint32_t v);	/* "active" */
const char *usbeth_cap_name(uint32_t cap);	/* one USBETH_CAP_* bit: "ntb" */
const char *usbeth_cmd_name(int cmd);		/* "get", "new", "change" */
/* Attribute names: "ifindex", "qmult", "ntb-rx-max", "tx-usecs",
 * "bql-queue", "bql-hold-time", ...
 */
const char *usbeth_attr_name(int attr);
/* Names of the USBETH_A_BQLQ_* attributes: "index", "limit", ... */
const char *usbeth_bqlq_attr_name(int attr);

/* The reverse: the value, or -EINVAL. usbeth_attr_parse() also accepts '_'
 * for '-' ("ntb_rx_max").
 */
int usbeth_role_parse(const char *name);
int usbeth_speed_parse(const char *name);
int usbeth_bql_accounting_parse(const char *name);
int usbeth_cap_parse(const char *name);	/* the USBETH_CAP_* bit */
int usbeth_attr_parse(const char *name);
bool usbeth_attr_settable(int attr);

/* ------------------------------------------------------------- knobs --- */

/*
 * The one table of the family's knobs, which the library, the CLI and the
 * daemon all read:
 *	X(ID, NAME, ATTR, STRUCT, FIELD, CAP, UNIT, MIN, MAX, DEV_MAX)
 *   ID       USBETH_KNOB_<ID> below
 *   NAME     the attribute's name, the CLI's keyword, the profile's key
 *   ATTR     the USBETH_A_* it is set and reported as
 *   STRUCT, FIELD  where it is held: struct usbeth_dev, or, for a BQL
 *            knob, each struct usbeth_bql_queue (one value per TX queue)
 *   CAP      the USBETH_CAP_* a device needs for it
 *   UNIT     USBETH_UNIT_*: how the CLI reads a value, how it is printed
 *   MIN, MAX what the kernel accepts (tx-timer-usecs: 0 too, which is off)
 *   DEV_MAX  the attribute of the device's own maximum, or 0
 */
#define USBETH_KNOBS(X) \
	X(QMULT, "qmult", USBETH_A_QMULT, usbeth_dev, qmult, \
	  USBETH_CAP_QMULT, COUNT, USBETH_QMULT_MIN, USBETH_QMULT_MAX, 0) \
	X(NTB_RX_MAX, "ntb-rx-max", USBETH_A_NTB_RX_MAX, usbeth_dev, ntb_rx_max, \
	  USBETH_CAP_NTB, BYTES, USBETH_NTB_MIN, USBETH_NTB_MAX, USBETH_A_NTB_DEV_RX_MAX) \
	X(NTB_TX_MAX, "ntb-tx-max", USBETH_A_NTB_TX_MAX, usbeth_dev, ntb_tx_max, \
	  USBETH_CAP_NTB, BYTES, USBETH_NTB_MIN, USBETH_NTB_MAX, USBETH_A_NTB_DEV_TX_MAX) \
	X(TX_TIMER_USECS, "tx-timer-usecs", USBETH_A_TX_TIMER_USECS, usbeth_dev, tx_timer_usecs, \
	  USBETH_CAP_TX_TIMER, USECS, 0, USBETH_TX_TIMER_MAX_USECS, 0) \
	X(TX_USECS, "tx-usecs", USBETH_A_COAL_TX_USECS, usbeth_dev, coal_tx_usecs, \
	  USBETH_CAP_COAL_TX_USECS, USECS, 0, UINT32_MAX, 0) \
	X(TX_FRAMES, "tx-frames", USBETH_A_COAL_TX_FRAMES, usbeth_dev, coal_tx_frames, \
	  USBETH_CAP_COAL_TX_FRAMES, COUNT, 0, UINT32_MAX, 0) \
	X(RX_USECS, "rx-usecs", USBETH_A_COAL_RX_USECS, usbeth_dev, coal_rx_usecs, \
	  USBETH_CAP_COAL_RX_USECS, USECS, 0, UINT32_MAX, 0) \
	X(RX_FRAMES, "rx-frames", USBETH_A_COAL_RX_FRAMES, usbeth_dev, coal_rx_frames, \
	  USBETH_CAP_COAL_RX_FRAMES, COUNT, 0, UINT32_MAX, 0) \
	X(BQL_LIMIT_MIN, "bql-limit-min", USBETH_A_BQL_LIMIT_MIN, usbeth_bql_queue, limit_min, \
	  USBETH_CAP_BQL, BYTES, 0, USBETH_BQL_LIMIT_MAX, 0) \
	X(BQL_LIMIT_MAX, "bql-limit-max", USBETH_A_BQL_LIMIT_MAX, usbeth_bql_queue, limit_max, \
	  USBETH_CAP_BQL, BYTES, 0, USBETH_BQL_LIMIT_MAX, 0) \
	X(BQL_HOLD_TIME, "bql-hold-time", USBETH_A_BQL_HOLD_TIME, usbeth_bql_queue, hold_time_ms, \
	  USBETH_CAP_BQL, MSECS, 0, USBETH_BQL_HOLD_TIME_MAX, 0)

enum usbeth_unit {
	USBETH_UNIT_COUNT,	/* a plain number */
	USBETH_UNIT_BYTES,	/* 65536, 64k, 1m, 1g */
	USBETH_UNIT_USECS,	/* 400, 400us, 1ms, 1s */
	USBETH_UNIT_MSECS,	/* 1000, 1000ms, 1s, 5000us */
};

#define USBETH_KNOB_ID(ID, ...) USBETH_KNOB_##ID,
enum usbeth_knob_id {
	USBETH_KNOBS(USBETH_KNOB_ID)
	USBETH_KNOB_COUNT
};
#undef USBETH_KNOB_ID

struct usbeth_knob {
	const char *name;
	int attr;
	uint32_t cap;
	enum usbeth_unit unit;
	uint32_t min, max;
	int dev_max_attr;	/* 0: none */
	bool per_queue;		/* a BQL knob */
};

/* usbeth_knobs[USBETH_KNOB_x], in the order of usbeth(8). */
extern const struct usbeth_knob usbeth_knobs[USBETH_KNOB_COUNT];
/* The knob of that name (also with '_' for '-'), or NULL. */
const struct usbeth_knob *usbeth_knob_find(const char *name);
/* Knob id's value in dev: true and *v, or false when dev does not report
 * it. Of a BQL knob, queue 0's, with *mixed (when not NULL) set when the
 * queues differ.
 */
bool usbeth_knob_value(const struct usbeth_dev *dev, int id, uint32_t *v,
		       bool *mixed);

/* The netdev's role is one the family announces (host or gadget side of
 * a USB link), not USBETH_ROLE_OTHER.
 */
static inline bool usbeth_role_is_usb(uint32_t role)
{
	return role == USBETH_ROLE_USB_HOST || role == USBETH_ROLE_USB_GADGET;
}

/* -------------------------------------------------- other families ---- */

/*
 * The transport of the handle, for requests to other netlink families (the
 * daemon's rtnetlink and ethtool-netlink ones): one socket of protocol bus
 * (NETLINK_ROUTE, NETLINK_GENERIC), extended and capped ACKs, a receive
 * buffer that grows to the datagram, datagrams not from the kernel dropped.
 */
struct usbeth_nl;
struct usbeth_ack;		/* below */

int usbeth_nl_open(struct usbeth_nl **s, int bus);
void usbeth_nl_close(struct usbeth_nl *s);

/* Called for each message of an answer; a negative return is the
 * exchange's error (the rest of the answer is still read).
 */
typedef int (*usbeth_msg_cb)(const struct nlmsghdr *nlh, void *arg);

/* One request: req (req->nlmsg_len bytes; its sequence number is set here)
 * is sent; each answer message of nlmsg_type type goes to cb, until the
 * ACK or NLMSG_DONE, parsed into *ack (when not NULL: its msg is the
 * kernel's extack text). 0, the kernel's -errno, cb's first error, or a
 * socket error.
 */
int usbeth_nl_talk(struct usbeth_nl *s, struct nlmsghdr *req, uint16_t type,
		   usbeth_msg_cb cb, void *arg, struct usbeth_ack *ack);

/* ------------------------------------------------------------- text ---- */

/* Untrusted text (a device name, a profile key, a kernel message) for a
 * terminal or a log line: every control byte (C0, DEL), the C1 controls,
 * the bidi marks, embeddings, overrides and isolates, invalid UTF-8 and the
 * backslash become \xNN, byte by byte; other UTF-8 is kept. Writes at most
 * len bytes with the NUL, never half an escape; returns the length.
 */
size_t usbeth_escape(char *dst, size_t len, const char *src);
/* The length of the valid UTF-8 sequence at s (1..4), or 0 if none starts
 * there (a bad lead or continuation byte, overlong, a surrogate, above
 * U+10FFFF). s is NUL-terminated.
 */
size_t usbeth_utf8_len(const unsigned char *s);

/* Writes caps as comma-separated names ("ntb,tx-timer"; unknown bits as
 * hex, "" for none) into buf. Returns the length the full text needs, like
 * snprintf().
 */
int usbeth_caps_format(uint32_t caps, char *buf, size_t len);

/* ---------------------------------------------------- message level --- */
/*
 * Building and parsing without a socket: the handle functions above use
 * these, and they are what the unit tests exercise on in-memory messages.
 * A received message must be at least nlh->nlmsg_len bytes long.
 */

/* Build a request into buf (4-byte aligned, len bytes) for the given family
 * id: NLM_F_REQUEST | NLM_F_ACK (get, set) or NLM_F_REQUEST | NLM_F_DUMP
 * (dump), seq and pid 0. Return the message length, -ENOSPC if buf is too
 * small, -EINVAL for a bad device (neither or both of ifindex and ifname,
 * empty ifname) or bits outside USBETH_SET_ATTRS, -ENAMETOOLONG for an
 * ifname of USBETH_IFNAMSIZ bytes or more.
 */
int usbeth_build_get(void *buf, size_t len, uint16_t family,
		     uint32_t ifindex, const char *ifname);
int usbeth_build_dump(void *buf, size_t len, uint16_t family);
int usbeth_build_set(void *buf, size_t len, uint16_t family,
		     const struct usbeth_set *req);

/* Parse a family message carrying a device (USBETH_CMD_GET reply, NEW_NTF,
 * DEL_NTF, CHANGE_NTF; the netlink type is not checked). Returns the genl
 * command, -EPROTO for another command, -EBADMSG for a malformed message
 * (no genl header, bad attribute length or type, unterminated or oversize
 * string, queue without index, more than USBETH_BQL_QUEUES_MAX queues, no
 * USBETH_A_IFINDEX), -ENOMEM. *out is always initialized; it needs
 * usbeth_dev_free() only on success.
 */
int usbeth_parse_dev(const struct nlmsghdr *nlh, struct usbeth_dev *out);

/* An NLMSG_ERROR or NLMSG_DONE, decoded. */
struct usbeth_ack {
	int error;		/* 0 or -errno */
	int attr;		/* top-level request attribute at offset */
	int miss_attr;		/* NLMSGERR_ATTR_MISS_TYPE, or -1 */
	int64_t offset;		/* NLMSGERR_ATTR_OFFS, or -1 */
	char msg[USBETH_ERRMSG_LEN];	/* NLMSGERR_ATTR_MSG, or "" */
};

/* Decode nlh (NLMSG_ERROR or NLMSG_DONE) into *ack, mapping the extack
 * offset back to an attribute of req (the request it answers, reqlen bytes;
 * req may be NULL). Returns ack->error, or -EBADMSG if nlh is malformed.
 */
int usbeth_parse_ack(const struct nlmsghdr *nlh, const void *req,
		     size_t reqlen, struct usbeth_ack *ack);

/* The type of the top-level attribute of the genl request req (reqlen
 * bytes) whose bytes (header, payload or padding) include offset off, or
 * -1 (offset in the headers, past the end, or a malformed request). An
 * offset inside a nest maps to the nest.
 */
int usbeth_attr_at_offset(const void *req, size_t reqlen, uint32_t off);

#ifdef __cplusplus
}
#endif
#endif /* LIBUSBETH_H */
