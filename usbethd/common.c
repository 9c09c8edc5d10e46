// SPDX-License-Identifier: GPL-2.0
/*
 * usbethd: what its commands share (usbethd.h): the options, set by main
 * (usbethd.c) before a command runs, the profile loading, the usbeth
 * handle, the runtime directory's locks. Used by the one-shots
 * (oneshot.c) and the daemon (daemon.c); calls none of them.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/file.h>

#include "state.h"
#include "usbethd.h"

const char *dirs[MAX_DIRS];
size_t ndirs;
const char *available_dir;
const char *runtime_dir = "/run/usbethd";
bool restore_on_stop = true;
int rcvbuf;

static void load_warn(const struct perr *e, void *arg)
{
	char msg[4500];

	(void)arg;
	perr_format(e, msg, sizeof(msg));
	ulog(LOG_P_ERR, "%s: skipped", msg);
}

int load_available(struct profset *avail)
{
	struct perr err;
	char msg[4500];

	memset(avail, 0, sizeof(*avail));
	if (!available_dir)
		return 0;
	if (!profset_load_available(avail, available_dir, load_warn, NULL,
				    &err))
		return 0;
	perr_format(&err, msg, sizeof(msg));
	ulog(LOG_P_ERR, "%s", msg);
	return -1;
}

int load_mode(struct profset *s, enum profset_mode mode)
{
	struct profset avail;
	struct perr err;
	size_t skipped = 0;
	char msg[4500];

	if (!profset_load_mode(s, dirs, ndirs, mode, load_warn, NULL,
			       &skipped, &err)) {
		if (skipped)
			ulog(LOG_P_WARNING, "%zu profile files skipped (see "
			     "above); %zu profiles loaded", skipped, s->n);
		/* a shipped profile enabled ranks as shipped: ties go to
		 * the administrator's own (usbethd.profiles(5), SELECTION)
		 */
		if (load_available(&avail)) {
			profset_free(s);
			return -1;
		}
		profset_mark_available(s, &avail);
		profset_free(&avail);
		return 0;
	}
	perr_format(&err, msg, sizeof(msg));
	ulog(LOG_P_ERR, "%s", msg);
	return -1;
}

int load(struct profset *s)
{
	return load_mode(s, PROFSET_SKIP_BAD);
}

int open_usbeth(struct usbeth **u)
{
	int err = usbeth_open(u);

	if (err == -ENOENT)
		ulog(LOG_P_ERR, "the usbeth kernel module is not loaded "
		     "(modprobe usbeth)");
	else if (err)
		ulog(LOG_P_ERR, "cannot open the usbeth family: %s",
		     strerror(-err));
	return err;
}

int lock_open(const char *name)
{
	char why[PATH_MAX + 128];
	int fd;

	if (state_dir_check(runtime_dir, why, sizeof(why))) {
		ulog(LOG_P_ERR, "%s", why);
		return -1;
	}
	fd = state_lock_open(runtime_dir, name, why, sizeof(why));
	if (fd < 0)
		ulog(LOG_P_ERR, "%s", why);
	return fd;
}

int lock_wait(int fd, int op)
{
	while (flock(fd, op))
		if (errno != EINTR)
			return -1;
	return 0;
}
