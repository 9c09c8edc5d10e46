/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usbeth internals.
 *
 * Locking. The one statement of the lock order; every file follows it.
 * Outermost first: a task holding one of these takes only those below it.
 *
 *   1. a SET's usbeth_set_lock() (access.c): host-side devices only
 *   2. rtnl
 *   3. host.c's host_sems, by slot: the write side by its netdev notifier
 *      (under rtnl); the read side by a request (usbeth_host_enter()),
 *      which then takes none of 2. while it holds it
 *   4. the device's instance lock (usbeth_lock_ops(), coalesce.c; the
 *      kernel's own, taken inside rtnl), where its driver asks for one;
 *      never inside 3.'s read side, whose devices have no ethtool ops
 *      usbeth calls (usbeth_needs_rtnl())
 *   5. the driver core's dpm_list_mtx (usbeth_with_gadget(), gadget_rec.c)
 *   6. the composite device's spinlock (a qmult write, gadget.c)
 *
 * Leaves, taken with no other usbeth lock inside: ncm.c's ncm_page_lock,
 * host.c's host_name_lock.
 *
 * What each holds. A GET or SET holds a reference on its device and keeps
 * it registered in the caller's netns (usbeth_hold()): under rtnl, unless
 * usbeth_needs_rtnl() says the device does without (USB host-side netdevs
 * whose knobs are all sysfs-style: device.c), which it works on inside
 * usbeth_host_enter() instead; a host-side device host.c has no record of
 * falls back to rtnl. SETs of one device are serialised: by rtnl where it
 * is taken, else by its usbeth_set_lock() (one of a hash's mutexes,
 * shared by the devices hashed alike), which such a SET keeps across the
 * fall back to rtnl. Dumps and the netdev notifiers run under rtnl, NEW
 * with the instance lock held where the driver has one (ops_held). The
 * gadget records (gadget_rec.c) are only touched under rtnl, which gadget
 * netdevs always get. Every path above may sleep: none runs in atomic
 * context (might_sleep() where it starts).
 */
#ifndef _USBETH_H
#define _USBETH_H

#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/usb/ch9.h>
#include <net/genetlink.h>
#include <linux/usbeth.h>

/* Identity of a device, as usbeth classifies it. */
struct usbeth_ident {
	u32 role;		/* enum usbeth_role */
	u32 caps;		/* USBETH_CAP_* */
	u32 speed;		/* enum usbeth_usb_speed */
	/* host role */
	u16 vid, pid;
	u32 busnum;
	char usb_path[32];	/* the USB device's name, copied */
	/* gadget role: the UDC's name, copied (gadget_rec.c); "" when unbound */
	char udc[64];
	u32 max_speed;
};

/* One TX queue's BQL state, as a message carries it (bql.c). */
struct usbeth_bql_queue {
	u32 limit, inflight, limit_min, limit_max, hold_time;
};

/* u32 attributes a device's message may carry besides the per-queue ones */
#define USBETH_STATE_VALS 16

/*
 * A device's state as its message carries it, the way ethtool's netlink
 * requests keep a reply's data: usbeth_prepare() gathers it under the
 * device's locks (driver callbacks, the gadget's lock, runtime PM);
 * usbeth_state_size() and usbeth_fill() then size and write the message
 * from it alone, with no lock taken and no driver called. Owns queues:
 * usbeth_state_free().
 */
struct usbeth_state {
	u32 ifindex;
	struct usbeth_ident id;
	char drv[32];
	bool full;		/* more than the identity (not a DEL) */
	unsigned int nvals;
	struct {
		int attr;
		u32 val;
	} vals[USBETH_STATE_VALS];
	bool bql;		/* BQL: accounting and queues below */
	u32 bql_accounting;
	unsigned int nqueues;
	struct usbeth_bql_queue *queues;
};

/* Context of one SET request. */
struct usbeth_req {
	struct net_device *dev;
	const char *name;	/* dev's, copied by usbeth_hold(): for messages */
	u32 caps;
	int bql_queue;		/* -1: every TX queue */
	struct nlattr **tb;
	struct netlink_ext_ack *extack;
};

/*
 * One knob: how to check a new value, read the driver's current value and
 * write a value through the driver's own interface. Per-queue knobs (BQL)
 * are read and written one TX queue at a time.
 */
