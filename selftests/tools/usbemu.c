// SPDX-License-Identifier: GPL-2.0
/*
 * usbemu: an emulated USB network device with a slower link behind it.
 *
 * The device is plugged into the kernel's USB/IP virtual host controller
 * (vhci_hcd) through one end of a socketpair: the kernel sends every URB
 * for the device over the socket (USB/IP CMD_SUBMIT, CMD_UNLINK) and this
 * program decides what each answers and when (RET_SUBMIT, RET_UNLINK).
 * So it defines every descriptor, at full, high or super speed, and the
 * stock host drivers bind it as they bind real hardware:
 *
 *   dongle  CDC ECM                          cdc_ether (usbnet)
 *   ncm     CDC NCM, 16 KiB NTBs             cdc_ncm
 *   dock    CDC NCM, 64 KiB NTBs, 17e9:PPPP  cdc_ncm (its DisplayLink entry)
 *   modem   Quectel EC25-like QMI, 2c7c:0125 qmi_wwan (802.3 or raw IP)
 *
 * Behind the device is the link it models, per direction: a buffer of B
 * bytes in the device, drained at the egress rate (a token bucket), then a
 * one-way base delay, then the far side, a TAP (a TUN for raw IP) that the
 * peer's stack owns. When the uplink buffer is full the device either
 * stops accepting OUT transfers (nak: the URB is not completed, so URBs
 * wait in the host driver's queue, as behind a USB NAK) or accepts and
 * drops (bloat). The dock model adds a service time per bulk transfer.
 *
 * Runtime control: a datagram socket (--ctl PATH) takes "set KEY=VALUE..."
 * (rates, delay, buffers, mode, ntb-input), "link up|down" (CDC connection
 * notification), "reset" (the counters) and "stats", answered with KEY=VALUE counters;
 * `usbemu ctl PATH COMMAND...` is its client. SIGTERM unplugs the device
 * (the socket closes, vhci_hcd disconnects it) and exits.
 *
 * Every byte from the kernel is checked before use: a malformed URB gets
 * an error status, never an out-of-bounds access.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define VHCI "/sys/devices/platform/vhci_hcd.0"

/* USB/IP */
#define CMD_SUBMIT 1
#define CMD_UNLINK 2
#define RET_SUBMIT 3
#define RET_UNLINK 4
#define HDR_LEN 48
#define DIR_OUT 0
#define DIR_IN 1
#define URB_ZERO_PACKET 0x0040
#define MAX_XFER (1 << 20)

/* endpoints of every personality */
#define EP_INT 1	/* 0x81 interrupt IN */
#define EP_BIN 2	/* 0x82 bulk IN */
#define EP_BOUT 3	/* 0x03 bulk OUT */

#define ETH_MAX 1514
#define FRAME_MAX 65536

enum pers { P_ECM, P_NCM, P_QMI };
enum mode { M_NAK, M_BLOAT };

static const char *const speed_name[] = { [2] = "full", [3] = "high", [5] = "super" };

struct frame {
	struct frame *next;
	int64_t t;		/* arrival in the buffer, then due time */
	uint32_t len;
	uint8_t data[];
};

struct fifo {
	struct frame *head, *tail;
	uint64_t bytes;
	uint32_t n;
};

struct urb {
	struct urb *next;
	uint32_t seqnum;
	uint32_t ep;
	uint32_t flags;
	uint32_t len;		/* transfer_buffer_length */
	int64_t t;		/* when it arrived */
	uint8_t *data;		/* OUT data (len bytes) */
};

struct urbq {
	struct urb *head, *tail;
	uint32_t n;
};

/* one direction of the modelled link */
struct dir {
	uint64_t rate;		/* bit/s, 0: unlimited */
	uint64_t burst;		/* bytes the bucket holds */
	uint64_t buf;		/* device buffer, bytes */
	int64_t vfinish;	/* when the last departure ended (virtual) */
	struct fifo queue;	/* in the device buffer, not yet sent */
	struct fifo line;	/* sent, within the base delay */
	uint64_t frames, bytes, drops, buf_max;
	int64_t idle_ns;	/* the egress idle, nothing to send (rate set) */
};

static struct {
	enum pers pers;
	const char *pname;
	int speed;
	uint16_t vid, pid;
	uint8_t mac[6];
	bool raw_ip;
	enum mode mode;
	int64_t delay_ns;
	int64_t svc_ns;		/* per bulk transfer, each direction */
	uint32_t ntb_in_max, ntb_out_max, ntb_in;
	bool refuse_ntb_in;	/* ntb-input=refuse: stall every SET_NTB_INPUT_SIZE */
	uint64_t ntb_in_refused;
	int sock, tap, ctl;
	char tap_name[IFNAMSIZ];
	const char *ctl_path;
	int port;
	uint8_t config, alt[2];
	bool link_up, notify_conn, notify_speed;
	struct dir up, dn;
	struct fifo ready;	/* at the device's USB side, for IN URBs */
	struct urbq held;	/* OUT URBs not accepted yet (NAK) */
	struct urbq in_q, int_q;
	int64_t svc_out_free, svc_in_free;
	uint16_t ntb_seq;
	/* rate steps: cycle through n steps */
	struct step { int64_t len_ns; uint64_t up, dn; } steps[16];
	int nsteps, step;
	int64_t step_end;
	/* how late this process woke for what was due, beyond 10 ms a
	 * wakeup: the guest did not run it, a share of a window that the
	 * CPU, not the link, set (a TCG guest's timers are a millisecond or
	 * so late on every wakeup: that is jitter, not counted) */
	int64_t late_ns;
	/* counters */
	uint64_t urbs_out, urbs_in, urbs_ctrl, unlinks, stalls, held_max;
	uint64_t notifs_speed, notifs_conn;	/* interrupt notifications sent */
	uint64_t ntbs_out, ntbs_in, pads, bad_ntbs, tap_errs, ready_drops;
	int64_t t0;
} E;

static volatile sig_atomic_t stop;

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "usbemu: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static uint32_t get32be(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put32be(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static uint16_t get16le(const uint8_t *p)
{
	return p[0] | p[1] << 8;
}

