/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usbethd's daemon: one poll loop (daemon.c) over event sources, a file
 * each: monitor.c (the usbeth family: notifications, module reloads, GET
 * replies), links.c (rtnetlink link events), signals.c (the service
 * manager: its signals, sd_notify).
 *
 * The loop owns the daemon's state (struct daemon, daemon.c's own) and is
 * the only one to act on the daemon as a whole: resync, recover (the one
 * recovery: every socket drained, then a resync), the family reopened or
 * waited for, a reload, a stop, the GETs sent. A source reads its socket
 * and hands what the loop is to do as events (struct ev) in a queue
 * (struct evq) that the loop handles, in order, when the source returns;
 * a source never calls daemon.c, nor another source. The loop calls the
 * sources (open, read, drain, close, send a GET) and nothing calls it back.
 *
 * What a source saw of one device goes to the engine (apply.h, records.h)
 * directly, not through the loop: a NEW (engine_apply), a DEL
 * (engine_drop), a GET's reply (engine_apply), a rename (engine_rename, a
 * gadget's carrier in its record), a netdev not on USB gone (engine_drop).
 * That is per-device work the loop has no say in, and done where it was
 * seen it keeps the order of the device's events.
 *
 * Order: the loop handles what a source asked for as soon as the source
 * returns, and a source returns at every point where it asks for
 * something that a later part of its stream could be affected by or log
 * after: links_read after each link message (and within an RTM_NEWLINK,
 * between its two parts), signals_read after each signal, monitor_read
 * and gets_read at the end of their read (the only point they ask at).
 * So the loop acts, and logs, where the source would have had it acted
 * itself, and no source reads on while a request of its is pending.
 */
#ifndef USBETHD_DAEMON_H
#define USBETHD_DAEMON_H

#include <net/if.h>
#include <string.h>

#include "usbethd.h"

/* What a source asks of the loop. */
enum ev_type {
	EV_GET,		/* ask usbeth for ifindex (gets_send): its reply
			 * comes to gets_read */
	EV_RESYNC_SOON,	/* something was missed (logged): a resync from
			 * the loop, now */
	EV_RECOVER,	/* a socket overran (why): recover() */
	EV_FAMILY_GONE,	/* the usbeth module was unloaded: wait for it */
	EV_FAMILY_BACK,	/* it was loaded again (why): reopen, resync */
	EV_RESYNC,	/* something was skipped (why): resync */
	EV_RELOAD,	/* SIGHUP */
	EV_STOP,	/* SIGTERM, SIGINT (signo) */
	EV_FAIL,	/* an error the daemon cannot go on after (logged) */
};

struct ev {
	enum ev_type type;
	const char *why;		/* a string constant */
	uint32_t ifindex;		/* EV_GET */
	int signo;			/* EV_STOP */
};

/* At most two per call of a source (links_read: a resync due, then a GET). */
#define EVQ_MAX 4

struct evq {
	struct ev ev[EVQ_MAX];
	unsigned int n;
};

/* Appends an event of type, its other fields zero, for the caller to
 * fill in. A full queue (not with the counts above) drops it, logged.
 */
static inline struct ev *evq_push(struct evq *q, enum ev_type type)
{
	static struct ev lost;
	struct ev *ev = &lost;

	if (q->n < EVQ_MAX)
		ev = &q->ev[q->n++];
	else
		ulog(LOG_P_ERR, "event queue full: event %d dropped", type);
	memset(ev, 0, sizeof(*ev));
	ev->type = type;
	return ev;
}

/* monitor.c: the usbeth family's notifications */
struct monitor {
	struct usbeth_mon *m;
	struct engine *e;		/* NEWs and DELs applied there */
	uint64_t woken;			/* when poll() returned, us (the
					 * timing line) */
};

/* Subscribes; 0, or -1 (logged). */
int monitor_open(struct monitor *mon);
void monitor_close(struct monitor *mon);
/* Handles every notification queued (poll() returned at woken); what the
 * end of the read asks for in q.
 */
void monitor_read(struct monitor *mon, uint64_t woken, struct evq *q);
/* Reads and drops what is queued (see recover()). */
void monitor_drain(struct monitor *mon);
/* The family resolved again, its group joined (after an overrun):
 * usbeth_monitor_refresh's 0 or -errno.
 */
int monitor_refresh(struct monitor *mon);

/* monitor.c: the GETs sent for what rtnetlink told, answered on their own
 * socket
 */
struct gets {
	struct usbeth_async *a;
	struct engine *e;		/* replies applied there; its u is the
					 * family's handle */
};

/* 0, or -errno (logged). */
int gets_open(struct gets *g);
void gets_close(struct gets *g);
/* Asks usbeth for ifindex; 0, or -errno (logged): then a resync is due. */
int gets_send(struct gets *g, uint32_t ifindex);
/* Handles every reply queued; what the end of the read asks for in q. */
void gets_read(struct gets *g, struct evq *q);
/* Reads and drops what is queued (see recover()). */
void gets_drain(struct gets *g);

/* links.c: rtnetlink link events */
struct links {
	struct mnl_socket *sock;	/* RTNLGRP_LINK: gadget (re)connects,
					 * netdevs not on USB coming, going */
	struct engine *e;		/* records followed (renames, a
					 * gadget's carrier), dropped */
	bool other;			/* a profile matches role "other":
					 * set by the loop */
	/* the name of every netdev of the netns, by ifindex: a rename is
	 * told from rtnetlink's other RTM_NEWLINKs by it (see link_cb)
	 */
	struct name_ent {
		uint32_t ifindex;
		char name[IF_NAMESIZE];
	} *names;
	size_t nnames, cap_names;
	char *lbuf;			/* the datagram being read */
	size_t lbuf_len;
	size_t pos;			/* its next message */
	int left;			/* bytes of it from pos not read */
	bool rest;			/* the message at pos: its link_rest
					 * is still to run */
};

/* 0, or -1 (logged). */
int links_open(struct links *l);
void links_close(struct links *l);
/* Reads link events, one message at a time: 1 when one asked for
 * something (in q; links_read is to be called again once it is handled),
 * 0 once the socket is drained or it overran (EV_RECOVER in q).
 */
int links_read(struct links *l, struct evq *q);
/* Reads and drops every link event queued (see recover()). */
void links_drain(struct links *l);
/* The names known: none (a dump follows, each noted). */
void links_names_clear(struct links *l);
/* Notes ifindex's name; -1 when there is no memory for it. */
int links_name_note(struct links *l, uint32_t ifindex, const char *name);

/* signals.c: SIGHUP, SIGTERM, SIGINT blocked, and a signalfd for them;
 * the fd, or -1 (logged).
 */
int signals_open(void);
/* Reads one signal: 1 with EV_RELOAD or EV_STOP in q, 0 when none is
 * queued.
 */
int signals_read(int sfd, struct evq *q);
/* A message to systemd (NOTIFY_SOCKET), if it listens. */
void sd_notify_msg(const char *msg);
/* RELOADING=1, with the MONOTONIC_USEC that Type=notify-reload wants. */
void sd_notify_reloading(void);

#endif /* USBETHD_DAEMON_H */
