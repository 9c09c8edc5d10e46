// SPDX-License-Identifier: GPL-2.0
/*
 * usbethd profiles, the set: profiles by name (override, masking),
 * "extends" resolved, and loading the directories, whose files are looked
 * at before they are opened and skipped when bad (profset_load_mode()).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "profile.h"

/* -------------------------------------------------------------- set -- */

static int find_idx(const struct profset *s, const char *name, size_t *at)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(s->p[mid]->name, name);

		if (!c) {
			*at = mid;
			return 1;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*at = lo;
	return 0;
}

const struct profile *profset_find(const struct profset *s, const char *name)
{
	size_t at;

	return find_idx(s, name, &at) ? s->p[at] : NULL;
}

int profset_add(struct profset *s, struct profile *p)
{
	struct profile **np;
	size_t at;

	if (find_idx(s, p->name, &at)) {
		profile_free(s->p[at]);
		s->p[at] = p;
		return 0;
	}
	if (s->n >= PROFILE_COUNT_MAX)
		return -1;
	np = realloc(s->p, (s->n + 1) * sizeof(*np));
	if (!np)
		return -1;
	s->p = np;
	memmove(&s->p[at + 1], &s->p[at], (s->n - at) * sizeof(*np));
	s->p[at] = p;
	s->n++;
	return 0;
}

void profset_remove(struct profset *s, const char *name)
{
	size_t at;

	if (!find_idx(s, name, &at))
		return;
	profile_free(s->p[at]);
	memmove(&s->p[at], &s->p[at + 1], (s->n - at - 1) * sizeof(*s->p));
	s->n--;
}

void profset_free(struct profset *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		profile_free(s->p[i]);
	free(s->p);
	s->p = NULL;
	s->n = 0;
}

int profset_resolve(struct profset *s, struct perr *err)
{
	size_t i;
	int k;

	for (i = 0; i < s->n; i++)
		s->p[i]->resolved = false;
	for (i = 0; i < s->n; i++) {
		const struct profile *chain[PROFILE_EXTENDS_DEPTH + 1];
		struct profile *p = s->p[i];
		int depth = 0, d;

		memset(err, 0, sizeof(*err));
		snprintf(err->file, sizeof(err->file), "%s", p->file);
		chain[depth++] = p;
		while (chain[depth - 1]->extends) {
			const struct profile *q = chain[depth - 1];
			const struct profile *parent =
				profset_find(s, q->extends);

			if (!parent) {
				snprintf(err->file, sizeof(err->file), "%s",
					 q->file);
				snprintf(err->msg, sizeof(err->msg),
					 "\"extends\": no profile named "
					 "\"%s\"", q->extends);
				return -1;
			}
			for (d = 0; d < depth; d++)
				if (chain[d] == parent) {
					snprintf(err->msg, sizeof(err->msg),
						 "\"extends\": cycle through "
						 "\"%s\"", parent->name);
					return -1;
				}
			if (depth > PROFILE_EXTENDS_DEPTH) {
				snprintf(err->msg, sizeof(err->msg),
					 "\"extends\": more than %d levels",
					 PROFILE_EXTENDS_DEPTH);
				return -1;
			}
			chain[depth++] = parent;
		}
		/* from the root down: children override, null unsets */
		for (k = 0; k < K_COUNT; k++) {
			p->eff[k].kind = V_NONE;
			for (d = depth - 1; d >= 0; d--)
				if (chain[d]->set[k].kind != V_NONE)
					p->eff[k] = chain[d]->set[k];
			if (p->eff[k].kind == V_UNSET)
				p->eff[k].kind = V_NONE;
		}
		if (p->eff[K_BQL_LIMIT_MIN].kind == V_VALUE &&
		    p->eff[K_BQL_LIMIT_MAX].kind == V_VALUE &&
		    p->eff[K_BQL_LIMIT_MIN].value >
		    p->eff[K_BQL_LIMIT_MAX].value) {
			snprintf(err->msg, sizeof(err->msg), "with what it "
				 "extends, \"bql-limit-min\" %u is above "
				 "\"bql-limit-max\" %u",
				 p->eff[K_BQL_LIMIT_MIN].value,
				 p->eff[K_BQL_LIMIT_MAX].value);
			return -1;
		}
		p->resolved = true;
	}
	memset(err, 0, sizeof(*err));
	return 0;
}

/* ----------------------------------------------------------- loading -- */

/*
 * Who may have written st: root, or the user we run as (a test's own
 * directory), and nobody else: not a group but root's, not everyone.
 */