static uint32_t get32le(const uint8_t *p)
{
	return p[0] | p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put16le(uint8_t *p, uint16_t v)
{
	p[0] = v;
	p[1] = v >> 8;
}

static void put32le(uint8_t *p, uint32_t v)
{
	put16le(p, v);
	put16le(p + 2, v >> 16);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory (%zu bytes)", n);
	return p;
}

/* ------------------------------------------------------------ queues --- */
static void fifo_push(struct fifo *q, struct frame *f)
{
	f->next = NULL;
	if (q->tail)
		q->tail->next = f;
	else
		q->head = f;
	q->tail = f;
	q->bytes += f->len;
	q->n++;
}

static struct frame *fifo_pop(struct fifo *q)
{
	struct frame *f = q->head;

	if (!f)
		return NULL;
	q->head = f->next;
	if (!q->head)
		q->tail = NULL;
	q->bytes -= f->len;
	q->n--;
	return f;
}

static struct frame *frame_new(const uint8_t *data, uint32_t len, int64_t t)
{
	struct frame *f = xmalloc(sizeof(*f) + len);

	memcpy(f->data, data, len);
	f->len = len;
	f->t = t;
	return f;
}

static void urbq_push(struct urbq *q, struct urb *u)
{
	u->next = NULL;
	if (q->tail)
		q->tail->next = u;
	else
		q->head = u;
	q->tail = u;
	q->n++;
}

static struct urb *urbq_pop(struct urbq *q)
{
	struct urb *u = q->head;

	if (!u)
		return NULL;
	q->head = u->next;
	if (!q->head)
		q->tail = NULL;
	q->n--;
	return u;
}

/* remove the URB of SEQNUM from Q; NULL if it is not there */
static struct urb *urbq_take(struct urbq *q, uint32_t seqnum)
{
	struct urb **pp, *prev = NULL;

	for (pp = &q->head; *pp; prev = *pp, pp = &(*pp)->next) {
		struct urb *u = *pp;

		if (u->seqnum != seqnum)
			continue;
		*pp = u->next;
		if (q->tail == u)
			q->tail = prev;
		q->n--;
		return u;
	}
	return NULL;
}

static void urb_free(struct urb *u)
{
	free(u->data);
	free(u);
}

/* ----------------------------------------------------------- USB/IP --- */
static void write_all(const struct iovec *iov, int n)
{
	struct iovec v[3];
	int i;

	memcpy(v, iov, sizeof(*iov) * n);
	for (i = 0; i < n;) {
		ssize_t w = writev(E.sock, v + i, n - i);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EPIPE || errno == ECONNRESET) {
				stop = 1;
				return;
			}
			die("write to vhci_hcd: %s", strerror(errno));
		}
		while (i < n && (size_t)w >= v[i].iov_len)
			w -= v[i++].iov_len;
		if (i < n) {
			v[i].iov_base = (uint8_t *)v[i].iov_base + w;
			v[i].iov_len -= w;
		}
	}
}

static void ret_submit(uint32_t seqnum, int32_t status, const void *data, uint32_t len)
{
	uint8_t h[HDR_LEN] = { 0 };
	struct iovec iov[2] = { { h, HDR_LEN }, { (void *)data, data ? len : 0 } };

	put32be(h, RET_SUBMIT);
	put32be(h + 4, seqnum);
	put32be(h + 20, (uint32_t)status);
	put32be(h + 24, len);
	write_all(iov, data && len ? 2 : 1);
}

static void ret_unlink(uint32_t seqnum, int32_t status)
{
	uint8_t h[HDR_LEN] = { 0 };
	struct iovec iov = { h, HDR_LEN };

	put32be(h, RET_UNLINK);
	put32be(h + 4, seqnum);
	put32be(h + 20, (uint32_t)status);
	write_all(&iov, 1);
}

/* ------------------------------------------------------- descriptors --- */
static uint16_t bulk_maxp(void)
{
	return E.speed == 5 ? 1024 : E.speed == 3 ? 512 : 64;
}

struct desc {
	uint8_t b[512];
	size_t n;
};

static void add(struct desc *d, const uint8_t *p, size_t n)
{
	if (d->n + n > sizeof(d->b))
		die("descriptor too long");
	memcpy(d->b + d->n, p, n);
	d->n += n;
}

static void add_ep(struct desc *d, uint8_t addr, uint8_t attr, uint16_t maxp, uint8_t interval)
{
	uint8_t ep[7] = { 7, 5, addr, attr, maxp & 0xff, maxp >> 8, interval };
	uint8_t comp[6] = { 6, 0x30, 0, 0, 0, 0 };

	add(d, ep, sizeof(ep));
	if (E.speed == 5) {
		if (attr == 3)	/* interrupt: bytes per service interval */
			put16le(comp + 4, maxp);
		add(d, comp, sizeof(comp));
	}
}

static void add_iface(struct desc *d, uint8_t num, uint8_t alt, uint8_t neps,
		      uint8_t cls, uint8_t sub, uint8_t proto)
{
	uint8_t i[9] = { 9, 4, num, alt, neps, cls, sub, proto, 0 };

	add(d, i, sizeof(i));
}

static void add_int_ep(struct desc *d)
{
	/* 16 bytes: a CDC SPEED_CHANGE; 32 ms at high and super speed */
	add_ep(d, 0x80 | EP_INT, 3, 16, E.speed == 2 ? 32 : 9);
}

static void config_desc(struct desc *d)
{
	uint8_t c[9] = { 9, 2, 0, 0, 0, 1, 0, 0x80, E.speed == 5 ? 56 : 250 };
	uint16_t mp = bulk_maxp();

	d->n = 0;
	add(d, c, sizeof(c));
	if (E.pers == P_QMI) {
		d->b[4] = 1;
		add_iface(d, 0, 0, 3, 0xff, 0xff, 0xff);
		add_int_ep(d);
		add_ep(d, 0x80 | EP_BIN, 2, mp, 0);
		add_ep(d, EP_BOUT, 2, mp, 0);
	} else {
		uint8_t hdr[5] = { 5, 0x24, 0x00, 0x10, 0x01 };
		uint8_t uni[5] = { 5, 0x24, 0x06, 0, 1 };
		uint8_t eth[13] = { 13, 0x24, 0x0f, 4, 0, 0, 0, 0,
				    ETH_MAX & 0xff, ETH_MAX >> 8, 0, 0, 0 };
		uint8_t ncm[6] = { 6, 0x24, 0x1a, 0x00, 0x01, 0x00 };
		bool is_ncm = E.pers == P_NCM;

		d->b[4] = 2;
		add_iface(d, 0, 0, 1, 0x02, is_ncm ? 0x0d : 0x06, 0);
		add(d, hdr, sizeof(hdr));
		add(d, uni, sizeof(uni));
		add(d, eth, sizeof(eth));
		if (is_ncm)
			add(d, ncm, sizeof(ncm));
		add_int_ep(d);
		add_iface(d, 1, 0, 0, 0x0a, 0, is_ncm ? 1 : 0);
		add_iface(d, 1, 1, 2, 0x0a, 0, is_ncm ? 1 : 0);
		add_ep(d, 0x80 | EP_BIN, 2, mp, 0);
		add_ep(d, EP_BOUT, 2, mp, 0);
	}
	put16le(d->b + 2, d->n);
}

static void device_desc(uint8_t *b)
{
	uint8_t d[18] = { 18, 1, 0x00, 0x02, 0, 0, 0, 64,
			  E.vid & 0xff, E.vid >> 8, E.pid & 0xff, E.pid >> 8,
			  0x00, 0x01, 1, 2, 3, 1 };

	if (E.speed == 5) {
		d[3] = 0x03;
		d[7] = 9;	/* 512-byte ep0 */
	}
	if (E.pers != P_QMI)
		d[4] = 0x02;	/* communications class */
	memcpy(b, d, sizeof(d));
}

static size_t bos_desc(uint8_t *b)
{
	static const uint8_t bos[] = {
		5, 0x0f, 22, 0, 2,
		7, 0x10, 0x02, 0x02, 0, 0, 0,			/* USB 2.0 extension: LPM */
		10, 0x10, 0x03, 0, 0x0e, 0, 1, 10, 0xff, 0x07,	/* SuperSpeed */
	};

	memcpy(b, bos, sizeof(bos));
	return sizeof(bos);
}

