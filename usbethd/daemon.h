/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usbethd's daemon (daemon.c: start, resync, reload, the poll loop) and
 * its event sources, a file each, which share its state (struct daemon):
 * monitor.c (the usbeth family: notifications, module reloads, GET
 * replies), links.c (rtnetlink link events), signals.c (the service
 * manager: its signals, sd_notify).
 */
#ifndef USBETHD_DAEMON_H
#define USBETHD_DAEMON_H

#include <net/if.h>

#include "usbethd.h"

struct daemon {
	struct usbeth *u;
	struct usbeth_mon *m;
	struct mnl_socket *links;	/* RTNLGRP_LINK: gadget (re)connects,
					 * netdevs not on USB coming, going */
	struct profset set;
	struct engine e;
	bool other;			/* a profile matches role "other" */
	uint64_t woken;			/* when poll() last returned, us */
	uint64_t retry_at;		/* a resync failed: try again then,
					 * us; 0 none */
	/* GETs in flight, answered on their own socket (see get_async) */
	struct usbeth_async *gets;
	bool ready;			/* the first resync succeeded */
	bool reopen;			/* retry_at retries family_back */
	bool reopen_said;		/* its failure was logged */
	/* the name of every netdev of the netns, by ifindex: a rename is
	 * told from rtnetlink's other RTM_NEWLINKs by it (see link_cb)
	 */
	struct name_ent {
		uint32_t ifindex;
		char name[IF_NAMESIZE];
	} *names;
	size_t nnames, cap_names;
	char *lbuf;			/* link events (links_read) */
	size_t lbuf_len;
};

enum { NAME_SAME, NAME_NEW, NAME_RENAMED };

/* Notes ifindex's name: NAME_NEW (not known before), NAME_RENAMED (known
 * by another name), NAME_SAME; -1 when there is no memory for it.
 */
int name_note(struct daemon *dm, uint32_t ifindex, const char *name);
void name_forget(struct daemon *dm, uint32_t ifindex);
/* Every device of the netns, (re)applied; records of vanished ones go.
 * 0, or -errno (retried in 100 ms).
 */
int resync(struct daemon *dm, const char *why);
/* --rcvbuf on fd (what names it in the log); 0, or -1 (logged). */
int set_rcvbuf(int fd, const char *what);
/* SIGHUP: the profiles loaded again (kept when they do not load), then a
 * resync.
 */
int reload(struct daemon *dm);

/* monitor.c: the notifications' socket; 0, or -1 (logged). */
int monitor_open(struct daemon *dm);
/* Handles every notification queued; -1 on an error the daemon cannot go
 * on after (logged).
 */
int monitor_read(struct daemon *dm);
/* The socket of the GETs sent for what rtnetlink told; 0, or -errno. */
int gets_open(struct daemon *dm);
/* Asks usbeth for ifindex; the reply is evaluated in gets_read. */
void get_async(struct daemon *dm, uint32_t ifindex);
/* Handles every GET reply queued. */
void gets_read(struct daemon *dm);
/* The family is there again (or may be, after an overrun): a new handle,
 * then a resync; -1 when it cannot be opened (retried in 100 ms).
 */
int family_back(struct daemon *dm, const char *why);
/* An overrun of any of the daemon's sockets (ENOBUFS): the one recovery,
 * every socket drained and what it held dropped (older than the dump to
 * come), the family resolved again and its group joined, then
 * family_back's resync.
 */
void recover(struct daemon *dm, const char *why);

/* links.c: the rtnetlink socket; 0, or -1 (logged). */
int links_open(struct daemon *dm);
/* Reads and handles every link event queued. */
void links_read(struct daemon *dm);
/* Reads and drops every link event queued. */
void links_drain(struct daemon *dm);

/* signals.c: SIGHUP, SIGTERM, SIGINT blocked, and a signalfd for them;
 * the fd, or -1 (logged).
 */
int signals_open(void);
/* Handles every signal queued: 1 when the daemon is to stop. */
int signals_read(struct daemon *dm, int sfd);
/* A message to systemd (NOTIFY_SOCKET), if it listens. */
void sd_notify_msg(const char *msg);

#endif /* USBETHD_DAEMON_H */
