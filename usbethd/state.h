/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usbethd's records on disk, so that the originals of what was changed
 * outlive the process that changed them: the udev path (usbethd --apply)
 * records what it changes, the daemon finds those records when it starts,
 * and a daemon restarted (Restart=on-failure, kill -9) finds its own.
 *
 * Files live in the runtime directory (/run/usbethd: tmpfs, so a reboot,
 * which resets every knob, forgets them too), one per device, named by
 * ifindex (dev-7), written whole (a temporary file renamed over it),
 * 0600 and the daemon's. The kernel allocates ifindexes cyclically, but
 * one can be asked for (`ip link add ... index N`), so a record names its
 * device by more than the ifindex: the boot id (one of another boot is
 * dropped: a runtime directory that is no tmpfs), the name (one whose
 * ifindex names a device of another name now is dropped at load), and the
 * role and driver (records.c drops one that is not the device's when it
 * is first evaluated); records of devices gone are dropped by the
 * daemon's start and by --apply.
 *
 * Who writes: the daemon holds daemon.lock for its life; --apply takes
 * state.lock, checks that no daemon holds daemon.lock, and applies and
 * records under state.lock; the daemon takes state.lock (after daemon.lock)
 * only while it loads the records. So the two never write at once, and a
 * daemon starting while --apply runs sees what it recorded.
 */
#ifndef USBETHD_STATE_H
#define USBETHD_STATE_H

#include "records.h"

/* Creates dir (0755) if missing; refuses one that is not a directory owned
 * by us or is writable by others. 0, or -1 with why filled.
 */
int state_dir_check(const char *dir, char *why, size_t len);
/* Opens (creates) the lock file dir/name: 0600, ours, not a link. The fd,
 * or -1 with why filled.
 */
int state_lock_open(const char *dir, const char *name, char *why, size_t len);
/* Writes r's record (or removes it when r has no originals). -errno. */
int state_save(const char *dir, const struct rec *r);
void state_remove(const char *dir, uint32_t ifindex);
/* Adds every record of dir to *list; a file that does not parse, is not
 * ours, names another ifindex, comes from another boot, or (without a
 * boot id: an older usbethd's) names a device whose ifindex has another
 * name now, is reported through warn, and removed when remove_bad (not
 * for --explain, which changes nothing). The number loaded, or -errno.
 */
int state_load_all(const char *dir, struct rec **list,
		   void (*warn)(const char *path, const char *why),
		   bool remove_bad);

#endif /* USBETHD_STATE_H */