static const char *unsafe(const struct stat *st)
{
	static char why[96];

	if (st->st_uid != 0 && st->st_uid != geteuid()) {
		snprintf(why, sizeof(why), "owned by uid %u, neither root nor "
			 "us", (unsigned int)st->st_uid);
		return why;
	}
	if (st->st_mode & S_IWOTH)
		return "writable by everyone";
	if ((st->st_mode & S_IWGRP) && st->st_gid != 0) {
		snprintf(why, sizeof(why), "writable by group %u",
			 (unsigned int)st->st_gid);
		return why;
	}
	return NULL;
}

/*
 * Reads a profile file. Its type, owner and mode are looked at before it
 * is opened (a link to /dev/zero or a FIFO is never opened), and the file
 * opened must be the one looked at. -1 with err->msg set; *odd tells a
 * file that is no profile at all (not a regular file) from a bad one.
 */
static int read_file(const char *path, char **text, size_t *len,
		     bool *masked, bool *odd, struct perr *err)
{
	struct stat st, fst;
	const char *why;
	char *buf;
	size_t n = 0;
	int fd;

	*masked = false;
	*odd = false;
	if (stat(path, &st)) {
		if (errno != ENOENT)
			goto sys;
		*odd = true;
		snprintf(err->msg, sizeof(err->msg), "a dangling link");
		return -1;
	}
	if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3)) {
		*masked = true;		/* a link to /dev/null masks */
		return 0;
	}
	if (!S_ISREG(st.st_mode)) {
		*odd = true;
		snprintf(err->msg, sizeof(err->msg), "not a regular file");
		return -1;
	}
	why = unsafe(&st);
	if (why) {
		snprintf(err->msg, sizeof(err->msg), "%s: refused", why);
		return -1;
	}
	if (st.st_size > PROFILE_FILE_MAX) {
		snprintf(err->msg, sizeof(err->msg), "larger than %d bytes",
			 PROFILE_FILE_MAX);
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		goto sys;
	if (fstat(fd, &fst))
		goto sys_close;
	if (fst.st_dev != st.st_dev || fst.st_ino != st.st_ino) {
		close(fd);
		snprintf(err->msg, sizeof(err->msg), "replaced while being "
			 "opened");
		return -1;
	}
	if (st.st_size == 0) {
		close(fd);
		*masked = true;	/* an empty file masks too */
		return 0;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		snprintf(err->msg, sizeof(err->msg), "out of memory");
		return -1;
	}
	while (n < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + n, (size_t)st.st_size - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			goto sys_close;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = 0;
	if (n == 0) {
		free(buf);
		*masked = true;
		return 0;
	}
	*text = buf;
	*len = n;
	return 0;
sys_close:
	close(fd);
sys:
	snprintf(err->msg, sizeof(err->msg), "%s", strerror(errno));
	return -1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct lctx {
	enum profset_mode mode;
	profset_warn_fn warn;
	void *arg;
	size_t skipped;
};

/* A problem with one file (or directory): skipped and reported, or the
 * end of the load. odd: it is no profile at all (see enum profset_mode).
 */
static int problem(struct lctx *l, const struct perr *err, bool odd)
{
	if (l->mode == PROFSET_SKIP_BAD ||
	    (l->mode == PROFSET_SKIP_ODD && odd)) {
		if (l->warn)
			l->warn(err, l->arg);
		l->skipped++;
		return 0;
	}
	return -1;
}

/*
 * A file of a later directory that cannot be used overrides nothing, yet
 * it was meant to: an administrator's /etc/usbeth/profiles.d/NAME.json
 * with a typo must not let the vendor's NAME apply again behind their
 * back. So the profile of that name loaded so far is dropped (masked, as
 * an empty file would), and the warning says so.
 */
static void keep_masked(struct profset *s, const char *name, struct perr *err)
{
	size_t len = strlen(err->msg);

	if (!profset_find(s, name))
		return;
	profset_remove(s, name);
	snprintf(err->msg + len, sizeof(err->msg) - len, " (so the profile "
		 "\"%s\" of an earlier directory stays masked)", name);
}

static int load_dir(struct profset *s, const char *dir, unsigned int idx,
		    struct lctx *l, struct perr *err)
{
	char **names = NULL;
	size_t n = 0, i;
	struct dirent *de;
	struct stat st;
	const char *why;
	int ret = 0;
	DIR *d;

	memset(err, 0, sizeof(*err));
	snprintf(err->file, sizeof(err->file), "%s", dir);
	if (stat(dir, &st)) {
		if (errno == ENOENT)
			return 0;
		snprintf(err->msg, sizeof(err->msg), "%s", strerror(errno));
		return problem(l, err, false);
	}
	why = unsafe(&st);
	if (why) {
		snprintf(err->msg, sizeof(err->msg), "%s: directory refused",
			 why);
		return problem(l, err, false);
	}
	d = opendir(dir);
	if (!d) {
		snprintf(err->msg, sizeof(err->msg), "%s", strerror(errno));
		return problem(l, err, false);
	}
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char **nn;

		if (de->d_name[0] == '.' || len <= 5 ||
		    strcmp(de->d_name + len - 5, ".json"))
			continue;
		if (n >= PROFILE_COUNT_MAX) {
			snprintf(err->file, sizeof(err->file), "%s", dir);
			snprintf(err->msg, sizeof(err->msg), "more than %d "
				 "profiles", PROFILE_COUNT_MAX);
			ret = -1;
			goto out;
		}
		nn = realloc(names, (n + 1) * sizeof(*nn));
		if (!nn || !(nn[n] = strdup(de->d_name))) {
			if (nn)
				names = nn;
			ret = -1;
			snprintf(err->msg, sizeof(err->msg), "out of memory");
			goto out;
		}
		names = nn;
		n++;
	}
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n; i++) {
		char path[PATH_MAX], name[PROFILE_NAME_MAX + 8];
		struct profile *p;
		char *text = NULL;
		size_t len = 0, nlen = strlen(names[i]) - 5;
		bool masked, odd;

		memset(err, 0, sizeof(*err));
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		snprintf(err->file, sizeof(err->file), "%s", path);
		if (nlen > PROFILE_NAME_MAX) {
			snprintf(err->msg, sizeof(err->msg), "the name is "
				 "longer than %d bytes", PROFILE_NAME_MAX);
			ret = problem(l, err, true);
			if (ret)
				goto out;
			continue;
		}
		snprintf(name, sizeof(name), "%.*s", (int)nlen, names[i]);
		if (!profile_name_ok(name)) {
			snprintf(err->msg, sizeof(err->msg), "not a profile "
				 "name (letters, digits and ._-+@)");
			ret = problem(l, err, true);
			if (ret)
				goto out;
			continue;
		}
		if (read_file(path, &text, &len, &masked, &odd, err)) {
			keep_masked(s, name, err);
			ret = problem(l, err, odd);
			if (ret)
				goto out;
			continue;
		}
		if (masked) {
			profset_remove(s, name);
			continue;
		}
		ret = profile_parse(path, name, text, len, &p, err);
		free(text);
		if (ret) {
			keep_masked(s, name, err);
			ret = problem(l, err, false);
			if (ret)
				goto out;
			continue;
		}
		p->dir = idx;
		if (profset_add(s, p)) {
			profile_free(p);
			snprintf(err->msg, sizeof(err->msg), "too many "
				 "profiles");
			ret = -1;
			goto out;
		}
	}
out:
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(d);
	return ret;
}

