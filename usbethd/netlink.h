/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usbethd's clients of the families other than usbeth, on libusbeth's
 * transport (usbeth_nl_talk(): the one request/answer loop, the one extack
 * parser): rtnetlink for the MTU and txqueuelen, and ethtool netlink (the
 * "ethtool" generic netlink family's FEATURES_GET / FEATURES_SET) for the
 * sg/gso/tso offloads. Each socket is opened on first use.
 */
#ifndef USBETHD_NETLINK_H
#define USBETHD_NETLINK_H

#include <stdbool.h>
#include <stdint.h>

#include "profile.h"

struct nlc {
	struct usbeth_nl *rtnl, *genl;
	int ethnl_id;		/* the ethtool family's id; 0 unknown, <0 none */
	char err[256];		/* the last request's extack text, or "" */
};

void nlc_close(struct nlc *c);

/* ------------------------------------------------------- rtnetlink -- */

struct link_vals {
	bool has_mtu, has_txqlen;
	uint32_t mtu, txqlen, min_mtu, max_mtu;
};

int link_get(struct nlc *c, uint32_t ifindex, struct link_vals *lv);
/* The MTU (mtu) or the txqueuelen (!mtu). */
int link_set(struct nlc *c, uint32_t ifindex, bool mtu, uint32_t v);

/* ------------------------------------------------- ethtool netlink -- */

/*
 * A knob (K_SG, K_GSO, K_TSO) is the wanted state of its features, by
 * name: the names are the stable interface, the bit numbers are not. Its
 * value is the active state of its first ("primary") one. Feature masks
 * are bits of feats[].
 */
#define NFEATS 6
struct feat {
	int knob;
	const char *name;
};
extern const struct feat feats[NFEATS];

uint32_t feat_mask(int k);	/* the features of knob k */
int feat_primary(int k);	/* the one whose state is knob k's value */

/* Our features: known to the kernel, changeable (hw), wanted, active. */
int features_get(struct nlc *c, uint32_t ifindex, uint32_t *known,
		 uint32_t *hw, uint32_t *wanted, uint32_t *active);
/* Sets the wanted state of the features in mask to val; *refused: those
 * whose state did not follow.
 */
int features_set(struct nlc *c, uint32_t ifindex, uint32_t mask,
		 uint32_t val, uint32_t *refused);

#endif /* USBETHD_NETLINK_H */