struct usbeth_knob {
	int attr;		/* USBETH_A_* */
	u32 flag;		/* USBETH_KNOB_BIT_*, for left-changed */
	const char *name;	/* as users know it, e.g. "ntb-rx-max" */
	u32 cap;
	bool per_queue;
	int (*check)(const struct usbeth_req *req, const struct nlattr *attr,
		     u32 val);
	int (*get)(struct net_device *dev, int attr, unsigned int queue,
		   u32 *val);
	int (*set)(const struct usbeth_req *req, int attr, unsigned int queue,
		   u32 val, const struct nlattr *nla);
	/*
	 * Instead of set(), for knobs that are fields of one driver setting
	 * (ethtool coalesce): the knobs of one SET that share set_group are
	 * written together, in one driver call, so the driver validates the
	 * whole new setting and never sees an intermediate one, and
	 * listeners get one notification. attrs[i] gets vals[i]; nla names
	 * the request's first attribute of the group.
	 */
	int (*set_group)(const struct usbeth_req *req, const int *attrs,
			 const u32 *vals, unsigned int n,
			 const struct nlattr *nla);
	/*
	 * Whether writing val would leave the driver as it is with now (the
	 * value as get() reads it). NULL: when they are equal.
	 */
	bool (*same)(struct net_device *dev, u32 now, u32 val);
	/*
	 * Whether get() calls the driver's ethtool ops for dev, which wake a
	 * runtime-suspended device (usbeth_ethtool_begin()): a GET leaves
	 * such a value out then (usbeth_awake_get()). NULL: it does not.
	 */
	bool (*wakes)(struct net_device *dev, int attr);
};

/*
 * A backend: the knobs usbeth reaches through one driver interface, and
 * what it adds to a device's state and checks of a request beyond them.
 * usbeth_backends[] lists every backend, NULL-terminated, in the order a
 * SET applies their knobs and a message carries their values: each
 * backend's knobs in its array's order, so the netlink contract's
 * attribute order is that of the table. Every op is optional.
 *
 * A device's state is gathered in three passes over the table, in this
 * order (the message's): each knob's get(), but for set_group knobs; each
 * backend's read_all() for its set_group knobs; each backend's prepare().
 */
struct usbeth_backend {
	const char *name;
	const struct usbeth_knob *knobs;
	unsigned int n;			/* <= USBETH_BACKEND_KNOBS */
	unsigned int nextra;		/* values prepare() adds to st->vals */
	/*
	 * Every knob's value from one driver call, vals[i] knobs[i]'s: how
	 * the set_group knobs are read, so that the values of one group come
	 * from one moment. Calls the driver's ethtool ops: a read that must
	 * not wake the device does without. Needed by set_group knobs.
	 */
	int (*read_all)(struct net_device *dev, u32 *vals, bool ops_held);
	/* What st carries beyond the knobs' values; may fail (no memory). */
	int (*prepare)(struct net_device *dev, struct usbeth_state *st);
	/* What fill() adds to the message of st, and at most of dev's. */
	size_t (*size)(const struct usbeth_state *st);
	size_t (*max_size)(const struct net_device *dev);
	/* Writes st's attributes beyond its values, after every value. */
	int (*fill)(struct sk_buff *skb, const struct usbeth_state *st);
	/* Checks of a SET as a whole, after every knob's check(). */
	int (*validate)(const struct usbeth_req *req);
};

/* The most knobs one backend has: a SET's group is read into a stack array */
#define USBETH_BACKEND_KNOBS 8

extern const struct usbeth_backend *const usbeth_backends[];

/* device.c: classification */
void usbeth_ident(struct net_device *dev, struct usbeth_ident *id);
const char *usbeth_driver_name(struct net_device *dev, char *buf, size_t len,
			       bool ops_held);
bool usbeth_needs_rtnl(struct net_device *dev);
bool usbeth_is_gadget(struct net_device *dev);
bool usbeth_is_usb(struct net_device *dev);
u32 usbeth_usb_speed(enum usb_device_speed s);

/* gadget_rec.c: gadget netdevs' records, the gadget under its lock */
void usbeth_gadget_ident(struct net_device *dev, struct usbeth_ident *id);
bool usbeth_qmult_active(struct net_device *dev, u32 *qmult);
struct usb_gadget;
bool usbeth_with_gadget(struct net_device *dev,
			void (*fn)(struct net_device *dev, struct usb_gadget *g,
				   void *arg),
			void *arg);
void usbeth_gadget_rec_unregister(struct net_device *dev);
void usbeth_gadget_recs_exit(void);

/* What a qmult change saw under the connect's lock (gadget.c). */
struct usbeth_qmult_change {
	bool carrier;		/* a connect was up */
	int connect;		/* its carrier_up_count */
	u32 old;		/* the value it was sized with, if nothing since */
};

int usbeth_qmult_will_change(struct net_device *dev);
void usbeth_qmult_changed(struct net_device *dev,
			  const struct usbeth_qmult_change *c);

/* notifier.c */
int usbeth_notifier_init(void);
void usbeth_notifier_exit(void);

/* netlink.c: the family */
extern struct genl_family usbeth_family;
int usbeth_netlink_init(void);
void usbeth_netlink_exit(void);

