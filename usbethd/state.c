// SPDX-License-Identifier: GPL-2.0
/*
 * usbethd's records on disk: see state.h.
 */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <net/if.h>

#include "state.h"

#define STATE_MAGIC	"usbethd-record 1"
#define STATE_FILE_MAX	(64 * 1024)
#define STATE_BQL_MAX	4096		/* queues kept per device */

/* ---------------------------------------------------------- boot id -- */

#define BOOT_ID_LEN 36		/* 8-4-4-4-12 hex digits */

static bool boot_id_ok(const char *s)
{
	size_t i;

	if (strlen(s) != BOOT_ID_LEN)
		return false;
	for (i = 0; i < BOOT_ID_LEN; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? s[i] != '-' : !strchr("0123456789abcdef", s[i]) ||
		    !s[i])
			return false;
	}
	return true;
}

/* This boot's id (the kernel's random boot_id), "" when unreadable. */
static const char *boot_id(void)
{
	static char id[BOOT_ID_LEN + 2];
	static bool read_once;
	ssize_t n = 0;
	int fd;

	if (read_once)
		return id;
	read_once = true;
	fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, id, sizeof(id) - 1);
		close(fd);
	}
	id[n > 0 ? n : 0] = 0;
	if (n > 0 && id[n - 1] == '\n')
		id[n - 1] = 0;
	if (!boot_id_ok(id))
		id[0] = 0;
	return id;
}

/* ------------------------------------------------------------ paths -- */

