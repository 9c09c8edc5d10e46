// SPDX-License-Identifier: GPL-2.0
/* libusbeth: the knob table (USBETH_KNOBS in usbeth.h), and its lookups. */
#include <stddef.h>
#include <string.h>

#include "usbeth.h"

#define KNOB(ID, NAME, ATTR, STRUCT, FIELD, CAP, UNIT, MIN, MAX, DEVMAX) \
	[USBETH_KNOB_##ID] = {						\
		.name = NAME, .attr = ATTR, .cap = CAP,			\
		.unit = USBETH_UNIT_##UNIT, .min = MIN, .max = MAX,	\
		.dev_max_attr = DEVMAX,					\
		.per_queue = sizeof(struct STRUCT) !=			\
			     sizeof(struct usbeth_dev),			\
	},
const struct usbeth_knob usbeth_knobs[USBETH_KNOB_COUNT] = {
	USBETH_KNOBS(KNOB)
};
#undef KNOB

/* Where each knob's value is: in struct usbeth_dev, or (per_queue) in
 * each struct usbeth_bql_queue.
 */
#define OFF(ID, NAME, ATTR, STRUCT, FIELD, ...) \
	[USBETH_KNOB_##ID] = offsetof(struct STRUCT, FIELD),
static const size_t knob_off[USBETH_KNOB_COUNT] = {
	USBETH_KNOBS(OFF)
};
#undef OFF

const struct usbeth_knob *usbeth_knob_find(const char *name)
{
	char buf[32];
	size_t i;

	if (!name)
		return NULL;
	for (i = 0; name[i] && i < sizeof(buf) - 1; i++)
		buf[i] = name[i] == '_' ? '-' : name[i];
	if (name[i])
		return NULL;
	buf[i] = 0;
	for (i = 0; i < USBETH_KNOB_COUNT; i++)
		if (!strcmp(usbeth_knobs[i].name, buf))
			return &usbeth_knobs[i];
	return NULL;
}

static uint32_t at(const void *base, size_t off)
{
	uint32_t v;

	memcpy(&v, (const char *)base + off, sizeof(v));
	return v;
}

bool usbeth_knob_value(const struct usbeth_dev *dev, int id, uint32_t *v,
		       bool *mixed)
{
	const struct usbeth_knob *k;
	size_t i;

	if (mixed)
		*mixed = false;
	if (id < 0 || id >= USBETH_KNOB_COUNT)
		return false;
	k = &usbeth_knobs[id];
	if (!k->per_queue) {
		if (!usbeth_dev_has(dev, k->attr))
			return false;
		*v = at(dev, knob_off[id]);
		return true;
	}
	if (!dev->n_bql_queues || !dev->bql_queues)
		return false;
	*v = at(&dev->bql_queues[0], knob_off[id]);
	for (i = 1; i < dev->n_bql_queues; i++)
		if (at(&dev->bql_queues[i], knob_off[id]) != *v && mixed)
			*mixed = true;
	return true;
}