/* A device a GET or SET works on, and how it is held. */
struct usbeth_hold {
	struct net_device *dev;
	netdevice_tracker tracker;
	bool rtnl;		/* under rtnl */
	bool host;		/* inside usbeth_host_enter() */
	struct mutex *lock;	/* a SET's usbeth_set_lock(), where taken */
	char name[IFNAMSIZ];	/* dev's name, see usbeth_hold_name() */
};

/* access.c: lookup, hold, the SET mutexes */
void usbeth_access_init(void);
int usbeth_hold(struct net *net, struct nlattr **tb, bool set,
		struct netlink_ext_ack *extack, struct usbeth_hold *h);
void usbeth_release(struct usbeth_hold *h);
const char *usbeth_hold_name(struct usbeth_hold *h);

/* state.c: a device's state and message */
int usbeth_prepare(struct net_device *dev, bool full, bool ops_held,
		   struct usbeth_state *st);
void usbeth_state_free(struct usbeth_state *st);
void usbeth_state_add(struct usbeth_state *st, int attr, u32 val);
int usbeth_fill(struct sk_buff *skb, const struct usbeth_state *st,
		const char *name, u32 portid, u32 seq, int flags, u8 cmd,
		u32 left);
struct sk_buff *usbeth_msg(const struct usbeth_state *st, const char *name,
			   u32 portid, u32 seq, u8 cmd, u32 left);
size_t usbeth_msg_size(const struct net_device *dev);

/* set.c: the SET transaction */
int usbeth_set(struct usbeth_hold *h, struct genl_info *info);

/* notify.c */
void usbeth_notify_start(void);
void usbeth_notify_stop(void);
void usbeth_notify_dev(struct net_device *dev, u8 cmd);
int usbeth_notify_change(struct net_device *dev, const char *name,
			 struct genl_info *info, u32 left);

/* host.c: host-side netdevs worked on without rtnl */
int usbeth_host_enter(struct net *net, struct net_device *dev, char *name);
void usbeth_host_leave(struct net_device *dev);
void usbeth_host_name(struct net_device *dev, char *name);
int usbeth_host_init(void);
void usbeth_host_exit(void);

/* ncm.c: cdc_ncm through its own sysfs attributes */
bool usbeth_ncm_present(struct net_device *dev);
bool usbeth_ncm_ethtool(struct net_device *dev);
int usbeth_ncm_init(void);
void usbeth_ncm_exit(void);
int usbeth_ncm_read(struct net_device *dev, const char *name, u32 *val);
extern const struct usbeth_knob usbeth_ncm_knobs[3];
extern const struct usbeth_backend usbeth_ncm_backend;

/* gadget.c: u_ether */
bool usbeth_gadget_qmult_available(void);
int usbeth_gadget_get_qmult(struct net_device *dev, u32 *val);
extern const struct usbeth_knob usbeth_gadget_knobs[1];
extern const struct usbeth_backend usbeth_gadget_backend;

/* coalesce.c: ethtool coalesce ops */
u32 usbeth_coalesce_caps(struct net_device *dev);
/* ops_held: the caller holds dev's instance lock (see usbeth_prepare()) */
int usbeth_ethtool_begin(struct net_device *dev, bool ops_held);
void usbeth_ethtool_complete(struct net_device *dev, bool ops_held);
int usbeth_awake_get(struct net_device *dev, struct device **held);
void usbeth_awake_put(struct device *held);
int usbeth_coalesce_get_all(struct net_device *dev, u32 *vals, bool ops_held);
int usbeth_coalesce_read(struct net_device *dev, struct ethtool_coalesce *ec,
			 struct kernel_ethtool_coalesce *kec, bool ops_held);
typedef void (*usbeth_coalesce_edit_t)(struct ethtool_coalesce *ec,
				       struct kernel_ethtool_coalesce *kec,
				       const void *arg);
int usbeth_coalesce_update(struct net_device *dev, usbeth_coalesce_edit_t edit,
			   const void *arg, struct netlink_ext_ack *extack,
			   struct kernel_ethtool_coalesce *after);
#define USBETH_COAL_CAPS (USBETH_CAP_COAL_TX_USECS | USBETH_CAP_COAL_TX_FRAMES | \
			  USBETH_CAP_COAL_RX_USECS | USBETH_CAP_COAL_RX_FRAMES)
extern const struct usbeth_knob usbeth_coalesce_knobs[4];
extern const struct usbeth_backend usbeth_coalesce_backend;

/* bql.c */
bool usbeth_bql_capable(struct net_device *dev);
u32 usbeth_bql_accounting(struct net_device *dev);
int usbeth_bql_prepare(struct net_device *dev, struct usbeth_state *st);
int usbeth_bql_fill(struct sk_buff *skb, const struct usbeth_state *st);
size_t usbeth_bql_size(unsigned int nqueues);
int usbeth_bql_check_request(const struct usbeth_req *req);
extern const struct usbeth_knob usbeth_bql_knobs[3];
extern const struct usbeth_backend usbeth_bql_backend;

#endif /* _USBETH_H */