static int rec_path(const char *dir, uint32_t ifindex, bool tmp, char *buf,
		    size_t len)
{
	int n = snprintf(buf, len, "%s/%sdev-%u%s", dir, tmp ? "." : "",
			 ifindex, tmp ? ".tmp" : "");

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int state_dir_check(const char *dir, char *why, size_t len)
{
	struct stat st;

	if (mkdir(dir, 0755) && errno != EEXIST) {
		snprintf(why, len, "%s: cannot create it: %s", dir,
			 strerror(errno));
		return -1;
	}
	if (lstat(dir, &st)) {
		snprintf(why, len, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, len, "%s: not a directory", dir);
		return -1;
	}
	if (st.st_uid != geteuid()) {
		snprintf(why, len, "%s: owned by uid %u, not by us (uid %u)",
			 dir, (unsigned int)st.st_uid,
			 (unsigned int)geteuid());
		return -1;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(why, len, "%s: writable by others (mode %04o)", dir,
			 (unsigned int)(st.st_mode & 07777));
		return -1;
	}
	return 0;
}

int state_lock_open(const char *dir, const char *name, char *why, size_t len)
{
	char path[PATH_MAX];
	struct stat st;
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    (int)sizeof(path)) {
		snprintf(why, len, "%s/%s: path too long", dir, name);
		return -1;
	}
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK |
		  O_NOCTTY | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(why, len, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid()) {
		snprintf(why, len, "%s: not a regular file of ours", path);
		close(fd);
		return -1;
	}
	/* an older usbethd made it 0644: anyone could flock it */
	if ((st.st_mode & 07777) != 0600 && fchmod(fd, 0600)) {
		snprintf(why, len, "%s: chmod: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* ----------------------------------------------------------- saving -- */

int state_save(const char *dir, const struct rec *r)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	FILE *f;
	size_t i;
	int fd, k;

	if (rec_path(dir, r->ifindex, false, path, sizeof(path)) ||
	    rec_path(dir, r->ifindex, true, tmp, sizeof(tmp)))
		return -ENAMETOOLONG;
	if (!r->orig_has && !r->theirs) {
		if (unlink(path) && errno != ENOENT)
			return -errno;
		return 0;
	}
	unlink(tmp);		/* a leftover of a crash */
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		return -ENOMEM;
	}
	fprintf(f, STATE_MAGIC "\n");
	if (boot_id()[0])
		fprintf(f, "boot %s\n", boot_id());
	fprintf(f, "ifindex %u\nifname %s\nrole %u\nprofile %s\n",
		r->ifindex, r->ifname, r->role,
		r->profile[0] ? r->profile : "-");
	if (r->driver[0] && !strpbrk(r->driver, " \n"))
		fprintf(f, "driver %s\n", r->driver);
	for (k = 0; k < K_COUNT; k++)
		if (r->orig_has & (1U << k))
			fprintf(f, "orig %s %u\n", knob_table[k].name,
				r->orig[k]);
	fprintf(f, "features %u\n", r->f_orig);
	for (i = 0; i < r->n_bql; i++)
		fprintf(f, "bql %u %u %u %u\n", r->bql[i].index,
			r->bql[i].limit_min, r->bql[i].limit_max,
			r->bql[i].hold_time);
	for (k = 0; k < K_COUNT; k++)
		if (r->got_has & (1U << k))
			fprintf(f, "got %s %u %u\n", knob_table[k].name,
				r->req[k], r->got[k]);
	for (k = 0; k < K_COUNT; k++)
		if (r->theirs & (1U << k))
			fprintf(f, "theirs %s\n", knob_table[k].name);
	if (fflush(f) || ferror(f)) {
		int err = errno ? -errno : -EIO;

		fclose(f);
		unlink(tmp);
		return err;
	}
	fclose(f);
	if (rename(tmp, path)) {
		int err = -errno;

		unlink(tmp);
		return err;
	}
	return 0;
}

void state_remove(const char *dir, uint32_t ifindex)
{
	char path[PATH_MAX];

	if (!rec_path(dir, ifindex, false, path, sizeof(path)))
		unlink(path);
}

/* ---------------------------------------------------------- loading -- */

static bool num(const char *s, uint32_t *v)
{
	unsigned long long x;
	char *end;

	if (!*s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end || x > UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	return true;
}

/* One line of a record file, split at single spaces into at most 5 words
 * (no empty word). 0, or -1 when it does not parse.
 */
static int parse_line(struct rec *r, char *line, size_t *bql_cap,
		      char *boot)
{
	char *w[6];
	uint32_t v[4];
	size_t n = 0;
	int k;

	while (n < 6) {
		w[n++] = line;
		line = strchr(line, ' ');
		if (!line)
			break;
		*line++ = 0;
	}
	if (line)
		return -1;	/* too many words */
	for (k = 0; k < (int)n; k++)
		if (!*w[k])
			return -1;
	if (n == 2 && !strcmp(w[0], "boot")) {
		if (!boot_id_ok(w[1]) || boot[0])
			return -1;
		strcpy(boot, w[1]);
		return 0;
	}
	if (n == 2 && !strcmp(w[0], "ifindex"))
		return num(w[1], &r->ifindex) && r->ifindex ? 0 : -1;
	if (n == 2 && !strcmp(w[0], "ifname")) {
		if (strlen(w[1]) >= sizeof(r->ifname))
			return -1;
		strcpy(r->ifname, w[1]);
		return 0;
	}
	if (n == 2 && !strcmp(w[0], "driver")) {
		if (strlen(w[1]) >= sizeof(r->driver) || r->driver[0])
			return -1;
		strcpy(r->driver, w[1]);
		return 0;
	}
	if (n == 2 && !strcmp(w[0], "role"))
		return num(w[1], &r->role) ? 0 : -1;
	if (n == 2 && !strcmp(w[0], "profile")) {
		if (strlen(w[1]) >= sizeof(r->profile))
			return -1;
		strcpy(r->profile, strcmp(w[1], "-") ? w[1] : "");
		return 0;
	}
	if (n == 2 && !strcmp(w[0], "features"))
		return num(w[1], &r->f_orig) ? 0 : -1;
	if (n == 3 && !strcmp(w[0], "orig")) {
		k = knob_by_name(w[1]);
		if (k < 0 || !num(w[2], &v[0]) ||
		    (r->orig_has & (1U << k)))
			return -1;
		r->orig[k] = v[0];
		r->orig_has |= 1U << k;
		return 0;
	}
	if (n == 4 && !strcmp(w[0], "got")) {
		k = knob_by_name(w[1]);
		if (k < 0 || !num(w[2], &v[0]) || !num(w[3], &v[1]))
			return -1;
		r->req[k] = v[0];
		r->got[k] = v[1];
		r->got_has |= 1U << k;
		return 0;
	}
	if (n == 2 && !strcmp(w[0], "theirs")) {
		k = knob_by_name(w[1]);
		if (k < 0 || (r->theirs & (1U << k)))
			return -1;
		r->theirs |= 1U << k;
		return 0;
	}
	if (n == 5 && !strcmp(w[0], "bql")) {
		for (k = 0; k < 4; k++)
			if (!num(w[k + 1], &v[k]))
				return -1;
		if (r->n_bql >= STATE_BQL_MAX)
			return -1;
		if (r->n_bql == *bql_cap) {
			size_t c = *bql_cap ? *bql_cap * 2 : 8;
			struct bql_orig *b = realloc(r->bql, c * sizeof(*b));

			if (!b)
				return -1;
			r->bql = b;
			*bql_cap = c;
		}
		r->bql[r->n_bql].index = v[0];
		r->bql[r->n_bql].limit_min = v[1];
		r->bql[r->n_bql].limit_max = v[2];
		r->bql[r->n_bql].hold_time = v[3];
		r->n_bql++;
		return 0;
	}
	return -1;
}

/* The record in path (a file of ours), or NULL with why set. */
static struct rec *load_one(const char *path, uint32_t ifindex, char *why,
			    size_t len)
{
	struct rec *r = NULL;
	char boot[BOOT_ID_LEN + 1] = "", now[IF_NAMESIZE];
	size_t n = 0, bql_cap = 0, lineno = 0;
	struct stat st;
	char *text, *line, *next;
	int fd;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
		  O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, len, "%s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)) ||
	    st.st_size > STATE_FILE_MAX) {
		snprintf(why, len, "not a regular file of ours, or too large");
		close(fd);
		return NULL;
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text) {
		close(fd);
		snprintf(why, len, "out of memory");
		return NULL;
	}
	while (n < (size_t)st.st_size) {
		ssize_t m = read(fd, text + n, (size_t)st.st_size - n);

		if (m < 0 && errno == EINTR)
			continue;
		if (m <= 0)
			break;
		n += (size_t)m;
	}
	close(fd);
	text[n] = 0;
	if (strlen(text) != n || n == 0 || text[n - 1] != '\n') {
		snprintf(why, len, "truncated or not text");
		goto out;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(why, len, "out of memory");
		goto out;
	}
	r->carrier = -1;
	for (line = text; *line; line = next) {
		next = strchr(line, '\n');
		*next++ = 0;
		lineno++;
		if (lineno == 1) {
			if (strcmp(line, STATE_MAGIC))
				goto bad;
			continue;
		}
		if (parse_line(r, line, &bql_cap, boot))
			goto bad;
	}
	if (r->ifindex != ifindex || !r->ifname[0] ||
	    !(r->orig_has | r->theirs)) {
		snprintf(why, len, "ifindex, name or originals missing");
		goto fail;
	}
	/* the ifindex is this boot's device only if the record is this
	 * boot's; one of an older usbethd (no boot id) only if the device
	 * of that ifindex still has its name
	 */
	if (boot[0] && boot_id()[0] && strcmp(boot, boot_id())) {
		snprintf(why, len, "written in another boot (%s)", boot);
		goto fail;
	}
	if (!boot[0] && (!if_indextoname(ifindex, now) ||
			 strcmp(now, r->ifname))) {
		snprintf(why, len, "no boot id, and ifindex %u is not %s now",
			 ifindex, r->ifname);
		goto fail;
	}
	/* an ifindex is reused at will (`ip link add ... index N`): one that
	 * names a device of another name now names another device
	 */
	if (if_indextoname(ifindex, now) && strcmp(now, r->ifname)) {
		snprintf(why, len, "ifindex %u is %s now, not %s: another "
			 "device", ifindex, now, r->ifname);
		goto fail;
	}
	free(text);
	return r;
bad:
	snprintf(why, len, "line %zu does not parse", lineno);
fail:
	free(r->bql);
	free(r);
	r = NULL;
out:
	free(text);
	return NULL;
}

int state_load_all(const char *dir, struct rec **list,
		   void (*warn)(const char *path, const char *why),
		   bool remove_bad)
{
	struct dirent *de;
	int count = 0;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		char path[PATH_MAX], why[128];
		uint32_t ifindex;
		struct rec *r;

		if (strncmp(de->d_name, "dev-", 4) ||
		    !num(de->d_name + 4, &ifindex) || !ifindex)
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >=
		    (int)sizeof(path))
			continue;
		r = load_one(path, ifindex, why, sizeof(why));
		if (!r) {
			if (warn)
				warn(path, why);
			if (remove_bad)
				unlink(path);	/* never trusted again */
			continue;
		}
		r->next = *list;
		*list = r;
		count++;
	}
	closedir(d);
	return count;
}