static size_t string_desc(uint8_t idx, uint8_t *b)
{
	char s[64];
	size_t i, n;

	switch (idx) {
	case 0:
		b[0] = 4, b[1] = 3, b[2] = 0x09, b[3] = 0x04;
		return 4;
	case 1:
		snprintf(s, sizeof(s), "usbeth test bed");
		break;
	case 2:
		snprintf(s, sizeof(s), "usbemu %s", E.pname);
		break;
	case 3:	/* the serial number: the MAC, in lower case */
		snprintf(s, sizeof(s), "%02x%02x%02x%02x%02x%02x",
			 E.mac[0], E.mac[1], E.mac[2], E.mac[3], E.mac[4], E.mac[5]);
		break;
	case 4:
		snprintf(s, sizeof(s), "%02X%02X%02X%02X%02X%02X",
			 E.mac[0], E.mac[1], E.mac[2], E.mac[3], E.mac[4], E.mac[5]);
		break;
	default:
		return 0;
	}
	n = strlen(s);
	b[0] = 2 + 2 * n;
	b[1] = 3;
	for (i = 0; i < n; i++)
		b[2 + 2 * i] = s[i], b[3 + 2 * i] = 0;
	return 2 + 2 * n;
}

/* ------------------------------------------------------------- ep0 --- */
static void link_notify(bool up)
{
	E.link_up = up;
	E.notify_speed = up;
	E.notify_conn = true;
}

static bool data_alt_on(void)
{
	return E.pers == P_QMI ? E.config != 0 : E.config != 0 && E.alt[1] == 1;
}

/* answer a control transfer; returns bytes of data put in OUT, or -1 to stall */
static int control(const uint8_t *setup, const uint8_t *odata, uint32_t olen, uint8_t *out)
{
	uint8_t type = setup[0], req = setup[1];
	uint16_t val = get16le(setup + 2), idx = get16le(setup + 4);
	struct desc d;
	size_t n;

	switch (type & 0x60) {
	case 0x00:	/* standard */
		switch (req) {
		case 0x06:	/* GET_DESCRIPTOR */
			switch (val >> 8) {
			case 1:
				device_desc(out);
				return 18;
			case 2:
				if (val & 0xff)
					return -1;
				config_desc(&d);
				memcpy(out, d.b, d.n);
				return d.n;
			case 3:
				n = string_desc(val & 0xff, out);
				return n ? (int)n : -1;
			case 0x0f:
				return E.speed == 5 ? (int)bos_desc(out) : -1;
			default:
				return -1;
			}
		case 0x09:	/* SET_CONFIGURATION */
			if (val > 1)
				return -1;
			E.config = val;
			E.alt[0] = E.alt[1] = 0;
			if (E.pers == P_QMI && val)
				link_notify(true);
			return 0;
		case 0x08:
			out[0] = E.config;
			return 1;
		case 0x0b:	/* SET_INTERFACE */
			if (idx > 1 || val > (E.pers != P_QMI && idx == 1 ? 1 : 0))
				return -1;
			E.alt[idx] = val;
			if (E.pers != P_QMI && idx == 1) {
				/* the data interface's alt 1 is the link; alt 0
				 * resets the NTB state as NCM 7.2 says */
				E.ntb_in = E.ntb_in_max;
				link_notify(val == 1);
			}
			return 0;
		case 0x0a:
			out[0] = idx < 2 ? E.alt[idx] : 0;
			return 1;
		case 0x00:	/* GET_STATUS */
			out[0] = out[1] = 0;
			return 2;
		case 0x01:	/* CLEAR_FEATURE */
		case 0x03:	/* SET_FEATURE */
		case 0x30:	/* SET_SEL */
		case 0x31:	/* SET_ISOCH_DELAY */
			return 0;
		}
		return -1;
	case 0x20:	/* class */
		switch (req) {
		case 0x00:	/* SEND_ENCAPSULATED_COMMAND */
		case 0x22:	/* SET_CONTROL_LINE_STATE */
		case 0x43:	/* SET_ETHERNET_PACKET_FILTER */
		case 0x88:	/* SET_MAX_DATAGRAM_SIZE */
		case 0x8a:	/* SET_CRC_MODE */
			return 0;
		case 0x01:	/* GET_ENCAPSULATED_RESPONSE: nothing queued */
			return 0;
		}
		if (E.pers != P_NCM)
			return -1;
		switch (req) {
		case 0x80:	/* GET_NTB_PARAMETERS */
			memset(out, 0, 28);
			put16le(out, 28);
			put16le(out + 2, 1);			/* NTB16 only */
			put32le(out + 4, E.ntb_in_max);
			put16le(out + 8, 4);			/* wNdpInDivisor */
			put16le(out + 12, 4);			/* wNdpInAlignment */
			put32le(out + 16, E.ntb_out_max);
			put16le(out + 20, 4);			/* wNdpOutDivisor */
			put16le(out + 24, 4);			/* wNdpOutAlignment */
			put16le(out + 26, 0);			/* no datagram limit */
			return 28;
		case 0x83:	/* GET_NTB_FORMAT */
			out[0] = out[1] = 0;
			return 2;
		case 0x84:	/* SET_NTB_FORMAT: NTB16 only */
			return val == 0 ? 0 : -1;
		case 0x85:	/* GET_NTB_INPUT_SIZE */
			put32le(out, E.ntb_in);
			return 4;
		case 0x86:	/* SET_NTB_INPUT_SIZE */
			/* a device whose dwNtbInMaxSize is below the spec's
			 * 2048 (--ntb-in) takes 2048, what cdc_ncm asks of it */
			if (E.refuse_ntb_in || olen < 4 || get32le(odata) < 2048 ||
			    get32le(odata) > (E.ntb_in_max < 2048 ? 2048 : E.ntb_in_max)) {
				E.ntb_in_refused++;
				return -1;
			}
			E.ntb_in = get32le(odata);
			return 0;
		case 0x87:	/* GET_MAX_DATAGRAM_SIZE */
			put16le(out, ETH_MAX);
			return 2;
		case 0x89:	/* GET_CRC_MODE */
			out[0] = out[1] = 0;
			return 2;
		}
		return -1;
	}
	return -1;
}

/* ------------------------------------------------------- the uplink --- */
/* the frames of one OUT transfer into the uplink buffer (or dropped) */
static void up_frame(const uint8_t *p, uint32_t len, int64_t t)
{
	struct dir *u = &E.up;

	if (!len || len > FRAME_MAX)
		return;
	if (E.mode == M_BLOAT && u->queue.bytes + len > u->buf && u->queue.n) {
		u->drops++;
		return;
	}
	fifo_push(&u->queue, frame_new(p, len, t));
	if (u->queue.bytes > u->buf_max)
		u->buf_max = u->queue.bytes;
}

/* an NCM transfer: NTH16, then a chain of NDP16s naming the datagrams */
static void up_ntb(const uint8_t *p, uint32_t len, int64_t t)
{
	uint32_t blk, ndp, hops = 0;

	if (len < 12 || get32le(p) != 0x484d434e || get16le(p + 4) != 12)
		goto bad;
	blk = get16le(p + 8);
	ndp = get16le(p + 10);
	if (blk > len || blk < 12)
		goto bad;
	E.ntbs_out++;
	while (ndp) {
		uint32_t nlen, i;

		if (ndp % 4 || ndp + 8 > blk || ++hops > 64)
			goto bad;
		if (get32le(p + ndp) != 0x304d434e)	/* NCM0 */
			goto bad;
		nlen = get16le(p + ndp + 4);
		if (nlen < 16 || nlen % 4 || ndp + nlen > blk)
			goto bad;
		for (i = 8; i + 4 <= nlen; i += 4) {
			uint32_t off = get16le(p + ndp + i), dl = get16le(p + ndp + i + 2);

			if (!off || !dl)
				break;
			if (off + dl > blk)
				goto bad;
			up_frame(p + off, dl, t);
		}
		ndp = get16le(p + ndp + 6);
	}
	return;
bad:
	E.bad_ntbs++;
}