int profset_load(struct profset *s, const char *const *dirs, size_t ndirs,
		 struct perr *err)
{
	return profset_load_mode(s, dirs, ndirs, PROFSET_STRICT, NULL, NULL,
				 NULL, err);
}

int profset_load_available(struct profset *s, const char *dir,
			   profset_warn_fn warn, void *arg, struct perr *err)
{
	struct lctx l = { PROFSET_SKIP_BAD, warn, arg, 0 };

	memset(s, 0, sizeof(*s));
	if (!load_dir(s, dir, 0, &l, err))
		return 0;
	profset_free(s);
	return -1;
}

int profset_load_mode(struct profset *s, const char *const *dirs,
		      size_t ndirs, enum profset_mode mode,
		      profset_warn_fn warn, void *arg, size_t *skipped,
		      struct perr *err)
{
	struct lctx l = { mode, warn, arg, 0 };
	size_t i;

	memset(s, 0, sizeof(*s));
	memset(err, 0, sizeof(*err));
	for (i = 0; i < ndirs; i++)
		if (load_dir(s, dirs[i], (unsigned int)i, &l, err))
			goto fail;
	/* a profile that cannot be resolved (its parent missing or
	 * skipped, a cycle) is bad too: dropped, and the rest resolved
	 * again, as dropping it may break another
	 */
	while (profset_resolve(s, err)) {
		char name[PROFILE_NAME_MAX + 1];

		if (mode != PROFSET_SKIP_BAD || !err->file[0])
			goto fail;
		for (i = 0; i < s->n && strcmp(s->p[i]->file, err->file); i++)
			;
		if (i == s->n)
			goto fail;
		snprintf(name, sizeof(name), "%s", s->p[i]->name);
		problem(&l, err, false);
		profset_remove(s, name);
	}
	if (skipped)
		*skipped = l.skipped;
	return 0;
fail:
	profset_free(s);
	return -1;
}
