/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usbethd's commands: usbethd.c parses the options and runs one of them,
 * the one-shots (oneshot.c) or the daemon (daemon.h); what they share is
 * here, kept in common.c (which calls none of them).
 */
#ifndef USBETHD_USBETHD_H
#define USBETHD_USBETHD_H

#include <stdbool.h>
#include <stddef.h>

#include "apply.h"

#define MAX_DIRS 16

/* The options, set by main before a command runs. */
extern const char *dirs[MAX_DIRS];	/* profile directories, in order */
extern size_t ndirs;
extern const char *available_dir;	/* profiles.available, or NULL */
extern const char *runtime_dir;		/* locks and records (state.h) */
extern bool restore_on_stop;		/* --on-stop restore|keep */
extern int rcvbuf;		/* --rcvbuf: 0 keeps the kernel's default */

/* The profiles: PROFSET_STRICT for --check, PROFSET_SKIP_ODD on reload,
 * PROFSET_SKIP_BAD at start and for the one-shots. 0, or -1 (logged).
 */
int load_mode(struct profset *s, enum profset_mode mode);
int load(struct profset *s);
/* The profiles of available_dir (none without one), unresolved: they are
 * listed, never applied. 0, or -1 (logged).
 */
int load_available(struct profset *avail);
/* A usbeth handle; 0, or -errno (logged). */
int open_usbeth(struct usbeth **u);

/*
 * The runtime directory's locks (see state.h): daemon.lock, held by the
 * daemon for its life; state.lock, held by --apply while it applies and
 * records, and by the daemon while it loads the records.
 */
/* Opens runtime_dir/name; the fd, or -1 (logged). */
int lock_open(const char *name);
/* flock(fd, op), again on EINTR; 0 or -1 (errno). */
int lock_wait(int fd, int op);

int cmd_check(void);
/* For each device named (every one without a name), or each described
 * (dev_describe()): the matching profiles, the winner and why, the
 * disabled ones that match, and the changes.
 */
int cmd_explain(const char *const *devs, size_t ndevs,
		const char *const *descs, size_t ndescs);
int cmd_apply(const char *dev, bool force);
/* The daemon (daemon.c): runs until SIGTERM or SIGINT; the exit status. */
int run_daemon(void);

#endif /* USBETHD_USBETHD_H */