static void up_accept(struct urb *u, int64_t t)
{
	uint32_t len = u->len;

	E.urbs_out++;
	if (E.pers == P_NCM) {
		up_ntb(u->data, len, t);
	} else {
		/* usbnet pads a frame that fills its last packet by a zero
		 * byte unless the driver asks for a ZLP (cdc_ether does;
		 * qmi_wwan sends URB_ZERO_PACKET): a CDC ECM device ignores
		 * that byte, so this one does too */
		if (len > 1 && len % bulk_maxp() == 1 && !(u->flags & URB_ZERO_PACKET) &&
		    !u->data[len - 1]) {
			len--;
			E.pads++;
		}
		up_frame(u->data, len, t);
	}
	ret_submit(u->seqnum, 0, NULL, u->len);
	urb_free(u);
}

/* the uplink buffer has room for this transfer (NAK mode) */
static bool up_room(const struct urb *u)
{
	return !E.up.queue.n || E.up.queue.bytes + u->len <= E.up.buf;
}

static void out_submit(struct urb *u)
{
	if (E.held.n || E.svc_ns || (E.mode == M_NAK && !up_room(u))) {
		urbq_push(&E.held, u);
		if (E.held.n > E.held_max)
			E.held_max = E.held.n;
		return;
	}
	up_accept(u, u->t);
}

/* ---------------------------------------------------- the downlink --- */
static void dn_frame(const uint8_t *p, uint32_t len, int64_t t)
{
	struct dir *d = &E.dn;

	if (d->queue.n && d->queue.bytes + len > d->buf) {
		d->drops++;
		return;
	}
	fifo_push(&d->queue, frame_new(p, len, t));
	if (d->queue.bytes > d->buf_max)
		d->buf_max = d->queue.bytes;
}

/* fill one IN transfer of at most MAX bytes from the ready frames */
static uint32_t in_fill(uint8_t *b, uint32_t max)
{
	struct frame *f;
	uint32_t off, n = 0, ndp, i;

	if (E.pers != P_NCM) {
		f = fifo_pop(&E.ready);
		if (f->len > max) {	/* the host's buffer is too small: lost */
			E.ready_drops++;
			free(f);
			return 0;
		}
		memcpy(b, f->data, f->len);
		n = f->len;
		free(f);
		return n;
	}
	/* NTH16 | datagrams, 4-aligned | NDP16 */
	if (max > E.ntb_in)
		max = E.ntb_in;
	off = 12;
	uint16_t idx[64][2];

	while ((f = E.ready.head) && n < 63) {
		uint32_t end = off + f->len;
		uint32_t nd = (end + 3) & ~3u;

		if (nd + 8 + 4 * (n + 2) > max)
			break;
		fifo_pop(&E.ready);
		memcpy(b + off, f->data, f->len);
		idx[n][0] = off;
		idx[n][1] = f->len;
		n++;
		off = nd;
		free(f);
	}
	if (!n) {
		/* a frame larger than the host's NTB: lost */
		free(fifo_pop(&E.ready));
		E.ready_drops++;
		return 0;
	}
	ndp = off;
	put32le(b, 0x484d434e);
	put16le(b + 4, 12);
	put16le(b + 6, E.ntb_seq++);
	put16le(b + 10, ndp);
	put32le(b + ndp, 0x304d434e);
	put16le(b + ndp + 4, 8 + 4 * (n + 1));
	put16le(b + ndp + 6, 0);
	for (i = 0; i < n; i++) {
		put16le(b + ndp + 8 + 4 * i, idx[i][0]);
		put16le(b + ndp + 10 + 4 * i, idx[i][1]);
	}
	put32le(b + ndp + 8 + 4 * n, 0);
	off = ndp + 8 + 4 * (n + 1);
	put16le(b + 8, off);
	E.ntbs_in++;
	return off;
}

/* ------------------------------------------------------ the schedule --- */
/*
 * The egress of a direction: a token bucket of BURST bytes at RATE. A
 * frame that reached the buffer at T leaves when the previous one has
 * left and the bucket holds its size: computed in virtual time from the
 * previous departure, so a late wakeup of this process delays the frames
 * but not the rate. Returns the departure time.
 */
static int64_t departure(const struct dir *d, const struct frame *f)
{
	int64_t start, credit;

	if (!d->rate)
		return f->t > d->vfinish ? f->t : d->vfinish;
	credit = (int64_t)(d->burst * 8 * 1000000000ULL / d->rate);
	start = f->t - credit;
	if (start < d->vfinish)
		start = d->vfinish;
	return start + (int64_t)((uint64_t)f->len * 8 * 1000000000ULL / d->rate);
}

static void tap_out(struct frame *f)
{
	if (write(E.tap, f->data, f->len) != (ssize_t)f->len)
		E.tap_errs++;
	E.up.frames++;
	E.up.bytes += f->len;
	free(f);
}

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/* move a direction's frames along: buffer -> line -> DELIVER; the next
 * time something is due in it, or INT64_MAX */
static int64_t dir_run(struct dir *d, int64_t now, void (*deliver)(struct frame *))
{
	int64_t next = INT64_MAX;
	struct frame *f;

	while ((f = d->queue.head)) {
		int64_t dep = departure(d, f);

		if (dep > now) {
			next = dep;
			break;
		}
		fifo_pop(&d->queue);
		if (d->rate && d->vfinish) {
			/* the gap before this frame's serialization: the
			 * sender left the link idle */
			int64_t start = dep - (int64_t)((uint64_t)f->len * 8 * 1000000000ULL / d->rate);

			if (start > d->vfinish)
				d->idle_ns += start - d->vfinish;
		}
		d->vfinish = dep;
		f->t = dep + E.delay_ns;
		fifo_push(&d->line, f);
	}
	while ((f = d->line.head)) {
		if (f->t > now) {
			next = min64(next, f->t);
			break;
		}
		deliver(fifo_pop(&d->line));
	}
	return next;
}

static void to_ready(struct frame *f)
{
	E.dn.frames++;
	E.dn.bytes += f->len;
	if (E.ready.bytes > (16u << 20)) {
		E.ready_drops++;
		free(f);
		return;
	}
	fifo_push(&E.ready, f);
}

static void notify(void)
{
	uint8_t b[16] = { 0xa1 };
	struct urb *u;

	if (E.pers == P_QMI || !E.int_q.head || !data_alt_on())
		return;
	if (E.notify_speed) {
		uint32_t bps = E.dn.rate ? E.dn.rate : 1000000000u;
		uint32_t ubps = E.up.rate ? E.up.rate : 1000000000u;

		b[1] = 0x2a;	/* CONNECTION_SPEED_CHANGE */
		put16le(b + 6, 8);
		put32le(b + 8, bps);
		put32le(b + 12, ubps);
		E.notify_speed = false;
		E.notifs_speed++;
	} else if (E.notify_conn) {
		b[1] = 0x00;	/* NETWORK_CONNECTION */
		put16le(b + 2, E.link_up);
		E.notify_conn = false;
		E.notifs_conn++;
	} else {
		return;
	}
	u = urbq_pop(&E.int_q);
	ret_submit(u->seqnum, 0, b, b[1] == 0x2a ? (u->len < 16 ? u->len : 16) : (u->len < 8 ? u->len : 8));
	urb_free(u);
}

static int64_t pump(void)
{
	int64_t now = now_ns(), next = INT64_MAX, t;
	static uint8_t buf[FRAME_MAX + 1024];
	bool again = true;

	if (E.nsteps && now >= E.step_end) {
		E.step = (E.step + 1) % E.nsteps;
		E.up.rate = E.steps[E.step].up;
		E.dn.rate = E.steps[E.step].dn;
		E.step_end = now + E.steps[E.step].len_ns;
	}
	if (E.nsteps)
		next = E.step_end;
	while (again && !stop) {
		again = false;
		t = dir_run(&E.up, now, tap_out);
		next = min64(next, t);
		/* held OUT transfers, in order, as room and service allow */
		while (E.held.head && !stop) {
			struct urb *u = E.held.head;
			int64_t at = u->t;

			if (E.svc_ns && E.svc_out_free > at)
				at = E.svc_out_free;
			if (at > now) {
				next = min64(next, at);
				break;
			}
			if (E.mode == M_NAK && !up_room(u))
				break;
			urbq_pop(&E.held);
			if (E.svc_ns)
				E.svc_out_free = at + E.svc_ns;
			up_accept(u, at);
			again = true;
		}
		t = dir_run(&E.dn, now, to_ready);
		next = min64(next, t);
		while (E.ready.head && E.in_q.head && !stop) {
			struct urb *u;
			uint32_t n;

			if (E.svc_ns && E.svc_in_free > now) {
				next = min64(next, E.svc_in_free);
				break;
			}
			u = urbq_pop(&E.in_q);
			n = in_fill(buf, u->len < sizeof(buf) ? u->len : sizeof(buf));
			if (!n) {
				urbq_push(&E.in_q, u);	/* back, at the tail: fine */
				continue;
			}
			ret_submit(u->seqnum, 0, buf, n);
			urb_free(u);
			E.urbs_in++;
			if (E.svc_ns)
				E.svc_in_free = now + E.svc_ns;
		}
		notify();
		now = now_ns();
	}
	return next;
}

/* ------------------------------------------------------------ input --- */
static uint8_t rbuf[HDR_LEN + MAX_XFER];
static size_t rlen;

static void submit(const uint8_t *h, const uint8_t *data, uint32_t dlen)
{
	uint32_t seq = get32be(h + 4), dir = get32be(h + 12), ep = get32be(h + 16);
	uint32_t flags = get32be(h + 20), len = get32be(h + 24);
	struct urb *u;

	if (ep == 0) {
		static uint8_t out[4096];
		int n;

		E.urbs_ctrl++;
		n = control(h + 40, data, dlen, out);
		if (n < 0) {
			E.stalls++;
			ret_submit(seq, -32, NULL, 0);	/* -EPIPE: stall */
			return;
		}
		if (dir == DIR_IN) {
			if ((uint32_t)n > len)
				n = len;
			ret_submit(seq, 0, out, n);
		} else {
			ret_submit(seq, 0, NULL, dlen);
		}
		return;
	}
	u = xmalloc(sizeof(*u));
	*u = (struct urb){ .seqnum = seq, .ep = ep, .flags = flags, .len = len, .t = now_ns() };
	if (dir == DIR_OUT && ep == EP_BOUT) {
		u->data = xmalloc(dlen);
		memcpy(u->data, data, dlen);
		out_submit(u);
	} else if (dir == DIR_IN && ep == EP_BIN) {
		urbq_push(&E.in_q, u);
	} else if (dir == DIR_IN && ep == EP_INT) {
		urbq_push(&E.int_q, u);
	} else {
		free(u);
		E.stalls++;
		ret_submit(seq, -32, NULL, 0);
	}
}

static void unlink_urb(const uint8_t *h)
{
	uint32_t seq = get32be(h + 4), victim = get32be(h + 20);
	struct urb *u;

	E.unlinks++;
	u = urbq_take(&E.in_q, victim);
	if (!u)
		u = urbq_take(&E.int_q, victim);
	if (!u)
		u = urbq_take(&E.held, victim);
	if (u) {
		urb_free(u);
		ret_unlink(seq, -104);	/* -ECONNRESET: unlinked */
	} else {
		ret_unlink(seq, 0);	/* already given back */
	}
}

/* read what the kernel sent; handle every complete command */
static void sock_in(void)
{
	ssize_t r = read(E.sock, rbuf + rlen, sizeof(rbuf) - rlen);
	size_t off = 0;

	if (r <= 0) {
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			return;
		fprintf(stderr, "usbemu: vhci_hcd closed the connection\n");
		stop = 1;
		return;
	}
	rlen += r;
	while (rlen - off >= HDR_LEN) {
		const uint8_t *h = rbuf + off;
		uint32_t cmd = get32be(h), dir = get32be(h + 12);
		uint32_t len = get32be(h + 24), dlen = 0;

		if (cmd == CMD_SUBMIT && dir == DIR_OUT) {
			if (len > MAX_XFER)
				die("an OUT transfer of %u bytes: more than this device takes", len);
			dlen = len;
		}
		if (rlen - off < HDR_LEN + dlen)
			break;
		if (cmd == CMD_SUBMIT)
			submit(h, h + HDR_LEN, dlen);
		else if (cmd == CMD_UNLINK)
			unlink_urb(h);
		else
			die("unknown USB/IP command %u", cmd);
		off += HDR_LEN + dlen;
	}
	memmove(rbuf, rbuf + off, rlen - off);
	rlen -= off;
}

/* whether to read the far side: in nak mode not while the downlink's
 * buffer is full. Once read, a batch of frames is taken and what does not
 * fit is dropped, in either mode: left in the TAP's ring (1000 frames,
 * tail drop, no backpressure to the qdisc above it) a TCP download
 * overshoots that ring and idles the link while it recovers (5.67 of a
 * 6 Mbit/s downlink, usbemu.sh on 6.1) */
static bool dn_room(void)
{
	return E.mode == M_BLOAT || !E.dn.queue.n || E.dn.queue.bytes + FRAME_MAX <= E.dn.buf;
}

static void tap_in(void)
{
	static uint8_t b[FRAME_MAX];
	int i;

	for (i = 0; i < 64; i++) {
		ssize_t r = read(E.tap, b, sizeof(b));

		if (r <= 0)
			return;
		dn_frame(b, r, now_ns());
	}
}

/* ---------------------------------------------------------- control --- */
static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;
	unsigned long long x, m = 1;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || end == s)
		return false;
	switch (*end) {
	case 'k': case 'K': m = 1000; end++; break;
	case 'M': m = 1000000; end++; break;
	case 'G': m = 1000000000; end++; break;
	}
	if (*end || x > UINT64_MAX / m / 8000000000ULL)
		return false;	/* far beyond any rate, size or time here */
	*v = x * m;
	return true;
}

/* KEY=VALUE: one setting; false with a reason in ERR */
static bool setting(const char *kv, char *err, size_t errlen)
{
	char key[32];
	const char *eq = strchr(kv, '=');
	uint64_t v = 0;

	if (!eq || eq == kv || (size_t)(eq - kv) >= sizeof(key)) {
		snprintf(err, errlen, "'%s': not KEY=VALUE", kv);
		return false;
	}
	memcpy(key, kv, eq - kv);
	key[eq - kv] = 0;
	if (!strcmp(key, "mode")) {
		if (!strcmp(eq + 1, "nak"))
			E.mode = M_NAK;
		else if (!strcmp(eq + 1, "bloat"))
			E.mode = M_BLOAT;
		else
			goto bad;
		return true;
	}
	if (!strcmp(key, "ntb-input")) {
		if (!strcmp(eq + 1, "refuse"))
			E.refuse_ntb_in = true;
		else if (!strcmp(eq + 1, "accept"))
			E.refuse_ntb_in = false;
		else
			goto bad;
		return true;
	}
	if (!parse_u64(eq + 1, &v))
		goto bad;
	if (!strcmp(key, "rate-up"))
		E.up.rate = v;
	else if (!strcmp(key, "rate-down"))
		E.dn.rate = v;
	else if (!strcmp(key, "delay-us"))
		E.delay_ns = v * 1000;
	else if (!strcmp(key, "buf-up"))
		E.up.buf = v;
	else if (!strcmp(key, "buf-down"))
		E.dn.buf = v;
	else if (!strcmp(key, "burst"))
		E.up.burst = E.dn.burst = v;
	else if (!strcmp(key, "service-us"))
		E.svc_ns = v * 1000;
	else {
		snprintf(err, errlen, "unknown setting '%s'", key);
		return false;
	}
	if (!strcmp(key, "rate-up") || !strcmp(key, "rate-down"))
		E.nsteps = 0;	/* a rate set by hand ends the steps */
	return true;
bad:
	snprintf(err, errlen, "%s: bad value '%s'", key, eq + 1);
	return false;
}

/* a direction's idle time so far, the current gap included */
static int64_t idle_us(const struct dir *d)
{
	int64_t now = now_ns(), idle = d->idle_ns;

	if (d->rate && d->vfinish && !d->queue.n && now > d->vfinish)
		idle += now - d->vfinish;
	return idle / 1000;
}

static int stats(char *b, size_t n)
{
	return snprintf(b, n,
		"personality=%s speed=%s port=%d tap=%s mode=%s "
		"rate-up=%" PRIu64 " rate-down=%" PRIu64 " delay-us=%" PRId64 " "
		"buf-up=%" PRIu64 " buf-down=%" PRIu64 " service-us=%" PRId64 " ntb-in=%u "
		"up-frames=%" PRIu64 " up-bytes=%" PRIu64 " up-drops=%" PRIu64 " "
		"up-queued=%" PRIu64 " up-buf-max=%" PRIu64 " urbs-held=%u urbs-held-max=%" PRIu64 " "
		"down-frames=%" PRIu64 " down-bytes=%" PRIu64 " down-drops=%" PRIu64 " "
		"down-buf-max=%" PRIu64 " ready=%u ready-drops=%" PRIu64 " "
		"urbs-out=%" PRIu64 " urbs-in=%" PRIu64 " urbs-ctrl=%" PRIu64 " in-pending=%u "
		"unlinks=%" PRIu64 " stalls=%" PRIu64 " ntbs-out=%" PRIu64 " ntbs-in=%" PRIu64 " "
		"bad-ntbs=%" PRIu64 " pads=%" PRIu64 " tap-errors=%" PRIu64 " "
		"up-idle-us=%" PRId64 " down-idle-us=%" PRId64 " late-us=%" PRId64 " link=%s "
		"int-pending=%u notifs-speed=%" PRIu64 " notifs-conn=%" PRIu64 " "
		"notify-pending=%s config=%u data-alt=%u ntb-input=%s ntb-in-refused=%" PRIu64 "\n",
		E.pname, speed_name[E.speed], E.port, E.tap_name, E.mode == M_NAK ? "nak" : "bloat",
		E.up.rate, E.dn.rate, E.delay_ns / 1000, E.up.buf, E.dn.buf, E.svc_ns / 1000, E.ntb_in,
		E.up.frames, E.up.bytes, E.up.drops, E.up.queue.bytes, E.up.buf_max, E.held.n, E.held_max,
		E.dn.frames, E.dn.bytes, E.dn.drops, E.dn.buf_max, E.ready.n, E.ready_drops,
		E.urbs_out, E.urbs_in, E.urbs_ctrl, E.in_q.n, E.unlinks, E.stalls, E.ntbs_out, E.ntbs_in,
		E.bad_ntbs, E.pads, E.tap_errs, idle_us(&E.up), idle_us(&E.dn), E.late_ns / 1000,
		E.link_up ? "up" : "down", E.int_q.n, E.notifs_speed, E.notifs_conn,
		E.notify_speed ? "speed" : E.notify_conn ? "connection" : "none",
		E.config, E.alt[1], E.refuse_ntb_in ? "refuse" : "accept", E.ntb_in_refused);
}

static void ctl_in(void)
{
	char cmd[1024], reply[2048], *tok, *save = NULL;
	struct sockaddr_un from;
	socklen_t flen = sizeof(from);
	ssize_t r = recvfrom(E.ctl, cmd, sizeof(cmd) - 1, 0, (struct sockaddr *)&from, &flen);
	int n = 0;

	if (r <= 0)
		return;
	cmd[r] = 0;
	tok = strtok_r(cmd, " \t\n", &save);
	if (!tok) {
		n = snprintf(reply, sizeof(reply), "error: empty command\n");
	} else if (!strcmp(tok, "stats")) {
		n = stats(reply, sizeof(reply));
	} else if (!strcmp(tok, "set")) {
		char err[256] = "";
		bool ok = true;

		while (ok && (tok = strtok_r(NULL, " \t\n", &save)))
			ok = setting(tok, err, sizeof(err));
		n = snprintf(reply, sizeof(reply), ok ? "ok\n" : "error: %s\n", err);
	} else if (!strcmp(tok, "reset")) {
		/* the counters from zero; what is queued stays */
		E.up.frames = E.up.bytes = E.up.drops = E.up.buf_max = 0;
		E.dn.frames = E.dn.bytes = E.dn.drops = E.dn.buf_max = 0;
		E.urbs_out = E.urbs_in = E.urbs_ctrl = E.unlinks = E.stalls = E.held_max = 0;
		E.ntbs_out = E.ntbs_in = E.pads = E.bad_ntbs = E.tap_errs = E.ready_drops = 0;
		n = snprintf(reply, sizeof(reply), "ok\n");
	} else if (!strcmp(tok, "link")) {
		tok = strtok_r(NULL, " \t\n", &save);
		if (tok && (!strcmp(tok, "up") || !strcmp(tok, "down"))) {
			link_notify(!strcmp(tok, "up"));
			n = snprintf(reply, sizeof(reply), "ok\n");
		} else {
			n = snprintf(reply, sizeof(reply), "error: link up|down\n");
		}
	} else {
		n = snprintf(reply, sizeof(reply), "error: unknown command '%s' (stats, reset, set, link)\n", tok);
	}
	if (n > 0 && flen > sizeof(sa_family_t))
		sendto(E.ctl, reply, strlen(reply), MSG_DONTWAIT, (struct sockaddr *)&from, flen);
}

static int ctl_client(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX }, me = { .sun_family = AF_UNIX };
	char msg[1024] = "", reply[4096];
	struct pollfd p;
	ssize_t r;
	int fd, i;

	if (argc < 2)
		die("usage: usbemu ctl SOCKET COMMAND...");
	if (strlen(argv[0]) >= sizeof(sa.sun_path))
		die("%s: path too long", argv[0]);
	strcpy(sa.sun_path, argv[0]);
	for (i = 1; i < argc; i++) {
		if (strlen(msg) + strlen(argv[i]) + 2 > sizeof(msg))
			die("command too long");
		if (i > 1)
			strcat(msg, " ");
		strcat(msg, argv[i]);
	}
	fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	/* an autobound abstract address, for the reply */
	if (fd < 0 || bind(fd, (struct sockaddr *)&me, sizeof(sa_family_t)) < 0)
		die("socket: %s", strerror(errno));
	if (sendto(fd, msg, strlen(msg), 0, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die("%s: %s", argv[0], strerror(errno));
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	if (poll(&p, 1, 10000) != 1)
		die("%s: no answer in 10 s", argv[0]);
	r = recv(fd, reply, sizeof(reply) - 1, 0);
	if (r < 0)
		die("%s: %s", argv[0], strerror(errno));
	reply[r] = 0;
	fputs(reply, stdout);
	return strncmp(reply, "error", 5) ? 0 : 1;
}

/* ------------------------------------------------------------ setup --- */
static void tap_open(const char *netns)
{
	struct ifreq ifr = { 0 };
	int self = -1, fd;

	if (netns) {
		char p[PATH_MAX];

		snprintf(p, sizeof(p), "/run/netns/%s", netns);
		fd = open(p, O_RDONLY | O_CLOEXEC);
		self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		if (fd < 0 || self < 0 || setns(fd, CLONE_NEWNET) < 0)
			die("netns %s: %s", netns, strerror(errno));
		close(fd);
	}
	E.tap = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (E.tap < 0)
		die("/dev/net/tun: %s", strerror(errno));
	ifr.ifr_flags = (E.raw_ip ? IFF_TUN : IFF_TAP) | IFF_NO_PI;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", E.tap_name);
	if (ioctl(E.tap, TUNSETIFF, &ifr) < 0)
		die("TUNSETIFF %s: %s", E.tap_name, strerror(errno));
	snprintf(E.tap_name, sizeof(E.tap_name), "%s", ifr.ifr_name);
	if (self >= 0) {
		if (setns(self, CLONE_NEWNET) < 0)
			die("back to our netns: %s", strerror(errno));
		close(self);
	}
}

/* a free port of the root hub of SPEED's kind; -1 if none */
static int free_port(int skip)
{
	FILE *f = fopen(VHCI "/status", "r");
	char line[256], hub[8];
	unsigned int port, sta;
	int found = -1;

	if (!f)
		die(VHCI "/status: %s (modprobe vhci-hcd)", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%7s %u %u", hub, &port, &sta) != 3)
			continue;
		if (strcmp(hub, E.speed == 5 ? "ss" : "hs") || sta != 4 || (int)port <= skip)
			continue;
		found = port;
		break;
	}
	fclose(f);
	return found;
}

static void attach(int want)
{
	int sv[2], port = -1, fd, tries;
	char msg[64];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		die("socketpair: %s", strerror(errno));
	for (tries = 0; tries < 32; tries++) {
		port = want >= 0 ? want : free_port(port);
		if (port < 0)
			die("no free %s port on vhci_hcd", E.speed == 5 ? "SuperSpeed" : "high-speed");
		fd = open(VHCI "/attach", O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			die(VHCI "/attach: %s", strerror(errno));
		snprintf(msg, sizeof(msg), "%d %d %u %d", port, sv[1], 0x10000u + port, E.speed);
		if (write(fd, msg, strlen(msg)) == (ssize_t)strlen(msg)) {
			close(fd);
			break;
		}
		close(fd);
		if (want >= 0)
			die("attach to port %d: %s", port, strerror(errno));
		/* taken meanwhile: the next free one */
	}
	if (tries == 32)
		die("could not attach to vhci_hcd");
	close(sv[1]);
	E.sock = sv[0];
	E.port = port;
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static bool parse_steps(const char *s)
{
	char *copy = strdup(s), *tok, *save = NULL;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *a = tok, *b = strchr(a, ':'), *c;
		uint64_t ms, up, dn;

		if (!b || !(c = strchr(b + 1, ':')) || E.nsteps == 16)
			goto bad;
		*b++ = 0;
		*c++ = 0;
		if (!parse_u64(a, &ms) || !parse_u64(b, &up) || !parse_u64(c, &dn) || !ms)
			goto bad;
		E.steps[E.nsteps++] = (struct step){ ms * 1000000, up, dn };
	}
	free(copy);
	return E.nsteps > 0;
bad:
	free(copy);
	return false;
}

static void usage(FILE *f)
{
	fputs("usage: usbemu [OPTION...] PERSONALITY     (dongle, ncm, dock, modem)\n"
	      "       usbemu ctl SOCKET stats | reset | set KEY=VALUE... | link up|down\n"
	      "  -s, --speed full|high|super   USB speed (default high)\n"
	      "  -i, --id VID:PID              the device's IDs (hex; default per personality)\n"
	      "  -m, --mac MAC                 the MAC the device reports (CDC)\n"
	      "  -t, --tap NAME                the far side's netdev (default usbemu%d)\n"
	      "  -n, --netns NAME              create it in this netns (/run/netns/NAME)\n"
	      "  -r, --raw-ip                  modem: raw IP frames, a TUN far side\n"
	      "  -c, --ctl PATH                the control socket\n"
	      "  -p, --port N                  the vhci_hcd port (default: the first free)\n"
	      "      --ntb SIZE                NCM: dwNtbIn/OutMaxSize (ncm 16384, dock 65536)\n"
	      "      --ntb-in SIZE             NCM: dwNtbInMaxSize alone, 1024 to 65536 (below\n"
	      "                                2048 a device against the spec, which then takes 2048)\n"
	      "      --steps MS:UP:DOWN,...    cycle the rates (bit/s) through these steps\n"
	      "      --usbip-fd FD             speak USB/IP on FD, attached to nothing (tests)\n"
	      "      --far-fd FD               the far side is FD, a frame per datagram (tests)\n"
	      "  and any KEY=VALUE of `set`: rate-up, rate-down (bit/s, 0 unlimited; k, M, G),\n"
	      "  delay-us (one way), buf-up, buf-down (bytes), burst (bytes), mode=nak|bloat,\n"
	      "  service-us (per bulk transfer); each at most 2305843009 after its suffix\n", f);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "speed", required_argument, NULL, 's' },
		{ "id", required_argument, NULL, 'i' },
		{ "mac", required_argument, NULL, 'm' },
		{ "tap", required_argument, NULL, 't' },
		{ "netns", required_argument, NULL, 'n' },
		{ "raw-ip", no_argument, NULL, 'r' },
		{ "ctl", required_argument, NULL, 'c' },
		{ "port", required_argument, NULL, 'p' },
		{ "ntb", required_argument, NULL, 'N' },
		{ "ntb-in", required_argument, NULL, 'I' },
		{ "usbip-fd", required_argument, NULL, 'U' },
		{ "far-fd", required_argument, NULL, 'F' },
		{ "steps", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *netns = NULL, *id = NULL, *mac = NULL, *steps = NULL;
	uint64_t ntb = 0, ntb_in = 0;
	int o, port = -1, usbip_fd = -1, far_fd = -1;
	char err[256];

	if (argc > 1 && !strcmp(argv[1], "ctl"))
		return ctl_client(argc - 2, argv + 2);
	E.speed = 3;
	E.mode = M_NAK;
	E.up.buf = E.dn.buf = 1 << 20;
	E.up.burst = E.dn.burst = 2 * ETH_MAX;
	while ((o = getopt_long(argc, argv, "s:i:m:t:n:rc:p:h", opts, NULL)) != -1) {
		switch (o) {
		case 's':
			E.speed = !strcmp(optarg, "full") ? 2 : !strcmp(optarg, "high") ? 3 :
				  !strcmp(optarg, "super") ? 5 : 0;
			if (!E.speed)
				die("--speed %s: full, high or super", optarg);
			break;
		case 'i': id = optarg; break;
		case 'm': mac = optarg; break;
		case 't': snprintf(E.tap_name, sizeof(E.tap_name), "%s", optarg); break;
		case 'n': netns = optarg; break;
		case 'r': E.raw_ip = true; break;
		case 'c': E.ctl_path = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'N':
			if (!parse_u64(optarg, &ntb) || ntb < 2048 || ntb > 65536)
				die("--ntb %s: 2048 to 65536", optarg);
			break;
		case 'I':
			if (!parse_u64(optarg, &ntb_in) || ntb_in < 1024 || ntb_in > 65536)
				die("--ntb-in %s: 1024 to 65536", optarg);
			break;
		case 'S': steps = optarg; break;
		case 'U': usbip_fd = atoi(optarg); break;
		case 'F': far_fd = atoi(optarg); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	for (; optind < argc && strchr(argv[optind], '='); optind++)
		if (!setting(argv[optind], err, sizeof(err)))
			die("%s", err);
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	E.pname = argv[optind];
	if (!strcmp(E.pname, "dongle")) {
		E.pers = P_ECM, E.vid = 0x1d6b, E.pid = 0x0105;
	} else if (!strcmp(E.pname, "ncm")) {
		E.pers = P_NCM, E.vid = 0x1d6b, E.pid = 0x0106, E.ntb_in_max = 16384;
	} else if (!strcmp(E.pname, "dock")) {
		/* DisplayLink's vendor ID, which cdc_ncm's table matches with
		 * the NCM class (FLAG_SEND_ZLP); the product ID is made up */
		E.pers = P_NCM, E.vid = 0x17e9, E.pid = 0x6000, E.ntb_in_max = 65536;
	} else if (!strcmp(E.pname, "modem")) {
		E.pers = P_QMI, E.vid = 0x2c7c, E.pid = 0x0125;
	} else {
		die("unknown personality '%s' (dongle, ncm, dock, modem)", E.pname);
	}
	if (E.raw_ip && E.pers != P_QMI)
		die("--raw-ip is for the modem");
	if (ntb)
		E.ntb_in_max = ntb;
	E.ntb_out_max = E.ntb_in = E.ntb_in_max;
	if (ntb_in)
		E.ntb_in_max = E.ntb_in = ntb_in;
	if (id) {
		unsigned int v, p;

		if (sscanf(id, "%4x:%4x", &v, &p) != 2)
			die("--id %s: VID:PID in hex", id);
		E.vid = v, E.pid = p;
	}
	if (mac) {
		unsigned int m[6];
		int i;

		if (sscanf(mac, "%2x:%2x:%2x:%2x:%2x:%2x", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5]) != 6)
			die("--mac %s: six hex bytes", mac);
		for (i = 0; i < 6; i++)
			E.mac[i] = m[i];
	} else {
		int i;

		srand(getpid() ^ time(NULL));
		E.mac[0] = 0x02;
		for (i = 1; i < 6; i++)
			E.mac[i] = rand();
	}
	if (steps && !parse_steps(steps))
		die("--steps %s: MS:UP:DOWN[,MS:UP:DOWN...]", steps);
	if (!E.tap_name[0])
		snprintf(E.tap_name, sizeof(E.tap_name), "usbemu%%d");

	signal(SIGPIPE, SIG_IGN);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	if (far_fd >= 0) {
		E.tap = far_fd;
		fcntl(far_fd, F_SETFL, O_NONBLOCK);
		snprintf(E.tap_name, sizeof(E.tap_name), "fd%d", far_fd);
	} else {
		tap_open(netns);
	}
	if (E.ctl_path) {
		struct sockaddr_un sa = { .sun_family = AF_UNIX };

		if (strlen(E.ctl_path) >= sizeof(sa.sun_path))
			die("--ctl %s: path too long", E.ctl_path);
		strcpy(sa.sun_path, E.ctl_path);
		unlink(E.ctl_path);
		E.ctl = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (E.ctl < 0 || bind(E.ctl, (struct sockaddr *)&sa, sizeof(sa)) < 0)
			die("--ctl %s: %s", E.ctl_path, strerror(errno));
	} else {
		E.ctl = -1;
	}
	E.t0 = now_ns();
	if (E.nsteps) {
		E.up.rate = E.steps[0].up;
		E.dn.rate = E.steps[0].dn;
		E.step_end = E.t0 + E.steps[0].len_ns;
	}
	if (usbip_fd >= 0) {
		E.sock = usbip_fd;
		E.port = -1;
	} else {
		attach(port);
	}
	printf("attached %s port=%d speed=%s tap=%s\n", E.pname, E.port, speed_name[E.speed], E.tap_name);
	fflush(stdout);

	while (!stop) {
		struct pollfd p[3];
		int64_t next = pump(), wait;
		struct timespec ts, *tp = NULL;
		bool tap_ok = dn_room();

		if (stop)
			break;
		p[0] = (struct pollfd){ .fd = E.sock, .events = POLLIN };
		p[1] = (struct pollfd){ .fd = tap_ok ? E.tap : -1, .events = POLLIN };
		p[2] = (struct pollfd){ .fd = E.ctl, .events = POLLIN };
		if (next != INT64_MAX) {
			wait = next - now_ns();
			if (wait < 0)
				wait = 0;
			ts.tv_sec = wait / 1000000000;
			ts.tv_nsec = wait % 1000000000;
			tp = &ts;
		}
		if (ppoll(p, 3, tp, NULL) < 0) {
			if (errno == EINTR)
				continue;
			die("poll: %s", strerror(errno));
		}
		if (next != INT64_MAX) {
			int64_t late = now_ns() - next - 10000000;

			if (late > 0)
				E.late_ns += late;
		}
		if (p[0].revents & (POLLIN | POLLHUP | POLLERR))
			sock_in();
		if (p[1].revents & POLLIN)
			tap_in();
		if (p[2].revents & POLLIN)
			ctl_in();
	}
	{
		char b[2048];

		stats(b, sizeof(b));
		printf("detached %s", b);
	}
	close(E.sock);
	if (E.ctl_path)
		unlink(E.ctl_path);
	return 0;
}
